// Branch as a property, over real session files driven by random verbs (turns with and without a
// scribe or a checkpoint, pins, saves, summaries, state edits, edits, hides, switches, both
// restores, loads). After every step:
//  - the Branch at the leaf equals what the session computes for that leaf (path, context, scene
//    state, checkpoint, saves, node ids), and asking again without a change gives the same value;
//  - for every entry, its turn is well formed and its end shows the turn's prose (the last
//    checkpoint on the path to the end is the turn's own) and nothing that belongs after it;
//  - every landing agrees with itself: Restore Prose and Chat lands where the restored checkpoint
//    is the branch's prose, past every state and save of that prose; Load Save lands on the save.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import type { ChainEntry, ChainType, NewChainEntry } from '../../../src/session/entries';
import { isChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { stateAt } from '../../../src/state/stateAt';
import { branchOf, proseAndChatLanding, saveLanding } from '../../../src/story';
import { planNewSave } from '../../../src/worldline/plan';
import { runs } from '../long-mode';
import { removeTempDirs, tempDir } from '../session/helpers';
import { OPTIONS, sceneAt } from './helpers';

type Op =
  | { kind: 'turn'; scribe: boolean; checkpoint: boolean; failed: boolean }
  | { kind: 'pin' }
  | { kind: 'save' }
  | { kind: 'summary'; pick: number }
  | { kind: 'stateEdit' }
  | { kind: 'edit'; pick: number }
  | { kind: 'hide'; pick: number }
  | { kind: 'navigate'; pick: number }
  | { kind: 'restore'; pick: number }
  | { kind: 'load'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), scribe: fc.boolean(), checkpoint: fc.boolean(), failed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pin' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'save' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('summary' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stateEdit' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hide' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('navigate' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('load' as const), pick: fc.nat() }) },
);

const AFTER_CHECKPOINT: ReadonlySet<ChainType> = new Set<ChainType>(['state', 'save', 'summary']);
let n = 0;

function chain(session: Session): ChainEntry[] {
  return session.entries().filter(isChainEntry);
}

function pick<T>(list: readonly T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

async function apply(session: Session, o: Op): Promise<void> {
  const all = chain(session);
  const stamp = () => `c${++n}`;
  const checkpoint = (): NewChainEntry => ({ type: 'checkpoint', commit: stamp(), ref: `refs/worldline/${n}`, changed: [] });
  switch (o.kind) {
    case 'turn':
      await session.append({ type: 'user', text: `instruction ${n}` });
      await session.append({ type: 'assistant', text: `reply ${n}`, model: 'm', finish: o.failed ? 'error' : 'stop' });
      if (o.failed) return; // a failed turn gets no checkpoint and no scribe
      if (o.checkpoint) await session.append(checkpoint());
      if (o.scribe) await session.append({ type: 'state', state: sceneAt(`t${n}`), by: 'scribe', warnings: [] });
      return;
    case 'pin':
      await session.append(checkpoint());
      return;
    case 'save':
      await session.append(planNewSave({ name: '', lang: 'en', tree: session }));
      return;
    case 'summary': {
      const covered = pick(session.path().filter((e) => e.type === 'user' || e.type === 'assistant'), o.pick);
      if (covered) await session.append({ type: 'summary', text: 'so far', coversThroughId: covered.id });
      return;
    }
    case 'stateEdit':
      await session.append({ type: 'state', state: sceneAt(`edit ${++n}`), by: 'user', warnings: [] });
      return;
    case 'edit': {
      const target = pick(all.filter((e) => e.type === 'user' || e.type === 'assistant'), o.pick);
      if (target) await session.appendSide({ type: 'edit', targetId: target.id, text: `edited ${++n}` });
      return;
    }
    case 'hide': {
      const target = pick(all.filter((e) => e.type === 'user' || e.type === 'assistant'), o.pick);
      if (target) await session.appendSide({ type: 'hide', targetId: target.id, hidden: !session.isHidden(target.id) });
      return;
    }
    case 'navigate': {
      const target = pick([null, ...all.map((e) => e.id)], o.pick);
      await session.navigate(target ?? null);
      return;
    }
    case 'restore': {
      const target = pick(all.filter((e) => e.type === 'checkpoint'), o.pick);
      const landing = target && proseAndChatLanding(branchOf(session, OPTIONS), target.id);
      if (landing) await session.navigate(landing.leafId);
      return;
    }
    case 'load': {
      const target = pick(all.filter((e) => e.type === 'save'), o.pick);
      const landing = target && saveLanding(branchOf(session, OPTIONS), target.id);
      if (landing) await session.navigate(landing.leafId);
      return;
    }
  }
}

function lastCheckpointId(session: Session, id: string): string | undefined {
  return session.lastOnPath('checkpoint', id)?.id;
}

function check(session: Session): void {
  const b = branchOf(session, OPTIONS);
  assert.equal(branchOf(session, OPTIONS), b, 'asked again without a change: the same value');
  const p = session.path();
  assert.deepEqual(b.path.map((e) => e.id), p.map((e) => e.id));
  assert.deepEqual(b.context, session.contextWithSummary());
  assert.deepEqual(b.state, stateAt(p, OPTIONS.opening, { lang: 'zh' }));
  assert.equal(b.checkpoint?.id, session.lastOnPath('checkpoint')?.id);
  assert.deepEqual(b.saves.map((s) => s.id), p.filter((e) => e.type === 'save').map((e) => e.id));
  assert.deepEqual([...b.nodeIds].sort(), p.map((e) => e.id).sort());

  for (const e of chain(session)) {
    const t = b.turnOf(e.id);
    assert.ok(t, `every chain entry has a turn (${e.type})`);
    assert.ok(t.entries.some((x) => x.id === e.id), 'the turn holds the entry');
    const users = t.entries.filter((x) => x.type === 'user');
    assert.ok(users.length <= 1 && (users.length === 0 || t.entries[0] === t.user), 'one instruction, first');
    for (let i = 1; i < t.entries.length; i++) assert.equal(t.entries[i]?.parentId, t.entries[i - 1]?.id, 'the entries are a chain');
    if (t.user) assert.equal(t.checkpointBefore?.id, t.user.parentId === null ? undefined : lastCheckpointId(session, t.user.parentId));
    assert.equal(lastCheckpointId(session, t.end.id), (t.checkpoint ?? t.checkpointBefore)?.id, 'the end shows the turn\'s prose');
    assert.ok(!session.children(t.end.id).some((c) => AFTER_CHECKPOINT.has(c.type)), 'nothing of the same prose lies past the end');
    if (t.user) assert.ok(session.isAncestorOrSelf(t.user.id, t.end.id), 'the end is in the turn');
  }

  for (const c of chain(session).filter((e) => e.type === 'checkpoint')) {
    const landing = proseAndChatLanding(b, c.id);
    assert.ok(landing && landing.checkpoint?.id === c.id);
    assert.equal(lastCheckpointId(session, landing.leafId), c.id, 'prose and chat agree');
    const between = session.path(landing.leafId).slice(session.path(c.id).length);
    assert.ok(between.every((x) => AFTER_CHECKPOINT.has(x.type)), 'only that prose\'s state, saves and summaries are walked over');
    assert.ok(!session.children(landing.leafId).some((x) => AFTER_CHECKPOINT.has(x.type)), 'past every one of them');
  }
  for (const s of chain(session).filter((e) => e.type === 'save')) {
    const landing = saveLanding(b, s.id);
    assert.equal(landing?.leafId, s.id);
    assert.equal(landing?.checkpoint?.id, lastCheckpointId(session, s.id));
  }
}

describe('Branch properties', function () {
  this.timeout(120000);
  afterEach(removeTempDirs);

  it('after every verb the Branch is what the session computes, turns are whole and landings agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40, size: 'max' }), async (ops) => {
        const id = `p${++n}`;
        const session = await Session.create(path.join(tempDir('wl-branch-prop-'), `${id}.jsonl`), { id, title: 'p' });
        try {
          for (const o of ops) {
            await apply(session, o);
            check(session);
          }
        } finally {
          await session.close();
        }
      }),
      { numRuns: runs(100, 1000) },
    );
  });
});
