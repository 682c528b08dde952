// Property test (issue 13): the kept branch (the session's kept path, its lookups and context,
// the Branch built on them, the kept transcript) equals the branch read from scratch (the old
// walk from the leaf to the root, test/unit/session/pathReference.ts) after any random sequence
// of appends (every entry type, repeated call ids), edits, hides, labels, navigations,
// regenerations and variants written beside the branch, whether reads come after every write or
// only now and then. What a read handed out never changes afterwards (a path only grows at its
// end), and a reopened file gives the same reads.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { buildTranscript } from '../../../src/agent/transcript';
import type { ChainEntry, ChainEntryOf, ChainType, NewChainEntry } from '../../../src/session/entries';
import { CHAIN_TYPES } from '../../../src/session/entries';
import type { PathView } from '../../../src/session/keptPath';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { stateAt } from '../../../src/state/stateAt';
import { Branch, branchOf, type BranchOptions, type BranchSource } from '../../../src/story/branch';
import { runs } from '../long-mode';
import {
  referenceContext,
  referenceContextWithSummary,
  referenceIsAncestorOrSelf,
  referenceLastOnPath,
  referencePath,
} from '../session/pathReference';
import { removeTempDirs, tempDir } from '../session/helpers';

const OPTIONS: BranchOptions = { opening: openingState({ time: '开场', location: '客栈' }), lang: 'zh' };
const CALLS = ['c0', 'c1', 'c2'];

type Op =
  | { op: 'user'; text: string }
  | { op: 'assistant'; text: string; calls: number[]; finish: 'stop' | 'aborted' | 'error' }
  | { op: 'tool'; call: number; text: string }
  | { op: 'turn'; calls: number[]; text: string }
  | { op: 'checkpoint' | 'state' | 'save' }
  | { op: 'summary'; cover: number; onPath: boolean }
  | { op: 'edit'; pick: number; text: string; onPath: boolean }
  | { op: 'hide'; pick: number; hidden: boolean; onPath: boolean }
  | { op: 'label'; pick: number }
  | { op: 'navigate' | 'regenerate' | 'variantBeside' | 'beforeInstruction'; pick: number }
  | { op: 'navigateNull' };

const text = fc.constantFrom('', '雨夜', '第二段', 'x'.repeat(30));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('user' as const), text }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('assistant' as const), text, calls: fc.array(fc.nat(2), { maxLength: 3 }), finish: fc.constantFrom('stop' as const, 'aborted' as const, 'error' as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('tool' as const), call: fc.nat(2), text }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('turn' as const), calls: fc.array(fc.nat(2), { minLength: 1, maxLength: 2 }), text }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('checkpoint' as const, 'state' as const, 'save' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('summary' as const), cover: fc.nat(), onPath: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('edit' as const), pick: fc.nat(), text, onPath: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('hide' as const), pick: fc.nat(), hidden: fc.boolean(), onPath: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('label' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('navigate' as const, 'regenerate' as const, 'variantBeside' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('beforeInstruction' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'navigateNull' as const }) },
);
const stepArb = fc.record({ op: opArb, read: fc.boolean() });

/** When each node was last made the leaf: the tip of a variant is the newest one in its subtree. */
class Leaves {
  private seq = 0;
  private readonly at = new Map<string, number>();
  moved(id: string | null): void {
    this.seq++;
    if (id !== null) this.at.set(id, this.seq);
  }
  tipOf(session: Session, id: string): string {
    let best = id;
    const stack = [id];
    while (stack.length > 0) {
      for (const child of session.children(stack.pop() as string)) {
        if ((this.at.get(child.id) ?? 0) > (this.at.get(best) ?? 0)) best = child.id;
        stack.push(child.id);
      }
    }
    return best;
  }
}

function chainIds(session: Session): string[] {
  return session.entries().filter((e): e is ChainEntry => (CHAIN_TYPES as readonly string[]).includes(e.type)).map((e) => e.id);
}

function pickOf<T>(list: readonly T[], n: number): T | undefined {
  return list.length === 0 ? undefined : list[n % list.length];
}

/** An entry of the branch, half the time one of its last few (where the kept parts meet). */
function pickOnPath(session: Session, n: number, keep: (e: ChainEntry) => boolean = () => true): string | undefined {
  const on = session.path().filter(keep);
  if (on.length === 0) return undefined;
  const k = n >> 1;
  return (n % 2 === 0 ? on[on.length - 1 - (k % Math.min(8, on.length))] : on[k % on.length])?.id;
}

const EDITABLE = ['user', 'assistant', 'tool', 'summary'];

async function apply(session: Session, leaves: Leaves, op: Op, state: { n: number }): Promise<void> {
  const ids = chainIds(session);
  const append = async (entry: NewChainEntry): Promise<void> => {
    const written = await session.append(entry);
    leaves.moved(written.id);
  };
  const navigate = async (to: string | null): Promise<void> => {
    if (to !== session.leafId) leaves.moved(to);
    await session.navigate(to);
  };
  switch (op.op) {
    case 'user':
      return append({ type: 'user', text: op.text });
    case 'assistant': {
      const toolCalls = op.calls.map((i) => ({ id: CALLS[i] as string, name: 'append_file', arguments: `{"path":"chapters/0${i}.md"}` }));
      return append({ type: 'assistant', text: op.text, model: 'm', finish: op.finish, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    }
    case 'tool':
      return append({ type: 'tool', callId: CALLS[op.call] as string, name: 'append_file', result: op.text || '写好了', isError: false });
    case 'turn': {
      // A turn as the runner writes it: the instruction, a reply calling tools, their results, the last words.
      await append({ type: 'user', text: op.text || '继续' });
      const toolCalls = op.calls.map((i) => ({ id: CALLS[i] as string, name: 'append_file', arguments: `{"path":"chapters/0${i}.md"}` }));
      await append({ type: 'assistant', text: op.text, model: 'm', finish: 'stop', toolCalls });
      for (const call of toolCalls) await append({ type: 'tool', callId: call.id, name: call.name, result: `写进 ${call.arguments}`, isError: false });
      return append({ type: 'assistant', text: '写好了', model: 'm', finish: 'stop' });
    }
    case 'checkpoint':
      return append({ type: 'checkpoint', commit: 'a'.repeat(40), ref: `refs/t/${state.n++}`, changed: ['chapters/01.md'] });
    case 'state':
      return append({ type: 'state', state: openingState({ time: `第${state.n++}夜`, location: '客栈' }), by: 'scribe', warnings: [] });
    case 'save':
      return append({ type: 'save', saveId: `s${state.n++}`, name: '存档', worldlineId: 'w', worldlineName: '主线', kind: 'first' });
    case 'summary': {
      const cover = pickOf(op.onPath ? session.path().map((e) => e.id) : ids, op.cover);
      if (cover === undefined) return;
      return append({ type: 'summary', text: `摘要 ${state.n++}`, coversThroughId: cover });
    }
    case 'edit': {
      const target = op.onPath
        ? pickOnPath(session, op.pick, (e) => EDITABLE.includes(e.type))
        : pickOf(ids.filter((id) => EDITABLE.includes(session.get(id)?.type ?? '')), op.pick);
      if (target === undefined) return;
      await session.appendSide({ type: 'edit', targetId: target, text: op.text });
      return;
    }
    case 'hide': {
      // On the branch, tool results and summaries first: a hidden result takes its call out of
      // the reply, a hidden summary gives way to the one before it.
      const special = (e: ChainEntry) => e.type === 'tool' || e.type === 'summary';
      const target = op.onPath ? pickOnPath(session, op.pick >> 1, op.pick % 2 === 0 ? special : undefined) ?? pickOnPath(session, op.pick) : pickOf(ids, op.pick);
      if (target === undefined) return;
      await session.appendSide({ type: 'hide', targetId: target, hidden: op.hidden });
      return;
    }
    case 'label': {
      const target = pickOf([session.header.id, ...ids], op.pick) as string;
      await session.appendSide({ type: 'label', targetId: target, label: `标签${state.n++}` });
      return;
    }
    case 'navigate':
      return navigate(pickOf(ids, op.pick) ?? null);
    case 'regenerate': {
      const on = pickOf(session.path().map((e) => e.id), op.pick);
      if (on === undefined) return;
      let target: string;
      try {
        target = session.regenerateTarget(on);
      } catch {
        return; // no instruction before it
      }
      return navigate(target);
    }
    case 'variantBeside': {
      // A sibling written beside an entry of the branch, then back: its ◀ n/m ▶ count changed.
      const leaf = session.leafId;
      const on = pickOf(session.path(), op.pick);
      if (!on || (on.type !== 'user' && on.type !== 'assistant')) return;
      await navigate(on.parentId);
      await append(on.type === 'user' ? { type: 'user', text: '另一种说法' } : { type: 'assistant', text: '另一个回答', model: 'm', finish: 'stop' });
      return navigate(leaf);
    }
    case 'beforeInstruction': {
      // Back to just before an instruction of the branch: what is written next joins the turn before it.
      const users = session.path().filter((e) => e.type === 'user');
      const on = pickOf(users, op.pick);
      if (!on) return;
      return navigate(on.parentId);
    }
    case 'navigateNull':
      return navigate(null);
  }
}

/** A path view over a from-scratch path, for a Branch built the old way. */
function arrayView(entries: readonly ChainEntry[], leafId: string | null): PathView {
  return {
    leafId,
    length: entries.length,
    entries,
    indexOf: (id) => entries.findIndex((e) => e.id === id),
    lastOfType<T extends ChainType>(type: T, at = entries.length - 1): ChainEntryOf<T> | undefined {
      for (let i = Math.min(at, entries.length - 1); i >= 0; i--) if ((entries[i] as ChainEntry).type === type) return entries[i] as ChainEntryOf<T>;
      return undefined;
    },
  };
}

/** The session read from scratch, as a Branch source: what a Branch was before it was kept. */
function scratchSource(session: Session, leaves: Leaves): BranchSource {
  return {
    header: session.header,
    get leafId() { return session.leafId; },
    get entryCount() { return session.entryCount; },
    get: (id) => session.get(id),
    path: (leaf) => referencePath(session, leaf),
    pathView: (leaf) => arrayView(referencePath(session, leaf), leaf),
    children: (id) => session.children(id),
    tipOf: (id) => leaves.tipOf(session, id),
    contextWithSummary: (leaf) => referenceContextWithSummary(session, leaf),
    textOf: (id) => session.textOf(id),
    isHidden: (id) => session.isHidden(id),
    sideFor: (id, type) => session.sideFor(id, type),
    variants: (id) => session.variants(id),
    displayChangesSince: () => ({ cursor: 0, ids: [] }),
  };
}

function errorCode(fn: () => unknown): unknown {
  try {
    return { value: fn() };
  } catch (e) {
    return { code: (e as { code?: string }).code };
  }
}

/** Every kept read against its from-scratch reference. */
function checkReads(session: Session, leaves: Leaves): void {
  const ids = chainIds(session);
  const ref = referencePath(session);
  assert.deepEqual(session.path().map((e) => e.id), ref.map((e) => e.id), 'path');
  assert.deepEqual(session.context(), referenceContext(session), 'context');
  assert.deepEqual(session.contextWithSummary(), referenceContextWithSummary(session), 'contextWithSummary');
  for (const type of CHAIN_TYPES) assert.equal(session.lastOnPath(type), referenceLastOnPath(session, type), `lastOnPath ${type}`);
  assert.deepEqual([...session.pathIds()], ref.map((e) => e.id), 'pathIds');
  assert.deepEqual(session.editedOnPath(), ref.filter((e) => session.sideFor(e.id, 'edit') !== undefined), 'editedOnPath');
  const sample = ids.length <= 12 ? ids : ids.filter((_, i) => i % Math.ceil(ids.length / 12) === 0 || i >= ids.length - 3);
  for (const id of sample) {
    assert.deepEqual(session.path(id).map((e) => e.id), referencePath(session, id).map((e) => e.id), `path(${id})`);
    for (const type of ['checkpoint', 'user', 'state'] as const) assert.equal(session.lastOnPath(type, id), referenceLastOnPath(session, type, id));
    assert.equal(session.isOnPath(id), referenceIsAncestorOrSelf(session, id, session.leafId), `isOnPath(${id})`);
    assert.equal(session.pathIds().has(id), referenceIsAncestorOrSelf(session, id, session.leafId), `pathIds().has(${id})`);
    assert.deepEqual(session.editedOnPath(id), referencePath(session, id).filter((e) => session.sideFor(e.id, 'edit') !== undefined), `editedOnPath(${id})`);
    for (const other of sample.slice(0, 4)) assert.equal(session.isAncestorOrSelf(other, id), referenceIsAncestorOrSelf(session, other, id));
    assert.equal(session.tipOf(id), leaves.tipOf(session, id), `tipOf(${id})`);
    const regenerate = errorCode(() => session.regenerateTarget(id));
    const refRegenerate = errorCode(() => {
      const user = referenceLastOnPath(session, 'user', id);
      if (!user) throw Object.assign(new Error('no turn'), { code: 'no-turn' });
      return user.id;
    });
    assert.deepEqual(regenerate, refRegenerate, `regenerateTarget(${id})`);
    assert.deepEqual(session.contextWithSummary(id), referenceContextWithSummary(session, id), `contextWithSummary(${id})`);
  }

  const branch = branchOf(session, OPTIONS);
  const old = new Branch(scratchSource(session, leaves), session.leafId, OPTIONS);
  assert.deepEqual(branch.path.map((e) => e.id), ref.map((e) => e.id), 'Branch.path');
  assert.deepEqual(branch.context, referenceContextWithSummary(session), 'Branch.context');
  assert.equal(branch.checkpoint, referenceLastOnPath(session, 'checkpoint'), 'Branch.checkpoint');
  assert.deepEqual(branch.state, stateAt(ref, OPTIONS.opening, { lang: 'zh' }), 'Branch.state');
  assert.deepEqual(branch.transcript, buildTranscript({
    path: () => ref,
    textOf: (id) => session.textOf(id),
    isHidden: (id) => session.isHidden(id),
    sideFor: (id, type) => session.sideFor(id, type),
    variants: (id) => session.variants(id),
  }), 'Branch.transcript');
  for (const id of [...sample, 'ghost']) {
    assert.equal(branch.has(id), old.has(id), `has(${id})`);
    assert.equal(branch.checkpointAt(id), old.checkpointAt(id), `checkpointAt(${id})`);
    assert.deepEqual(branch.turnOf(id), old.turnOf(id), `turnOf(${id})`);
    assert.equal(branch.endAfter(id), old.endAfter(id), `endAfter(${id})`);
  }
}

/** A Branch made earlier still describes its leaf's branch after later writes. */
function checkEarlierBranch(session: Session, branch: Branch): void {
  const ref = referencePath(session, branch.leafId);
  assert.deepEqual(branch.path.map((e) => e.id), ref.map((e) => e.id), 'an earlier Branch keeps its path');
  assert.equal(branch.checkpoint, referenceLastOnPath(session, 'checkpoint', branch.leafId), 'an earlier Branch keeps its checkpoint');
  assert.deepEqual(branch.state, stateAt(ref, OPTIONS.opening, { lang: 'zh' }), 'an earlier Branch keeps its scene state');
  for (const id of chainIds(session)) assert.equal(branch.has(id), referenceIsAncestorOrSelf(session, id, branch.leafId), `an earlier Branch: has(${id})`);
}

describe('the kept branch equals the branch read from scratch (property test)', function () {
  this.timeout(600_000);
  afterEach(removeTempDirs);

  let tried = 0;
  it('after any sequence of writes and navigations, read often or seldom; what was handed out stays; reopening agrees', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 60 }), async (steps) => {
        tried++;
        const file = path.join(tempDir('wl-kept-'), 'k.jsonl');
        const session = await Session.create(file, { id: 'kept0001', title: '保留' });
        const leaves = new Leaves();
        const state = { n: 0 };
        const handedOut: { value: unknown; copy: unknown; what: string }[] = [];
        const heldPaths: { value: readonly ChainEntry[]; copy: ChainEntry[] }[] = [];
        const earlier: Branch[] = [];
        try {
          for (const step of steps) {
            await apply(session, leaves, step.op, state);
            if (!step.read) continue;
            checkReads(session, leaves);
            for (const b of earlier.splice(0)) checkEarlierBranch(session, b);
            earlier.push(new Branch(session, session.leafId, OPTIONS)); // nothing asked of it yet
            const branch = branchOf(session, OPTIONS);
            // A path handed out keeps its entries; appends may only extend it.
            for (const held of [session.path(), branch.path]) heldPaths.push({ value: held, copy: [...held] });
            handedOut.push(
              { value: session.contextWithSummary().messages, copy: structuredClone(session.contextWithSummary().messages), what: 'context' },
              { value: branch.transcript, copy: structuredClone(branch.transcript), what: 'transcript' },
            );
          }
          checkReads(session, leaves);
          for (const b of earlier) checkEarlierBranch(session, b);
          for (const h of handedOut) assert.deepEqual(h.value, h.copy, `a ${h.what} handed out earlier changed afterwards`);
          for (const h of heldPaths) {
            assert.ok(h.value.length >= h.copy.length);
            h.copy.forEach((e, i) => assert.equal(h.value[i], e, 'a path handed out earlier changed an entry'));
          }
        } finally {
          await session.close();
        }
        const { session: reopened } = await Session.open(file, { readOnly: true });
        try {
          checkReads(reopened, leaves);
        } finally {
          await reopened.close();
        }
      }),
      { numRuns: runs(150, 1500) },
    );
    console.log(`      kept branch against the from-scratch reads: ${tried} tried, 0 failed`);
  });
});
