// The agent's codex tools over a real folder: codex_lookup finds entries by name or key, read_file
// reads codex files, and the write tools change them only when the novelist allows it, with every
// confinement rule of the manuscript still applied.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODEX_WRITE_SETTING, type CodexAccess } from '../../../src/agent/tools';
import { parseCodexFile } from '../../../src/codex/file';
import { LOOKUP_MAX_CHARS, findEntries } from '../../../src/codex/lookup';
import type { CodexEntry } from '../../../src/codex/types';
import { parseProjectConfig } from '../../../src/project/config';
import { makeSandbox, snapshot, type Sandbox } from './toolsHelpers';

const QINGWU = 'codex/characters/qingwu.md';
const QINGWU_TEXT = '---\nname: 青梧\nkind: character\nkeys: [掌柜, Qingwu]\n---\n青梧是听雨轩的掌柜，左手有一道旧疤。\n';
const INN_TEXT = '---\nname: 听雨轩\nkind: place\n---\n城南的客栈，二楼临河。\n';

function entryOf(rel: string, text: string): CodexEntry {
  const parsed = parseCodexFile(rel, text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.entry;
}

describe('agent tools: the codex', () => {
  let box: Sandbox;
  let mayWrite: boolean;
  function withCodex(): void {
    box.write(QINGWU, QINGWU_TEXT);
    box.write('codex/places/inn.md', INN_TEXT);
    box.write('chapters/01.md', '# 第一章\n');
    const access: CodexAccess = {
      folder: 'codex',
      mayWrite: () => mayWrite,
      entries: () => [entryOf(QINGWU, box.read(QINGWU)), entryOf('codex/places/inn.md', INN_TEXT)],
    };
    box.ctx.codex = access;
    // The manuscript as the project config makes it: the codex folder is never manuscript.
    box.ctx.globs = parseProjectConfig('').config.manuscriptMatcher;
  }
  beforeEach(() => {
    box = makeSandbox({ lang: 'zh' });
    mayWrite = false;
    withCodex();
  });
  afterEach(() => box.cleanup());

  it('codex_lookup finds an entry by a key, case-insensitively, and returns its lore', async () => {
    for (const query of ['掌柜', 'qingwu', ' QINGWU ', '青梧']) {
      const out = await box.run('codex_lookup', { query });
      assert.equal(out.isError, false, query);
      assert.match(out.result, /左手有一道旧疤/, query);
      assert.match(out.result, /codex\/characters\/qingwu\.md/, query);
      assert.doesNotMatch(out.result, /二楼临河/, query);
    }
    const none = await box.run('codex_lookup', { query: '沈砚' });
    assert.equal(none.isError, false);
    assert.match(none.result, /没有名字或关键词为「沈砚」/);
    assert.equal((await box.run('codex_lookup', { query: '  ' })).isError, true);
    assert.equal((await box.run('codex_lookup', {})).isError, true, 'query is required');
  });

  it('codex_lookup is bounded however long the lore', async () => {
    const long = Array.from({ length: 8 }, (_, i) => entryOf(`codex/rules/r${i}.md`, `---\nname: 规则${i}\nkeys: [规则]\n---\n${'长'.repeat(5000)}\n`));
    box.ctx.codex = { folder: 'codex', mayWrite: () => false, entries: () => long };
    const out = await box.run('codex_lookup', { query: '规则' });
    assert.ok(out.result.length <= LOOKUP_MAX_CHARS + 200, String(out.result.length));
    assert.match(out.result, /还有 \d+ 条匹配/);
    assert.equal(findEntries(long, '规则3')[0]?.name, '规则3', 'an exact name comes first');
  });

  it('read_file reads a codex file; list_manuscript does not list the codex', async () => {
    const out = await box.run('read_file', { path: QINGWU });
    assert.equal(out.isError, false, out.result);
    assert.match(out.result, /左手有一道旧疤/);
    const list = await box.run('list_manuscript', {});
    assert.doesNotMatch(list.result, /qingwu/);
  });

  it('write, edit and append are refused on codex files while the setting is off, with what to do', async () => {
    const before = snapshot(box.root);
    for (const [name, args] of [
      ['write_file', { path: QINGWU, content: '改掉。' }],
      ['edit_file', { path: QINGWU, old_text: '旧疤', new_text: '新疤' }],
      ['append_file', { path: 'codex/characters/new.md', content: '新条目' }],
      ['write_file', { path: './codex//characters/qingwu.md', content: '改掉。' }],
      ['write_file', { path: 'Codex/Characters/QINGWU.md', content: '改掉。' }],
    ] as const) {
      const out = await box.run(name, args);
      assert.equal(out.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(out.result, /设定集归作者所有/);
      assert.ok(out.result.includes(CODEX_WRITE_SETTING));
    }
    assert.deepEqual(snapshot(box.root), before, 'nothing was written');
  });

  it('with the setting on, the write tools change codex files, still confined', async () => {
    mayWrite = true;
    const out = await box.run('edit_file', { path: QINGWU, old_text: '旧疤', new_text: '新疤' });
    assert.equal(out.isError, false, out.result);
    assert.match(box.read(QINGWU), /新疤/);
    assert.equal(out.change?.path, QINGWU);
    const made = await box.run('write_file', { path: 'codex/items/bell.md', content: '---\nname: 铜铃\n---\n一只旧铜铃。\n' });
    assert.equal(made.isError, false, made.result);
    // Not an entry file (.txt), hidden, a link out, or reserved: refused as any other path.
    assert.equal((await box.run('write_file', { path: 'codex/notes.txt', content: 'x' })).isError, true);
    assert.equal((await box.run('write_file', { path: 'codex/.obsidian/x.md', content: 'x' })).isError, true);
    assert.equal((await box.run('write_file', { path: 'codex/../../outside/secret.md', content: 'x' })).isError, true);
    fs.symlinkSync(box.outside, path.join(box.root, 'codex', 'out'));
    const linked = await box.run('write_file', { path: 'codex/out/secret.md', content: 'x' });
    assert.equal(linked.isError, true, linked.result);
    assert.equal(fs.readFileSync(path.join(box.outside, 'secret.md'), 'utf8').startsWith('SECRET'), true);
  });

  it('without a codex in the context, codex paths are not manuscript and codex_lookup says there is none', async () => {
    delete box.ctx.codex;
    assert.equal((await box.run('read_file', { path: QINGWU })).isError, true);
    const out = await box.run('codex_lookup', { query: '青梧' });
    assert.equal(out.isError, false);
    assert.match(out.result, /没有设定集/);
  });
});
