// Property tests: thousands of random and hostile patches, random trees of branches.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyPatch } from '../../../src/state/apply';
import { formatState } from '../../../src/state/format';
import { LIMITS } from '../../../src/state/limits';
import { openingState } from '../../../src/state/opening';
import { parseScribeOutput } from '../../../src/state/scribeParse';
import { checkState, validateState } from '../../../src/state/schema';
import { stateAt } from '../../../src/state/stateAt';
import { userEdit } from '../../../src/state/userEdit';
import { ROSTER_TABLES, type SceneState } from '../../../src/state/types';

const OPENING = { time: '夜里', location: '听雨轩', characters: ['青梧'] };

function nest(depth: number, asArray: boolean): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
}

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withBoxedValues: true, withObjectString: true }),
  fc.integer({ min: 1000, max: 300_000 }).map((n) => '長'.repeat(n)),
  fc.tuple(fc.integer({ min: 10, max: 3000 }), fc.boolean()).map(([d, arr]) => nest(d, arr)),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as unknown),
  fc.constantFrom(null, undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e308, '', '5', '+5', [], {}),
);

const name = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('青梧', '林砚', '船夫', '掌柜', 'Qingwu') },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', ' 林砚 ', '', '  ', 'x'.repeat(100)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
);
const place = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('听雨轩', '青梧的客栈', '青梧的客栈（檐外下雨）', '渡口', '') },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);
const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> => fc.oneof({ weight: 6, arbitrary: a }, { weight: 1, arbitrary: hostile });

const character = fc.oneof(
  fc.constant(null),
  fc.record(
    {
      affinity: maybe(fc.oneof(fc.integer({ min: -300, max: 300 }), fc.double(), fc.constantFrom('5', '-3', '7.5', 'high'))),
      status: maybe(fc.string({ maxLength: 12 })),
      notes: maybe(fc.string({ maxLength: 12 })),
      at: maybe(place),
      mood: hostile,
    },
    { requiredKeys: [] },
  ),
  hostile,
);

const strList = maybe(fc.array(maybe(fc.oneof(fc.constantFrom('黄铜怀表（青梧持有）', '伞（林砚持有）', '三日之约'), fc.string({ maxLength: 10 }))), { maxLength: 12 }));

const patchArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record(
    {
      time: maybe(fc.constantFrom('夜里', '傍晚（雨中）', '第二天清晨')),
      location: maybe(place),
      characters: maybe(fc.dictionary(name, character, { maxKeys: 6 })),
      items: strList,
      facts: strList,
      threads: strList,
      variables: maybe(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 })),
      mood: hostile,
      roster: hostile,
    },
    { requiredKeys: [] },
  ) },
  { weight: 1, arbitrary: hostile },
);

function rosterKept(before: SceneState, after: SceneState): void {
  for (const t of ROSTER_TABLES) {
    const capped = Object.keys(after.roster[t]).length >= LIMITS.roster[t];
    if (capped) continue;
    for (const n of Object.keys(before.roster[t])) {
      assert.ok(Object.prototype.hasOwnProperty.call(after.roster[t], n), `roster.${t} lost ${n}`);
      assert.equal(after.roster[t][n], before.roster[t][n], `first-seen time of ${n} changed`);
    }
  }
}

describe('state properties', function () {
  this.timeout(120_000);

  it('applyPatch never throws, always yields a valid state, never shrinks the roster, never mutates its input', () => {
    fc.assert(
      fc.property(fc.array(patchArb, { minLength: 1, maxLength: 8 }), fc.constantFrom('zh' as const, 'en' as const), (patches, lang) => {
        let state = openingState(OPENING);
        for (const p of patches) {
          const snapshot = JSON.stringify(state);
          const r = applyPatch(state, p, { lang });
          assert.equal(JSON.stringify(state), snapshot, 'input state mutated');
          assert.deepEqual(checkState(r.state), []);
          assert.ok(r.warnings.length <= LIMITS.warnings);
          assert.ok(r.warnings.every((w) => typeof w === 'string' && w.length < 400));
          rosterKept(state, r.state);
          // The state round-trips through JSON (it is what the session file stores).
          assert.deepEqual(JSON.parse(JSON.stringify(r.state)), r.state);
          state = r.state;
        }
        assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype polluted');
      }),
      { numRuns: 1500 },
    );
  });

  it('userEdit never throws; on error the state is untouched', () => {
    fc.assert(
      fc.property(patchArb, (p) => {
        const s = openingState(OPENING);
        const before = JSON.stringify(s);
        const r = userEdit(s, p);
        assert.equal(JSON.stringify(s), before);
        if (r.ok) assert.ok(validateState(r.state));
        else assert.equal(typeof r.error, 'string');
      }),
      { numRuns: 1000 },
    );
  });

  it('formatState never throws and respects any budget it can meet', () => {
    fc.assert(
      fc.property(fc.array(patchArb, { maxLength: 6 }), fc.nat({ max: 3000 }), fc.constantFrom('zh' as const, 'en' as const), (patches, budget, lang) => {
        let s = openingState(OPENING);
        for (const p of patches) s = applyPatch(s, p).state;
        const floor = formatState(s, { lang, budget: 0 }).length;
        const out = formatState(s, { lang, budget });
        if (budget >= floor) assert.ok(out.length <= budget, `${out.length} > ${budget}`);
        assert.ok(out.length <= formatState(s, { lang }).length);
      }),
      { numRuns: 500 },
    );
  });

  it('parseScribeOutput never throws, and finds a patch wrapped in any prose', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (t) => {
        const r = parseScribeOutput(t);
        assert.equal(typeof r.ok, 'boolean');
      }),
      { numRuns: 2000 },
    );
    const prose = fc.string({ maxLength: 40 }).map((s) => s.replace(/[{}]/g, ''));
    fc.assert(
      fc.property(prose, prose, fc.constantFrom('', '```json\n', '```\n'), fc.dictionary(fc.constantFrom('time', 'location', 'facts'), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }), (pre, post, fence, patch) => {
        const text = `${pre}${fence}${JSON.stringify({ patch })}${fence ? '\n```' : ''}${post}`;
        const r = parseScribeOutput(text);
        assert.ok(r.ok, text);
        if (r.ok) assert.deepEqual(r.patch, JSON.parse(JSON.stringify(patch)));
      }),
      { numRuns: 1000 },
    );
  });

  it('branch integrity: on random trees, stateAt(leaf) = applyPatch folded over the path', () => {
    type Kind = 'user' | 'assistant' | 'state' | 'corrupt';
    const treeArb = fc.array(
      fc.record({ parentPick: fc.nat(), kind: fc.constantFrom<Kind>('user', 'assistant', 'state', 'state', 'corrupt'), patch: patchArb, garbage: hostile }),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(treeArb, (nodes) => {
        // Node i's parent is one of the nodes before it (a tree as a parent array); -1 = root.
        const parents = nodes.map((n, i) => (i === 0 ? -1 : n.parentPick % i));
        const entries: Record<string, unknown>[] = [];
        const pathOf = (i: number): number[] => {
          const out: number[] = [];
          for (let cur = i; cur !== -1; cur = parents[cur] ?? -1) out.unshift(cur);
          return out;
        };
        const entriesOn = (path: number[]) => path.map((j) => entries[j]);
        nodes.forEach((n, i) => {
          const e: Record<string, unknown> = { id: `e${i}`, type: n.kind === 'corrupt' ? 'state' : n.kind };
          if (n.kind === 'state') {
            // What the scribe does: the state at the parent, plus this turn's patch.
            const parentState = stateAt(i === 0 ? [] : entriesOn(pathOf(parents[i] ?? 0)), OPENING).state;
            e['state'] = applyPatch(parentState, n.patch).state;
          } else if (n.kind === 'corrupt') {
            e['state'] = n.garbage;
          }
          entries.push(e);
        });
        nodes.forEach((_, leaf) => {
          const path = pathOf(leaf);
          let expected = openingState(OPENING);
          for (const j of path) {
            const n = nodes[j];
            // A corrupt entry is skipped unless the garbage happens to be a valid state.
            if (n?.kind === 'state') expected = applyPatch(expected, n.patch).state;
            else if (n?.kind === 'corrupt' && validateState(n.garbage)) expected = n.garbage;
          }
          const got = stateAt(entriesOn(path), OPENING);
          assert.deepEqual(got.state, expected);
          got.state.time = 'mutated';
          assert.notEqual(stateAt(entriesOn(path), OPENING).state.time, 'mutated');
        });
      }),
      { numRuns: 300 },
    );
  });
});
