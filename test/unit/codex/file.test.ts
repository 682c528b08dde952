// Codex files: the front matter's fields with their defaults and warnings, files without front
// matter, the refusals (alias bombs, huge files, broken YAML), and format → parse as the identity
// on hostile names, keys and bodies.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatCodexFile, normalizeBody, normalizeKey, normalizeKeys, parseCodexFile, MAX_CODEX_FILE_CHARS } from '../../../src/codex/file';
import { CODEX_KINDS, type CodexEntry } from '../../../src/codex/types';
import { runs } from '../long-mode';

function parsed(path: string, text: string): { entry: CodexEntry; warnings: string[] } {
  const r = parseCodexFile(path, text);
  if (!r.ok) assert.fail(`expected an entry, got: ${r.error}`);
  return r;
}

describe('codex file: parse', () => {
  it('reads every field', () => {
    const { entry, warnings } = parsed('codex/characters/qingwu.md', [
      '---',
      'name: 青雾',
      'kind: place',
      'keys: [雾儿, Qingwu]',
      'secondary_keys:',
      '  - 剑',
      'logic: not-all',
      'always: true',
      'priority: 7',
      'depth: 12',
      'disabled: true',
      '---',
      '',
      '她生在雪山。',
      '',
      '## 往事',
      '---',
      '一段往事。',
      '',
    ].join('\n'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(entry, {
      path: 'codex/characters/qingwu.md', name: '青雾', kind: 'place', keys: ['雾儿', 'Qingwu'], secondaryKeys: ['剑'],
      logic: 'not-all', always: true, priority: 7, depth: 12, disabled: true, body: '她生在雪山。\n\n## 往事\n---\n一段往事。',
    });
  });

  it('defaults: the file name, the kind its folder names (else rule), and-any, priority 0, no depth', () => {
    const { entry } = parsed('codex/places/长安.md', '---\nkeys: 长安城\n---\nbody');
    assert.equal(entry.name, '长安');
    assert.equal(entry.kind, 'place');
    assert.deepEqual(entry.keys, ['长安城'], 'one string is a list of one');
    assert.equal(entry.logic, 'and-any');
    assert.equal(entry.priority, 0);
    assert.equal(entry.always, false);
    assert.equal(entry.disabled, false);
    assert.equal('depth' in entry, false);
    assert.equal(parsed('codex/style/x.md', '---\n---\n').entry.kind, 'style');
    assert.equal(parsed('codex/notes/x.md', '---\n---\n').entry.kind, 'rule');
  });

  it('a file without front matter is an entry named after its file, the whole text its body', () => {
    const { entry, warnings } = parsed('codex/魔法体系.md', '\ufeff\n\n# 魔法\n\n灵力分九品。\r\n');
    assert.deepEqual(warnings, []);
    assert.equal(entry.name, '魔法体系');
    assert.equal(entry.body, '# 魔法\n\n灵力分九品。');
    assert.deepEqual(entry.keys, []);
    // An opening rule with nothing closing it is lore too.
    assert.equal(parsed('codex/a.md', '---\nno close').entry.body, '---\nno close');
  });

  it('CRLF files, an empty front matter and a `...` closing line', () => {
    assert.equal(parsed('codex/a.md', '---\r\nname: A\r\n---\r\n\r\nline one\r\nline two\r\n').entry.body, 'line one\nline two');
    assert.equal(parsed('codex/a.md', '---\n---\nbody').entry.body, 'body');
    assert.equal(parsed('codex/a.md', '---\nname: B\n...\nbody').entry.name, 'B');
  });

  it('warns and keeps out unknown fields and wrong values, with defaults', () => {
    const { entry, warnings } = parsed('codex/characters/a.md', [
      '---', 'name: ""', 'kind: dragon', 'keys: [x, {a: 1}, 1984]', 'logic: maybe', 'always: yes please', 'priority: high',
      'depth: -2', 'colour: red', '---', 'b',
    ].join('\n'));
    assert.equal(entry.name, 'a');
    assert.equal(entry.kind, 'character');
    assert.deepEqual(entry.keys, ['x', '1984']);
    assert.equal(entry.logic, 'and-any');
    assert.equal(entry.always, false);
    assert.equal(entry.priority, 0);
    assert.equal('depth' in entry, false);
    assert.equal('colour' in entry, false);
    assert.equal(warnings.length, 8, warnings.join('\n'));
    assert.ok(warnings.some((w) => w.includes('"colour"')));
  });

  it('logic is read loosely (case, spaces, underscores)', () => {
    assert.equal(parsed('codex/a.md', '---\nlogic: AND_ALL\n---\n').entry.logic, 'and-all');
    assert.equal(parsed('codex/a.md', '---\nlogic: Not Any\n---\n').entry.logic, 'not-any');
  });

  it('keys are one line each, trimmed, without duplicates (ignoring case)', () => {
    const { entry } = parsed('codex/a.md', '---\nkeys: ["  Ann  ", "ann", "A\\nB", "", "   "]\n---\n');
    assert.deepEqual(entry.keys, ['Ann', 'A B']);
  });

  it('refuses broken YAML with its line, a front matter that is not fields, alias bombs and huge files', () => {
    const broken = parseCodexFile('codex/a.md', '---\nname: a\nkeys: [x\n---\n');
    assert.equal(broken.ok, false);
    assert.match(!broken.ok ? broken.error : '', /line \d/);
    const list = parseCodexFile('codex/a.md', '---\n- a\n- b\n---\n');
    assert.equal(list.ok, false);
    const bomb = ['---', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`);
    bomb.push('---', '');
    const started = Date.now();
    const r = parseCodexFile('codex/a.md', bomb.join('\n'));
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', /alias/i);
    assert.ok(Date.now() - started < 2000);
    const huge = parseCodexFile('codex/a.md', 'x'.repeat(MAX_CODEX_FILE_CHARS + 1));
    assert.equal(huge.ok, false);
    const zh = parseCodexFile('codex/a.md', '---\n- a\n---\n', { uiLang: 'zh' });
    assert.match(!zh.ok ? zh.error : '', /设置/);
  });
});

describe('codex file: format', () => {
  it('writes the fields in a fixed order, defaults left out, keys on one line', () => {
    const text = formatCodexFile({
      name: '青雾', kind: 'character', keys: ['雾儿', 'Qing, wu'], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: '她生在雪山。\n',
    });
    assert.equal(text, '---\nname: 青雾\nkind: character\nkeys: [雾儿, "Qing, wu"]\n---\n\n她生在雪山。\n');
    assert.equal(formatCodexFile({ name: 'A', kind: 'rule', keys: [], secondaryKeys: ['s'], logic: 'not-any', always: true, priority: -2, depth: 3, disabled: true, body: '' }),
      '---\nname: A\nkind: rule\nkeys: []\nsecondary_keys: [s]\nlogic: not-any\nalways: true\npriority: -2\ndepth: 3\ndisabled: true\n---\n');
  });
});

/** Strings a YAML writer or a front-matter splitter might get wrong. */
const hostile = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('---', '...', '- a', 'a: b', '#x', '*ref', '&anchor', '!tag', '|', '>', '"', "'", '{x}', '[y]', '%', '@', '`', 'null', '~', 'true', 'no', '0x1F', '1e3', '  ', '\t', '青雾', '長安・夜', 'ナルト', '하늘', 'Ann', '\n---\n', '\u2028', '\u0085', ' \n '),
  fc.array(fc.constantFrom('---', '青', 'A', ':', ' ', '\n', '#', '"', '\\', '\r\n', '\u3000', 'ſ', 'İ'), { maxLength: 8 }).map((a) => a.join('')),
);

const entryArb = fc.record({
  name: hostile.filter((s) => normalizeKey(s) !== ''),
  kind: fc.constantFrom(...CODEX_KINDS),
  keys: fc.array(hostile, { maxLength: 5 }),
  secondaryKeys: fc.array(hostile, { maxLength: 3 }),
  logic: fc.constantFrom('and-any', 'and-all', 'not-any', 'not-all' as const),
  always: fc.boolean(),
  priority: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0))),
  depth: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
  disabled: fc.boolean(),
  body: fc.array(hostile, { maxLength: 8 }).map((a) => a.join('\n')),
});

describe('codex file: format → parse (property)', () => {
  it('gives back the entry, normalised, for hostile names, keys and bodies', () => {
    fc.assert(fc.property(entryArb, (raw) => {
      const { depth, ...rest } = raw;
      const e = depth === undefined ? rest : { ...rest, depth };
      const text = formatCodexFile(e);
      const r = parseCodexFile('codex/x.md', text);
      assert.ok(r.ok, r.ok ? '' : `${r.error}\n${text}`);
      assert.deepEqual(r.warnings, []);
      const expected: CodexEntry = {
        ...e, path: 'codex/x.md', name: normalizeKey(e.name), keys: normalizeKeys(e.keys), secondaryKeys: normalizeKeys(e.secondaryKeys),
        body: normalizeBody(e.body), priority: e.priority,
      };
      assert.deepEqual(r.entry, expected);
      // Formatting is stable: the parsed entry formats to the same bytes.
      assert.equal(formatCodexFile(r.entry), text);
      // No key, secondary key or name spans lines.
      for (const k of [r.entry.name, ...r.entry.keys, ...r.entry.secondaryKeys]) assert.ok(!/[\n\r\u2028\u2029\u0085]/.test(k));
    }), { numRuns: runs(300, 5000) });
  });
});
