import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { READ_CAP_CHARS, TOOL_NAMES, describeChange, toolSchemas } from '../../../src/agent/tools';
import { makeSandbox, type Sandbox } from './toolsHelpers';

describe('agent/tools', () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
  });
  afterEach(() => sb.cleanup());

  describe('list_manuscript', () => {
    it('says how to start when there are no files', async () => {
      const out = await sb.run('list_manuscript', {});
      assert.equal(out.isError, false);
      assert.match(out.result, /No manuscript files yet.*write_file/);
    });

    it('lists manuscript files in reading order with chars and lines, and nothing else', async () => {
      sb.write('chapters/10.md', 'ten\n');
      sb.write('chapters/2.md', 'two\nlines\n');
      sb.write('chapters/1.md', '一二三');
      sb.write('第一卷/第十章 雨夜.md', '雨');
      sb.write('第一卷/第二章 开端.md', '晴');
      sb.write('notes.json', '{}');
      sb.write('worldline.yaml', 'title: x');
      sb.write('.git/x.md', 'no');
      sb.write('.worldline/y.md', 'no');
      sb.write('node_modules/z.md', 'no');
      sb.write('a b/c d.txt', 'spaces');
      const out = await sb.run('list_manuscript', {});
      assert.equal(out.isError, false);
      const lines = out.result.split('\n');
      assert.match(lines[0] ?? '', /^6 manuscript files, 25 chars in total/);
      assert.deepEqual(lines.slice(1).map((l) => l.split(' — ')[0]), [
        'a b/c d.txt',
        'chapters/1.md',
        'chapters/2.md',
        'chapters/10.md',
        '第一卷/第二章 开端.md',
        '第一卷/第十章 雨夜.md',
      ]);
      assert.ok(lines.includes('chapters/2.md — 10 chars, 2 lines'));
      assert.ok(lines.includes('chapters/1.md — 3 chars, 1 line'));
    });

    it('ignores any arguments (tools without parameters)', async () => {
      assert.equal((await sb.run('list_manuscript', 'null')).isError, false);
      assert.equal((await sb.run('list_manuscript', '')).isError, false);
      assert.equal((await sb.run('list_manuscript', '{"x":1}')).isError, false);
    });
  });

  describe('read_file', () => {
    const text = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

    it('reads a whole file after a header, without line numbers', async () => {
      sb.write('chapters/01.md', 'first\nsecond\n');
      const out = await sb.run('read_file', { path: 'chapters/01.md' });
      assert.deepEqual(out, { result: 'chapters/01.md lines 1-2 of 2\nfirst\nsecond', isError: false });
    });

    it('reads a line range, clamping endLine to the end', async () => {
      sb.write('c.md', text);
      assert.equal((await sb.run('read_file', { path: 'c.md', startLine: 3, endLine: 5 })).result, 'c.md lines 3-5 of 120\nline 3\nline 4\nline 5');
      assert.equal((await sb.run('read_file', { path: 'c.md', startLine: 119, endLine: 500 })).result, 'c.md lines 119-120 of 120\nline 119\nline 120');
      assert.equal((await sb.run('read_file', { path: 'c.md', endLine: 1 })).result, 'c.md lines 1-1 of 120\nline 1');
    });

    it('refuses impossible ranges with the file length', async () => {
      sb.write('c.md', text);
      const past = await sb.run('read_file', { path: 'c.md', startLine: 121 });
      assert.equal(past.isError, true);
      assert.match(past.result, /has 120 lines; startLine 121 is past the end/);
      const back = await sb.run('read_file', { path: 'c.md', startLine: 9, endLine: 3 });
      assert.match(back.result, /endLine \(3\) is before startLine \(9\)/);
      assert.equal((await sb.run('read_file', { path: 'c.md', startLine: 0 })).isError, true);
      assert.equal((await sb.run('read_file', { path: 'c.md', startLine: 1.5 })).isError, true);
    });

    it('reports missing and empty files', async () => {
      const miss = await sb.run('read_file', { path: 'chapters/09.md' });
      assert.equal(miss.isError, true);
      assert.match(miss.result, /does not exist.*list_manuscript.*write_file/);
      sb.write('e.md', '');
      assert.deepEqual(await sb.run('read_file', { path: 'e.md' }), { result: 'e.md is empty (0 lines).', isError: false });
    });

    it('caps long output and says where to continue; continuing reconstructs the file', async () => {
      const line = '雨'.repeat(999);
      const big = Array.from({ length: 200 }, () => line).join('\n') + '\n';
      sb.write('big.md', big);
      const pieces: string[] = [];
      let start = 1;
      for (let guard = 0; guard < 10; guard++) {
        const out = await sb.run('read_file', { path: 'big.md', startLine: start });
        assert.equal(out.isError, false);
        assert.ok(out.result.length <= READ_CAP_CHARS + 200, `result is ${out.result.length} chars`);
        const [header, ...rest] = out.result.split('\n');
        const m = /lines (\d+)-(\d+) of 200/.exec(header ?? '');
        assert.ok(m, header);
        const next = /startLine=(\d+)/.exec(out.result);
        const body = next ? rest.slice(0, -1) : rest;
        pieces.push(...body);
        if (!next) break;
        assert.equal(Number(next[1]), Number(m[2]) + 1);
        start = Number(next[1]);
      }
      assert.equal(pieces.join('\n') + '\n', big);
    });

    it('shows the start of a single enormous line', async () => {
      sb.write('one.txt', 'x'.repeat(READ_CAP_CHARS * 2));
      const out = await sb.run('read_file', { path: 'one.txt' });
      assert.equal(out.isError, false);
      assert.match(out.result, /^one\.txt lines 1-1 of 1\n/);
      assert.match(out.result, /line 1 is longer than 60,000 characters/);
    });

    it('shows CRLF files without carriage returns', async () => {
      sb.write('w.md', 'a\r\nb\r\n');
      assert.equal((await sb.run('read_file', { path: 'w.md' })).result, 'w.md lines 1-2 of 2\na\nb');
    });

    it('says when the path is a folder', async () => {
      fs.mkdirSync(path.join(sb.root, 'odd.md'));
      const out = await sb.run('read_file', { path: 'odd.md' });
      assert.equal(out.isError, true);
      assert.match(out.result, /is a folder, not a file/);
    });
  });

  describe('write_file', () => {
    it('creates a file and its folders, reporting the change', async () => {
      const out = await sb.run('write_file', { path: '第一卷/第一章 开端.md', content: '天色将晚。\n' });
      assert.equal(out.isError, false);
      assert.equal(out.result, 'created 第一卷/第一章 开端.md, +6 chars (now 6 chars, 1 line).');
      assert.deepEqual(out.change, { path: '第一卷/第一章 开端.md', before: undefined, after: '天色将晚。\n', kind: 'write' });
      assert.equal(sb.read('第一卷/第一章 开端.md'), '天色将晚。\n');
    });

    it('replaces a whole file and reports the difference', async () => {
      sb.write('c.md', 'old text that is long');
      const out = await sb.run('write_file', { path: 'c.md', content: 'new' });
      assert.equal(out.result, 'wrote c.md, -18 chars (now 3 chars, 1 line).');
      assert.equal(out.change?.before, 'old text that is long');
      assert.equal(sb.read('c.md'), 'new');
    });

    it('reports identical content as unchanged, without a change record', async () => {
      sb.write('c.md', 'same');
      const out = await sb.run('write_file', { path: 'c.md', content: 'same' });
      assert.equal(out.isError, false);
      assert.equal(out.change, undefined);
      assert.match(out.result, /nothing changed/);
    });

    it('keeps a CRLF file CRLF', async () => {
      sb.write('w.md', 'a\r\nb\r\n');
      await sb.run('write_file', { path: 'w.md', content: 'x\ny\n' });
      assert.equal(sb.read('w.md'), 'x\r\ny\r\n');
    });

    it('refuses non-manuscript files and leaves them alone', async () => {
      sb.write('worldline.yaml', 'title: t\n');
      for (const p of ['notes.json', 'worldline.yaml', '.worldline/sessions/x.md', '.git/HEAD.md']) {
        const out = await sb.run('write_file', { path: p, content: 'pwned' });
        assert.equal(out.isError, true, p);
        assert.equal(out.change, undefined);
      }
      assert.equal(sb.read('worldline.yaml'), 'title: t\n');
      assert.ok(!fs.existsSync(path.join(sb.root, 'notes.json')));
      assert.ok(!fs.existsSync(path.join(sb.root, '.worldline')));
      assert.ok(!fs.existsSync(path.join(sb.root, '.git')));
    });

    it('explains a file standing where a folder is needed', async () => {
      sb.write('a.md', 'x');
      const out = await sb.run('write_file', { path: 'a.md/b.md', content: 'y' });
      assert.equal(out.isError, true);
      assert.match(out.result, /is a file where a folder is needed/);
    });
  });

  describe('edit_file', () => {
    const story = '第一章\n青梧推开门，雨还在下。\n她说：“走吧。”\n他说：“走吧。”\n';

    it('replaces exactly one match', async () => {
      sb.write('c.md', story);
      const out = await sb.run('edit_file', { path: 'c.md', old_text: '雨还在下', new_text: '雨停了' });
      assert.equal(out.isError, false);
      assert.equal(out.result, 'edited c.md, -1 char (now 33 chars, 4 lines).');
      assert.equal(sb.read('c.md'), story.replace('雨还在下', '雨停了'));
      assert.deepEqual(out.change, { path: 'c.md', before: story, after: sb.read('c.md'), kind: 'edit' });
    });

    it('refuses several matches with the count, the lines and what to do', async () => {
      sb.write('c.md', story);
      const out = await sb.run('edit_file', { path: 'c.md', old_text: '说：“走吧。”', new_text: '笑了' });
      assert.equal(out.isError, true);
      assert.match(out.result, /occurs 2 times in c\.md \(lines 3, 4\)\. Include more of the surrounding text/);
      assert.equal(sb.read('c.md'), story);
    });

    it('counts overlapping matches as ambiguous', async () => {
      sb.write('c.md', 'aaa\n');
      const out = await sb.run('edit_file', { path: 'c.md', old_text: 'aa', new_text: 'b' });
      assert.match(out.result, /occurs 2 times/);
    });

    it('refuses zero matches, quoting the closest line', async () => {
      sb.write('c.md', story);
      const out = await sb.run('edit_file', { path: 'c.md', old_text: '青梧推开窗，雨还在下。', new_text: 'x' });
      assert.equal(out.isError, true);
      assert.match(out.result, /not found in c\.md\. The closest line is 2: "青梧推开门，雨还在下。"\. Call read_file around line 2/);
      assert.equal(sb.read('c.md'), story);
    });

    it('finds the closest line inside a long paragraph', async () => {
      sb.write('p.md', `Intro.\n${'She walked along the river for a long time, thinking of nothing. '.repeat(5)}The lamp was still burning in the window when she came home.\n`);
      const out = await sb.run('edit_file', { path: 'p.md', old_text: 'The lamp was still burning in the window when he came home.', new_text: 'x' });
      assert.match(out.result, /closest line is 2/);
    });

    it('says when only whitespace differs', async () => {
      sb.write('c.md', 'One two\nthree four.\n');
      const out = await sb.run('edit_file', { path: 'c.md', old_text: 'One two three four.', new_text: 'x' });
      assert.match(out.result, /spaces and line breaks are ignored/);
    });

    it('gives general advice when nothing is close', async () => {
      sb.write('c.md', story);
      const out = await sb.run('edit_file', { path: 'c.md', old_text: 'zzzz qqqq', new_text: 'x' });
      assert.match(out.result, /not found.*Call read_file and copy/);
    });

    it('keeps "$&" and other replacement patterns literal', async () => {
      sb.write('c.md', 'price: X\n');
      await sb.run('edit_file', { path: 'c.md', old_text: 'X', new_text: "$& $1 $$ $' $`" });
      assert.equal(sb.read('c.md'), "price: $& $1 $$ $' $`\n");
    });

    it('may delete text with an empty new_text', async () => {
      sb.write('c.md', 'keep cut keep');
      await sb.run('edit_file', { path: 'c.md', old_text: ' cut', new_text: '' });
      assert.equal(sb.read('c.md'), 'keep keep');
    });

    it('refuses an empty old_text, identical texts and missing files', async () => {
      sb.write('c.md', story);
      assert.match((await sb.run('edit_file', { path: 'c.md', old_text: '', new_text: 'x' })).result, /old_text is empty.*append_file.*write_file/);
      assert.match((await sb.run('edit_file', { path: 'c.md', old_text: '雨', new_text: '雨' })).result, /identical/);
      assert.match((await sb.run('edit_file', { path: 'nope.md', old_text: 'a', new_text: 'b' })).result, /does not exist/);
    });

    it('matches LF old_text in a CRLF file and keeps it CRLF', async () => {
      sb.write('w.md', 'a\r\nb\r\nc\r\n');
      const out = await sb.run('edit_file', { path: 'w.md', old_text: 'a\nb', new_text: 'x\ny\nz' });
      assert.equal(out.isError, false, out.result);
      assert.equal(sb.read('w.md'), 'x\r\ny\r\nz\r\nc\r\n');
    });
  });

  describe('append_file', () => {
    it('creates a missing file', async () => {
      const out = await sb.run('append_file', { path: 'chapters/02.md', content: '第二章\n' });
      assert.equal(out.result, 'created chapters/02.md, +4 chars (now 4 chars, 1 line).');
      assert.equal(out.change?.kind, 'append');
      assert.equal(out.change?.before, undefined);
    });

    it('adds a line break first when the file does not end with one', async () => {
      sb.write('c.md', 'end.');
      const out = await sb.run('append_file', { path: 'c.md', content: 'Next.' });
      assert.equal(sb.read('c.md'), 'end.\nNext.');
      assert.equal(out.result, 'appended to c.md, +6 chars (now 10 chars, 2 lines).');
    });

    it('adds nothing extra when the file ends with a newline or the content starts with one', async () => {
      sb.write('a.md', 'end.\n');
      await sb.run('append_file', { path: 'a.md', content: 'Next.' });
      assert.equal(sb.read('a.md'), 'end.\nNext.');
      sb.write('b.md', 'end.');
      await sb.run('append_file', { path: 'b.md', content: '\n\nNext.' });
      assert.equal(sb.read('b.md'), 'end.\n\nNext.');
    });

    it('keeps CRLF files CRLF and refuses empty content', async () => {
      sb.write('w.md', 'a\r\nb');
      await sb.run('append_file', { path: 'w.md', content: 'c\nd\n' });
      assert.equal(sb.read('w.md'), 'a\r\nb\r\nc\r\nd\r\n');
      const out = await sb.run('append_file', { path: 'w.md', content: '' });
      assert.equal(out.isError, true);
      assert.match(out.result, /content is empty/);
    });
  });

  describe('world_state_get', () => {
    it('returns the state as JSON', async () => {
      const out = await sb.run('world_state_get', {});
      assert.equal(out.isError, false);
      assert.deepEqual(JSON.parse(out.result), { time: '傍晚', location: '茶馆' });
    });

    it('passes a string through, awaits promises, and reports no state', async () => {
      const a = makeSandbox({ state: () => '{"time":"dawn"}' });
      const b = makeSandbox({ state: async () => ({ location: 'pier' }) });
      const c = makeSandbox({ state: () => undefined });
      try {
        assert.equal((await a.run('world_state_get', {})).result, '{"time":"dawn"}');
        assert.deepEqual(JSON.parse((await b.run('world_state_get', {})).result), { location: 'pier' });
        assert.match((await c.run('world_state_get', {})).result, /no scene state yet/);
      } finally {
        a.cleanup();
        b.cleanup();
        c.cleanup();
      }
    });

    it('turns a failing state provider into an error result', async () => {
      const a = makeSandbox({ state: () => { throw new Error('store closed'); } });
      try {
        const out = await a.run('world_state_get', {});
        assert.equal(out.isError, true);
        assert.match(out.result, /could not be read \(store closed\)/);
      } finally {
        a.cleanup();
      }
    });
  });

  describe('arguments', () => {
    it('rejects malformed JSON with the expected shape', async () => {
      const out = await sb.run('read_file', '{"path": "a.md"');
      assert.equal(out.isError, true);
      assert.match(out.result, /not valid JSON/);
      assert.match(out.result, /read_file expects arguments as a JSON object: \{"path": string, "startLine"\?: integer >= 1, "endLine"\?: integer >= 1\}/);
    });

    it('rejects non-objects, missing fields, wrong types and unknown fields', async () => {
      assert.match((await sb.run('write_file', '[1]')).result, /write_file expects arguments as a JSON object: \{"path": string, "content": string\}/);
      assert.match((await sb.run('write_file', { path: 'a.md' })).result, /Missing "content"/);
      assert.match((await sb.run('write_file', { path: 3, content: 'x' })).result, /"path" must be a string, got a number/);
      assert.match((await sb.run('edit_file', { path: 'a.md', old_text: ['x'], new_text: '' })).result, /"old_text" must be a string, got an array/);
      assert.match((await sb.run('read_file', { path: 'a.md', startLine: '3' })).result, /"startLine" must be a whole number of at least 1, got "3"/);
      assert.match((await sb.run('read_file', { path: 'a.md', start_line: 3 })).result, /Unknown field "start_line"/);
      assert.match((await sb.run('edit_file', { path: 'a.md', oldText: 'a', new_text: 'b' })).result, /Unknown field "oldText".*"old_text": string/);
    });

    it('accepts null for optional fields and double-encoded JSON', async () => {
      sb.write('a.md', 'x\n');
      assert.equal((await sb.run('read_file', { path: 'a.md', startLine: null, endLine: null })).isError, false);
      assert.equal((await sb.run('read_file', JSON.stringify(JSON.stringify({ path: 'a.md' })))).isError, false);
    });

    it('lists the tools for an unknown name', async () => {
      const out = await sb.run('delete_file', { path: 'a.md' });
      assert.equal(out.isError, true);
      assert.equal(out.result, `Unknown tool "delete_file". Available tools: ${TOOL_NAMES.join(', ')}.`);
    });
  });

  describe('Chinese results', () => {
    it('answers in Chinese', async () => {
      const zh = makeSandbox({ lang: 'zh' });
      try {
        const w = await zh.run('write_file', { path: '第一章.md', content: '开端' });
        assert.equal(w.result, '新建 第一章.md，+2 字（现共 2 字、1 行）。');
        assert.match((await zh.run('read_file', { path: '第一章.md' })).result, /^第一章\.md 第 1-1 行（共 1 行）\n开端$/);
        assert.match((await zh.run('read_file', { path: '../x.md' })).result, /超出了正文范围/);
        assert.match((await zh.run('edit_file', { path: '第一章.md', old_text: '结局', new_text: 'x' })).result, /找不到 old_text/);
        assert.match((await zh.run('nope', {})).result, /没有名为 "nope" 的工具/);
        assert.match((await zh.run('list_manuscript', {})).result, /共 1 个正文文件/);
      } finally {
        zh.cleanup();
      }
    });
  });
});

describe('agent/tools toolSchemas', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`describes every tool in OpenAI function format (${lang})`, () => {
      const schemas = toolSchemas(lang);
      assert.deepEqual(schemas.map((s) => s.function.name), [...TOOL_NAMES]);
      for (const s of schemas) {
        assert.equal(s.type, 'function');
        assert.equal(s.function.parameters.type, 'object');
        assert.equal(s.function.parameters.additionalProperties, false);
        assert.ok(s.function.description.length > 20);
        for (const r of s.function.parameters.required) assert.ok(r in s.function.parameters.properties);
        if (lang === 'zh') assert.match(s.function.description, /[\u4e00-\u9fff]/);
      }
      const byName = Object.fromEntries(schemas.map((s) => [s.function.name, s.function.parameters]));
      assert.deepEqual(byName.read_file?.required, ['path']);
      assert.deepEqual(byName.edit_file?.required, ['path', 'old_text', 'new_text']);
      assert.deepEqual(byName.list_manuscript?.properties, {});
      assert.equal(byName.read_file?.properties.startLine?.type, 'integer');
      assert.doesNotThrow(() => JSON.stringify(schemas));
    });
  }
});

describe('agent/tools describeChange', () => {
  it('writes one compact line per kind', () => {
    assert.equal(describeChange({ path: 'c/03.md', before: undefined, after: 'x'.repeat(1204), kind: 'write' }, 'en'), 'created c/03.md, +1,204 chars');
    assert.equal(describeChange({ path: 'c/03.md', before: 'abc', after: 'a', kind: 'write' }, 'en'), 'wrote c/03.md, -2 chars');
    assert.equal(describeChange({ path: 'c/03.md', before: 'abc', after: 'abd', kind: 'edit' }, 'en'), 'edited c/03.md, +0 chars');
    assert.equal(describeChange({ path: 'c/03.md', before: 'a', after: 'a\nb', kind: 'append' }, 'en'), 'appended to c/03.md, +2 chars');
    assert.equal(describeChange({ path: 'c/03.md', before: undefined, after: '😀', kind: 'append' }, 'en'), 'created c/03.md, +1 char');
    assert.equal(describeChange({ path: '第一章.md', before: '一', after: '一二三', kind: 'append' }, 'zh'), '续写 第一章.md，+2 字');
    assert.equal(describeChange({ path: '第一章.md', before: '一二', after: '三', kind: 'edit' }, 'zh'), '修改 第一章.md，-1 字');
  });
});
