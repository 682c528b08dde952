// The status bar's word count follows every verb that moves the prose without a turn: restore
// prose only, restore prose and chat, undo, load a save, regenerate's reset. The counter listens to
// the window's change feed, as the status bar does (src/views/statusBar.ts), and after each verb
// its kept total equals a fresh count of the book, and the last turn's delta is gone (it described
// a manuscript that is not there any more). Real git, a real session, the Story's own verbs.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileManuscript } from '../../../src/project/manuscript';
import { ManuscriptChanges } from '../../../src/project/manuscriptChanges';
import { WordCounter, countManuscript } from '../../../src/project/wordCount';
import type { CheckpointEntry } from '../../../src/session/entries';
import { CHAPTER, openStoryFixture, type StoryFixture } from './helpers';

describe('story: the word count follows restores, undo and loads', function () {
  this.timeout(60_000);
  let fixture: StoryFixture;
  let counter: WordCounter;
  const matcher = compileManuscript(['**/*.md']).matcher;

  beforeEach(async () => {
    const feed = new ManuscriptChanges();
    // As the window wires it: the store tells of each restore, and the status bar forgets the turn's change.
    fixture = await openStoryFixture('never', { feed, onRestored: () => counter.forgetTurn() });
    const root = fixture.book.root;
    counter = new WordCounter({ source: () => ({ root, matcher }), changed: () => undefined, warn: (m) => assert.fail(m), feed });
    await counter.count();
  });
  afterEach(async () => {
    counter.dispose();
    await fixture.close();
  });

  /** A turn as the agent's tools make it: the file written, the change reported, the checkpoint, the delta counted. */
  async function turn(text: string): Promise<CheckpointEntry> {
    const { book } = fixture;
    const before = book.prose;
    const made = await book.turn(`写：${text}`, text);
    fixture.book.feed?.changed([CHAPTER]);
    await counter.turnEnded([{ path: CHAPTER, before, after: book.prose }]);
    return made.checkpoint;
  }

  async function assertCounted(what: string): Promise<void> {
    await counter.whenCounted();
    assert.equal(counter.words, await countManuscript({ root: fixture.book.root, matcher }), `${what}: the kept total is the book's`);
  }

  it('restore prose, undo, restore prose and chat and load a save each leave the count right and the delta gone', async () => {
    const { story, book } = fixture;
    const first = await turn('雨下了一夜，客栈里只剩一盏灯。');
    await book.savePoint('雨夜');
    const save = book.session.path().filter((e) => e.type === 'save').at(-1);
    assert.ok(save);
    await turn('沈砚推门进来，抖落一身雨水，要了一壶热酒。');
    assert.ok((counter.turnDelta ?? 0) > 0);
    const full = counter.words;

    const restored = await story.restoreProse(first.id);
    assert.ok(restored && restored !== 'cancelled');
    await assertCounted('after Restore Prose Only');
    assert.ok((counter.words ?? 0) < (full ?? 0), 'the restored book is shorter');
    assert.equal(counter.turnDelta, undefined, 'the last turn\'s change no longer describes the prose');

    const undone = await story.undoLastRestore();
    assert.ok(undone && undone !== 'cancelled' && undone !== 'chatOnly');
    await assertCounted('after Undo');
    assert.equal(counter.words, full);

    await story.restoreProseAndChat(first.id);
    await assertCounted('after Restore Prose and Chat');

    await story.undoLastRestore();
    await assertCounted('after the second Undo');
    await story.loadSave(save.id);
    await assertCounted('after Load Save');
    assert.match(book.prose, /雨下了一夜/);
    assert.doesNotMatch(book.prose, /沈砚/);
  });

  it('a chapter the restore deletes leaves the count, and one it brings back is counted again', async () => {
    const { story, book } = fixture;
    const first = await turn('第一段。');
    fs.writeFileSync(path.join(book.root, 'chapters', '02.md'), '# 第二章\n新的一章，很长很长的一章。\n');
    book.feed?.changed(['chapters/02.md']);
    await book.turn('写第二章', '');
    await assertCounted('with the second chapter');
    const withSecond = counter.words;

    await story.restoreProse(first.id);
    assert.equal(fs.existsSync(path.join(book.root, 'chapters', '02.md')), false);
    await assertCounted('after the restore removed chapter 2');
    await story.undoLastRestore();
    await assertCounted('after Undo brought chapter 2 back');
    assert.equal(counter.words, withSecond);
  });
});
