// The Story's chat-tree verbs (switch variant, hide / unhide, branch here, edit in place) over a
// real session file and a real checkpoint store. Their navigations are the novelist's moves: they
// reach followBranch as every navigation does, and the prose follows (the test host says "always").
// The expected leaf positions are those the Chat view's own code chose before the verbs moved here.
import { strict as assert } from 'node:assert';
import type { AssistantEntry, Entry, UserEntry } from '../../../src/session/entries';
import { Story } from '../../../src/story';
import { Book, openStoryFixture, type FakeHost, type StoryFixture } from './helpers';


describe('Story: the chat-tree verbs', function () {
  this.timeout(30000);
  let book: Book;
  let host: FakeHost;
  let story: Story;

  let fixture: StoryFixture;

  beforeEach(async () => {
    fixture = await openStoryFixture('always');
    ({ book, host, story } = fixture);
  });

  afterEach(() => fixture.close());

  const settled = () => fixture.settled();
  const entryCount = () => book.session.entries().length;
  const sides = (type: Entry['type']) => book.session.entries().filter((e) => e.type === type);

  /** A reply of the turn `user` (its first assistant entry). */
  function replyOf(user: UserEntry): AssistantEntry {
    const reply = book.session.path().find((e) => e.parentId === user.id && e.type === 'assistant');
    assert.ok(reply?.type === 'assistant');
    return reply;
  }

  /** Turn 1, then two variants of turn 2's reply: the second regenerated after the first turn 2 went on to turn 3. */
  async function variants() {
    const t1 = await book.turn('第一回', '\n一。\n', { time: '第一夜' });
    const t2 = await book.turn('第二回', '\n二甲。\n', { time: '第二夜甲' });
    const a = replyOf(t2.user);
    const t3 = await book.turn('第三回', '\n三。\n', { time: '第三夜' });
    const proseA = book.prose;
    const tipA = book.session.leafId!;
    // Regenerate turn 2: back to its instruction and the prose before it, a sibling reply.
    await book.session.navigate(t2.user.id);
    await settled();
    book.write('\n二乙。\n');
    const b = (await book.session.append({ type: 'assistant', text: '另一版。', model: 'test-model', finish: 'stop' })) as AssistantEntry;
    await book.checkpoint(t2.user.id, false);
    const tipB = book.session.leafId!;
    const proseB = book.prose;
    return { t1, t2, t3, a, b, tipA, tipB, proseA, proseB };
  }

  it('switching variants lands on the tip of the sibling, and the prose follows', async () => {
    const { a, b, tipA, tipB, proseA, proseB } = await variants();
    assert.deepEqual(book.session.variants(b.id).siblings.map((e) => e.id), [a.id, b.id]);
    assert.equal(await story.switchVariant(b.id, -1), true);
    await settled();
    assert.equal(book.session.leafId, tipA, 'the newest leaf under the first variant, not the variant itself');
    assert.equal(book.prose, proseA, 'a novelist\'s move: the prose followed the branch');
    assert.equal(await story.switchVariant(a.id, 1), true);
    await settled();
    assert.equal(book.session.leafId, tipB);
    assert.equal(book.prose, proseB);
  });

  it('at either end of the variants nothing moves', async () => {
    const { a, b, tipA, tipB } = await variants();
    const before = entryCount();
    assert.equal(await story.switchVariant(b.id, 1), false, 'past the last variant');
    assert.equal(book.session.leafId, tipB);
    await story.switchVariant(b.id, -1);
    await settled();
    assert.equal(book.session.leafId, tipA);
    const moved = entryCount();
    assert.equal(await story.switchVariant(a.id, -1), false, 'before the first variant');
    assert.equal(book.session.leafId, tipA);
    assert.equal(entryCount(), moved, 'nothing written at the ends');
    assert.equal(await story.switchVariant('no-such-entry', 1), false);
    assert.ok(moved > before, 'the one real move was recorded');
  });

  it('hide / unhide append one hide entry per entry of the message; the context leaves hidden ones out', async () => {
    const t1 = await book.turn('第一回', '\n一。\n');
    // A reply in several parts: text with a tool call, the tool's result, more text.
    const t2 = (await book.session.append({ type: 'user', text: '第二回' })) as UserEntry;
    const part1 = await book.session.append({ type: 'assistant', text: '先看看。', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"chapters/01.md"}' }], model: 'm', finish: 'stop' });
    const tool = await book.session.append({ type: 'tool', callId: 'c1', name: 'read_file', result: '一。', isError: false });
    const part2 = await book.session.append({ type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' });
    const ids = () => book.branch().context.messages.map((m) => m.entryId);
    assert.ok(ids().includes(part1.id) && ids().includes(part2.id));

    assert.equal(await story.hide(part1.id), true);
    const hides = sides('hide');
    assert.deepEqual(hides.map((e) => e.type === 'hide' && [e.targetId, e.hidden]), [[part1.id, true], [tool.id, true], [part2.id, true]]);
    assert.deepEqual(ids().filter((id) => [part1.id, tool.id, part2.id].includes(id)), [], 'the whole reply is out of the context');
    assert.ok(ids().includes(t2.id) && ids().includes(t1.user.id), 'the instructions stay');

    assert.equal(await story.hide(t2.id), true);
    assert.ok(!ids().includes(t2.id));
    assert.equal(await story.unhide(t2.id), true);
    assert.equal(await story.unhide(part1.id), true);
    assert.equal(sides('hide').length, 3 + 1 + 1 + 3);
    assert.ok([t2.id, part1.id, part2.id].every((id) => ids().includes(id)), 'all back in the context');
  });

  it('branch here on a reply moves the leaf to the end of that turn (its checkpoint and state)', async () => {
    const t1 = await book.turn('第一回', '\n一。\n');
    await book.turn('第二回', '\n二。\n');
    const landed = await story.branchHere(replyOf(t1.user).id);
    assert.deepEqual(landed, { leafId: t1.state!.id });
    assert.equal(book.session.leafId, t1.state!.id, 'the entry before the next instruction');
  });

  it('branch here on the last reply goes to the end of the branch; on an instruction, before it, with its text back', async () => {
    const t1 = await book.turn('第一回', '\n一。\n');
    const t2 = await book.turn('第二回', '\n二。\n');
    const end = book.session.leafId;
    assert.deepEqual(await story.branchHere(replyOf(t2.user).id), { leafId: end });
    assert.equal(book.session.leafId, end);

    await book.session.appendSide({ type: 'edit', targetId: t2.user.id, text: '第二回（改）' });
    const landed = await story.branchHere(t2.user.id);
    assert.deepEqual(landed, { leafId: t1.state!.id, input: '第二回（改）' }, 'the parent of the instruction, and its text as edited');
    assert.equal(book.session.leafId, t1.state!.id);
    const first = await story.branchHere(t1.user.id);
    assert.deepEqual(first, { leafId: null, input: '第一回' }, 'before the first instruction: the root');
    assert.equal(book.session.leafId, null);
  });

  it('branch here offers Undo: it says how many turns stay as a variant, and Undo brings the chat and the prose back', async () => {
    const t1 = await book.turn('第一回', '\n一。\n');
    const p1 = book.prose;
    await book.turn('第二回', '\n二。\n');
    await book.turn('第三回', '\n三。\n');
    const end = book.session.leafId;
    const p3 = book.prose;
    host.events.length = 0;
    await story.branchHere(replyOf(t1.user).id);
    await settled();
    assert.equal(book.prose, p1, '"always": the prose followed');
    assert.deepEqual(host.kinds(), ['branched'], 'one report, not a restore report besides');
    const branched = host.events[0];
    assert.ok(branched?.kind === 'branched');
    assert.equal(branched.laterTurns, 2);
    assert.deepEqual(branched.restored?.written, ['chapters/01.md']);
    assert.equal(branched.undo.action.kind, 'prose');

    const undone = await story.undoFromOffer(branched.undo);
    await settled();
    assert.ok(undone && typeof undone === 'object', 'the prose restore was undone');
    assert.equal(book.session.leafId, end, 'the chat is back at the end of turn 3');
    assert.equal(book.prose, p3, 'and so is its prose');
    assert.equal(host.kinds().at(-1), 'undone');
    assert.equal(await story.undoFromOffer(branched.undo), undefined, 'a second click does nothing');
  });

  it('branch here with the prose left alone ("never"): Undo moves only the chat back; from an instruction the instruction counts', async () => {
    host.setting = 'never';
    await book.turn('第一回', '\n一。\n');
    const t2 = await book.turn('第二回', '\n二。\n');
    const end = book.session.leafId;
    const prose = book.prose;
    host.events.length = 0;
    const landed = await story.branchHere(t2.user.id);
    assert.equal(landed?.input, '第二回');
    await settled();
    const branched = host.events[0];
    assert.ok(branched?.kind === 'branched');
    assert.equal(branched.laterTurns, 1, 'the instruction itself leaves the branch');
    assert.equal(branched.restored, undefined);
    assert.deepEqual(branched.undo.action, { kind: 'chat', leafBefore: end });
    assert.equal(await story.undoFromOffer(branched.undo), 'chatOnly');
    assert.equal(book.session.leafId, end);
    assert.equal(book.prose, prose, 'the prose was never touched');
    // At the end of the branch nothing moves, and nothing is offered.
    host.events.length = 0;
    await story.branchHere(replyOf(t2.user).id);
    await settled();
    assert.deepEqual(host.kinds(), []);
  });

  it('branch here with "ask": the instruction comes back at once, the question stays open, and the report comes with the answer', async () => {
    host.setting = 'ask';
    let answer!: (yes: boolean) => void;
    host.answerFollow = () => new Promise<boolean>((r) => (answer = r));
    const t1 = await book.turn('第一回', '\n一。\n');
    const p1 = book.prose;
    const t2 = await book.turn('第二回', '\n二。\n');
    const p2 = book.prose;
    const end = book.session.leafId;
    host.events.length = 0;
    const landed = await story.branchHere(t2.user.id);
    assert.deepEqual(landed, { leafId: t1.state!.id, input: '第二回' }, 'the input is handed back before the question is answered');
    while (host.followAsked === 0) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(host.kinds(), [], 'nothing reported while the question is open');
    answer(true);
    await settled();
    assert.equal(book.prose, p1);
    const branched = host.events.at(-1);
    assert.ok(branched?.kind === 'branched' && branched.restored && branched.laterTurns === 1);
    await story.undoFromOffer(branched.undo);
    assert.equal(book.session.leafId, end);
    assert.equal(book.prose, p2);
  });

  it('edit in place: an instruction gets one edit entry; unchanged text appends nothing', async () => {
    const t1 = await book.turn('第一回', '\n一。\n');
    const before = entryCount();
    assert.equal(await story.editInPlace(t1.user.id, '第一回'), false);
    assert.equal(entryCount(), before);
    assert.equal(await story.editInPlace(t1.user.id, '第一回，雨夜'), true);
    assert.deepEqual(sides('edit').map((e) => e.type === 'edit' && [e.targetId, e.text]), [[t1.user.id, '第一回，雨夜']]);
    assert.equal(book.branch().context.messages.find((m) => m.entryId === t1.user.id)?.text, '第一回，雨夜');
    assert.equal(book.session.leafId, t1.state!.id, 'in place: the leaf stays');
  });

  it('edit in place on a reply in parts: the text goes on its last text part, the others are emptied', async () => {
    await book.session.append({ type: 'user', text: '写' });
    const part1 = await book.session.append({ type: 'assistant', text: '先看看。', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }], model: 'm', finish: 'stop' });
    await book.session.append({ type: 'tool', callId: 'c1', name: 'read_file', result: 'x', isError: false });
    const part2 = await book.session.append({ type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' });
    const before = entryCount();
    assert.equal(await story.editInPlace(part1.id, '先看看。\n\n写好了。'), false, 'the joined text as shown: unchanged');
    assert.equal(entryCount(), before);
    assert.equal(await story.editInPlace(part1.id, '一句就够。'), true);
    assert.deepEqual(sides('edit').map((e) => e.type === 'edit' && [e.targetId, e.text]), [[part1.id, ''], [part2.id, '一句就够。']]);
    const texts = book.branch().context.messages.filter((m) => m.role === 'assistant').map((m) => m.text);
    assert.deepEqual(texts, ['', '一句就够。'], 'the first part keeps its tool call, with no text');
  });

  it('while the agent is writing every chat-tree verb is refused, said, and writes nothing', async () => {
    const { a, b, tipB } = await variants();
    await settled();
    const held = await fixture.holdTurn();
    host.events.length = 0;
    const before = entryCount();
    const leaf = book.session.leafId;
    assert.equal(await story.switchVariant(b.id, -1), false);
    assert.equal(await story.hide(a.id), false);
    assert.equal(await story.unhide(a.id), false);
    assert.equal(await story.branchHere(b.id), undefined);
    assert.equal(await story.editInPlace(b.id, '改'), false);
    assert.equal(entryCount(), before, 'nothing appended');
    assert.equal(book.session.leafId, leaf, 'nothing moved');
    assert.equal(book.session.get(leaf!)?.parentId, tipB, 'the held turn\'s instruction went under the tip');
    assert.deepEqual(host.events.map((e) => e.kind === 'busyVerb' && e.verb), ['switch variants', 'hide', 'hide', 'branch', 'edit']);
    await held.release();
  });
});
