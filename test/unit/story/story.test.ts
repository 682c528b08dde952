// The Story's restore verbs over a real folder, a real checkpoint store (git) and a real session
// file, through a fake StoryHost that records what the Story reports and answers its questions.
// The session's navigations reach `followBranch` as they do in the extension (every leaf move),
// so the Story's own moves are seen too and must not make the prose follow.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Story } from '../../../src/story';
import { planNewSave } from '../../../src/worldline/plan';
import type { ProgressKind } from '../../../src/story';
import { Book, CHAPTER, openStoryFixture, type FakeHost, type StoryFixture } from './helpers';


describe('Story: the restore verbs', function () {
  this.timeout(30000);
  let book: Book;
  let host: FakeHost;
  let story: Story;

  let fixture: StoryFixture;

  beforeEach(async () => {
    fixture = await openStoryFixture();
    ({ book, host, story } = fixture);
  });

  afterEach(() => fixture.close());

  const settled = () => fixture.settled();

  /** Three turns, each adding a line; returns them and the prose after each. */
  async function threeTurns() {
    const t1 = await book.turn('第一回', '\n一。\n', { time: '第一夜' });
    const p1 = book.prose;
    const t2 = await book.turn('第二回', '\n二。\n', { time: '第二夜' });
    const p2 = book.prose;
    const t3 = await book.turn('第三回', '\n三。\n', { time: '第三夜' });
    const p3 = book.prose;
    return { t1, t2, t3, p1, p2, p3 };
  }

  it('Restore Prose Only brings the prose back and keeps the leaf where it is', async () => {
    const { t1, p1 } = await threeTurns();
    const leaf = book.session.leafId;
    const result = await story.restoreProse(t1.checkpoint.id);
    assert.ok(result && result !== 'cancelled');
    assert.deepEqual(result.written, [CHAPTER]);
    assert.equal(book.prose, p1);
    assert.equal(book.session.leafId, leaf, 'the chat stays');
    const restored = host.events.find((e) => e.kind === 'restored');
    assert.ok(restored?.kind === 'restored' && !restored.withChat && restored.undo, 'reported as prose only, with an Undo');
  });

  it('restores and undo run inside progress of kind "restore" (the disk changes while it shows), questions outside it', async () => {
    const { t1, p1, p3 } = await threeTurns();
    const shown: { kind: ProgressKind | undefined; before: string; after: string }[] = [];
    const run = host.progress.bind(host);
    host.progress = async <T>(work: () => Promise<T>, kind?: ProgressKind): Promise<T> => {
      const before = book.prose;
      const out = await run(work, kind);
      shown.push({ kind, before, after: book.prose });
      return out;
    };
    host.unsaved.set(CHAPTER, `${p3}未存。`);
    host.dirtyAnswer = 'cancel';
    assert.equal(await story.restoreProse(t1.checkpoint.id), 'cancelled');
    assert.deepEqual(shown, [], 'the question about unsaved editors is not inside the progress, and nothing ran');
    host.unsaved.clear();
    await story.restoreProse(t1.checkpoint.id);
    await story.undoLastRestore();
    assert.deepEqual(shown, [{ kind: 'restore', before: p3, after: p1 }, { kind: 'restore', before: p1, after: p3 }]);
  });

  it('Restore Prose and Chat lands at the end of the turn: after its state, with its prose', async () => {
    const { t2, p2 } = await threeTurns();
    const result = await story.restoreProseAndChat(t2.checkpoint.id);
    await settled();
    assert.ok(result && result !== 'cancelled');
    assert.equal(book.prose, p2);
    assert.equal(book.session.leafId, t2.state?.id);
    assert.equal(book.branch().state.state.time, '第二夜');
    assert.deepEqual(host.kinds(), ['restored']);
    assert.ok(host.events[0]?.kind === 'restored' && host.events[0].withChat);
    assert.equal(host.followAsked, 0, 'the Story\'s own move did not ask to bring the prose along');
  });

  it('Undo takes back exactly the newest restore, prose and chat together, then the one before', async () => {
    const { t1, t2, p1, p2, p3 } = await threeTurns();
    const leaf0 = book.session.leafId;
    await story.restoreProseAndChat(t2.checkpoint.id);
    const leaf2 = book.session.leafId;
    await story.restoreProseAndChat(t1.checkpoint.id);
    assert.equal(book.prose, p1);
    assert.equal(book.session.leafId, t1.state?.id);

    assert.ok(typeof (await story.undoLastRestore()) === 'object');
    assert.equal(book.prose, p2, 'the prose of the first restore is back');
    assert.equal(book.session.leafId, leaf2, 'and so is its chat');
    assert.ok(typeof (await story.undoLastRestore()) === 'object');
    assert.equal(book.prose, p3);
    assert.equal(book.session.leafId, leaf0);
    assert.equal(await story.undoLastRestore(), undefined);
    assert.equal(host.events.at(-1)?.kind, 'nothingToUndo');
    await settled();
    assert.equal(host.followAsked, 0, 'none of these moves made the prose follow');
  });

  it('an Undo button of an older restore does nothing once a newer restore was made', async () => {
    const { t1, t2, p1 } = await threeTurns();
    await story.restoreProse(t2.checkpoint.id);
    const first = host.events.find((e) => e.kind === 'restored');
    await story.restoreProse(t1.checkpoint.id);
    assert.ok(first?.kind === 'restored' && first.undo);
    assert.equal(await story.undoFromOffer(first.undo), undefined);
    assert.equal(host.events.at(-1)?.kind, 'undoNotNewest');
    assert.equal(book.prose, p1, 'nothing was undone');
  });

  it('a blocked restore is reported and changes nothing: no prose, no leaf, no undo', async () => {
    const { t1 } = await threeTurns();
    const leaf = book.session.leafId;
    // The chapter became a folder holding a file that is not manuscript: the restore is refused whole.
    const chapter = path.join(book.root, CHAPTER);
    fs.rmSync(chapter);
    fs.mkdirSync(chapter);
    fs.writeFileSync(path.join(chapter, 'notes.json'), '{"mine":true}');
    assert.equal(await story.restoreProseAndChat(t1.checkpoint.id), undefined);
    assert.deepEqual(host.kinds(), ['restoreFailed']);
    assert.match((host.events[0] as { message: string }).message, /^Nothing was restored/);
    assert.equal(book.session.leafId, leaf);
    assert.equal(fs.readFileSync(path.join(chapter, 'notes.json'), 'utf8'), '{"mine":true}');
    assert.equal(await story.undoLastRestore(), undefined);
    assert.equal(host.events.at(-1)?.kind, 'nothingToUndo');
  });

  it('unsaved editors, answered Cancel: nothing is written and the leaf stays', async () => {
    const { t1, p3 } = await threeTurns();
    const leaf = book.session.leafId;
    host.unsaved.set(CHAPTER, `${p3}\n未存的一句。\n`);
    host.dirtyAnswer = 'cancel';
    assert.equal(await story.restoreProseAndChat(t1.checkpoint.id), 'cancelled');
    assert.equal(host.dirtyAsked, 1);
    assert.equal(book.prose, p3, 'the disk is as it was');
    assert.equal(book.session.leafId, leaf);
    assert.deepEqual(host.kinds(), []);
    assert.equal(await story.undoLastRestore(), 'cancelled', 'Undo asks too (nothing on its stack is touched)');
  });

  it('unsaved editors, answered Save: they are saved first, and Undo brings their text back', async () => {
    const { t1, p1, p3 } = await threeTurns();
    const typed = `${p3}\n未存的一句。\n`;
    host.unsaved.set(CHAPTER, typed);
    await story.restoreProse(t1.checkpoint.id);
    assert.equal(book.prose, p1);
    await story.undoLastRestore();
    assert.equal(book.prose, typed);
  });

  it('busy: every verb is refused and nothing moves', async () => {
    const { t1, p3 } = await threeTurns();
    const held = await fixture.holdTurn();
    host.events.length = 0;
    assert.equal(await story.restoreProseAndChat(t1.checkpoint.id), undefined);
    assert.equal(await story.undoLastRestore(), undefined);
    assert.deepEqual(host.kinds(), ['busy', 'busy']);
    assert.equal(book.prose, p3);
    await held.release();
  });

  /** Two variants of turn 2: returns the leaf of each and their prose. */
  async function twoVariants() {
    const t1 = await book.turn('第一回', '\n一。\n');
    const a = await book.turn('第二回', '\n甲。\n');
    const proseA = book.prose;
    const leafA = book.session.leafId;
    // Regenerate as the shell does: back to the turn's parent, the prose of turn 1, a sibling turn.
    await story.moveLeaf(t1.state?.id ?? null);
    await story.resetProseForRerun(a.user.id);
    const b = await book.turn('第二回', '\n乙。\n');
    const leafB = book.session.leafId;
    await settled();
    assert.equal(host.followAsked, 0, 'the regenerate\'s own move was not followed');
    return { leafA, leafB, proseA, proseB: book.prose, b };
  }

  it('prose follows the branch: switching variants asks, and Yes brings that variant\'s prose', async () => {
    const { leafA, proseA } = await twoVariants();
    await book.session.navigate(leafA);
    await settled();
    assert.equal(host.followAsked, 1);
    assert.equal(book.prose, proseA);
    assert.ok(host.events.some((e) => e.kind === 'restored' && !e.withChat));
  });

  it('a late Yes to "bring the prose along?" after the branch moved restores nothing', async () => {
    const { leafA, leafB } = await twoVariants();
    let answer: (yes: boolean) => void = () => undefined;
    host.answerFollow = () => new Promise<boolean>((resolve) => { answer = resolve; });
    await book.session.navigate(leafA); // the question is asked and waits in the bell
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(host.followAsked, 1);
    // Meanwhile the novelist goes back to variant B (the prose is B's already) and sends a turn.
    host.answerFollow = () => Promise.resolve(false);
    await book.session.navigate(leafB);
    await book.turn('第三回', '\n新写的一段。\n');
    const newest = book.prose;
    answer(true);
    await settled();
    assert.equal(book.prose, newest, 'the paragraph the new turn wrote is still there');
    assert.ok(host.events.some((e) => e.kind === 'staleAnswer' && e.reason === 'moved'));
    assert.ok(!host.events.some((e) => e.kind === 'restored'));
  });

  it('setting "never": a variant switch leaves the prose alone; "always": it follows without asking', async () => {
    const { leafA, leafB, proseA, proseB } = await twoVariants();
    host.setting = 'never';
    await book.session.navigate(leafA);
    await settled();
    assert.equal(book.prose, proseB);
    host.setting = 'always';
    await book.session.navigate(leafB);
    await book.session.navigate(leafA);
    await settled();
    assert.equal(host.followAsked, 0);
    assert.equal(book.prose, proseA);
  });

  it('Load Save of a save made before any checkpoint moves only the chat, and Undo moves it back', async () => {
    await book.session.append({ type: 'user', text: '开场' });
    const save = await book.session.append(planNewSave({ name: '开篇', lang: 'zh', tree: book.session }));
    book.write('\n后来写的。\n');
    await book.session.append({ type: 'user', text: '第一回' });
    const leaf = book.session.leafId;
    const prose = book.prose;
    assert.equal(await story.loadSave(save.id), undefined);
    assert.equal(book.session.leafId, save.id);
    assert.equal(book.prose, prose, 'the manuscript stays as it is');
    assert.equal(host.events.at(-1)?.kind, 'chatOnlyLoad');
    assert.equal(await story.undoLastRestore(), 'chatOnly');
    assert.equal(book.session.leafId, leaf);
    await settled();
    assert.equal(host.followAsked, 0, 'neither move made the prose follow');
  });

  it('Load Save restores the prose of the save\'s path, lands on the save, and one Undo takes both back', async () => {
    await book.turn('第一回', '\n一。\n');
    const { save } = await book.savePoint('问名');
    const atSave = book.prose;
    await book.turn('第二回', '\n二。\n');
    const leaf = book.session.leafId;
    const prose = book.prose;
    await story.loadSave(save.id);
    assert.equal(book.session.leafId, save.id);
    assert.equal(book.prose, atSave);
    await story.undoLastRestore();
    assert.equal(book.session.leafId, leaf);
    assert.equal(book.prose, prose);
    await settled();
    assert.equal(host.followAsked, 0);
  });
});

