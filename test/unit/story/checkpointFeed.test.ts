// The Story and the checkpoint store's change feed: the first checkpoint of a book runs at open
// (with progress) and a Send that comes during it waits for it, and only for it; a Send's check
// before the instruction runs no git when nothing was reported changed; the turn's checkpoint
// stages the files the tools wrote; hand edits saved before a Send and a restore's files reach
// the feed. Real git, a real session, the local model server.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckpointEntry } from '../../../src/session/entries';
import { ManuscriptChanges, type ChangedPaths } from '../../../src/project/manuscriptChanges';
import { CHAPTER, openStoryFixture, type StoryFixture } from './helpers';

describe('story: checkpoints from the change feed', function () {
  this.timeout(60_000);
  let fixture: StoryFixture;
  let feed: ManuscriptChanges;
  /** Every git process started (pipes once, when they start). */
  let spawned: string[];
  /** The processes that run to their end (the long-lived ones left out). */
  const processes = () => spawned.filter((c) => !/--stdin-paths|--stdin -z|--batch/.test(c));
  const walks = () => spawned.filter((c) => c.startsWith('ls-files') && c.includes('-m')).length;

  beforeEach(async () => {
    feed = new ManuscriptChanges();
    spawned = [];
    fixture = await openStoryFixture('ask', { feed, chapters: 30, onSpawn: (args) => spawned.push(args.join(' ')) });
  });
  afterEach(async () => {
    await fixture.close();
  });

  function scriptTurn(prose: string): void {
    fixture.server.enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: prose }) }] },
      { text: '写好了。' },
    );
  }

  const checkpoints = (): CheckpointEntry[] => fixture.book.session.path().filter((e): e is CheckpointEntry => e.type === 'checkpoint');

  it('the first checkpoint runs at open with progress; the first Send then only records it, and its turn stages the file the tool wrote', async () => {
    const { story, host } = fixture;
    await story.prepareCheckpoints();
    assert.deepEqual(host.progressKinds, ['checkpoints']);
    assert.equal(walks(), 1, 'the book was walked once, at open');
    spawned.length = 0;
    scriptTurn('雨下了一夜。');
    const result = await story.send('写下去。');
    assert.equal(result?.status, 'done', result?.error);
    const [before, after] = checkpoints();
    assert.ok(before && after);
    assert.equal(before.changed.length, 31, 'the pin before the first instruction records every chapter');
    assert.deepEqual(after.changed, [CHAPTER]);
    assert.equal(walks(), 0, 'no walk inside the Send');
    assert.deepEqual(processes(), ['update-index -z --index-info', 'write-tree'], 'the whole Send ran two git processes: staging the tool\'s file and its tree');
  });

  it('a Send that comes while the first checkpoint runs waits for it, and the walk is not done twice', async () => {
    const { story } = fixture;
    const preparing = story.prepareCheckpoints();
    scriptTurn('第二段。');
    const sending = story.send('接着写。');
    const [, result] = await Promise.all([preparing, sending]);
    assert.equal(result?.status, 'done', result?.error);
    assert.equal(walks(), 1);
    const [before, after] = checkpoints();
    assert.ok(before && after);
    assert.equal(before.changed.length, 31);
    assert.deepEqual(after.changed, [CHAPTER]);
    assert.match(fs.readFileSync(path.join(fixture.book.root, CHAPTER), 'utf8'), /第二段。/);
  });

  it('with nothing reported changed, the check before the next instruction runs no git; a hand edit saved before it is pinned', async () => {
    const { story, host } = fixture;
    await story.prepareCheckpoints();
    scriptTurn('第一段。');
    await story.send('写。');
    await story.idle();
    spawned.length = 0;
    scriptTurn('第二段。');
    await story.send('再写。');
    assert.deepEqual(processes(), ['update-index -z --index-info', 'write-tree'], 'the check before the instruction added nothing');
    assert.equal(checkpoints().length, 3, 'no pin: nothing moved between the turns');
    await story.idle();
    // The novelist typed in chapter 5 and did not save; Send saves it (the host tells the feed).
    host.unsaved.set('chapters/05.md', '# 第5章\n她回来了。\n');
    scriptTurn('第三段。');
    await story.send('三写。');
    const all = checkpoints();
    assert.deepEqual(all.at(-2)?.changed, ['chapters/05.md'], 'the hand edit is pinned before the instruction');
    assert.deepEqual(all.at(-1)?.changed, [CHAPTER]);
  });

  it('a restore tells the feed which files it wrote and deleted', async () => {
    const { story } = fixture;
    await story.prepareCheckpoints();
    scriptTurn('要撤回的一段。');
    await story.send('写。');
    await story.idle();
    const heard: ChangedPaths[] = [];
    feed.listen((p) => heard.push(p));
    const first = checkpoints()[0];
    assert.ok(first);
    const restored = await story.restoreProse(first.id);
    assert.ok(restored && restored !== 'cancelled');
    assert.deepEqual(heard, [[CHAPTER]]);
    assert.doesNotMatch(fs.readFileSync(path.join(fixture.book.root, CHAPTER), 'utf8'), /要撤回/);
  });
});
