// applyPatch, one rule at a time.
import * as assert from 'node:assert/strict';
import { applyPatch } from '../../../src/state/apply';
import { LIMITS } from '../../../src/state/limits';
import { emptyState } from '../../../src/state/normalize';
import { validateState } from '../../../src/state/schema';
import type { SceneState } from '../../../src/state/types';
import { SEED_PATCH_1, seedOpening } from './helpers';

function apply(state: SceneState, patch: unknown, lang: 'zh' | 'en' = 'zh') {
  const r = applyPatch(state, patch, { lang });
  assert.ok(validateState(r.state), 'result must satisfy the schema');
  return r;
}

describe('state/applyPatch', () => {
  describe('the seed examples', () => {
    it('merges the first real patch with no warnings', () => {
      const r = apply(seedOpening(), SEED_PATCH_1);
      assert.deepEqual(r.warnings, []);
      assert.equal(r.state.time, '傍晚（雨中）');
      assert.equal(r.state.location, '青梧的客栈（檐外下雨）');
      assert.deepEqual(r.state.characters['林砚'], { affinity: 0, status: '浑身湿透，借宿客栈', notes: '', at: '青梧的客栈' });
      // Both spellings of the inn are in the roster: the program does not judge they are one place.
      assert.deepEqual(Object.keys(r.state.roster.locations), ['听雨轩', '青梧的客栈（檐外下雨）', '青梧的客栈']);
    });

    it('the out-of-bounds patch: affinity 150 → 100, mood rejected, 42 dropped — each with a warning', () => {
      const r = apply(seedOpening(), {
        characters: { 青梧: { affinity: 150 } },
        mood: '紧张',
        items: ['黄铜怀表（青梧持有）', 42],
      });
      assert.equal(r.state.characters['青梧']?.affinity, 100);
      assert.equal('mood' in r.state, false);
      assert.deepEqual(r.state.items, ['黄铜怀表（青梧持有）']);
      assert.equal(r.warnings.length, 3);
      assert.ok(r.warnings.some((w) => w.includes('150') && w.includes('100')));
      assert.ok(r.warnings.some((w) => w.includes('mood')));
      assert.ok(r.warnings.some((w) => w.includes('42') && w.includes('黄铜怀表（青梧持有）') && w.includes('括号')));
    });

    it('warnings come in English when the project is English', () => {
      const r = apply(seedOpening(), { mood: 'tense', items: [42] }, 'en');
      assert.ok(r.warnings.some((w) => w.startsWith('Unknown field "mood"')));
      assert.ok(r.warnings.some((w) => w.includes('holder in parentheses')));
    });
  });

  describe('time and location', () => {
    it('are replaced whole, strings only', () => {
      const s = seedOpening();
      const r = apply(s, { time: '  清晨 ', location: 42 });
      assert.equal(r.state.time, '清晨');
      assert.equal(r.state.location, '听雨轩');
      assert.equal(r.warnings.length, 1);
    });
    it('a long location is clipped with a warning', () => {
      const r = apply(seedOpening(), { location: '长'.repeat(500) });
      assert.equal(r.state.location.length, LIMITS.place);
      assert.equal(r.warnings.length, 1);
    });
    it('the input state is never mutated', () => {
      const s = seedOpening();
      const before = JSON.stringify(s);
      apply(s, SEED_PATCH_1);
      assert.equal(JSON.stringify(s), before);
    });
  });

  describe('characters', () => {
    it('merge per field; untouched fields stay', () => {
      const s = apply(seedOpening(), SEED_PATCH_1).state;
      const r = apply(s, { characters: { 青梧: { status: '沏茶' } } });
      assert.deepEqual(r.state.characters['青梧'], { affinity: 5, status: '沏茶', notes: '客栈老板娘，随身带着黄铜怀表', at: '青梧的客栈' });
    });
    it('a new character starts at affinity 0, empty text, at = the (new) location', () => {
      const r = apply(seedOpening(), { location: '渡口', characters: { 船夫: {} } });
      assert.deepEqual(r.state.characters['船夫'], { affinity: 0, status: '', notes: '', at: '渡口' });
    });
    it('null removes the character from the scene; the roster keeps them', () => {
      const r = apply(seedOpening(), { characters: { 青梧: null } });
      assert.equal('青梧' in r.state.characters, false);
      assert.equal(r.state.roster.characters['青梧'], '夜里');
      assert.deepEqual(r.warnings, []);
    });
    it('null for an unknown character is a quiet no-op', () => {
      assert.deepEqual(apply(seedOpening(), { characters: { 无名: null } }).warnings, []);
    });
    it('affinity is rounded and clamped to ±100', () => {
      const r = apply(seedOpening(), { characters: { a: { affinity: 4.6 }, b: { affinity: -1000 }, c: { affinity: -0.2 } } });
      assert.equal(r.state.characters['a']?.affinity, 5);
      assert.equal(r.state.characters['b']?.affinity, -100);
      assert.ok(Object.is(r.state.characters['c']?.affinity, 0));
      assert.equal(r.warnings.length, 1); // the clamp; rounding is silent
    });
    it('affinity "5" (a plain decimal string) is read as 5, with a warning', () => {
      const r = apply(seedOpening(), { characters: { 青梧: { affinity: '5' } } });
      assert.equal(r.state.characters['青梧']?.affinity, 5);
      assert.equal(r.warnings.length, 1);
    });
    it('affinity "+5", "high", null-ish junk: refused, old value kept', () => {
      const s = apply(seedOpening(), { characters: { 青梧: { affinity: 20 } } }).state;
      for (const bad of ['+5', 'high', '', {}, [], true, Number.POSITIVE_INFINITY, Number.NaN]) {
        const r = apply(s, { characters: { 青梧: { affinity: bad } } });
        assert.equal(r.state.characters['青梧']?.affinity, 20, `for ${String(bad)}`);
        assert.equal(r.warnings.length, 1);
      }
    });
    it('unknown character fields are ignored with a warning; other fields still apply', () => {
      const r = apply(seedOpening(), { characters: { 青梧: { mood: 'x', status: '在笑' } } });
      assert.equal(r.state.characters['青梧']?.status, '在笑');
      assert.equal(r.warnings.length, 1);
    });
    it('a character value that is not an object or null is ignored', () => {
      const r = apply(seedOpening(), { characters: { 青梧: '走了' } });
      assert.ok('青梧' in r.state.characters);
      assert.equal(r.warnings.length, 1);
    });
    it('names are trimmed; empty and reserved names refused', () => {
      const r = apply(seedOpening(), { characters: { ' 林砚 ': {}, '  ': {}, __proto__x: {} } });
      assert.ok('林砚' in r.state.characters);
      assert.ok('__proto__x' in r.state.characters);
      assert.equal(r.warnings.length, 1);
      const r2 = apply(seedOpening(), JSON.parse('{"characters":{"__proto__":{"affinity":9},"constructor":{}}}'));
      assert.deepEqual(Object.keys(r2.state.characters), ['青梧']);
      assert.equal(Object.getPrototypeOf(r2.state.characters), Object.prototype);
      assert.equal(r2.warnings.length, 2);
    });
    it('a leaving character with at = where they went is no longer present', () => {
      const r = apply(seedOpening(), { characters: { 青梧: { at: '后院' } } });
      assert.equal(r.state.characters['青梧']?.at, '后院');
      assert.ok('后院' in r.state.roster.locations);
    });
    it('at most 100 characters in a scene', () => {
      const many: Record<string, object> = {};
      for (let i = 0; i < 150; i++) many[`人${i}`] = {};
      const r = apply(emptyState(), { characters: many });
      assert.equal(Object.keys(r.state.characters).length, LIMITS.sceneCharacters);
      assert.ok(r.warnings.length >= 1);
    });
  });

  describe('items, facts, threads', () => {
    it('are replaced whole; trimmed, empty and duplicate strings dropped quietly', () => {
      const s = apply(seedOpening(), { items: ['a', 'b'] }).state;
      const r = apply(s, { items: [' c ', '', 'c'], facts: ['f1'], threads: [] });
      assert.deepEqual(r.state.items, ['c']);
      assert.deepEqual(r.state.facts, ['f1']);
      assert.deepEqual(r.state.threads, []);
      assert.deepEqual(r.warnings, []);
    });
    it('non-string elements are dropped with a how-to warning per field', () => {
      const r = apply(seedOpening(), { facts: ['ok', { text: 'x' }], threads: [null, 3] });
      assert.deepEqual(r.state.facts, ['ok']);
      assert.deepEqual(r.state.threads, []);
      assert.equal(r.warnings.length, 2);
      assert.ok(r.warnings[0]?.includes('事实写成'));
      assert.ok(r.warnings[1]?.includes('伏笔写成'));
    });
    it('a non-array or null is refused and the old list kept', () => {
      const s = apply(seedOpening(), { items: ['a'] }).state;
      const r = apply(s, { items: 'a, b', facts: null });
      assert.deepEqual(r.state.items, ['a']);
      assert.equal(r.warnings.length, 2);
    });
    it('over the cap: the last entries are kept, with a warning', () => {
      const list = Array.from({ length: 80 }, (_, i) => `线索${i}`);
      const r = apply(emptyState(), { threads: list });
      assert.equal(r.state.threads.length, LIMITS.list.threads);
      assert.equal(r.state.threads.at(-1), '线索79');
      assert.equal(r.warnings.length, 1);
    });
  });

  describe('variables', () => {
    it('deep-merge; null deletes; arrays replaced', () => {
      const s = apply(emptyState(), { variables: { hp: 10, bag: { coins: 3, keys: ['a'] }, flag: true } }).state;
      const r = apply(s, { variables: { bag: { coins: 5, keys: ['b'] }, flag: null } });
      assert.deepEqual(r.state.variables, { hp: 10, bag: { coins: 5, keys: ['b'] } });
    });
    it('reserved keys, non-JSON values and deep nesting are dropped with warnings', () => {
      const deep: Record<string, unknown> = {};
      let cur = deep;
      for (let i = 0; i < 20; i++) cur = cur['n'] = {} as Record<string, unknown>;
      const r = apply(emptyState(), { variables: { ...JSON.parse('{"__proto__":{"polluted":1}}'), f: () => 1, inf: Number.POSITIVE_INFINITY, deep } });
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      assert.ok(r.warnings.length >= 3);
      assert.equal('f' in (r.state.variables ?? {}), false);
    });
    it('variables that is not an object is refused', () => {
      const r = apply(emptyState(), { variables: [1, 2] });
      assert.equal(r.state.variables, undefined);
      assert.equal(r.warnings.length, 1);
    });
  });

  describe('the patch itself', () => {
    it('a non-object patch changes nothing but the warning', () => {
      for (const p of [null, 42, 'patch', [1], undefined]) {
        const s = seedOpening();
        const r = apply(s, p);
        assert.deepEqual(r.state, s);
        assert.equal(r.warnings.length, 1);
      }
    });
    it('an empty patch is a quiet no-op', () => {
      const s = seedOpening();
      const r = apply(s, {});
      assert.deepEqual(r.state, s);
      assert.deepEqual(r.warnings, []);
    });
    it('roster in a scribe patch is refused (the program keeps it)', () => {
      const r = apply(seedOpening(), { roster: { characters: {} } });
      assert.ok('青梧' in r.state.roster.characters);
      assert.equal(r.warnings.length, 1);
    });
    it('a flood of bad fields yields at most 20 warnings', () => {
      const p: Record<string, number> = {};
      for (let i = 0; i < 500; i++) p[`junk${i}`] = i;
      const r = apply(seedOpening(), p);
      assert.equal(r.warnings.length, LIMITS.warnings);
    });
    it('huge strings are capped, not stored', () => {
      const huge = 'x'.repeat(5_000_000);
      const r = apply(seedOpening(), { time: huge, characters: { 青梧: { notes: huge } }, facts: [huge] });
      assert.ok(JSON.stringify(r.state).length < 5_000);
    });
    it('an invalid input state is repaired first, never trusted', () => {
      const broken = { time: 5, characters: { 青梧: { affinity: 900 } } } as unknown as SceneState;
      const r = apply(broken, { location: '渡口' });
      assert.equal(r.state.location, '渡口');
      assert.equal(r.state.characters['青梧']?.affinity, 100);
    });
  });
});
