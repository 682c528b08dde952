// The continuity evaluation set (bench/continuity/) is valid: every state passes the SceneState
// schema, every gold quote is an exact substring of its prose, and the counts meet the set's rules.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countSet, evalSetDir, itemProblems, loadEvalSet, setProblems, type EvalItem } from '../../../bench/continuity/evalSet';
import { FINDING_TYPES } from '../../../src/continuity/types';
import { validateState } from '../../../src/state/schema';

describe('continuity evaluation set', () => {
  const items = loadEvalSet();

  it('every item is well formed: states pass validateState, gold quotes are in the prose once', () => {
    for (const it of items) {
      assert.ok(validateState(it.before), `${it.id}: before`);
      assert.ok(validateState(it.after), `${it.id}: after`);
    }
    assert.deepEqual(items.flatMap(itemProblems), []);
  });

  it('meets the counts: ≥200 items, half zh half en, a third hard negatives, types balanced', () => {
    assert.deepEqual(setProblems(items), []);
    const c = countSet(items);
    assert.ok(c.total >= 200);
    assert.equal(c.byLang.zh, c.byLang.en);
    assert.ok(c.byKind['hard-negative'] * 3 >= c.total);
    for (const t of FINDING_TYPES) assert.ok(c.goldByType[t].zh > 0 && c.goldByType[t].en > 0, t);
  });

  it('the checks catch a broken item', () => {
    const good = items.find((i) => i.kind === 'error') as EvalItem;
    const moved: EvalItem = { ...good, gold: [{ type: good.gold[0]!.type, quote: `${good.gold[0]!.quote}※` }] };
    assert.match(itemProblems(moved).join('\n'), /not in the prose/);
    const badState: EvalItem = { ...good, after: { ...good.after, time: 3 as unknown as string } };
    assert.match(itemProblems(badState).join('\n'), /after\.time notString/);
    const negWithGold: EvalItem = { ...good, kind: 'hard-negative', tempts: good.gold[0]!.type };
    assert.match(itemProblems(negWithGold).join('\n'), /has no gold/);
    assert.match(setProblems(items.filter((i) => i.lang === 'zh')).join('\n'), /half of each/);
    assert.match(setProblems(items.filter((i) => i.kind !== 'hard-negative')).join('\n'), /hard negatives/);
  });

  it('the states say what the gold says: departed not in the scene, elsewhere not here, dead recorded dead, the item held', () => {
    const dead = /已死|已故|身亡|死了|断了气|死于|害死|dead|deceased|killed|died|murdered/i;
    const itemName = (s: string): string => s.replace(/（[^（）]*持有）$/, '').replace(/ \(held by [^()]*\)$/, '');
    for (const it of items) {
      for (const s of [it.before, it.after]) {
        for (const name of Object.keys(s.characters)) assert.ok(Object.prototype.hasOwnProperty.call(s.roster.characters, name), `${it.id}: ${name} is in the roster`);
      }
      for (const g of it.gold) {
        const { before, after } = it;
        const named = (names: string[]): boolean => names.some((n) => g.quote.includes(n));
        if (g.type === 'departed-acts') assert.ok(named(Object.keys(after.roster.characters).filter((n) => !(n in after.characters))), `${it.id}: a departed character is in the quote`);
        if (g.type === 'two-places') assert.ok(named(Object.entries(after.characters).filter(([, c]) => c.at !== after.location).map(([n]) => n)), `${it.id}: someone recorded elsewhere is in the quote`);
        if (g.type === 'dead-acts') assert.ok(named(Object.entries(before.characters).filter(([, c]) => dead.test(`${c.status} ${c.notes}`)).map(([n]) => n)), `${it.id}: someone recorded dead is in the quote`);
        if (g.type === 'two-holders') assert.ok(before.items.some((s) => g.quote.includes(itemName(s)) && itemName(s) !== s), `${it.id}: a held item is in the quote`);
      }
    }
  });

  it('judge-answers.json, when present, confirms only gold quotes', () => {
    const file = path.join(evalSetDir(), 'judge-answers.json');
    if (!fs.existsSync(file)) return;
    const answers = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { type: string; error: boolean; quote: string }[]>;
    const byId = new Map(items.map((i) => [i.id, i]));
    for (const [id, list] of Object.entries(answers)) {
      const it = byId.get(id);
      assert.ok(it, `${id} is an item`);
      for (const a of list) {
        assert.ok(it.prose.includes(a.quote), `${id}: answer quote in the prose`);
        if (a.error) assert.ok(it.gold.some((g) => g.type === a.type && g.quote === a.quote), `${id}: a confirmed answer quotes gold`);
      }
    }
  });
});
