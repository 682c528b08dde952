// Scene states stored as patches (format 2): the diff and its copy-on-write application, states
// along random trees read back equal at every node, damaged and torn patch lines, and format-1
// files read and appended to as they are.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { ChainEntry, StateEntry } from '../../../src/session/entries';
import { applyJsonPatch, diffJson, jsonEqual } from '../../../src/session/jsonDiff';
import { SessionLibrary } from '../../../src/session/library';
import { Session } from '../../../src/session/session';
import { SNAPSHOT_EVERY } from '../../../src/session/stateCodec';
import { stateAt } from '../../../src/state/stateAt';
import type { SceneState } from '../../../src/state/types';
import { runs } from '../long-mode';
import { FakeClock, assistant, removeTempDirs, tempDir, user } from './helpers';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const keyArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('time', 'location', 'characters', '青梧', '柳三娘', 'items', 'variables', 'roster', 'notes') },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'a/b', '~1', '~', '', '0', '12') },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);
const leafArb: fc.Arbitrary<Json> = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -100, max: 100 }), fc.constantFrom('雨', '晴', '', '第3日'));
const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { maxDepth: 3 },
    { weight: 3, arbitrary: leafArb },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 3 }) },
    { weight: 2, arbitrary: fc.dictionary(keyArb, tie('v'), { maxKeys: 4 }) },
  ),
})).v;
const objectArb = fc.dictionary(keyArb, jsonArb, { maxKeys: 6 });

/** A changed copy of `value`: keys set (null included), removed, added, reordered; arrays replaced. */
function mutate(value: Record<string, Json>, rand: () => number): Record<string, Json> {
  const keys = Object.keys(value);
  const out: Record<string, Json> = {};
  const order = rand() < 0.15 ? [...keys].reverse() : keys;
  for (const k of order) {
    const r = rand();
    if (r < 0.1) continue; // removed
    const v = value[k];
    let next: Json = v;
    if (r < 0.3) next = rand() < 0.3 ? null : Math.floor(rand() * 50);
    else if (r < 0.45 && v !== null && typeof v === 'object' && !Array.isArray(v)) next = mutate(v, rand);
    else if (r < 0.5) next = [Math.floor(rand() * 3), '雨'];
    Object.defineProperty(out, k, { value: next, enumerable: true, writable: true, configurable: true });
  }
  if (rand() < 0.4) {
    const k = ['青梧', '__proto__', 'a/b', '~0', 'v', 'null'][Math.floor(rand() * 6)];
    Object.defineProperty(out, k, { value: rand() < 0.5 ? null : { at: '茶馆', n: Math.floor(rand() * 9) }, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const LEDGER: Json = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`地点${i}号`, `第${i}日清晨`]));

const CAST = ['青梧', '柳三娘', '沈舟', '顾雪', '宁川', '白露'];

/** A valid scene state of turn `t`: most of it stays, as in a story (so a patch is small). */
function scene(t: number): SceneState {
  const characters: SceneState['characters'] = {};
  for (const [i, name] of CAST.entries()) characters[name] = { affinity: i === t % 6 ? t % 20 : i, status: i === t % 6 ? `第${t}轮` : '沉默', notes: '带着怀表', at: '茶馆' };
  return {
    time: `第${t}日`,
    location: t % 3 ? '茶馆' : '码头',
    characters,
    items: ['黄铜怀表（青梧持有）', '那封信（柳三娘持有）'],
    facts: ['城门已落锁', '怀表的主人另有其人'],
    threads: ['那封信的下落'],
    roster: { characters: Object.fromEntries(CAST.map((n) => [n, '第一天'])), locations: { 茶馆: '第一天', 码头: '第一天' }, items: {}, threads: {} },
    variables: { 雨: t % 2 ? null : t },
  };
}

function fileLines(file: string): Record<string, unknown>[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A session of `n` turns (user, assistant, state); returns its file and the state entries. */
async function turns(n: number, first = 1): Promise<{ file: string; states: StateEntry[]; session: Session }> {
  const file = path.join(tempDir('wl-patch-'), 'feed0002.jsonl');
  const s = await Session.create(file, { id: 'feed0002', title: '账本' }, { clock: new FakeClock() });
  const states: StateEntry[] = [];
  for (let t = first; t < first + n; t++) {
    await s.append(user(`写第${t}段`));
    await s.append(assistant(`第${t}段`));
    states.push((await s.append({ type: 'state', state: scene(t), by: 'scribe', warnings: [] })) as StateEntry);
  }
  await s.close();
  return { file, states, session: s };
}

function writeLines(file: string, lines: readonly unknown[]): void {
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

describe('scene states as patches (format 2)', function () {
  this.timeout(30_000);
  afterEach(removeTempDirs);

  describe('the JSON diff', () => {
    it('applies back to exactly the same JSON text, never changes its base, and shares what did not change', () => {
      fc.assert(
        fc.property(objectArb, fc.integer(), (base, seed) => {
          let x = seed | 0;
          const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0) / 4294967296;
          const target = mutate(base as Record<string, Json>, rand);
          const before = JSON.stringify(base);
          const patch = diffJson(base, target);
          if (!patch) {
            // Only when the top-level keys changed order: the caller stores the state whole.
            assert.notDeepEqual(Object.keys(base).filter((k) => k in target), Object.keys(target).filter((k) => k in base));
            return;
          }
          const applied = applyJsonPatch(base, patch);
          assert.ok(applied.ok);
          assert.equal(JSON.stringify(applied.value), JSON.stringify(target));
          assert.ok(jsonEqual(applied.value, target));
          assert.equal(JSON.stringify(base), before, 'the base is untouched');
          for (const k of Object.keys(target)) {
            const b = (base as Record<string, unknown>)[k];
            if (Object.prototype.hasOwnProperty.call(base, k) && b !== null && typeof b === 'object' && jsonEqual(b, target[k])) {
              assert.equal(applied.value[k], b, `unchanged "${k}" is shared, not copied`);
            }
          }
          assert.equal(Object.getPrototypeOf(applied.value), Object.prototype, 'a "__proto__" key stays a key');
        }),
        { numRuns: runs(500, 5000) },
      );
    });

    it('sets values to null and removes keys (what JSON Merge Patch cannot tell apart)', () => {
      const base = { variables: { 雨: 1, 风: 2 } };
      const target = { variables: { 雨: null } };
      const patch = diffJson(base, target);
      assert.deepEqual(patch, [
        { op: 'remove', path: '/variables/风' },
        { op: 'replace', path: '/variables/雨', value: null },
      ]);
      const applied = applyJsonPatch(base, patch ?? []);
      assert.ok(applied.ok && Object.isFrozen(applied.value) && Object.isFrozen(applied.value.variables));
      assert.deepEqual(applied.ok && applied.value, target);
    });

    it('refuses a patch that does not fit its base, saying where', () => {
      const base = { a: { b: 1 }, list: [1] };
      for (const [patch, why] of [
        [[{ op: 'remove', path: '/x' }], /not there to remove/],
        [[{ op: 'replace', path: '/a/c', value: 1 }], /not there to replace/],
        [[{ op: 'add', path: '/list/0/x', value: 1 }], /not an object/],
        [[{ op: 'add', path: 'a', value: 1 }], /not a JSON Pointer/],
        [[{ op: 'add', path: '/a~2', value: 1 }], /not a JSON Pointer/],
      ] as const) {
        const applied = applyJsonPatch(base, patch);
        assert.ok(!applied.ok && why.test(applied.error), JSON.stringify(patch));
      }
      assert.deepEqual(base, { a: { b: 1 }, list: [1] });
    });
  });

  describe('sessions', () => {
    it('random states along random trees with regenerations read back equal at every node, also after reopening mid-way', async () => {
      type Op = { kind: 'state' | 'turn' | 'regenerate' | 'reopen'; pick: number; seed: number };
      const opArb: fc.Arbitrary<Op> = fc.record({
        kind: fc.constantFrom<Op['kind']>('state', 'state', 'state', 'turn', 'regenerate', 'reopen'),
        pick: fc.nat(),
        seed: fc.integer(),
      });
      let tried = 0;
      let patches = 0;
      await fc.assert(
        fc.asyncProperty(objectArb, fc.array(opArb, { minLength: 8, maxLength: 60 }), async (first, ops) => {
          tried++;
          const file = path.join(tempDir('wl-patch-prop-'), `p${tried}.jsonl`);
          let s = await Session.create(file, { id: `p${tried}`, title: 't' });
          const written = new Map<string, string>(); // state entry id → its state as JSON
          // A part that stays, as most of a scene state does, so that most states go as patches.
          const withLedger = (v: Record<string, Json>): Record<string, Json> => ({ ledger: LEDGER, ...v });
          const stateOf = new Map<string | null, Record<string, Json>>([[null, first as Record<string, Json>]]);
          const chain: ChainEntry[] = [];
          let current: Record<string, Json> = first as Record<string, Json>;
          for (const op of ops) {
            let x = op.seed | 0;
            const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0) / 4294967296;
            if (op.kind === 'state') {
              current = mutate(current, rand);
              const e = await s.append({ type: 'state', state: withLedger(current), by: 'scribe', warnings: [] });
              written.set(e.id, JSON.stringify(withLedger(current)));
              chain.push(e);
              stateOf.set(e.id, current);
            } else if (op.kind === 'turn') {
              const e = await s.append(user(`段${op.pick}`));
              chain.push(e);
              stateOf.set(e.id, current);
            } else if (op.kind === 'regenerate' && chain.length > 0) {
              const to = chain[op.pick % chain.length];
              await s.navigate(to.id);
              current = stateOf.get(to.id) as Record<string, Json>;
            } else if (op.kind === 'reopen') {
              await s.close();
              s = (await Session.open(file)).session;
            }
          }
          await s.close();
          const { session, report } = await Session.open(file);
          assert.deepEqual(report.corruptLines, []);
          for (const [id, json] of written) {
            assert.equal(JSON.stringify((session.get(id) as StateEntry).state), json, `state ${id}`);
          }
          // Patches chain at most SNAPSHOT_EVERY - 1 deep before a whole state.
          const lines = fileLines(file);
          const depth = new Map<string, number>();
          for (const l of lines) {
            if (l.type !== 'state') continue;
            if ('base' in l) patches++;
            const d = 'base' in l ? (depth.get(l.base as string) ?? NaN) + 1 : 0;
            assert.ok(d < SNAPSHOT_EVERY, `a patch ${d} deep`);
            depth.set(l.id as string, d);
          }
          await session.close();
        }),
        { numRuns: runs(40, 400) },
      );
      console.log(`      state patch trees: ${tried} tried, 0 failed (${patches} patch lines)`);
      assert.ok(patches > tried, 'most states went to the file as patches');
    });

    it('writes format 2: a whole state, then small patches naming their base, a whole state every SNAPSHOT_EVERY', async () => {
      const { file, states } = await turns(SNAPSHOT_EVERY + 2);
      const lines = fileLines(file);
      assert.equal(lines[0].version, 2);
      const stateLines = lines.filter((l) => l.type === 'state');
      assert.deepEqual(stateLines.map((l) => 'state' in l), [true, ...Array(SNAPSHOT_EVERY - 1).fill(false), true, false]);
      assert.equal(stateLines[1].base, states[0].id);
      assert.deepEqual(Object.keys(stateLines[1]), ['id', 'parentId', 'type', 'ts', 'base', 'patch', 'by', 'warnings']);
      const whole = JSON.stringify(stateLines[0]).length;
      assert.ok(JSON.stringify(stateLines[1]).length < whole / 2, 'a patch line is small');
      const { session } = await Session.open(file);
      for (const e of states) assert.deepEqual(session.get(e.id), e);
      assert.deepEqual(Object.keys(session.get(states[1].id) as object), ['id', 'parentId', 'type', 'ts', 'state', 'by', 'warnings']);
      // In memory a patched state shares what did not change with its base, and nothing can change it.
      const [a, b] = [1, 2].map((i) => (session.get(states[i].id) as StateEntry).state as SceneState);
      assert.equal(a.roster, b.roster);
      assert.notEqual(a.characters, b.characters);
      assert.ok(Object.isFrozen(b) && Object.isFrozen(b.roster.characters));
      assert.throws(() => {
        b.roster.characters['新人'] = '第二天';
      }, TypeError);
      await session.close();
    });
  });

  describe('damage', () => {
    it('a damaged whole state loses the states patched on it (reported by line), nothing else: the branch falls back', async () => {
      const { file, states } = await turns(SNAPSHOT_EVERY + 2);
      const text = fs.readFileSync(file, 'utf8').split('\n');
      const firstState = text.findIndex((l) => l.includes('"type":"state"'));
      text[firstState] = text[firstState].slice(0, 40); // not JSON any more
      fs.writeFileSync(file, text.join('\n'));
      const { session, report } = await Session.open(file);
      const lost = report.corruptLines.slice(1);
      assert.equal(report.corruptLines[0].line, firstState + 1);
      assert.equal(lost.length, SNAPSHOT_EVERY - 1, 'the patches up to the next whole state');
      assert.ok(lost.every((c) => /scene state is lost/.test(c.error)), lost[0].error);
      assert.match(lost[0].error, new RegExp(`state entry ${states[1].id}: the state it changes \\(entry ${states[0].id}\\) is missing or damaged`));
      assert.match(lost[1].error, /could not be rebuilt either/);
      // Every entry but the damaged line is there, in one tree (the lost states keep their place).
      assert.equal(session.entryCount, 3 * states.length - 1);
      const leafPath = session.path();
      assert.equal(leafPath.length, 3 * states.length - 3, 'the path runs from the orphaned part to the leaf');
      assert.equal((session.get(states[1].id) as StateEntry).state, null);
      // Within the lost run the branch falls back past them; after the next whole state it is whole again.
      const opening = scene(0);
      const inLost = stateAt(session.path(states[5].id), opening, { lang: 'en' });
      assert.deepEqual(inLost.state, opening);
      assert.equal(inLost.warnings.length, 5);
      const after = stateAt(session.path(states[SNAPSHOT_EVERY + 1].id), opening, { lang: 'en' });
      assert.deepEqual(after.state, scene(SNAPSHOT_EVERY + 2));
      assert.equal(after.entryId, states[SNAPSHOT_EVERY + 1].id);
      // New states go on from an intact one.
      await session.append({ type: 'state', state: scene(99), by: 'user', warnings: [] });
      await session.close();
      const again = await Session.open(file);
      assert.deepEqual(stateAt(again.session.path(), opening).state, scene(99));
      await again.session.close();
    });

    it('a patch on something that is not a state, or that does not apply, is a lost state; the one before it is used', async () => {
      const { file, states } = await turns(4);
      const lines = fileLines(file);
      const at = (id: string) => lines.findIndex((l) => l.id === id);
      const notState = lines[at(states[1].id) - 1]; // the assistant entry before it
      lines[at(states[1].id)].base = notState.id;
      lines[at(states[3].id)].base = states[0].id;
      lines[at(states[3].id)].patch = [{ op: 'remove', path: '/no/such' }];
      writeLines(file, lines);
      const { session, report } = await Session.open(file);
      assert.deepEqual(report.corruptLines.map((c) => c.line), [at(states[1].id) + 1, at(states[2].id) + 1]);
      // A patch that does not apply is found when its state is read.
      assert.equal((session.get(states[3].id) as StateEntry).state, null);
      const result = stateAt(session.path(), scene(0), { lang: 'en' });
      assert.equal(result.entryId, states[0].id);
      assert.deepEqual(result.state, scene(1));
      assert.equal(session.path().length, 12, 'no entry left the tree');
      await session.close();
    });

    it('a torn patch line at the end is set aside like any torn line; a patch without its base field is a damaged line', async () => {
      const { file, states } = await turns(3);
      const full = fs.readFileSync(file);
      fs.writeFileSync(file, full.subarray(0, full.length - 20));
      const { session, report } = await Session.open(file);
      assert.ok(report.tornTail && report.tornTail.bytes > 0);
      assert.deepEqual(report.corruptLines, []);
      assert.equal(session.get(states[2].id), undefined);
      assert.deepEqual((session.get(states[1].id) as StateEntry).state, scene(2));
      await session.close();

      const lines = fileLines(file);
      const i = lines.findIndex((l) => l.id === states[1].id);
      delete lines[i].base;
      writeLines(file, lines);
      const again = await Session.open(file);
      assert.deepEqual(again.report.corruptLines.map((c) => [c.line, /state entry: field "base" is missing/.test(c.error) || c.error]), [[i + 1, true]]);
      await again.session.close();
    });
  });

  describe('format 1 (whole states)', () => {
    const V1 = 'feed0001';
    function v1Lines(): Record<string, unknown>[] {
      const lines: Record<string, unknown>[] = [{ type: 'session', version: 1, id: V1, createdAt: '2025-03-01T00:00:00.000Z', title: '旧账' }];
      let parent: string | null = null;
      for (let t = 1; t <= 4; t++) {
        for (const e of [
          { type: 'user', text: `写${t}` },
          { type: 'state', state: scene(t), by: 'scribe', warnings: [] },
        ]) {
          const id = `e${t}${e.type}`;
          lines.push({ id, parentId: parent, ts: '2025-03-01T00:00:00.000Z', ...e });
          parent = id;
        }
      }
      return lines;
    }

    it('opens unchanged, and is appended to in format 1: whole states, the file before the append never rewritten', async () => {
      const file = path.join(tempDir('wl-v1-'), `${V1}.jsonl`);
      writeLines(file, v1Lines());
      const before = fs.readFileSync(file);
      const { session, report } = await Session.open(file);
      assert.deepEqual(report.warnings, []);
      assert.equal(session.header.version, 1);
      for (let t = 1; t <= 4; t++) assert.deepEqual((session.get(`e${t}state`) as StateEntry).state, scene(t));
      await session.append({ type: 'state', state: scene(5), by: 'user', warnings: [] });
      await session.close();
      const after = fs.readFileSync(file);
      assert.deepEqual(after.subarray(0, before.length), before);
      const last = fileLines(file).at(-1) as Record<string, unknown>;
      assert.deepEqual(last.state, scene(5));
      assert.ok(!('patch' in last) && !('base' in last));
      const again = await Session.open(file, { readOnly: true });
      assert.deepEqual(stateAt(again.session.path(), scene(0)).state, scene(5));
      await again.session.close();
    });

    it('has no patches: a patch line in a format-1 file is a damaged line', async () => {
      const file = path.join(tempDir('wl-v1-'), `${V1}.jsonl`);
      const lines = v1Lines();
      const { state: _dropped, ...rest } = lines[4];
      lines[4] = { ...rest, base: 'e1state', patch: [] };
      writeLines(file, lines);
      const { session, report } = await Session.open(file, { readOnly: true });
      assert.deepEqual(report.corruptLines.map((c) => c.line), [5]);
      assert.match(report.corruptLines[0].error, /field "state" is missing/);
      await session.close();
    });

    it('a backup of a format-1 session is restored as a format-2 session with the same states', async () => {
      const root = tempDir('wl-v1-lib-');
      const lib = new SessionLibrary(root, { pid: 1, isProcessAlive: () => true });
      const backup = path.join(lib.backupsDir, `old_${V1}_20250301-120000-000.jsonl`);
      fs.mkdirSync(lib.backupsDir, { recursive: true });
      writeLines(backup, v1Lines());
      const restored = await lib.restoreBackup(backup);
      const lines = fileLines(restored.file);
      assert.equal(lines[0].version, 2);
      assert.ok(lines.some((l) => l.type === 'state' && 'patch' in l));
      for (let t = 1; t <= 4; t++) assert.deepEqual((restored.get(`e${t}state`) as StateEntry).state, scene(t));
      await lib.dispose();
    });
  });
});
