// The kept branch (issue 13): the session's path to its leaf is kept and extended, not walked
// again on every read; a navigation cuts it back to the common ancestor only; the context after
// the active summary follows edits (just that message) and hides; what a read handed out stays.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { activeSummary } from '../../../src/session/context';
import type { ChainEntry, SummaryEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { assistant, removeTempDirs, tempDir, tool, user } from './helpers';

async function fresh(): Promise<Session> {
  return Session.create(path.join(tempDir('wl-kept-'), 's.jsonl'), { id: 'kept0001', title: '保留' });
}

/** `turns` turns of user → assistant (calling a tool) → tool → assistant. */
async function turns(session: Session, n: number, prefix = 't'): Promise<ChainEntry[]> {
  const users: ChainEntry[] = [];
  for (let i = 0; i < n; i++) {
    users.push(await session.append(user(`${prefix}${i}`)));
    await session.append(assistant('', { toolCalls: [{ id: `c${i}`, name: 'append_file', arguments: '{}' }] }));
    await session.append(tool(`c${i}`, `写好了 ${i}`));
    await session.append(assistant(`回复 ${prefix}${i}`));
  }
  return users;
}

describe('the kept branch', () => {
  afterEach(removeTempDirs);

  it('an append extends the path without walking it again; a path handed out keeps its entries', async () => {
    const session = await fresh();
    await turns(session, 3);
    const held = session.path();
    const heldIds = held.map((e) => e.id);
    assert.equal(session.path(), held, 'asked again without a change: the same array');
    await turns(session, 20, 'u');
    assert.equal(session.path().length, 92);
    assert.equal(session.keptStats.fullBuilds, 1, 'walked from the leaf to the root once, at the first read');
    assert.deepEqual(held.slice(0, heldIds.length).map((e) => e.id), heldIds, 'the held path still starts as it did');
    await session.close();
  });

  it('a navigation cuts back to the common ancestor and extends from there; the path held before stays the old one', async () => {
    const session = await fresh();
    const [first] = await turns(session, 5);
    const leafA = session.leafId as string;
    const pathA = session.path().map((e) => e.id);
    const heldA = session.path();
    // A second branch beside the last turn: from the fourth turn's reply.
    const fork = pathA[15] as string;
    await session.navigate(fork);
    await turns(session, 2, 'b');
    assert.equal(session.path().length, 16 + 8);
    const cutBefore = session.keptStats.cut;
    await session.navigate(leafA);
    assert.deepEqual(session.path().map((e) => e.id), pathA);
    assert.equal(session.keptStats.cut - cutBefore, 8, 'only the other branch\'s own entries were cut');
    assert.equal(session.keptStats.fullBuilds, 1);
    assert.deepEqual(heldA.map((e) => e.id), pathA, 'the path held before the navigations is still branch A');
    assert.ok(session.isOnPath((first as ChainEntry).id));
    await session.close();
  });

  it('lastOnPath, isOnPath, tipOf and regenerateTarget answer from the kept path, for the leaf and for its ancestors', async () => {
    const session = await fresh();
    const users = await turns(session, 3);
    const checkpoint = await session.append({ type: 'checkpoint', commit: 'a'.repeat(40), ref: 'refs/t/1', changed: [] });
    const after = await session.append(user('之后'));
    assert.equal(session.lastOnPath('checkpoint'), checkpoint);
    assert.equal(session.lastOnPath('checkpoint', (users[2] as ChainEntry).id), undefined, 'before the checkpoint there was none');
    assert.equal(session.lastOnPath('user', checkpoint.id), users[2]);
    assert.equal(session.regenerateTarget(checkpoint.id), (users[2] as ChainEntry).id);
    assert.equal(session.tipOf((users[0] as ChainEntry).id), after.id, 'the leaf is the tip of every subtree it is in');
    await session.navigate((users[1] as ChainEntry).id);
    await session.append(assistant('另一个回复'));
    assert.equal(session.tipOf((users[2] as ChainEntry).id), after.id, 'off the branch: where the novelist last was below it');
    assert.ok(!session.isOnPath(after.id) && session.isAncestorOrSelf((users[2] as ChainEntry).id, after.id));
    await session.close();
  });

  it('an edit replaces just its message in the kept context; the context handed out before stays as it was', async () => {
    const session = await fresh();
    const users = await turns(session, 4);
    const before = session.contextWithSummary().messages;
    const copy = structuredClone(before);
    const builds = session.keptStats.contextBuilds;
    await session.appendSide({ type: 'edit', targetId: (users[1] as ChainEntry).id, text: '改过的指令' });
    const after = session.contextWithSummary().messages;
    assert.deepEqual(before, copy, 'the array handed out did not change');
    const changed = after.findIndex((m) => m.entryId === (users[1] as ChainEntry).id);
    assert.equal(after[changed]?.text, '改过的指令');
    after.forEach((m, i) => { if (i !== changed) assert.equal(m, before[i], 'every other message is the same object'); });
    assert.equal(session.keptStats.contextBuilds, builds, 'nothing was built again');
    await session.close();
  });

  it('hiding a tool result takes its call out of the reply; hiding the active summary falls back to the one before it', async () => {
    const session = await fresh();
    const users = await turns(session, 4);
    const s1 = (await session.append({ type: 'summary', text: '前两回', coversThroughId: (users[1] as ChainEntry).id })) as SummaryEntry;
    await turns(session, 1, 'x');
    const s2 = (await session.append({ type: 'summary', text: '前三回', coversThroughId: (users[2] as ChainEntry).id })) as SummaryEntry;
    assert.equal(session.contextWithSummary().summary, s2);
    const toolEntry = session.path().find((e) => e.type === 'tool' && e.callId === 'c3') as ChainEntry;
    await session.appendSide({ type: 'hide', targetId: toolEntry.id, hidden: true });
    const reply = session.contextWithSummary().messages.find((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === 'c3'));
    assert.equal(reply, undefined, 'the reply had only that call and no words: it goes');
    await session.appendSide({ type: 'hide', targetId: s2.id, hidden: true });
    const view = session.contextWithSummary();
    assert.equal(view.summary, s1);
    assert.equal(view.summaryText, '前两回');
    const afterCovered = session.path()[session.path().indexOf(users[1] as ChainEntry) + 1];
    assert.equal(view.messages[0]?.entryId, afterCovered?.id, 'the messages start after what the earlier summary covers');
    await session.appendSide({ type: 'hide', targetId: s2.id, hidden: false });
    assert.equal(session.contextWithSummary().summary, s2);
    await session.close();
  });

  it('the first read after opening builds the branch once; reads for another leaf share its prefix and are right', async () => {
    const session = await fresh();
    const users = await turns(session, 6);
    await session.navigate((users[3] as ChainEntry).id);
    await turns(session, 1, 'y');
    const file = session.file;
    await session.close();
    const { session: reopened } = await Session.open(file, { readOnly: true });
    const other = (users[5] as ChainEntry).id;
    assert.deepEqual(reopened.path(other).map((e) => e.id).slice(0, 13), reopened.path().map((e) => e.id).slice(0, 13));
    assert.equal(reopened.path(other).at(-1)?.id, other);
    assert.equal(reopened.path(other).length, 21);
    assert.equal(reopened.keptStats.fullBuilds, 1);
    assert.throws(() => reopened.path('ghost'), /not in this session/);
    await reopened.close();
  });
});

describe('activeSummary (a path read from scratch)', () => {
  const e = (id: string, type: 'user' | 'summary', cover?: string): ChainEntry =>
    (type === 'summary' ? { id, parentId: null, ts: '', type, text: id, coversThroughId: cover as string } : { id, parentId: null, ts: '', type, text: id });

  it('the last visible summary whose covered entry is on the path, looked for backwards first', () => {
    const path = [e('a', 'user'), e('b', 'user'), e('s1', 'summary', 'a'), e('c', 'user'), e('s2', 'summary', 'b'), e('d', 'user')];
    assert.deepEqual(activeSummary(path, { isHidden: () => false }), { summary: path[4], firstUncovered: 2 });
    assert.deepEqual(activeSummary(path, { isHidden: (id) => id === 's2' }), { summary: path[2], firstUncovered: 1 });
    assert.equal(activeSummary(path, { isHidden: (id) => id.startsWith('s') }), undefined);
  });

  it('a covered entry after the summary (a hand-edited file) still counts; one that is nowhere on the path does not', () => {
    const path = [e('a', 'user'), e('s1', 'summary', 'c'), e('s2', 'summary', 'ghost'), e('c', 'user'), e('d', 'user')];
    assert.deepEqual(activeSummary(path, { isHidden: () => false }), { summary: path[1], firstUncovered: 4 });
  });
});
