// openingState, stateAt (the state is a function of the branch), schema, normalizeState, userEdit.
import * as assert from 'node:assert/strict';
import { applyPatch } from '../../../src/state/apply';
import { normalizeState } from '../../../src/state/normalize';
import { openingState, openingStateWithWarnings } from '../../../src/state/opening';
import { checkState, validateState } from '../../../src/state/schema';
import { stateAt } from '../../../src/state/stateAt';
import { userEdit } from '../../../src/state/userEdit';
import type { SceneState } from '../../../src/state/types';
import { SEED_PATCH_1, seedOpening } from './helpers';

describe('state/openingState', () => {
  it('builds from the project config: names list or per-name records', () => {
    const a = openingState({ time: '夜里', location: '听雨轩', characters: ['青梧', '林砚'] });
    assert.deepEqual(a.characters['林砚'], { affinity: 0, status: '', notes: '', at: '听雨轩' });
    assert.deepEqual(Object.keys(a.roster.characters), ['青梧', '林砚']);
    const b = openingState({ location: '渡口', characters: { 船夫: { affinity: 10, at: '船上' } }, variables: { day: 1 } });
    assert.deepEqual(b.characters['船夫'], { affinity: 10, status: '', notes: '', at: '船上' });
    assert.deepEqual(b.variables, { day: 1 });
    assert.ok(validateState(a) && validateState(b));
  });

  it('no opening → the empty state; junk → the empty state plus warnings', () => {
    assert.ok(validateState(openingState()));
    const r = openingStateWithWarnings({ weather: 'rain', characters: ['a', 3] }, { lang: 'en' });
    assert.equal(r.warnings.length, 2);
    assert.deepEqual(Object.keys(r.state.characters), ['a']);
    assert.ok(validateState(openingState('nonsense')));
  });
});

describe('state/stateAt', () => {
  const opening = { time: '夜里', location: '听雨轩', characters: ['青梧'] };

  it('no state entry on the path → the opening state', () => {
    const r = stateAt([{ type: 'user', text: 'hi' }], opening);
    assert.deepEqual(r.state, openingState(opening));
    assert.equal(r.entryId, undefined);
  });

  it('the LAST state entry on the path wins, with its stored warnings', () => {
    const s1 = applyPatch(seedOpening(), SEED_PATCH_1).state;
    const s2 = applyPatch(s1, { time: '深夜' }).state;
    const path = [
      { id: 'u1', type: 'user' },
      { id: 'st1', type: 'state', state: s1, by: 'scribe', warnings: [] },
      { id: 'u2', type: 'user' },
      { id: 'st2', type: 'state', state: s2, by: 'user', warnings: ['w1', 7] },
      { id: 'a3', type: 'assistant' },
    ];
    const r = stateAt(path, opening);
    assert.deepEqual(r.state, s2);
    assert.equal(r.entryId, 'st2');
    assert.equal(r.by, 'user');
    assert.deepEqual(r.lastWarnings, ['w1']);
    assert.deepEqual(r.warnings, []);
    r.state.time = 'mutated';
    assert.equal(s2.time, '深夜', 'the entry on disk is not aliased');
  });

  it('a corrupt entry never crashes: falls back to the previous valid one with a warning', () => {
    const s1 = applyPatch(seedOpening(), SEED_PATCH_1).state;
    const corrupt = [
      { id: 'bad1', type: 'state', state: { ...s1, characters: { 青梧: { affinity: 'lots' } } } },
      { id: 'bad2', type: 'state', state: null },
      { id: 'bad3', type: 'state', state: JSON.parse('{"__proto__":{"x":1}}') },
      null,
      'garbage',
    ];
    const r = stateAt([{ id: 'st1', type: 'state', state: s1 }, ...corrupt], opening, { lang: 'en' });
    assert.deepEqual(r.state, s1);
    assert.equal(r.warnings.length, 3);
    assert.ok(r.warnings[0]?.includes('bad3'));
    const none = stateAt(corrupt, opening);
    assert.deepEqual(none.state, openingState(opening));
  });

  it('two branches keep separate ledgers', () => {
    // One user turn, regenerated: two sibling replies, each with its own scribe state.
    const root = { id: 'u1', type: 'user' };
    const a = applyPatch(seedOpening(), SEED_PATCH_1).state;
    const b = applyPatch(seedOpening(), {
      location: '镇北渡口附近的客栈',
      characters: { 青梧: { at: '镇北渡口附近的客栈' }, 林砚: { at: '镇北渡口附近的客栈' } },
    }).state;
    const branchA = [root, { id: 'a1', type: 'assistant' }, { id: 'sa', type: 'state', state: a }];
    const branchB = [root, { id: 'b1', type: 'assistant' }, { id: 'sb', type: 'state', state: b }];
    assert.equal(stateAt(branchA, opening).state.location, '青梧的客栈（檐外下雨）');
    assert.equal(stateAt(branchB, opening).state.location, '镇北渡口附近的客栈');
    assert.ok(!('镇北渡口附近的客栈' in stateAt(branchA, opening).state.roster.locations));
  });
});

describe('state/schema and normalizeState', () => {
  it('valid states pass; every kind of break is reported', () => {
    assert.ok(validateState(seedOpening()));
    const s = seedOpening() as unknown as Record<string, unknown>;
    const cases: [unknown, string][] = [
      [null, 'state'],
      [{ ...s, extra: 1 }, 'extra'],
      [{ ...s, time: 3 }, 'time'],
      [{ ...s, characters: { 青梧: { affinity: 101, status: '', notes: '', at: '' } } }, 'characters.青梧.affinity'],
      [{ ...s, characters: { 青梧: { affinity: 1.5, status: '', notes: '', at: '' } } }, 'characters.青梧.affinity'],
      [{ ...s, characters: { ' x': { affinity: 1, status: '', notes: '', at: '' } } }, 'characters. x'],
      [{ ...s, items: [1] }, 'items[0]'],
      [{ ...s, roster: { characters: {}, locations: {}, items: {} } }, 'roster.threads'],
      [{ ...s, variables: { a: Number.NaN } }, 'variables.a'],
    ];
    for (const [x, path] of cases) {
      const problems = checkState(x);
      assert.ok(problems.some((p) => p.path === path), `${path}: ${JSON.stringify(problems)}`);
    }
  });

  it('normalizeState repairs what it can and keeps the roster times', () => {
    const s = applyPatch(seedOpening(), SEED_PATCH_1).state as unknown as Record<string, unknown>;
    const broken = { ...s, time: 5, extra: true, items: ['ok', 3] };
    const r = normalizeState(broken);
    assert.ok(validateState(r.state));
    assert.equal(r.state.time, '');
    assert.deepEqual(r.state.items, ['ok']);
    assert.equal(r.state.roster.characters['青梧'], '夜里');
    assert.ok(r.warnings.length >= 3);
    assert.ok(validateState(normalizeState('junk').state));
  });
});

describe('state/userEdit', () => {
  const base = (): SceneState => applyPatch(seedOpening(), SEED_PATCH_1).state;

  it('a patch applies; the roster keeps active names', () => {
    const r = userEdit(base(), { time: '子时', characters: { 林砚: { affinity: 12 } } });
    assert.ok(r.ok);
    assert.equal(r.state.time, '子时');
    assert.equal(r.state.characters['林砚']?.affinity, 12);
  });

  it('an invalid patch is an error and changes nothing', () => {
    const s = base();
    const before = JSON.stringify(s);
    for (const bad of [{ characters: { 林砚: { affinity: 'lots' } } }, { mood: 'x' }, { items: [1] }, 'text', null]) {
      const r = userEdit(s, bad, { lang: 'en' });
      assert.equal(r.ok, false);
      if (!r.ok) assert.ok(r.error.startsWith('The edit was not applied'));
    }
    assert.equal(JSON.stringify(s), before);
  });

  it('a whole state replaces the state when valid', () => {
    const s = base();
    const edited = structuredClone(s);
    edited.facts = ['客栈只有一间空房'];
    const r = userEdit(s, edited);
    assert.ok(r.ok);
    assert.deepEqual(r.state.facts, ['客栈只有一间空房']);
    const bad = { ...structuredClone(s), location: 42 };
    const r2 = userEdit(s, bad);
    assert.equal(r2.ok, false);
    if (!r2.ok) assert.ok(r2.error.includes('location'));
  });

  it('the novelist may rename a first-seen time or drop an inactive roster name', () => {
    const s = applyPatch(base(), { characters: { 林砚: null } }).state;
    const r = userEdit(s, { roster: { characters: { 林砚: null, 青梧: '开场' } } });
    assert.ok(r.ok);
    assert.equal('林砚' in r.state.roster.characters, false);
    assert.equal(r.state.roster.characters['青梧'], '开场');
    // An active name removed is listed again at once.
    const r2 = userEdit(s, { roster: { characters: { 青梧: null } } });
    assert.ok(r2.ok && '青梧' in r2.state.roster.characters);
    const r3 = userEdit(s, { roster: { people: {} } });
    assert.equal(r3.ok, false);
  });
});
