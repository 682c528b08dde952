// Which entries a turn selects: keys and the name, case, Latin whole words and CJK substrings,
// the four secondary-key logics, depth (the default and an entry's own), always, disabled, the
// scene state's names, one result per entry with the first reason, and the order. A property
// checks the automaton against a plain reference scan on random texts and keys.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { CodexIndex, matchesAsSubstring } from '../../../src/codex/select';
import type { CodexEntry, CodexScanInput, KeyLogic } from '../../../src/codex/types';
import { runs } from '../long-mode';

function entry(name: string, more: Partial<CodexEntry> = {}): CodexEntry {
  return { path: `codex/${name}.md`, name, kind: 'character', keys: [], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: `lore of ${name}`, ...more };
}

function scan(input: Partial<CodexScanInput>): CodexScanInput {
  return { instruction: '', recent: [], stateNames: [], ...input };
}

function names(index: CodexIndex, input: Partial<CodexScanInput>, defaultDepth = 4): string[] {
  return index.select(scan(input), { defaultDepth }).map((s) => s.entry.name);
}

describe('codex selection', () => {
  it('a key or the name in the instruction selects, case-insensitively, with the key that matched', () => {
    const index = new CodexIndex([entry('Qingwu', { keys: ['Mist Girl'] }), entry('Other')]);
    const got = index.select(scan({ instruction: 'Then the MIST girl arrived.' }), { defaultDepth: 4 });
    assert.deepEqual(got.map((s) => [s.entry.name, s.reason, s.key]), [['Qingwu', 'instruction', 'Mist Girl']]);
    assert.deepEqual(names(index, { instruction: 'qingwu.' }), ['Qingwu']);
    assert.deepEqual(names(index, { instruction: 'nobody here' }), []);
  });

  it('Latin keys match whole words only: "Ann" is not in "Annals", "Joanne" or "Ann2", but is in "Ann\'s", "(Ann)" and "Ann说"', () => {
    const index = new CodexIndex([entry('Ann')]);
    for (const text of ['The Annals of war', 'Joanne left', 'Ann2 is a robot', 'Anné', 'ann\u0301']) assert.deepEqual(names(index, { instruction: text }), [], text);
    for (const text of ["Ann's sword", '(Ann)', 'ANN', 'Ann说完就走了', '她叫Ann。', 'end: Ann']) assert.deepEqual(names(index, { instruction: text }), ['Ann'], text);
    // A key of several words, and one ending in punctuation.
    const two = new CodexIndex([entry('Old Town', { keys: ['Dr.'] })]);
    assert.deepEqual(names(two, { instruction: 'back to old town!' }), ['Old Town']);
    assert.deepEqual(names(two, { instruction: 'the oldtown' }), []);
    assert.deepEqual(names(two, { instruction: 'ask the Dr. now' }), ['Old Town']);
    assert.deepEqual(names(two, { instruction: 'Dr.Who' }), []);
  });

  it('CJK, kana and hangul keys match as substrings', () => {
    const index = new CodexIndex([entry('青雾', { keys: ['雾儿'] }), entry('ナルト'), entry('민수'), entry('長安・夜')]);
    assert.deepEqual(names(index, { instruction: '小雾儿笑了' }), ['青雾']);
    assert.deepEqual(names(index, { instruction: 'ナルトくん' }), ['ナルト']);
    assert.deepEqual(names(index, { instruction: '민수는 웃었다' }), ['민수']);
    assert.deepEqual(names(index, { instruction: '在長安・夜里' }), ['長安・夜']);
    assert.equal(matchesAsSubstring('Dr. 王'), true);
    assert.equal(matchesAsSubstring('Ann'), false);
  });

  it('overlapping keys and keys inside keys are all found', () => {
    const index = new CodexIndex([entry('长安'), entry('长安城'), entry('安城'), entry('城东')]);
    assert.deepEqual(names(index, { instruction: '长安城东' }).sort(), ['城东', '安城', '长安', '长安城']);
  });

  it('secondary keys gate by logic: and-any, and-all, not-any, not-all', () => {
    const make = (logic: KeyLogic) => entry(`E-${logic}`, { keys: ['sword'], secondaryKeys: ['fire', 'ice'], logic });
    const index = new CodexIndex((['and-any', 'and-all', 'not-any', 'not-all'] as const).map(make));
    const sel = (text: string) => names(index, { instruction: text }).sort();
    assert.deepEqual(sel('sword'), ['E-not-all', 'E-not-any']);
    assert.deepEqual(sel('sword fire'), ['E-and-any', 'E-not-all']);
    assert.deepEqual(sel('sword fire ice'), ['E-and-all', 'E-and-any']);
    assert.deepEqual(sel('fire ice'), [], 'secondary keys alone select nothing');
    // Secondary keys are looked for in the recent messages and the state too.
    assert.deepEqual(names(index, { instruction: 'sword', recent: ['fire'], stateNames: ['ICE'] }).sort(), ['E-and-all', 'E-and-any']);
    // ...within the entry's depth only.
    assert.deepEqual(names(index, { instruction: 'sword', recent: ['fire', 'x'] }, 1).sort(), ['E-not-all', 'E-not-any']);
    // Whole words for secondary keys as well.
    assert.deepEqual(names(index, { instruction: 'sword fireplace' }).sort(), ['E-not-all', 'E-not-any']);
  });

  it('recent messages: the last `depth` (the default, or the entry\'s own), newest last in the list', () => {
    const index = new CodexIndex([entry('Ann'), entry('Bob', { depth: 3 }), entry('Cy', { depth: 1 })]);
    const recent = ['Ann Bob Cy', 'x', 'Bob', 'Cy', 'y'];
    assert.deepEqual(names(index, { recent }, 2).sort(), ['Bob']);
    assert.deepEqual(names(index, { recent }, 5).sort(), ['Ann', 'Bob']);
    assert.deepEqual(names(index, { recent: ['Cy'] }, 0), ['Cy']);
    assert.deepEqual(names(index, { recent: ['Cy', 'z'] }, 0), []);
    const got = index.select(scan({ recent: ['x', 'ann'] }), { defaultDepth: 4 });
    assert.deepEqual(got.map((s) => [s.reason, s.key]), [['recent', 'Ann']]);
  });

  it('always entries every turn, disabled ones never', () => {
    const index = new CodexIndex([entry('Rules', { always: true, kind: 'rule' }), entry('Ann', { disabled: true }), entry('Gone', { always: true, disabled: true })]);
    assert.deepEqual(index.select(scan({}), { defaultDepth: 4 }).map((s) => [s.entry.name, s.reason, s.key]), [['Rules', 'always', undefined]]);
    assert.deepEqual(names(index, { instruction: 'Ann', stateNames: ['Ann'], recent: ['Ann'] }), ['Rules']);
    assert.equal(index.size, 1);
    assert.deepEqual(index.entriesNamed('ann').map((e) => e.name), ['Ann'], 'a disabled entry still names what the codex has');
  });

  it('scene-state names select by exact name or key, case-insensitive, not by a word inside them', () => {
    const index = new CodexIndex([entry('Old Town', { kind: 'place', keys: ['老城'] }), entry('Sword')]);
    assert.deepEqual(names(index, { stateNames: ['old town'] }), ['Old Town']);
    assert.deepEqual(names(index, { stateNames: [' 老城 '] }), ['Old Town']);
    assert.deepEqual(names(index, { stateNames: ['the old sword'] }), []);
  });

  it('one result per entry with the first reason (always > instruction > state > recent), ordered by priority, reason, path', () => {
    const index = new CodexIndex([
      entry('Zed', { priority: 0 }),
      entry('Amy', { priority: 0 }),
      entry('Low', { priority: -1, always: true }),
      entry('Top', { priority: 5 }),
      entry('Rec', { priority: 0 }),
      entry('St', { priority: 0 }),
      entry('Al', { priority: 0, always: true }),
    ]);
    const got = index.select(scan({ instruction: 'Zed Amy Top', stateNames: ['St', 'Zed'], recent: ['Rec Zed St'] }), { defaultDepth: 4 });
    assert.deepEqual(got.map((s) => `${s.entry.name}:${s.reason}`), ['Top:instruction', 'Al:always', 'Amy:instruction', 'Zed:instruction', 'St:state', 'Rec:recent', 'Low:always']);
    // The same input again (the marks of the last turn do not leak): the same answer.
    assert.deepEqual(index.select(scan({ instruction: 'Zed Amy Top', stateNames: ['St', 'Zed'], recent: ['Rec Zed St'] }), { defaultDepth: 4 }), got);
    assert.deepEqual(index.select(scan({}), { defaultDepth: 4 }).map((s) => s.entry.name), ['Al', 'Low']);
  });

  it('agrees with a plain reference scan on random texts and keys (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', 'A', ' ', '青', '雾', '.', 'é', '\u0301', '😀');
    const word = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((a) => a.join('')).filter((s) => s.trim() !== '');
    const isWord = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}\p{M}]/u.test(ch) && !/\p{Script=Han}/u.test(ch);
    const occurs = (text: string, key: string): boolean => {
      const t = text.toLowerCase();
      const k = key.trim().toLowerCase();
      if (/\p{Script=Han}/u.test(k)) return t.includes(k);
      for (let i = t.indexOf(k); i >= 0; i = t.indexOf(k, i + 1)) {
        const before = [...t.slice(0, i)].pop();
        const after = [...t.slice(i + k.length)][0];
        if (!isWord(before) && !isWord(after)) return true;
      }
      return false;
    };
    fc.assert(fc.property(
      fc.array(fc.record({ name: word, keys: fc.array(word, { maxLength: 3 }) }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.array(alphabet, { maxLength: 30 }).map((a) => a.join('')), { maxLength: 5 }),
      fc.array(alphabet, { maxLength: 30 }).map((a) => a.join('')),
      (specs, recent, instruction) => {
        const entries = specs.map((s, i) => entry(s.name, { path: `codex/${i}.md`, keys: s.keys }));
        const index = new CodexIndex(entries);
        const got = index.select(scan({ instruction, recent }), { defaultDepth: 2 }).map((s) => s.entry.path).sort();
        const window = [instruction, ...recent.slice(-2)];
        const want = entries.filter((e) => [e.name, ...e.keys].some((k) => window.some((t) => occurs(t, k)))).map((e) => e.path).sort();
        assert.deepEqual(got, want);
      },
    ), { numRuns: runs(400, 10_000) });
  });
});
