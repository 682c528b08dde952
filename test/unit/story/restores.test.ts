// The acceptance cases of "restores land where the branch says", over a real folder, a real
// checkpoint store (git) and a real session file: Restore Prose and Chat to turn N shows turn N's
// state; a Save Point after restoring to the turn just before a save stays on that worldline; a
// prose question answered after the branch moved changes nothing.
import { strict as assert } from 'node:assert';
import { stateAt } from '../../../src/state/stateAt';
import { answerStillCurrent, markBranch, proseAndChatLanding, proseToFollow, saveLanding } from '../../../src/story';
import { buildWorldlineView } from '../../../src/worldline/view';
import { emptySidecar } from '../../../src/worldline/sidecar-data';
import { planNewSave } from '../../../src/worldline/plan';
import { cleanupTmp } from '../checkpoints/helpers';
import { Book, OPTIONS } from './helpers';

describe('restores land where the branch says', function () {
  this.timeout(30000);
  let book: Book;

  beforeEach(async () => {
    book = await Book.open();
  });

  afterEach(async () => {
    await book.close();
    cleanupTmp();
  });

  it('Restore Prose and Chat to turn 2 brings turn 2\'s prose and turn 2\'s scene state', async () => {
    await book.turn('第一回', '\n青梧开门。\n', { time: '第一夜' });
    const second = await book.turn('第二回', '\n沈砚进门。\n', { time: '第二夜' });
    const proseAfter2 = book.prose;
    await book.turn('第三回', '\n灯灭了。\n', { time: '第三夜' });

    const { written, leafId } = await book.restoreProseAndChat(second.checkpoint.id);
    assert.deepEqual(written, ['chapters/01.md']);
    assert.equal(book.prose, proseAfter2, 'the prose is turn 2\'s');
    assert.equal(leafId, second.state?.id, 'the leaf is at the end of turn 2, after its state');
    const branch = book.branch();
    assert.equal(branch.state.entryId, second.state?.id, 'the Branch at the new leaf has turn 2\'s state entry');
    assert.equal(branch.state.state.time, '第二夜');
    assert.equal(branch.checkpoint?.id, second.checkpoint.id, 'prose and chat agree: the branch\'s checkpoint is the one restored');
    // What the next instruction would be given: the model's ledger is turn 2's, not turn 1's.
    assert.equal(stateAt(book.session.path(), OPTIONS.opening).state.time, '第二夜');
  });

  it('a turn whose scribe never wrote a state lands on its checkpoint (the state before it is the right one)', async () => {
    await book.turn('第一回', '\n一。\n', { time: '第一夜' });
    const second = await book.turn('第二回', '\n二。\n', { scribe: false });
    await book.turn('第三回', '\n三。\n', { time: '第三夜' });
    const { leafId } = await book.restoreProseAndChat(second.checkpoint.id);
    assert.equal(leafId, second.checkpoint.id);
    assert.equal(book.branch().state.state.time, '第一夜');
  });

  it('Save Point after restoring to the turn just before a save stays on that worldline', async () => {
    await book.turn('第一回', '\n一。\n');
    const second = await book.turn('第二回', '\n二。\n');
    const { save: a } = await book.savePoint('问名');
    await book.turn('第三回', '\n三。\n');

    const { written, leafId } = await book.restoreProseAndChat(second.checkpoint.id);
    assert.deepEqual(written, ['chapters/01.md'], 'turn 3\'s paragraph goes: one file written');
    assert.equal(leafId, a.id, 'the leaf lands after the save: it is "you are here" again');
    const view = buildWorldlineView(book.session, emptySidecar(), book.session.leafId);
    assert.equal(view.current.saveId, a.saveId);
    assert.equal(view.current.storyAfterLastSave, false);

    // Where the old restore landed (the checkpoint), the next save would start a second, unconnected line.
    assert.equal(planNewSave({ name: 'x', lang: 'zh', tree: book.session, leafId: second.checkpoint.id }).kind, 'first');

    const { save: b, pinned } = await book.savePoint('再问');
    assert.equal(pinned, undefined, 'the prose is exactly the checkpoint\'s: nothing to pin');
    assert.equal(b.kind, 'sameLine');
    assert.equal(b.worldlineId, a.worldlineId);
    assert.equal(b.parentSaveId, a.saveId);
  });

  it('a save after hand edits is new prose: restoring the turn before it lands before the pin, loading the save lands on the save', async () => {
    await book.turn('第一回', '\n一。\n');
    const second = await book.turn('第二回', '\n二。\n');
    const proseAfter2 = book.prose;
    book.write('\n（作者亲手加的一句）\n');
    const { save, pinned } = await book.savePoint('手改');
    assert.ok(pinned, 'the hand edit was pinned before the save');
    const proseAtSave = book.prose;
    await book.turn('第三回', '\n三。\n');

    const { leafId } = await book.restoreProseAndChat(second.checkpoint.id);
    assert.equal(leafId, second.state?.id, 'the end of turn 2 is its state: the pin after it is other prose');
    assert.equal(book.prose, proseAfter2);

    await book.loadSave(save.id);
    assert.equal(book.session.leafId, save.id);
    assert.equal(book.prose, proseAtSave, 'the save\'s own prose, hand edit included');
    assert.equal(book.branch().checkpoint?.id, pinned.id);
    assert.equal(buildWorldlineView(book.session, emptySidecar(), book.session.leafId).current.saveId, save.saveId);
  });

  it('Load Save lands on the save itself, not on a later save of the same turn', async () => {
    const one = await book.turn('第一回', '\n一。\n');
    const { save: first } = await book.savePoint('甲');
    const { save: second } = await book.savePoint('乙');
    await book.turn('第二回', '\n二。\n');
    const landing = saveLanding(book.branch(), first.id);
    assert.equal(landing?.leafId, first.id);
    // Restore Prose and Chat to the turn walks over both saves: the latest is "here".
    assert.equal(proseAndChatLanding(book.branch(), one.checkpoint.id)?.leafId, second.id);
    assert.equal(saveLanding(book.branch(), book.session.path()[0]!.id), undefined, 'a non-save is refused');
  });

  it('a session from before this fix (the leaf went on from a checkpoint) still lands on the turn\'s state beside the branch', async () => {
    await book.turn('第一回', '\n一。\n', { time: '第一夜' });
    const second = await book.turn('第二回', '\n二。\n', { time: '第二夜' });
    await book.turn('第三回', '\n三。\n', { time: '第三夜' });
    // The old restore moved the leaf to the checkpoint; the novelist wrote on from there.
    await book.repo.restore(second.checkpoint.commit, { undoable: true });
    await book.session.navigate(second.checkpoint.id);
    await book.turn('另一个第三回', '\n三之二。\n', { time: '另一夜' });
    assert.ok(!book.session.isOnPath(second.state!.id), 'turn 2\'s state is beside this branch');

    const { leafId } = await book.restoreProseAndChat(second.checkpoint.id);
    assert.equal(leafId, second.state?.id);
    assert.equal(book.branch().state.state.time, '第二夜');
  });

  describe('a question answered later', () => {
    /** Two variants of turn 2 with different prose; the leaf on variant A, the prose still B's (the question is open). */
    async function variantsWithOpenQuestion() {
      await book.turn('第一回', '\n一。\n');
      const proseBefore2 = book.prose;
      const a = await book.turn('第二回', '\n二甲。\n');
      const proseA = book.prose;
      // Regenerate: the prose back to the checkpoint before the turn, a sibling reply.
      await book.session.navigate(a.user.id);
      await book.repo.restore(book.branch().turnOf(a.user.id)!.checkpointBefore!.commit, { undoable: false });
      assert.equal(book.prose, proseBefore2);
      book.write('\n二乙。\n');
      await book.session.append({ type: 'assistant', text: '另一种写法。', model: 'test-model', finish: 'stop' });
      await book.checkpoint(a.user.id, false);
      const bLeaf = (await book.session.append({ type: 'state', state: OPTIONS.opening, by: 'scribe', warnings: [] })).id;
      const proseB = book.prose;
      // ◀: back to variant A. Prose follows the branch → the question is asked about A's checkpoint.
      await book.session.navigate(book.session.tipOf(book.session.children(a.user.id)[0]!.id));
      const target = proseToFollow(book.branch(), bLeaf);
      assert.equal(target?.id, a.checkpoint.id, 'the question: bring A\'s prose along?');
      const asked = markBranch(book.session, false);
      return { a, proseA, proseB, target: target!, asked };
    }

    /** The shell's answer handler: re-check, then restore. */
    async function answerYes(asked: ReturnType<typeof markBranch>, commit: string, busy = false): Promise<boolean> {
      const check = answerStillCurrent(asked, markBranch(book.session, busy), book.session);
      if (!check.current) return false;
      await book.repo.restore(commit, { undoable: true });
      return true;
    }

    it('answered after the next turn was sent: dropped, the new paragraph stays', async () => {
      const { target, asked, proseB } = await variantsWithOpenQuestion();
      assert.equal(book.prose, proseB, 'unanswered: the prose is still B\'s');
      await book.turn('第三回', '\n新写的一段。\n');
      const proseNow = book.prose;
      assert.equal(await answerYes(asked, target.commit), false);
      assert.equal(book.prose, proseNow, 'the old checkpoint was not restored over the new paragraph');
      assert.deepEqual(answerStillCurrent(asked, markBranch(book.session, false), book.session), { current: false, reason: 'moved' });
    });

    it('answered while the next turn is being written: dropped', async () => {
      const { target, asked } = await variantsWithOpenQuestion();
      await book.session.append({ type: 'user', text: '第三回' });
      const proseNow = book.prose;
      assert.equal(await answerYes(asked, target.commit, true), false);
      assert.equal(book.prose, proseNow);
    });

    it('answered after switching away and back, or after only the scribe wrote: applied', async () => {
      const { target, asked, proseA } = await variantsWithOpenQuestion();
      const here = book.session.leafId;
      await book.session.navigate(book.session.path()[0]!.id);
      await book.session.navigate(here);
      await book.session.append({ type: 'state', state: OPTIONS.opening, by: 'user', warnings: [] });
      assert.equal(await answerYes(asked, target.commit), true);
      assert.equal(book.prose, proseA, 'the prose of the branch the novelist is on');
    });

    it('answered with nothing changed: applied (the check is not always "no")', async () => {
      const { target, asked, proseA } = await variantsWithOpenQuestion();
      assert.equal(await answerYes(asked, target.commit), true);
      assert.equal(book.prose, proseA);
    });
  });
});
