// Show Turn Changes and Compare with Current Prose as the novelist meets them, over a real session
// and a real git store, with a scripted Prompter: nothing to compare, nothing changed (either way),
// one file shown without asking, several asked (Escape, or a pick), a file named, the working copy
// and a deleted file on the right, and the texts the two sides of the diff hold.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { showChanges, type ChangesHost } from '../../../src/checkpoints/changesFlow';
import type { ShadowRepo } from '../../../src/checkpoints';
import type { CheckpointDocument, WorkingDocument } from '../../../src/protocol/diff';
import type { CheckpointEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { english, ScriptedPrompter, type Answer } from '../fixtures/scriptedPrompter';
import { openRepo, openTurnBook, remove, write, type TurnBook } from './helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

interface Shown { left: CheckpointDocument | WorkingDocument; right: CheckpointDocument | WorkingDocument; title: string; preview: boolean; translated: boolean }

describe('Show Turn Changes / Compare with Current Prose (flow)', function () {
  this.timeout(20_000);
  let root: string;
  let repo: ShadowRepo;
  let session: Session;

  let book: TurnBook;
  const turn = async (text: string, edit: () => void): Promise<CheckpointEntry> => (await book.turn(text, edit)).checkpoint;

  /** The flow's host over this test's session and store; what it showed, and what it asked and said. */
  function host(answers: Answer[] = [], opts: { session?: boolean; store?: boolean } = {}) {
    const prompter = new ScriptedPrompter(answers);
    const shown: Shown[] = [];
    const h: ChangesHost = {
      prompter,
      session: () => (opts.session === false ? undefined : session),
      store: () => Promise.resolve(opts.store === false ? undefined : repo),
      showDiff: (left, right, title, preview) => {
        shown.push({ left, right, title: english(title), preview, translated: !title.literal && title.message in bundle });
        return Promise.resolve();
      },
    };
    return { h, prompter, shown };
  }

  /** What a side of the diff holds: the shell reads a checkpoint document from the store, a working one from disk. */
  async function text(doc: CheckpointDocument | WorkingDocument): Promise<string | undefined> {
    if (doc.kind === 'working') return fs.readFileSync(path.join(root, ...doc.path.split('/')), 'utf8');
    return doc.commit === 'empty' ? '' : repo.readAt(doc.commit, doc.path);
  }

  beforeEach(async () => {
    book = await openTurnBook('wl-changes-flow-');
    ({ root, repo, session } = book);
  });

  afterEach(() => book.close());

  it('without a session: nothing asked, nothing said, 0', async () => {
    const { h, prompter, shown } = host([], { session: false });
    assert.equal(await showChanges(h, undefined), 0);
    assert.deepEqual([prompter.asked, prompter.notified, shown], [[], [], []]);
  });

  it('no checkpoint yet, an entry that is no checkpoint, or checkpoints off: says there is nothing to compare', async () => {
    const none = 'There is no checkpoint to compare yet: one is taken at the end of every agent turn.';
    const first = host();
    assert.equal(await showChanges(first.h, undefined), 0);
    assert.deepEqual(first.prompter.texts(), [none]);
    assert.ok(first.prompter.notified[0]!.words.message in bundle);

    const t1 = await turn('begin', () => write(root, 'chapters/01.md', '# One\nRain.\n'));
    for (const [id, against, opts] of [[t1.parentId!, 'previous', {}], ['no-such-entry', 'working', {}], [t1.id, 'previous', { store: false }]] as const) {
      const { h, prompter, shown } = host([], opts);
      assert.equal(await showChanges(h, id, undefined, against), 0);
      assert.deepEqual(prompter.texts(), [none]);
      assert.equal(prompter.notified[0]!.level, 'info');
      assert.deepEqual(shown, []);
    }
  });

  it("a turn that changed nothing, and a checkpoint the manuscript still matches, say so in their own words", async () => {
    const t1 = await turn('begin', () => write(root, 'chapters/01.md', '# One\nRain.\n'));
    const t2 = await turn('talk only', () => undefined);
    const quiet = host();
    assert.equal(await showChanges(quiet.h, t2.id), 0);
    assert.deepEqual(quiet.prompter.texts(), ['This turn changed no manuscript file.']);
    const same = host();
    assert.equal(await showChanges(same.h, t1.id, undefined, 'working'), 0);
    assert.deepEqual(same.prompter.texts(), ['The manuscript is exactly as it was at this checkpoint.']);
    assert.deepEqual([...quiet.shown, ...same.shown], []);
    assert.ok([quiet, same].every((x) => x.prompter.notified.every((n) => n.words.message in bundle)));
  });

  it("one changed file is shown without asking: the checkpoint before ↔ this one, as a preview, under its translated title", async () => {
    await turn('begin', () => write(root, 'chapters/01.md', '# One\nRain.\n'));
    const t2 = await turn('go on', () => write(root, 'chapters/01.md', '# One\nRain.\nWind.\n'));
    const { h, prompter, shown } = host();
    assert.equal(await showChanges(h, undefined), 1, 'no id: the last checkpoint on the path');
    assert.deepEqual(prompter.asked, []);
    assert.equal(shown.length, 1);
    const [diff] = shown as [Shown];
    assert.equal(diff.title, "chapters/01.md (this turn's changes)");
    assert.ok(diff.translated && diff.preview);
    assert.deepEqual(diff.right, { kind: 'checkpoint', commit: t2.commit, path: 'chapters/01.md' });
    assert.equal(await text(diff.left), '# One\nRain.\n');
    assert.equal(await text(diff.right), '# One\nRain.\nWind.\n');
  });

  it('several changed files: asked which (paths and statuses); Escape shows nothing; a pick or a named file shows that one', async () => {
    const t1 = await turn('begin', () => { write(root, 'chapters/01.md', '# One\nRain.\n'); write(root, 'notes.md', 'n\n'); });

    const escaped = host([{ escape: 'pick' }]);
    assert.equal(await showChanges(escaped.h, t1.id), t1.changed.length, 'the count, though nothing was opened');
    assert.equal(escaped.prompter.asked[0]!.title, 'Show Turn Changes');
    assert.deepEqual(escaped.prompter.asked[0]!.labels.sort(), ['chapters/01.md', 'notes.md']);
    assert.deepEqual(escaped.prompter.asked[0]!.descriptions, ['A', 'A']);
    assert.deepEqual(escaped.shown, []);

    const picked = host([{ pick: 'notes.md' }]);
    assert.equal(await showChanges(picked.h, t1.id), 2);
    assert.equal(picked.shown.length, 1);
    // The first turn has no checkpoint before it: the left side is empty.
    assert.deepEqual(picked.shown[0]!.left, { kind: 'checkpoint', commit: 'empty', path: 'notes.md' });
    assert.equal(await text(picked.shown[0]!.right), 'n\n');

    const named = host();
    assert.equal(await showChanges(named.h, t1.id, 'chapters/01.md'), 2);
    assert.deepEqual(named.prompter.asked, []);
    assert.equal(named.shown[0]!.right.path, 'chapters/01.md');
    // A file named that did not change: asked among those that did.
    const notChanged = host([{ escape: 'pick' }]);
    assert.equal(await showChanges(notChanged.h, t1.id, 'chapters/99.md'), 2);
    assert.equal(notChanged.prompter.asked.length, 1);
    assert.equal(escaped.prompter.left + picked.prompter.left + notChanged.prompter.left, 0);
  });

  it('against the manuscript now: the checkpoint on the left, the file itself on the right (empty for a deleted one)', async () => {
    const t1 = await turn('begin', () => { write(root, 'chapters/01.md', '# One\nRain.\n'); write(root, 'notes.md', 'n\n'); });
    write(root, 'chapters/01.md', '# One\nSnow.\n');
    const edited = host();
    assert.equal(await showChanges(edited.h, t1.id, 'chapters/01.md', 'working'), 1);
    const [diff] = edited.shown as [Shown];
    assert.equal(diff.title, 'chapters/01.md (checkpoint ↔ now)');
    assert.ok(diff.translated && diff.preview);
    assert.deepEqual(diff.right, { kind: 'working', path: 'chapters/01.md' });
    assert.equal(await text(diff.left), '# One\nRain.\n');
    assert.equal(await text(diff.right), '# One\nSnow.\n');

    remove(root, 'notes.md');
    const deleted = host([{ pick: 'notes.md' }]);
    assert.equal(await showChanges(deleted.h, t1.id, undefined, 'working'), 2);
    assert.deepEqual(deleted.prompter.asked[0]!.descriptions.sort(), ['D', 'M']);
    assert.deepEqual(deleted.shown[0]!.right, { kind: 'checkpoint', commit: 'empty', path: 'notes.md' });
    assert.equal(await text(deleted.shown[0]!.left), 'n\n');
  });

  it('after the store was deleted and started anew: words for the novelist, no commit id, no failed command; either way', async () => {
    const t1 = await turn('begin', () => write(root, 'chapters/01.md', '# One\nRain.\n'));
    const t2 = await turn('more', () => write(root, 'chapters/01.md', '# One\nRain.\nSnow.\n'));
    repo.close();
    fs.rmSync(path.join(root, '.worldline', 'checkpoints.git'), { recursive: true, force: true });
    repo = await openRepo(root);
    for (const against of ['previous', 'working'] as const) {
      const lost = host();
      assert.equal(await showChanges(lost.h, t2.id, undefined, against), 0, against);
      assert.deepEqual(lost.shown, []);
      const [said] = lost.prompter.notified;
      assert.equal(said?.level, 'warning');
      assert.match(said?.text ?? '', /no longer in the checkpoint store/);
      assert.doesNotMatch(said?.text ?? '', new RegExp(`${t1.commit.slice(0, 7)}|${t2.commit.slice(0, 7)}`));
      assert.ok(said && said.words.message in bundle, 'translated');
    }
    repo.close();
  });
});
