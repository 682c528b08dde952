// Roster names without an entry: characters, places and items the roster holds that no entry's
// name or key covers, compared without case; threads are never listed.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { missingNames, nameKey } from '../../../src/codex/missing';
import type { CodexEntry } from '../../../src/codex/types';
import type { Roster } from '../../../src/state/types';
import { runs } from '../long-mode';

function entry(name: string, keys: string[] = [name]): CodexEntry {
  return { path: `codex/characters/${name}.md`, name, kind: 'character', keys, secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: '' };
}

const roster = (over: Partial<Roster>): Roster => ({ characters: {}, locations: {}, items: {}, threads: {}, ...over });

describe('codex missing names', () => {
  it('lists roster characters, places and items with no entry, in that order, each with its kind', () => {
    const r = roster({
      characters: { 青梧: '傍晚', 沈砚: '傍晚', Lin: '夜' },
      locations: { 听雨轩: '傍晚', 'North Ferry': '夜' },
      items: { 黄铜怀表: '夜' },
      threads: { 林砚答应天亮前归还怀表: '夜' },
    });
    const entries = [entry('青梧'), entry('The Ferry', ['north ferry']), entry('林', ['LIN'])];
    assert.deepEqual(missingNames(r, entries), [
      { name: '沈砚', kind: 'character' },
      { name: '听雨轩', kind: 'place' },
      { name: '黄铜怀表', kind: 'item' },
    ]);
  });

  it('compares without case, width or outer spaces; a name in two tables is listed once', () => {
    assert.equal(nameKey(' ＱＩＮＧＷＵ '), 'qingwu');
    const r = roster({ characters: { ' Qingwu ': 't', 长安: 't' }, locations: { 长安: 't' } });
    assert.deepEqual(missingNames(r, [entry('qingwu')]), [{ name: '长安', kind: 'character' }]);
    assert.deepEqual(missingNames(r, [entry('x', ['QINGWU', '长安'])]), []);
  });

  it('no listed name is covered by an entry, and every uncovered one is listed (property)', () => {
    const name = fc.oneof(fc.constantFrom('青梧', 'qingwu', 'QingWu', '沈砚', 'Lin', 'lin ', '听雨轩', ''), fc.string({ maxLength: 6 }));
    const table = fc.dictionary(name, fc.constant('t'), { maxKeys: 6 });
    fc.assert(fc.property(table, table, table, fc.array(fc.array(name, { minLength: 1, maxLength: 3 }), { maxLength: 4 }), (characters, locations, items, keySets) => {
      const entries = keySets.map((keys) => entry(keys[0]!, keys));
      const covered = new Set(entries.flatMap((e) => [e.name, ...e.keys]).map(nameKey));
      const got = missingNames(roster({ characters, locations, items }), entries);
      for (const m of got) assert.ok(!covered.has(nameKey(m.name)) && nameKey(m.name) !== '');
      const want = new Set([...Object.keys(characters), ...Object.keys(locations), ...Object.keys(items)].map(nameKey).filter((k) => k !== '' && !covered.has(k)));
      assert.deepEqual(new Set(got.map((m) => nameKey(m.name))), want);
      assert.equal(got.length, want.size, 'each name once');
    }), { numRuns: runs(300, 5000) });
  });
});
