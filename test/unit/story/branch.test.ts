// Branch over real session files: what it gives for a leaf (path, context, scene state, checkpoint,
// saves, memory node ids), turnOf and the end of a turn in the shapes a session really takes, and
// the memo per (leaf, entry count).
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import type { ChainEntry, CheckpointEntry, NewChainEntry, StateEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { Branch, Branches, branchOf, openingOf } from '../../../src/story';
import { removeTempDirs, tempDir } from '../session/helpers';
import { OPTIONS, sceneAt } from './helpers';

let count = 0;
async function newSession(): Promise<Session> {
  const id = `b${++count}`;
  return Session.create(path.join(tempDir('wl-branch-'), `${id}.jsonl`), { id, title: '雨夜' });
}

async function add(session: Session, entry: NewChainEntry): Promise<ChainEntry> {
  return session.append(entry);
}

const checkpoint = (n: number): NewChainEntry => ({ type: 'checkpoint', commit: `c${n}`, ref: `refs/worldline/c${n}`, changed: ['chapters/01.md'] });
const state = (time: string, by: 'scribe' | 'user' = 'scribe'): NewChainEntry => ({ type: 'state', state: sceneAt(time), by, warnings: [] });

/** A turn as the extension writes it; returns its entries by role. */
async function turn(session: Session, n: number, opts: { scribe?: boolean; checkpoint?: boolean } = {}) {
  const user = (await add(session, { type: 'user', text: `第${n}回` })) as UserEntry;
  const reply = await add(session, { type: 'assistant', text: `回复${n}`, model: 'm', finish: 'stop' });
  const ckpt = opts.checkpoint === false ? undefined : ((await add(session, checkpoint(n))) as CheckpointEntry);
  const st = opts.scribe === false ? undefined : ((await add(session, state(`第${n}夜`))) as StateEntry);
  return { user, reply, checkpoint: ckpt, state: st };
}

describe('Branch', () => {
  let session: Session;
  beforeEach(async () => {
    session = await newSession();
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  it('gives what the branch computes: path, context, state, checkpoint, saves, node ids', async () => {
    const one = await turn(session, 1);
    const save = await add(session, { type: 'save', saveId: 's1', name: '甲', worldlineId: 'w1', worldlineName: '主线', kind: 'first' });
    const two = await turn(session, 2);
    await session.appendSide({ type: 'edit', targetId: two.reply.id, text: '改过的回复' });
    await session.appendSide({ type: 'hide', targetId: one.reply.id, hidden: true });
    const b = new Branch(session, session.leafId, OPTIONS);

    assert.deepEqual(b.path.map((e) => e.id), session.path().map((e) => e.id));
    assert.deepEqual(b.context, session.contextWithSummary());
    assert.deepEqual(b.context.messages.map((m) => m.text), ['第1回', '第2回', '改过的回复'], 'edit applied, hidden left out');
    assert.equal(b.state.entryId, two.state?.id);
    assert.equal(b.state.state.time, '第2夜');
    assert.equal(b.checkpoint?.id, two.checkpoint?.id);
    assert.deepEqual(b.saves.map((s) => s.id), [save.id]);
    assert.deepEqual([...b.nodeIds].sort(), session.path().map((e) => e.id).sort());
    assert.ok(b.has(one.user.id));
    assert.equal(b.sessionId, session.header.id);
  });

  it('before any state entry the scene is the opening state, parsed once per settings object', async () => {
    await turn(session, 1, { scribe: false });
    const settings = { time: '黄昏', location: '渡口', characters: ['青梧'] };
    const opening = openingOf(settings, 'zh');
    assert.equal(openingOf(settings, 'zh'), opening, 'the same settings object: parsed once');
    assert.notEqual(openingOf({ ...settings }, 'zh'), opening, 'a reloaded config: parsed again');
    const b = new Branch(session, session.leafId, { opening, lang: 'zh' });
    assert.equal(b.state.entryId, undefined);
    assert.equal(b.state.state.time, '黄昏');
    assert.ok('青梧' in b.state.state.characters);
    assert.equal(new Branch(session, null, OPTIONS).path.length, 0);
  });

  it('turnOf: the user entry, the entries up to the next instruction, the checkpoints around it, the end', async () => {
    const one = await turn(session, 1);
    const pin = await add(session, checkpoint(99)); // hand edits pinned before the next send
    const two = await turn(session, 2);
    const three = await turn(session, 3);
    const b = branchOf(session, OPTIONS);

    for (const id of [two.user.id, two.reply.id, two.checkpoint!.id, two.state!.id]) {
      const t = b.turnOf(id)!;
      assert.equal(t.user?.id, two.user.id);
      assert.deepEqual(t.entries.map((e) => e.id), [two.user.id, two.reply.id, two.checkpoint!.id, two.state!.id]);
      assert.equal(t.checkpointBefore?.id, pin.id, 'the prose turn 2 started from');
      assert.equal(t.checkpoint?.id, two.checkpoint!.id);
      assert.equal(t.end.id, two.state!.id);
    }
    const first = b.turnOf(one.user.id)!;
    assert.deepEqual(first.entries.map((e) => e.id), [one.user.id, one.reply.id, one.checkpoint!.id, one.state!.id, pin.id], 'the pin before the next send belongs to turn 1 …');
    assert.equal(first.end.id, one.state!.id, '… but lies past its end: it is other prose');
    assert.equal(first.checkpointBefore, undefined);
    assert.equal(b.turnOf(three.state!.id)?.end.id, three.state!.id);
    assert.equal(b.turnOf('nope'), undefined);
  });

  it('the end of a turn walks over its state, saves and summary, never over a later checkpoint', async () => {
    const one = await turn(session, 1);
    const edit = await add(session, state('改过', 'user'));
    const s1 = await add(session, { type: 'save', saveId: 's1', name: '甲', worldlineId: 'w1', worldlineName: '主线', kind: 'first' });
    const summary = await add(session, { type: 'summary', text: '前情', coversThroughId: one.reply.id });
    await add(session, checkpoint(7));
    await add(session, { type: 'save', saveId: 's2', name: '乙', worldlineId: 'w1', worldlineName: '主线', kind: 'sameLine', parentSaveId: 's1' });
    const b = branchOf(session, OPTIONS);
    assert.equal(b.turnOf(one.reply.id)?.end.id, summary.id);
    assert.equal(b.endAfter(one.checkpoint!.id)?.id, summary.id);
    assert.equal(b.endAfter(s1.id)?.id, summary.id);
    assert.ok([edit.id, s1.id].every((id) => b.has(id)));
  });

  it('a turn without a checkpoint (checkpoints off) ends after its reply\'s state; the opening has no user', async () => {
    const opening = await add(session, { type: 'save', saveId: 's0', name: '开篇', worldlineId: 'w0', worldlineName: '主线', kind: 'first' });
    const one = await turn(session, 1, { checkpoint: false });
    const b = branchOf(session, OPTIONS);
    const t = b.turnOf(one.reply.id)!;
    assert.equal(t.checkpoint, undefined);
    assert.equal(t.end.id, one.state!.id);
    const zero = b.turnOf(opening.id)!;
    assert.equal(zero.user, undefined);
    assert.deepEqual(zero.entries.map((e) => e.id), [opening.id]);
    assert.equal(zero.end.id, opening.id);
  });

  it('a turn off the branch is read along where the novelist last was in it', async () => {
    const one = await turn(session, 1);
    const a = await turn(session, 2);
    await session.navigate(one.state!.id);
    const b2 = await turn(session, 2);
    await session.navigate(a.reply.id); // visited A's reply last, then back to B
    await session.navigate(b2.state!.id);
    const b = branchOf(session, OPTIONS);
    assert.ok(!b.has(a.user.id));
    const t = b.turnOf(a.user.id)!;
    assert.deepEqual(t.entries.map((e) => e.id), [a.user.id, a.reply.id, a.checkpoint!.id, a.state!.id]);
    assert.equal(t.end.id, a.state!.id);
    assert.equal(b.checkpointAt(a.reply.id)?.id, one.checkpoint!.id);
    assert.equal(b.checkpointAt(a.state!.id)?.id, a.checkpoint!.id);
    assert.equal(b.checkpointAt(null), undefined);
  });

  it('side entries are no turn', async () => {
    const one = await turn(session, 1);
    const label = await session.appendSide({ type: 'label', targetId: one.user.id, label: '开头' });
    assert.equal(branchOf(session, OPTIONS).turnOf(label.id), undefined);
    assert.equal(branchOf(session, OPTIONS).endAfter(label.id), undefined);
  });

  it('is memoised per leaf and entry count, and per options', async () => {
    await turn(session, 1);
    const branches = new Branches(session, OPTIONS);
    const b = branches.at();
    assert.equal(branches.at(), b, 'nothing changed: the same value');
    assert.equal(branches.at(session.leafId), b);
    assert.equal(b.context, b.context, 'parts are computed once');
    await session.appendSide({ type: 'label', targetId: session.leafId!, label: 'x' });
    const afterSide = branches.at();
    assert.notEqual(afterSide, b, 'a side entry (an edit could change the context): a new value');
    assert.equal(afterSide.leafId, b.leafId);
    const root = branches.at(session.path()[0]!.id);
    assert.equal(root.path.length, 1);
    await turn(session, 2);
    assert.notEqual(branches.at(), afterSide);

    const cached = branchOf(session, OPTIONS);
    assert.equal(branchOf(session, OPTIONS), cached);
    const other = { opening: sceneAt('另一个开场'), lang: 'zh' as const };
    assert.notEqual(branchOf(session, other), cached, 'other options: computed again');
    assert.equal(branchOf(session, other).state.state.time, '第2夜');
  });
});
