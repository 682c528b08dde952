// The Story after its checkpoint store was lost (deleted, then started anew when the book opened):
// `lostCheckpoints` names the session's checkpoints the store lacks, found when the store is
// checked (not per render) and reported as a redraw once; restoring such a turn tells the novelist
// in words, with no commit id; a turn taken afterwards is restorable. Real git, a real session.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ShadowRepo } from '../../../src/checkpoints';
import { Story, type StoryEvent } from '../../../src/story';
import { eventWords, sayWords } from '../../../src/story/words';
import type { Text } from '../../../src/common/text';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { openRepo } from '../checkpoints/helpers';
import { Book, FakeHost } from './helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const english = (t: Text): string => (t.literal ? t.message : t.message.replace(/\{(\d+)\}/g, (_, i: string) => String(t.args[Number(i)])));

/** The recording host, over whichever store the test gives it, counting the redraws too. */
class StoreHost extends FakeHost {
  repo: ShadowRepo | undefined;
  renders = 0;
  override store(): Promise<ShadowRepo> { return this.repo ? Promise.resolve(this.repo) : Promise.reject(new Error('no store')); }
  override report(event: StoryEvent): void {
    if (event.kind === 'live' && event.change === 'render') this.renders++;
    super.report(event);
  }
}

describe('story: lost checkpoints', function () {
  this.timeout(30_000);
  let book: Book;
  let server: ModelServer;
  let host: StoreHost;
  let story: Story;
  let fresh: ShadowRepo | undefined;

  beforeEach(async () => {
    book = await Book.open();
    server = await startModelServer();
    host = new StoreHost(book, server);
    host.repo = book.repo;
    story = new Story(host, book.session);
  });
  afterEach(async () => {
    story.dispose();
    fresh?.close();
    fresh = undefined;
    await book.close();
    await server.close();
  });

  it('names the checkpoints the store lost, once checked; a restore of one is refused in words; a new turn restores', async () => {
    const one = await book.turn('第一回', '雨下了一夜。\n');
    const two = await book.turn('第二回', '沈砚推门进来。\n');
    await story.checkCheckpoints();
    assert.equal(story.lostCheckpoints.size, 0, 'the store holds them');
    assert.equal(host.renders, 0, 'nothing changed, nothing redrawn');

    // The store is deleted; opening the book again starts a new, empty one.
    book.repo.close();
    fs.rmSync(path.join(book.root, '.worldline', 'checkpoints.git'), { recursive: true, force: true });
    fresh = await openRepo(book.root);
    host.repo = fresh;
    assert.equal(story.lostCheckpoints.size, 0, 'not known before the store is checked');
    await story.checkCheckpoints();
    assert.deepEqual(story.lostCheckpoints, new Set([one.checkpoint.commit, two.checkpoint.commit]));
    assert.equal(host.renders, 1, 'one redraw for the change');
    await story.checkCheckpoints();
    assert.equal(host.renders, 1, 'the same answer: no redraw');

    const before = book.prose;
    assert.equal(await story.restoreProse(one.checkpoint.id), undefined);
    assert.equal(book.prose, before, 'the manuscript is as it was');
    const failed = host.events.at(-1);
    assert.equal(failed?.kind, 'restoreFailed');
    const words = eventWords(failed!, 'zh');
    assert.ok(words);
    const text = sayWords(words, english);
    assert.match(text, /no longer in the checkpoint store/);
    for (const commit of [one.checkpoint.commit, two.checkpoint.commit]) assert.ok(!text.includes(commit.slice(0, 7)), `no commit id in: ${text}`);
    for (const t of [words.text, ...(words.more ? [words.more] : [])]) assert.ok(t.message in bundle, t.message);
    assert.equal(words.suffix, undefined, 'no untranslated detail');

    // Turns after the loss are checkpointed in the new store and restore as usual.
    const user = await book.session.append({ type: 'user', text: '第三回' });
    book.write('她点了灯。\n');
    const three = await story.checkpoint(user.id, false);
    assert.ok(three);
    await story.checkCheckpoints();
    assert.ok(!story.lostCheckpoints.has(three.commit));
    assert.equal(story.lostCheckpoints.size, 2);
    book.write('又改了一句。\n');
    const restored = await story.restoreProse(three.id);
    assert.ok(restored && restored !== 'cancelled', 'a checkpoint of the new store restores');
    assert.doesNotMatch(book.prose, /又改了一句/);
  });
});
