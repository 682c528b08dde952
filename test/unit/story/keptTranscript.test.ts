// The kept transcript (issue 13): the Chat's messages of the current branch are kept per session;
// a change builds again only the turn it touches, and the result is the transcript built whole.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { buildTranscript, type TranscriptMessage } from '../../../src/agent/transcript';
import type { ChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { branchOf, type BranchOptions } from '../../../src/story/branch';
import { keptTranscriptOf } from '../../../src/story/keptTranscript';
import { assistant, removeTempDirs, tempDir, tool, user } from '../session/helpers';

const OPTIONS: BranchOptions = { opening: openingState({ time: '开场', location: '客栈' }), lang: 'zh' };

function whole(session: Session): TranscriptMessage[] {
  return buildTranscript({
    path: () => session.path(),
    textOf: (id) => session.textOf(id),
    isHidden: (id) => session.isHidden(id),
    sideFor: (id, type) => session.sideFor(id, type),
    variants: (id) => session.variants(id),
  });
}

async function turn(session: Session, i: number): Promise<{ user: ChainEntry; reply: ChainEntry }> {
  const u = await session.append(user(`第${i}回`));
  const reply = await session.append(assistant('', { toolCalls: [{ id: `c${i}`, name: 'append_file', arguments: '{"path":"chapters/01.md"}' }] }));
  await session.append(tool(`c${i}`, `写了第${i}段`));
  await session.append(assistant(`写好了第${i}回`));
  return { user: u, reply };
}

describe('the kept transcript', () => {
  let session: Session;
  beforeEach(async () => {
    session = await Session.create(path.join(tempDir('wl-kept-tr-'), 's.jsonl'), { id: 'keptt001', title: '记录' });
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  it('as the branch grows, only its last turn is built again, and the messages are the whole transcript', async () => {
    for (let i = 0; i < 10; i++) await turn(session, i);
    const kept = keptTranscriptOf(session);
    assert.deepEqual(branchOf(session, OPTIONS).transcript, whole(session));
    const before = kept.turnBuilds;
    const earlier = branchOf(session, OPTIONS).transcript;
    await turn(session, 10);
    const now = branchOf(session, OPTIONS).transcript;
    assert.deepEqual(now, whole(session));
    assert.equal(kept.turnBuilds - before, 2, 'the turn the instruction closed, and the new one');
    earlier.slice(0, 18).forEach((m, i) => assert.equal(now[i], m, 'the older turns are the same messages'));
    assert.equal(kept.fullBuilds, 0);
  });

  it('an edit or a hide in an older turn builds that turn again, in place', async () => {
    const turns = [];
    for (let i = 0; i < 5; i++) turns.push(await turn(session, i));
    const before = branchOf(session, OPTIONS).transcript;
    await session.appendSide({ type: 'edit', targetId: (turns[1] as { reply: ChainEntry }).reply.id, text: '改过的回复' });
    await session.appendSide({ type: 'hide', targetId: (turns[3] as { user: ChainEntry }).user.id, hidden: true });
    const after = branchOf(session, OPTIONS).transcript;
    assert.deepEqual(after, whole(session));
    assert.ok(after[3]?.text.startsWith('改过的回复') && after[3]?.edited);
    assert.equal(after[6]?.hidden, true);
    for (const i of [0, 1, 4, 5]) assert.equal(after[i], before[i], `message ${i} is untouched`);
  });

  it('a variant written beside the branch while the leaf was away shows its count when the leaf comes back', async () => {
    const first = await turn(session, 0);
    await turn(session, 1);
    const leaf = session.leafId as string;
    assert.deepEqual(branchOf(session, OPTIONS).transcript[0]?.variant, { index: 0, count: 1 });
    await session.navigate(null);
    await session.append(user('另一种开头'));
    await session.navigate(leaf);
    const back = branchOf(session, OPTIONS).transcript;
    assert.deepEqual(back[0]?.variant, { index: 0, count: 2 });
    assert.equal(back[0]?.id, first.user.id);
    assert.deepEqual(back, whole(session));
  });

  it('back to the instruction before a turn and on from there: the turn before it grows again', async () => {
    await turn(session, 0);
    const second = await turn(session, 1);
    branchOf(session, OPTIONS).transcript;
    await session.navigate(second.user.parentId);
    await session.append(assistant('接着上一回再说一句'));
    assert.deepEqual(branchOf(session, OPTIONS).transcript, whole(session));
    assert.equal(branchOf(session, OPTIONS).transcript.length, 2);
  });

  it('a tool result whose call is in an earlier turn (never written by the extension): built whole, still right', async () => {
    await turn(session, 0);
    await session.append(user('第1回'));
    await session.append(assistant('没有调用'));
    await session.append(tool('c0', '迟到的结果'));
    const kept = keptTranscriptOf(session);
    const transcript = branchOf(session, OPTIONS).transcript;
    assert.deepEqual(transcript, whole(session));
    assert.equal(transcript[3]?.tools[0]?.path, 'chapters/01.md', 'the line found the call of the earlier turn');
    assert.ok(kept.fullBuilds > 0);
  });
});
