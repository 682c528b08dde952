// The writing tools' versions: the review as a value (which replies, which is current, the ends),
// and Rewrite ×N over a real folder, a real checkpoint store (git), a real session and the local
// model server: each version a sibling reply with its own checkpoint, Previous / Next bring the
// prose along without asking, Accept keeps the version on disk, Discard brings back the original.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildTranscript } from '../../../src/agent/transcript';
import { passageOf, selectionInstruction } from '../../../src/story/selectionTools';
import { canDo, positionOf, reviewAt, stepOf, type ReviewBase, type ReviewSource } from '../../../src/story/versionReview';
import { VersionReviews } from '../../../src/story/versionRun';
import type { CheckpointEntry } from '../../../src/session/entries';
import { bySystemPrompt, type ScriptedReply } from '../../fixtures/modelServer';
import { CHAPTER, openStoryFixture, type StoryFixture } from './helpers';

const BASE: ReviewBase = { file: CHAPTER, userEntryId: 'u', original: { checkpointId: 'c0', commit: 'abc' } };

/** A tree: u → a1 | a2 | a3 (t: a tool entry under a2), the branch through `onPath`. */
function tree(onPath: string[]): ReviewSource {
  const children: Record<string, { id: string; type: string }[]> = {
    u: [{ id: 'a1', type: 'assistant' }, { id: 'x', type: 'user' }, { id: 'a2', type: 'assistant' }, { id: 'a3', type: 'assistant' }],
  };
  return { children: (id) => children[id ?? ''] ?? [], path: () => ['root', 'u', ...onPath].map((id) => ({ id })) };
}

describe('version review: the state', () => {
  it('the replies are the turn\'s sibling replies (the Chat\'s variants); the current one is the one on the branch', () => {
    const review = reviewAt(tree(['a2', 't']), BASE);
    assert.ok(review);
    assert.deepEqual(review.replies, ['a1', 'a2', 'a3']);
    assert.equal(review.index, 1);
    assert.deepEqual(positionOf(review), { n: 2, m: 3 });
  });

  it('Previous and Next stop at the ends; Accept and Discard always apply', () => {
    const first = reviewAt(tree(['a1']), BASE)!;
    assert.equal(canDo(first, 'previous'), false);
    assert.equal(stepOf(first, -1), undefined);
    assert.deepEqual(stepOf(first, 1), { replyId: 'a1', delta: 1 });
    const last = reviewAt(tree(['a3']), BASE)!;
    assert.equal(canDo(last, 'next'), false);
    assert.deepEqual(stepOf(last, -1), { replyId: 'a3', delta: -1 });
    for (const r of [first, last]) assert.ok(canDo(r, 'accept') && canDo(r, 'discard'));
  });

  it('a branch that left the turn (another instruction, before it) ends the review', () => {
    assert.equal(reviewAt(tree(['x']), BASE), undefined);
    assert.equal(reviewAt({ children: () => [], path: () => [] }, BASE), undefined);
  });
});

describe('version review: Rewrite ×N over real git', function () {
  this.timeout(30000);
  let fixture: StoryFixture;
  /** Runs as the scribe answers (between one version and the next). */
  let onScribe: (() => void) | undefined;
  const ORIGINAL = '# 第一章\n\n雨下了一夜。\n青梧关上门，吹灭了灯。\n林砚在黑暗里坐着。\n';
  const PICKED = '青梧关上门，吹灭了灯。';

  beforeEach(async () => {
    fixture = await openStoryFixture('ask');
    onScribe = undefined;
    fixture.server.route(bySystemPrompt('你是场记'), () => {
      onScribe?.();
      return { text: '{"patch":{}}' };
    }, 'scribe');
    fs.writeFileSync(path.join(fixture.book.root, CHAPTER), ORIGINAL);
  });
  afterEach(() => fixture.close());

  const prose = () => fixture.book.prose;
  /** The agent's turn for one version: replace the passage with `text`, then say so. */
  const version = (text: string): ScriptedReply[] => [
    { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: CHAPTER, old_text: PICKED, new_text: text }) }] },
    { text: '改好了。' },
  ];
  const instruction = () => {
    const picked = passageOf({ file: CHAPTER, text: ORIGINAL, start: ORIGINAL.indexOf(PICKED), end: ORIGINAL.indexOf(PICKED) + PICKED.length }, 'rewrite');
    assert.ok(picked.ok);
    return selectionInstruction('rewrite', picked.passage, 'zh', '更冷一些');
  };
  const withText = (text: string) => ORIGINAL.replace(PICKED, text);

  it('three versions are three sibling replies, each with its checkpoint; stepping brings the prose without asking; Accept keeps it', async () => {
    const { story, server, book, host } = fixture;
    server.enqueue(...version('版本一。'), ...version('版本二。'), ...version('版本三。'));
    const reviews = new VersionReviews(story);
    // The views read the review at every redraw, the leaf at the instruction while a version is written.
    const report = host.report.bind(host);
    host.report = (event) => { void reviews.current; report(event); };
    const run = await reviews.run({ instruction: instruction(), file: CHAPTER, versions: 3 });
    assert.equal(run.kind, 'review');
    if (run.kind !== 'review') return;
    assert.equal(run.made, 3);
    assert.deepEqual(positionOf(run.review), { n: 3, m: 3 }, 'the review opens on the newest version');
    assert.equal(prose(), withText('版本三。'));

    // The instruction the model got names the place and quotes the passage.
    const sent = server.chatRequests().filter((r) => r.route === 'default')[0];
    const user = String(sent?.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
    assert.ok(user.includes(`${CHAPTER} 第 4 行`) && user.includes(PICKED) && user.includes('更冷一些'));

    // The original is the checkpoint before the turn; every version has its own checkpoint.
    assert.equal(await book.repo.readAt(run.review.original.commit, CHAPTER), ORIGINAL);
    const texts: (string | undefined)[] = [];
    for (const reply of run.review.replies) {
      const cp = book.session.lastOnPath('checkpoint', book.session.tipOf(reply)) as CheckpointEntry;
      texts.push(await book.repo.readAt(cp.commit, CHAPTER));
    }
    assert.deepEqual(texts, [withText('版本一。'), withText('版本二。'), withText('版本三。')]);

    const asked = host.followAsked;
    let now = await reviews.step(-1);
    assert.deepEqual(now && positionOf(now), { n: 2, m: 3 });
    assert.equal(prose(), withText('版本二。'));
    now = await reviews.step(-1);
    assert.equal(prose(), withText('版本一。'));
    now = await reviews.step(-1);
    assert.deepEqual(now && positionOf(now), { n: 1, m: 3 }, 'nothing before the first');
    now = await reviews.step(1);
    assert.equal(prose(), withText('版本二。'));
    await fixture.settled();
    assert.equal(host.followAsked, asked, '"bring the prose along?" was never asked');

    const accepted = reviews.accept();
    assert.equal(accepted?.index, 1);
    assert.equal(reviews.current, undefined, 'the review is closed');
    await fixture.settled();
    assert.equal(prose(), withText('版本二。'), 'the accepted version is on disk');
    const reply = buildTranscript(book.session).filter((m) => m.role === 'assistant').at(-1);
    assert.deepEqual(reply?.variant, { index: 1, count: 3 }, 'the Chat shows ◀ 2/3 ▶ on the turn');
  });

  it('Discard brings back the original through the checkpoint before the turn; the versions stay as variants', async () => {
    const { story, server, book } = fixture;
    server.enqueue(...version('甲。'), ...version('乙。'));
    const reviews = new VersionReviews(story);
    const run = await reviews.run({ instruction: instruction(), file: CHAPTER, versions: 2 });
    assert.equal(run.kind, 'review');
    if (run.kind !== 'review') return;
    assert.equal(prose(), withText('乙。'));
    const outcome = await reviews.discard();
    assert.ok(outcome && outcome !== 'cancelled', 'the prose was restored');
    assert.equal(prose(), ORIGINAL, 'the original, byte for byte');
    assert.equal(reviews.current, undefined);
    assert.equal(book.session.children(run.review.userEntryId).filter((e) => e.type === 'assistant').length, 2, 'both versions stay');
    assert.ok(outcome.undo, 'Discard can be undone like any restore');
  });

  it('a first turn that fails opens no review; a later version that fails leaves the ones made', async () => {
    const { story, server } = fixture;
    server.enqueue({ status: 500, errorBody: { error: { message: 'down' } } }, { status: 500 }, { status: 500 }, { status: 500 });
    const reviews = new VersionReviews(story);
    const none = await reviews.run({ instruction: instruction(), file: CHAPTER, versions: 2 });
    assert.equal(none.kind, 'noTurn');
    assert.equal(prose(), ORIGINAL);

    server.enqueue(...version('甲。'), { status: 400, errorBody: { error: { message: 'bad request' } } });
    const some = await reviews.run({ instruction: instruction(), file: CHAPTER, versions: 3 });
    assert.equal(some.kind, 'review');
    if (some.kind !== 'review') return;
    assert.equal(some.made, 1, 'the run stops at the version that failed');
    assert.deepEqual(positionOf(some.review), { n: 1, m: 2 }, 'the failed version stays a variant; the review shows the last good one');
    assert.equal(prose(), withText('甲。'));
  });

  it('a version refused because the novelist kept unsaved editors: the review stays on the last version, the unsaved text kept', async () => {
    const { story, server, book, host } = fixture;
    server.enqueue(...version('甲。'));
    onScribe = () => {
      // The novelist types in the chapter while the next version is to be written, and keeps it.
      host.unsaved.set(CHAPTER, withText('甲。') + '手写的一句。\n');
      host.dirtyAnswer = 'cancel';
      onScribe = undefined;
    };
    const reviews = new VersionReviews(story);
    const run = await reviews.run({ instruction: instruction(), file: CHAPTER, versions: 2 });
    assert.equal(run.kind, 'review', JSON.stringify(run));
    if (run.kind !== 'review') return;
    assert.equal(run.made, 1);
    assert.equal(positionOf(run.review).n, 1);
    assert.equal(prose(), withText('甲。'), 'the disk is untouched');
    assert.equal(host.unsaved.get(CHAPTER), withText('甲。') + '手写的一句。\n', 'the unsaved text is kept');
    assert.ok(book.session.path().some((e) => e.id === run.review.replies[0]), 'the branch is back on the version');
  });

  it('the review ends when the branch leaves the turn', async () => {
    const { story, server, book } = fixture;
    server.enqueue(...version('甲。'));
    const reviews = new VersionReviews(story);
    const run = await reviews.run({ instruction: instruction(), file: CHAPTER, versions: 1 });
    assert.equal(run.kind, 'review');
    if (run.kind !== 'review') return;
    assert.deepEqual(positionOf(run.review), { n: 1, m: 1 });
    // The leaf at the instruction itself (a version being written, from here or the Chat): no
    // review to show meanwhile, but it is not over.
    await book.session.navigate(run.review.userEntryId);
    assert.equal(reviews.current, undefined);
    await book.session.navigate(book.session.tipOf(run.review.replies[0]!));
    assert.deepEqual(reviews.current && positionOf(reviews.current), { n: 1, m: 1 }, 'back on the version, the review goes on');
    await book.session.navigate(book.session.get(run.review.userEntryId)!.parentId);
    assert.equal(reviews.current, undefined);
    await book.session.navigate(book.session.tipOf(run.review.replies[0]!));
    assert.equal(reviews.current, undefined, 'once the branch left the turn, the review is over');
  });
});
