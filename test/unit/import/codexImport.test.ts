// SillyTavern lorebooks and cards into codex files: the real samples, every card version from the
// hand-built fixtures, damaged and hostile input (random JSON never throws and always reports), and
// file names that stay inside the codex folder and never overwrite.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseCodexFile } from '../../../src/codex/file';
import type { CodexEntry } from '../../../src/codex/types';
import { importOutcome, importSummary, importToCodex, MAX_IMPORT_BYTES, type ImportPlan } from '../../../src/import/codexImport';
import { lorebookEntries } from '../../../src/import/worldInfo';
import { runs } from '../long-mode';

const fixtures = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'sillytavern');
const source = (file: string) => ({ name: file, bytes: fs.readFileSync(path.join(fixtures, file)) });
const plan = (files: string[], existing: string[] = []) => importToCodex({ sources: files.map(source), codexFolder: 'codex', existing });

/** Every planned file read back as the codex reads it. */
function entries(p: ImportPlan): CodexEntry[] {
  return p.files.map((f) => {
    const parsed = parseCodexFile(f.path, f.text);
    assert.ok(parsed.ok, `${f.path}: ${parsed.ok ? '' : parsed.error}`);
    return parsed.entry;
  });
}
const byName = (list: CodexEntry[], name: string) => {
  const e = list.find((x) => x.name === name);
  assert.ok(e, `no entry named ${name} in ${list.map((x) => x.name).join(', ')}`);
  return e;
};

describe('importToCodex: the real SillyTavern samples', () => {
  it('the Eldoria lorebook: four rule entries with their keys, order, depth and flags', () => {
    const p = plan(['Eldoria.json']);
    assert.equal(p.reports[0]!.read, 'lorebook');
    const list = entries(p);
    assert.deepEqual(list.map((e) => e.name), ['eldoria', 'shadowfang', 'glade', 'power']);
    const eldoria = byName(list, 'eldoria');
    assert.deepEqual([...eldoria.keys], ['eldoria', 'wood', 'forest', 'magical forest']);
    assert.deepEqual([...eldoria.secondaryKeys], []);
    assert.equal(eldoria.logic, 'and-any');
    assert.equal(eldoria.always, false);
    assert.equal(eldoria.priority, 100);
    assert.equal(eldoria.depth, 4);
    assert.equal(eldoria.disabled, false);
    assert.equal(eldoria.kind, 'rule');
    assert.match(eldoria.body, /^\{\{user\}\}: "What is Eldoria\?"/);
    assert.deepEqual([...byName(list, 'shadowfang').keys], ['shadowfang', 'beast', 'monster', 'monsters', 'beasts']);
    assert.deepEqual(p.files.map((f) => f.path), ['codex/rules/eldoria.md', 'codex/rules/shadowfang.md', 'codex/rules/glade.md', 'codex/rules/power.md']);
    assert.deepEqual(p.reports[0]!.skipped, []);
    assert.equal(importOutcome(p), 'info');
  });

  it('the Seraphina card (both chunks): V3 is read; a character, an opening and the four book entries', () => {
    const p = plan(['default_Seraphina.png']);
    assert.equal(p.reports[0]!.read, 'v3');
    const list = entries(p);
    const seraphina = byName(list, 'Seraphina');
    assert.equal(seraphina.kind, 'character');
    assert.deepEqual([...seraphina.keys], ['Seraphina']);
    assert.match(seraphina.body, /Seraphina's Personality/);
    assert.ok(!/\{\{char\}\}/i.test(seraphina.body));
    const opening = byName(list, 'Seraphina — opening');
    assert.equal(opening.kind, 'style');
    assert.equal(opening.disabled, true);
    assert.match(opening.body, /^## First message\n\n\*You wake with a start/);
    assert.deepEqual(list.slice(2).map((e) => [e.name, e.priority, e.depth, e.logic, e.disabled]), [
      ['eldoria', 100, 4, 'and-any', false], ['shadowfang', 100, 4, 'and-any', false], ['glade', 100, 4, 'and-any', false], ['power', 100, 4, 'and-any', false],
    ]);
    assert.deepEqual(p.files.slice(0, 2).map((f) => f.path), ['codex/characters/Seraphina.md', 'codex/style/Seraphina — opening.md']);
  });

  it('importing the card and the lorebook together, into a codex that has eldoria already: nothing overwritten', () => {
    const p = plan(['default_Seraphina.png', 'Eldoria.json'], ['codex/rules/Eldoria.md', 'codex/notes.txt']);
    const paths = p.files.map((f) => f.path);
    assert.equal(new Set(paths.map((x) => x.toLowerCase())).size, paths.length);
    assert.ok(!paths.some((x) => x.toLowerCase() === 'codex/rules/eldoria.md'));
    assert.deepEqual(paths.filter((x) => x.startsWith('codex/rules/eldoria')), ['codex/rules/eldoria-2.md', 'codex/rules/eldoria-3.md']);
  });
});

describe('importToCodex: every card version', () => {
  it('V1 JSON: top-level fields; {{char}} becomes the name, {{user}} stays', () => {
    const p = plan(['card-v1.json']);
    assert.equal(p.reports[0]!.read, 'v1');
    const list = entries(p);
    const q = byName(list, 'Qingwu');
    assert.equal(q.body, 'A swordswoman of the southern hills. Qingwu speaks little and keeps her promises.\n\n## Personality\n\nQuiet, stubborn, loyal.\n\n## Scenario\n\n{{user}} meets Qingwu at a ferry crossing in the rain.');
    const opening = byName(list, 'Qingwu — opening');
    assert.match(opening.body, /## First message\n\n\*Qingwu lowers her umbrella\.\*/);
    assert.match(opening.body, /## Example dialogue\n\n<START>/);
    assert.equal(list.length, 2);
  });

  it('V2 JSON: `data` wins over stale top-level fields; alternate greetings; the book with its logic, order, depth and enabled', () => {
    const p = plan(['card-v2.json']);
    const r = p.reports[0]!;
    assert.equal(r.read, 'v2');
    const list = entries(p);
    assert.ok(!list.some((e) => e.name === 'stale top-level name'));
    const opening = byName(list, 'Old Lin — opening');
    assert.match(opening.body, /## Alternate greeting 1\n\n"River's high today\."\n\n## Alternate greeting 2\n\n"You again\."/);
    const night = byName(list, 'The night ferry');
    assert.deepEqual([night.keys, night.secondaryKeys, night.logic, night.priority, night.depth, night.disabled, night.always], [['ferry', 'crossing'], ['night', 'storm'], 'not-any', 50, 6, false, false]);
    assert.equal(night.body, 'Old Lin never crosses after dark.');
    // No comment: named by its first key. `selective: false`: SillyTavern ignores the secondary keys.
    const toll = byName(list, 'toll');
    assert.deepEqual([toll.secondaryKeys, toll.always, toll.disabled, toll.priority, toll.depth], [[], true, true, 10, 3]);
    assert.deepEqual(r.disabled, ['Old Lin — opening', 'toll']);
    assert.equal(r.skipped.length, 2, JSON.stringify(r.skipped));
    assert.match(r.skipped[0]!.reason.message, /no keys and no content/);
    assert.match(r.skipped[1]!.reason.message, /not an object/);
    assert.equal(importOutcome(p), 'warning');
  });

  it('V3 JSON: CJK names kept in the file name, logic AND ALL', () => {
    const p = plan(['card-v3.json']);
    assert.equal(p.reports[0]!.read, 'v3');
    assert.deepEqual(p.files.map((f) => f.path), ['codex/characters/青雾.md', 'codex/style/青雾 — opening.md', 'codex/rules/南山.md']);
    const list = entries(p);
    assert.equal(byName(list, '青雾').body, '南山的剑客。青雾话不多，说到做到。\n\n## Personality\n\n沉默，倔强。\n\n## Scenario\n\n雨夜，渡口。');
    const hills = byName(list, '南山');
    assert.deepEqual([hills.keys, hills.logic], [['南山', 'Southern Hills'], 'and-all']);
  });

  it('a PNG with only `chara` is V2, a PNG with only `ccv3` (compressed iTXt) is V3', () => {
    assert.equal(plan(['chara-only.png']).reports[0]!.read, 'v2');
    assert.equal(byName(entries(plan(['chara-only.png'])), 'The night ferry').logic, 'not-any');
    const v3 = plan(['ccv3-only.png']);
    assert.equal(v3.reports[0]!.read, 'v3');
    assert.ok(entries(v3).some((e) => e.name === '青雾'));
  });

  it('a damaged ccv3 beside a good chara: the V2 card is used, and the report says the V3 chunk was skipped', () => {
    const p = plan(['ccv3-broken-chara-good.png']);
    const r = p.reports[0]!;
    assert.equal(r.read, 'v2');
    assert.deepEqual(r.skipped[0]!.reason, { message: 'The "{0}" text chunk is not base64-encoded JSON; it was skipped.', args: ['ccv3'] });
    assert.ok(p.files.length > 0);
  });

  it('headings come from the shell, translated', () => {
    const p = importToCodex({ sources: [source('card-v1.json')], codexFolder: 'lore', existing: [], headings: {
      opening: '{0} — 开场', personality: '性格', scenario: '情境', firstMessage: '开场白', alternateGreeting: '备选开场白 {0}', exampleDialogue: '对话示例',
    } });
    assert.deepEqual(p.files.map((f) => f.path), ['lore/characters/Qingwu.md', 'lore/style/Qingwu — 开场.md']);
    assert.match(p.files[0]!.text, /## 性格/);
  });
});

describe('importToCodex: bad files', () => {
  const errorOf = (file: string) => {
    const p = plan([file]);
    assert.deepEqual(p.files, []);
    assert.equal(importOutcome(p), 'error');
    return p.reports[0]!.error!;
  };

  it('each bad file gets an error that says what is wrong', () => {
    assert.match(errorOf('lorebook-truncated.json').message, /neither a PNG image nor valid JSON/);
    assert.deepEqual(errorOf('card-unknown-spec.json').args, ['chara_card_v9']);
    assert.match(errorOf('card-v2-no-data.json').message, /no "data" object/);
    assert.match(errorOf('no-card.png').message, /no character card/);
    assert.match(errorOf('truncated.png').message, /runs past the end|cut short/);
  });

  it('an empty lorebook imports nothing and says so; a source that fails does not stop the others', () => {
    const p = plan(['lorebook-empty.json', 'no-card.png', 'card-v1.json']);
    assert.match(p.reports[0]!.skipped[0]!.reason.message, /no entries/);
    assert.ok(p.reports[1]!.error);
    assert.equal(p.reports[2]!.imported.length, 2);
    assert.equal(importOutcome(p), 'warning');
    const lines = importSummary(p);
    assert.deepEqual(lines[0], { message: '{0}: {1} codex entries imported.', args: ['lorebook-empty.json', 0] });
    assert.deepEqual(lines.find((l) => l.message === '{0} was not imported.')?.args, ['no-card.png']);
  });

  it('a file over the size limit is refused unread', () => {
    const p = importToCodex({ sources: [{ name: 'big.png', bytes: new Uint8Array(0), size: MAX_IMPORT_BYTES + 1 }], codexFolder: 'codex', existing: [] });
    assert.match(p.reports[0]!.error!.message, /too large/);
  });

  it('the array-form lorebook: comma-separated keys, string order, scanDepth over depth, an unknown logic read as AND ANY, hostile names kept inside the folder', () => {
    const p = plan(['lorebook-array.json']);
    const list = entries(p);
    const harbor = byName(list, 'Harbor / Docks');
    assert.deepEqual([harbor.keys, harbor.secondaryKeys, harbor.logic, harbor.priority, harbor.depth], [['harbor', 'docks'], ['night'], 'not-all', 7, 2]);
    const lantern = byName(list, 'lantern');
    assert.deepEqual([lantern.keys, lantern.always, lantern.disabled, lantern.priority, lantern.depth], [['lantern', 'lanterns'], true, true, 12, 5]);
    assert.equal(byName(list, 'CON').logic, 'and-any');
    assert.deepEqual(p.files.map((f) => f.path), ['codex/rules/Harbor - Docks.md', 'codex/rules/lantern.md', 'codex/rules/CON-entry.md', 'codex/rules/-..-etc-passwd.md']);
    assert.equal(p.reports[0]!.skipped.length, 1);
    assert.deepEqual(p.reports[0]!.disabled, ['lantern']);
    // The summary lists at most the reasons asked for, then how many more.
    assert.equal(importSummary(p, 0).at(-1)?.message, '…and {0} more (see the Worldline log).');
  });

  it('random JSON never throws; whatever is not imported is reported (property)', () => {
    const entryish = fc.dictionary(fc.constantFrom('key', 'keys', 'keysecondary', 'secondary_keys', 'comment', 'name', 'content', 'constant', 'order', 'insertion_order', 'depth', 'scanDepth', 'disable', 'enabled', 'selective', 'selectiveLogic', 'extensions'), fc.jsonValue({ maxDepth: 2 }));
    const doc = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ entries: fc.oneof(fc.array(fc.oneof(entryish, fc.jsonValue({ maxDepth: 1 })), { maxLength: 6 }), fc.dictionary(fc.string(), entryish, { maxKeys: 6 })) }),
      fc.record({ spec: fc.constantFrom('chara_card_v2', 'chara_card_v3', 'x'), data: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ name: fc.string(), description: fc.string(), character_book: fc.record({ entries: fc.array(entryish, { maxLength: 3 }) }) })) }),
    );
    fc.assert(fc.property(doc, (json) => {
      const p = importToCodex({ sources: [{ name: 'x.json', bytes: Buffer.from(JSON.stringify(json) ?? 'null') }], codexFolder: 'codex', existing: [] });
      const r = p.reports[0]!;
      assert.equal(r.imported.length, p.files.length);
      if (p.files.length === 0) assert.ok(r.error !== undefined || r.skipped.length > 0 || r.read !== 'lorebook', JSON.stringify(json));
      for (const f of p.files) assert.ok(parseCodexFile(f.path, f.text).ok, f.text);
      for (const line of importSummary(p)) assert.equal(typeof line.message, 'string');
    }), { numRuns: runs(300, 5000) });
  });
});

describe('file names of imported entries (property)', () => {
  it('one safe segment under <folder>/<kind>/, never a taken path, never leaving the folder', () => {
    const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('..', '.', 'CON', 'nul', 'a/b', 'a\\b', ' x. ', '青雾', 'Eldoria', 'eldoria', '')), { minLength: 1, maxLength: 8 }),
      fc.array(fc.constantFrom('codex/rules/eldoria.md', 'codex/rules/entry.md', 'codex/rules/CON-entry.md', 'codex/rules/x.md'), { maxLength: 4 }),
      (names, existing) => {
        const book = { entries: names.map((n) => ({ key: ['k'], comment: n, content: 'lore' })) };
        const p = importToCodex({ sources: [{ name: 'b.json', bytes: Buffer.from(JSON.stringify(book)) }], codexFolder: 'codex', existing });
        const lower = p.files.map((f) => f.path.toLowerCase());
        assert.equal(new Set(lower).size, lower.length);
        for (const f of p.files) {
          assert.ok(!existing.map((e) => e.toLowerCase()).includes(f.path.toLowerCase()), f.path);
          const rest = f.path.slice('codex/rules/'.length);
          assert.ok(f.path.startsWith('codex/rules/') && rest.endsWith('.md'), f.path);
          const stem = rest.slice(0, -3);
          assert.ok(stem !== '' && !/[/\\\u0000-\u001f<>:"|?*]/.test(stem), f.path);
          assert.ok(!/^[. ]|[. ]$/.test(stem), f.path);
          assert.ok(!WINDOWS_RESERVED.test(stem), f.path);
          assert.equal(path.posix.normalize(f.path), f.path);
        }
      },
    ), { numRuns: runs(500, 10000) });
  });
});

describe('lorebookEntries', () => {
  it('maps selectiveLogic 0..3 as SillyTavern defines them (AND ANY, NOT ALL, NOT ANY, AND ALL)', () => {
    const book = { entries: [0, 1, 2, 3].map((n) => ({ key: ['k'], keysecondary: ['s'], selectiveLogic: n, content: 'x' })) };
    assert.deepEqual(lorebookEntries(book).entries.map((e) => e.logic), ['and-any', 'not-all', 'not-any', 'and-all']);
  });

  it('a file without entries is not a lorebook', () => {
    assert.match(lorebookEntries({ name: 'x' }).skipped[0]!.reason.message, /no "entries" list/);
  });
});
