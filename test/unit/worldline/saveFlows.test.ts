// Save Point, Load Save, Rename Worldline, Delete Save (and its Undo), Compare Saves and Export as
// the novelist meets them, over a real Story, session, sidecar file and git store, with a scripted
// Prompter: every answer and every way out (Escape at each step, nothing to pick, a busy Story,
// unsaved editors kept, the same manuscript at both saves, a save without prose, no checkpoint to
// export), and what each leaves on disk.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckpointDocument, SceneStateDocument } from '../../../src/protocol/diff';
import type { SaveEntry } from '../../../src/session/entries';
import { planNewSave } from '../../../src/worldline/plan';
import { SaveFlows, type SaveFlowHost, type SaveStory } from '../../../src/worldline/saveFlows';
import { sidecarPath } from '../../../src/worldline/sidecar';
import { english, ScriptedPrompter, type Answer } from '../fixtures/scriptedPrompter';
import { CHAPTER, openStoryFixture, type StoryFixture } from '../story/helpers';
import type { ShadowRepo } from '../../../src/checkpoints';
import { openRepo } from '../checkpoints/helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const NO_SAVES = 'There are no save points yet. Use Worldline: Save Point… to make one.';

type Doc = CheckpointDocument | SceneStateDocument;

/** The flows over one test's book, and everything they did through their ports. */
class Rig {
  readonly prompter: ScriptedPrompter;
  readonly flows: SaveFlows<string>;
  readonly diffs: { left: Doc; right: Doc; title: string; preview: boolean; literal: boolean }[] = [];
  readonly dialogs: { title: string; defaultPath: string }[] = [];
  readonly opened: string[] = [];
  readonly warnings: string[] = [];
  changes = 0;
  /** What the save dialog answers (undefined: cancelled). */
  dialogAnswer: string | undefined;
  sessionOpen = true;
  story: SaveStory | undefined;
  storeOn = true;
  /** Another store than the book's (one that lost the save's checkpoint). */
  repo: ShadowRepo | undefined;
  openFails = false;
  /** The titles of the work shown with progress. */
  readonly progress: string[] = [];

  constructor(readonly fx: StoryFixture, answers: Answer[] = []) {
    this.prompter = new ScriptedPrompter(answers);
    this.story = fx.story;
    const host: SaveFlowHost<string> = {
      prompter: this.prompter,
      log: { warn: (m) => void this.warnings.push(m) },
      open: () => (this.sessionOpen ? { root: fx.book.root, title: '听雨', lang: 'zh', session: fx.book.session } : undefined),
      ensureStory: () => Promise.resolve(this.story),
      currentStory: () => this.story,
      store: () => Promise.resolve(this.storeOn ? this.repo ?? fx.book.repo : undefined),
      showDiff: (left, right, title, preview) => {
        this.diffs.push({ left, right, title: english(title), preview, literal: title.literal === true });
        return Promise.resolve();
      },
      chooseTarget: (title, defaultPath) => {
        this.dialogs.push({ title: english(title), defaultPath });
        return Promise.resolve(this.dialogAnswer);
      },
      writeFile: (target, text) => Promise.resolve(fs.writeFileSync(target, text)),
      nameOf: (target) => path.basename(target),
      openDocument: (target) => (this.openFails ? Promise.reject(new Error('the editor is gone')) : Promise.resolve(void this.opened.push(target))),
      changed: () => void this.changes++,
      progress: (title, work) => {
        this.progress.push(english(title));
        return work();
      },
    };
    this.flows = new SaveFlows(host);
  }

  /** A fresh script on the same book (each command gets its own answers). */
  answer(...answers: Answer[]): Rig {
    const next = new Rig(this.fx, answers);
    Object.assign(next, { sessionOpen: this.sessionOpen, story: this.story, storeOn: this.storeOn, repo: this.repo, dialogAnswer: this.dialogAnswer });
    return next;
  }

  /** Every notification the flows gave is a key the zh bundle translates (or a literal problem). */
  translated(): boolean {
    return this.prompter.notified.every((n) => n.words.literal || n.words.message in bundle)
      && this.prompter.notified.every((n) => n.buttons.every((b) => b in bundle));
  }
}

describe('save and worldline flows', function () {
  this.timeout(20_000);
  let fx: StoryFixture;

  beforeEach(async () => {
    fx = await openStoryFixture('always');
  });
  afterEach(async () => {
    await fx.close();
  });

  /** A turn writes prose, then Save Point by name through the flow. */
  async function turnAndSave(rig: Rig, instruction: string, prose: string, name: string): Promise<SaveEntry> {
    await fx.book.turn(instruction, prose);
    const saved = await rig.flows.savePoint(name);
    assert.ok(saved);
    return saved;
  }

  describe('Save Point', () => {
    it('a name given is saved without asking; the views are told', async () => {
      const rig = new Rig(fx);
      await fx.book.turn('问名', '「客官贵姓？」\n');
      const saved = await rig.flows.savePoint('雨夜问名');
      assert.equal(saved?.name, '雨夜问名');
      assert.equal(saved?.worldlineName, '主线');
      assert.deepEqual(rig.prompter.asked, []);
      assert.equal(rig.changes, 1);
      assert.equal(fx.book.session.leafId, saved?.id);
    });

    it('asks for a name (an empty one gets a number); Escape saves nothing', async () => {
      await fx.book.turn('问名', '「客官贵姓？」\n');
      const escaped = new Rig(fx, [{ escape: 'ask' }]);
      const before = fx.book.session.entryCount;
      assert.equal(await escaped.flows.savePoint(), undefined);
      assert.equal(fx.book.session.entryCount, before, 'nothing written');
      assert.equal(escaped.changes, 0);
      const asked = escaped.prompter.asked[0]!;
      assert.equal(asked.title, 'Save Point');
      assert.equal(asked.ask?.prompt && english(asked.ask.prompt), 'A name for this point of the story (leave empty for a numbered one)');

      const named = new Rig(fx, [{ type: '雨夜' }]);
      assert.equal((await named.flows.savePoint())?.name, '雨夜');
      const numbered = new Rig(fx, [{ type: '' }]);
      assert.equal((await numbered.flows.savePoint())?.name, '存档 2');
    });

    it('refused before the name is asked: no Story (no novel), or the agent is writing', async () => {
      const none = new Rig(fx, [{ type: 'never asked' }]);
      none.story = undefined;
      assert.equal(await none.flows.savePoint(), undefined);
      assert.equal(none.prompter.left, 1);

      const busy = new Rig(fx, [{ type: 'never asked' }]);
      const held = await fx.holdTurn();
      try {
        assert.equal(await busy.flows.savePoint(), undefined);
        assert.equal(await busy.flows.savePoint('by name'), undefined);
      } finally {
        await held.release();
      }
      assert.equal(busy.prompter.left, 1, 'the name was never asked for');
      assert.ok(fx.host.kinds().includes('busyVerb'));
      assert.ok(!fx.book.session.entries().some((e) => e.type === 'save'));
    });
  });

  describe('Load Save', () => {
    it('picked from the saves (you are here marked, the line with the in-story time and place as description): the prose and the leaf return to it', async () => {
      const rig = new Rig(fx);
      const first = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const proseAtFirst = fx.book.prose;
      await turnAndSave(rig, '问生死', '「还活着吗？」\n', '直问生死');

      const load = rig.answer({ pick: '雨夜问名' });
      assert.equal(await load.flows.loadSave(), true);
      const asked = load.prompter.asked[0]!;
      assert.equal(asked.title, 'Load Save');
      assert.deepEqual(asked.labels, ['雨夜问名', '$(location) 直问生死']);
      // The line, then the in-story time and place of the save's scene state (the book's scribe writes the instruction as the time).
      assert.deepEqual(asked.descriptions, ['主线 · 问名 · 客栈', '主线 · 问生死 · 客栈']);
      assert.equal(asked.pick?.matchOnDescription, true);
      assert.equal(asked.pick?.matchOnDetail, true);
      assert.equal(fx.book.prose, proseAtFirst);
      assert.equal(fx.book.session.leafId, first.id);
      assert.equal(load.changes, 1);

      // By id: no question.
      const byId = rig.answer();
      assert.equal(await byId.flows.loadSave(first.saveId), true);
      assert.deepEqual(byId.prompter.asked, []);
    });

    it('nothing to load: no session, no saves yet, an unknown id, or Escape', async () => {
      const closed = new Rig(fx, [{ pick: 'never asked' }]);
      closed.sessionOpen = false;
      assert.equal(await closed.flows.loadSave(), false);
      assert.deepEqual([closed.prompter.left, closed.prompter.notified.length], [1, 0]);

      const empty = new Rig(fx);
      assert.equal(await empty.flows.loadSave(), false);
      assert.deepEqual(empty.prompter.texts(), [NO_SAVES]);
      assert.ok(empty.translated());

      await turnAndSave(empty, '问名', '「客官贵姓？」\n', '雨夜问名');
      const leaf = fx.book.session.leafId;
      assert.equal(await empty.answer().flows.loadSave('no-such-save'), false);
      const escaped = empty.answer({ escape: 'pick' });
      assert.equal(await escaped.flows.loadSave(), false);
      assert.equal(fx.book.session.leafId, leaf);
      assert.equal(escaped.changes, 0);
    });

    it('unsaved chapters the novelist will not save: cancelled, false, the views untouched', async () => {
      const rig = new Rig(fx);
      const first = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      await turnAndSave(rig, '问生死', '「还活着吗？」\n', '直问生死');
      const leaf = fx.book.session.leafId;
      fx.host.unsaved.set(CHAPTER, 'unsaved text');
      fx.host.dirtyAnswer = 'cancel';
      const load = rig.answer();
      assert.equal(await load.flows.loadSave(first.saveId), false);
      assert.equal(fx.book.session.leafId, leaf);
      assert.equal(load.changes, 0);
      assert.equal(fx.host.dirtyAsked, 1);
    });
  });

  describe('Rename Worldline', () => {
    it('picks the line (its saves counted), asks with the current name, writes the trimmed name to the sidecar', async () => {
      const rig = new Rig(fx);
      const first = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const rename = rig.answer({ pick: '主线' }, { type: '  坦白线 ' });
      assert.equal(await rename.flows.renameWorldline(), true);
      const [pick, ask] = rename.prompter.asked as [typeof rename.prompter.asked[0], typeof rename.prompter.asked[0]];
      assert.equal(pick.title, 'Rename Worldline');
      assert.deepEqual(pick.descriptions, ['1 save']);
      assert.equal(ask.ask?.value, '主线');
      assert.equal(english(ask.ask!.validate!('   ')!), 'The name cannot be empty.');
      assert.equal(ask.ask!.validate!('x'), undefined);
      assert.equal((await rename.flows.view())!.worldlines[0]!.name, '坦白线');
      const file = JSON.parse(fs.readFileSync(sidecarPath(fx.book.root), 'utf8')) as { sessions: Record<string, { worldlineNames: Record<string, string> }> };
      assert.equal(file.sessions[fx.book.session.header.id]!.worldlineNames[first.worldlineId], '坦白线');
      assert.equal(rename.changes, 1);
      assert.ok(rename.translated());

      // By id and name: no question.
      const direct = rig.answer();
      assert.equal(await direct.flows.renameWorldline(first.worldlineId, '雨线'), true);
      assert.deepEqual(direct.prompter.asked, []);
      assert.equal((await direct.flows.view())!.worldlines[0]!.name, '雨线');
    });

    it('nothing renamed: no saves yet, an unknown line, Escape at either step, a blank name', async () => {
      const rig = new Rig(fx);
      assert.equal(await rig.flows.renameWorldline(), false);
      assert.deepEqual(rig.prompter.texts(), [NO_SAVES]);
      const first = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const sidecarBefore = () => (fs.existsSync(sidecarPath(fx.book.root)) ? fs.readFileSync(sidecarPath(fx.book.root), 'utf8') : '');
      const before = sidecarBefore();
      assert.equal(await rig.answer().flows.renameWorldline('no-such-line', 'x'), false);
      assert.equal(await rig.answer({ escape: 'pick' }).flows.renameWorldline(), false);
      assert.equal(await rig.answer({ pick: '主线' }, { escape: 'ask' }).flows.renameWorldline(), false);
      assert.equal(await rig.answer({ escape: 'ask' }).flows.renameWorldline(first.worldlineId), false);
      assert.equal(await rig.answer().flows.renameWorldline(first.worldlineId, '   '), false);
      assert.equal(sidecarBefore(), before, 'the sidecar is untouched');
      assert.equal((await rig.flows.view())!.worldlines[0]!.name, '主线');
    });
  });

  describe('Delete Save', () => {
    it('soft delete: gone from the views, kept in the tree; the Undo button brings it back', async () => {
      const rig = new Rig(fx);
      await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const later = await turnAndSave(rig, '问生死', '「还活着吗？」\n', '天亮');
      const entries = fx.book.session.entryCount;

      const del = rig.answer({ pick: '$(location) 天亮' });
      del.prompter.click = (n) => (n.text.startsWith('Save "天亮" deleted') ? 'Undo' : undefined);
      assert.equal(await del.flows.deleteSave(), true);
      assert.equal(del.prompter.asked[0]!.title, 'Delete Save');
      assert.deepEqual(del.prompter.notified.map((n) => [n.level, n.text, n.buttons]), [['info', 'Save "天亮" deleted from the list. The story itself is untouched.', ['Undo']]]);
      assert.ok(del.translated());
      assert.equal(fx.book.session.entryCount, entries, 'nothing written to the session');
      assert.ok(fx.book.session.get(later.id));
      // The Undo runs when the button is clicked (here at once, while the command returns).
      await del.flows.idle();
      const back = (await del.flows.view())!;
      assert.ok(back.worldlines.some((l) => l.saves.some((s) => s.saveId === later.saveId)), 'Undo restored it');
      assert.deepEqual(back.deleted, []);
      assert.equal(del.changes, 2, 'the delete and the Undo each redraw');
    });

    it('without Undo the save stays deleted; Escape, no saves, or no session delete nothing', async () => {
      const rig = new Rig(fx);
      assert.equal(await rig.flows.deleteSave(), false);
      assert.deepEqual(rig.prompter.texts(), [NO_SAVES]);
      const save = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      assert.equal(await rig.answer({ escape: 'pick' }).flows.deleteSave(), false);
      const closed = rig.answer();
      closed.sessionOpen = false;
      assert.equal(await closed.flows.deleteSave(save.saveId), false);
      assert.equal((await rig.flows.view())!.deleted.length, 0);

      const del = rig.answer();
      assert.equal(await del.flows.deleteSave(save.saveId), true);
      await del.flows.idle();
      const view = (await del.flows.view())!;
      assert.deepEqual(view.worldlines, []);
      assert.deepEqual(view.deleted.map((d) => d.name), ['雨夜问名']);
      assert.deepEqual(fx.host.kinds().filter((k) => k !== 'saved'), [], 'the Story heard of nothing');
    });
  });

  describe('Compare Saves', () => {
    it('two saves on two worldlines: the scene states side by side, then the file named, checkpoint against checkpoint', async () => {
      const rig = new Rig(fx);
      const ask = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const direct = await turnAndSave(rig, '问生死', '「还活着吗？」\n', '直问生死');
      assert.equal(await rig.flows.loadSave(ask.saveId), true);
      const confess = await turnAndSave(rig, '坦言', '「我是来找我娘的。」\n', '坦言来意');
      assert.equal(confess.kind, 'fork');

      const cmp = rig.answer();
      assert.deepEqual(await cmp.flows.compareSaves(direct.saveId, confess.saveId, CHAPTER), { files: 1 });
      assert.deepEqual(cmp.prompter.asked, []);
      const [states, prose] = cmp.diffs as [Rig['diffs'][0], Rig['diffs'][0]];
      assert.deepEqual([states.left, states.right], [
        { kind: 'sceneState', entryId: direct.id, name: '直问生死' },
        { kind: 'sceneState', entryId: confess.id, name: '坦言来意' },
      ]);
      assert.equal(states.title, 'Scene state: 直问生死 ↔ 坦言来意');
      assert.ok(!states.literal && 'Scene state: {0} ↔ {1}' in bundle);
      assert.equal(prose.title, `${CHAPTER}: 直问生死 ↔ 坦言来意`);
      assert.ok(prose.literal && !prose.preview && !states.preview);
      const read = (d: Doc) => (d.kind === 'checkpoint' ? fx.book.repo.readAt(d.commit, d.path) : undefined);
      assert.match((await read(prose.left))!, /还活着吗/);
      assert.doesNotMatch((await read(prose.right))!, /还活着吗/);
      assert.match((await read(prose.right))!, /我是来找我娘的/);
    });

    it('picks both saves (the first left out of the second pick); several files changed: asks which, Escape opens none', async () => {
      const rig = new Rig(fx);
      await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      fs.writeFileSync(path.join(fx.book.root, 'chapters', '02.md'), '第二章。\n');
      await turnAndSave(rig, '问生死', '「还活着吗？」\n', '直问生死');

      const cmp = rig.answer({ pick: '雨夜问名' }, { pick: '$(location) 直问生死' }, { escape: 'pick' });
      assert.deepEqual(await cmp.flows.compareSaves(), { files: 2 });
      const [first, second, which] = cmp.prompter.asked as [typeof cmp.prompter.asked[0], typeof cmp.prompter.asked[0], typeof cmp.prompter.asked[0]];
      assert.equal(first.title, 'Compare Saves: the first save');
      assert.equal(second.title, 'Compare Saves: the second save');
      assert.deepEqual(second.labels, ['$(location) 直问生死'], 'the first save is not offered again');
      assert.equal(which.title, 'Compare Saves: which file?');
      assert.deepEqual(which.labels.sort(), [CHAPTER, 'chapters/02.md']);
      assert.equal(cmp.diffs.length, 1, 'only the scene states');

      const pickFile = rig.answer({ pick: 'chapters/02.md' });
      const [a, b] = (await pickFile.flows.view())!.worldlines[0]!.saves;
      assert.deepEqual(await pickFile.flows.compareSaves(a!.saveId, b!.saveId), { files: 2 });
      const shown = pickFile.diffs[1]!;
      assert.ok(shown.left.kind === 'checkpoint' && shown.right.kind === 'checkpoint');
      assert.deepEqual([shown.left.path, shown.right.path], ['chapters/02.md', 'chapters/02.md']);
      assert.equal(await fx.book.repo.readAt(shown.left.commit, 'chapters/02.md'), undefined, 'not there at the first save');
      assert.equal(await fx.book.repo.readAt(shown.right.commit, 'chapters/02.md'), '第二章。\n');
    });

    it('Escape at either pick, one save only, no session: nothing compared, nothing opened', async () => {
      const rig = new Rig(fx);
      await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const escFirst = rig.answer({ escape: 'pick' });
      assert.equal(await escFirst.flows.compareSaves(), undefined);
      const onlyOne = rig.answer({ pick: '$(location) 雨夜问名' });
      assert.equal(await onlyOne.flows.compareSaves(), undefined);
      assert.deepEqual(onlyOne.prompter.texts(), [NO_SAVES], 'nothing left for the second pick');
      await turnAndSave(rig, '问生死', '「还活着吗？」\n', '直问生死');
      const escSecond = rig.answer({ pick: '雨夜问名' }, { escape: 'pick' });
      assert.equal(await escSecond.flows.compareSaves(), undefined);
      const closed = rig.answer();
      closed.sessionOpen = false;
      assert.equal(await closed.flows.compareSaves('a', 'b'), undefined);
      assert.deepEqual([...escFirst.diffs, ...onlyOne.diffs, ...escSecond.diffs, ...closed.diffs], []);
    });

    it('the same manuscript at both saves is said; a save without prose, or checkpoints off, compare no files', async () => {
      const rig = new Rig(fx);
      const a = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const b = await rig.flows.savePoint('再存一次');
      const same = rig.answer();
      assert.deepEqual(await same.flows.compareSaves(a.saveId, b!.saveId), { files: 0 });
      assert.deepEqual(same.prompter.texts(), ['The manuscript is the same at both saves.']);
      assert.ok(same.translated());
      assert.equal(same.diffs.length, 1, 'the scene states are still shown');

      const off = rig.answer();
      off.storeOn = false;
      assert.deepEqual(await off.flows.compareSaves(a.saveId, b!.saveId), { files: 0 });
      assert.deepEqual(off.prompter.notified, []);

      // A save before any checkpoint, in a session of its own.
      const bareSession = fx.book.session;
      await bareSession.navigate(null);
      await bareSession.append({ type: 'user', text: '开场' });
      const bare = (await bareSession.append(planNewSave({ name: '开场', lang: 'zh', tree: bareSession }))) as SaveEntry;
      const noProse = rig.answer();
      assert.deepEqual(await noProse.flows.compareSaves(bare.saveId, a.saveId), { files: 0 });
      assert.deepEqual(noProse.prompter.notified, []);
    });
  });

  describe('Export Worldline as Manuscript', () => {
    it('to the target given: the prose at the save (not now) written; the notice offers Open', async () => {
      const rig = new Rig(fx);
      const saved = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      fs.appendFileSync(path.join(fx.book.root, CHAPTER), '后来改过的一句。\n');
      const target = path.join(fx.book.root, '..', `export-${Date.now()}.md`);
      const exp = rig.answer();
      exp.prompter.click = () => 'Open';
      try {
        assert.equal(await exp.flows.exportWorldline(saved.saveId, target), target);
        const text = fs.readFileSync(target, 'utf8');
        assert.match(text, /^# 听雨\n/);
        assert.match(text, /客官贵姓/);
        assert.doesNotMatch(text, /后来改过/);
        assert.deepEqual(exp.dialogs, [], 'no dialog with a target');
        assert.deepEqual(exp.prompter.notified.map((n) => [n.text, n.buttons]), [[`Exported 1 chapter to ${path.basename(target)}.`, ['Open']]]);
        assert.deepEqual(exp.progress, ['Reading the manuscript at "雨夜问名"…'], 'reading the book out of the store shows progress');
        assert.ok(exp.translated());
        await exp.flows.idle();
        assert.deepEqual(exp.opened, [target]);
      } finally {
        fs.rmSync(target, { force: true });
      }
    });

    it('asks where, outside the novel folder; a cancelled dialog writes nothing; a failed Open is logged', async () => {
      const rig = new Rig(fx);
      await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const cancelled = rig.answer({ pick: '$(location) 雨夜问名' });
      assert.equal(await cancelled.flows.exportWorldline(), undefined);
      assert.equal(cancelled.prompter.asked[0]!.title, 'Export Worldline as Manuscript');
      assert.deepEqual(cancelled.dialogs, [{ title: 'Export Worldline as Manuscript', defaultPath: path.join(path.dirname(fx.book.root), '听雨-主线-雨夜问名.md') }]);
      assert.deepEqual(cancelled.prompter.notified, []);
      assert.ok(!fs.existsSync(cancelled.dialogs[0]!.defaultPath));

      const chosen = rig.answer({ pick: '$(location) 雨夜问名' });
      chosen.dialogAnswer = path.join(fx.book.root, '..', `chosen-${Date.now()}.md`);
      chosen.openFails = true;
      chosen.prompter.click = () => 'Open';
      try {
        assert.equal(await chosen.flows.exportWorldline(), chosen.dialogAnswer);
        assert.ok(fs.existsSync(chosen.dialogAnswer));
        await chosen.flows.idle();
        assert.deepEqual(chosen.warnings, ['opening the export failed: the editor is gone']);
      } finally {
        fs.rmSync(chosen.dialogAnswer, { force: true });
      }
    });

    it('no checkpoint to export (checkpoints off, or a save before any), no session, Escape: nothing written, no dialog', async () => {
      const rig = new Rig(fx);
      const saved = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      const off = rig.answer();
      off.storeOn = false;
      assert.equal(await off.flows.exportWorldline(saved.saveId), undefined);
      assert.deepEqual(off.prompter.notified.map((n) => [n.level, n.text]), [['warning', 'This save has no checkpoint of the manuscript, so there is nothing to export.']]);
      assert.ok(off.translated());

      await fx.book.session.navigate(null);
      await fx.book.session.append({ type: 'user', text: '开场' });
      const bare = (await fx.book.session.append(planNewSave({ name: '开场', lang: 'zh', tree: fx.book.session }))) as SaveEntry;
      const noProse = rig.answer();
      assert.equal(await noProse.flows.exportWorldline(bare.saveId), undefined);
      assert.equal(noProse.prompter.notified[0]!.level, 'warning');

      const escaped = rig.answer({ escape: 'pick' });
      assert.equal(await escaped.flows.exportWorldline(), undefined);
      const closed = rig.answer();
      closed.sessionOpen = false;
      assert.equal(await closed.flows.exportWorldline(saved.saveId), undefined);
      assert.deepEqual([...off.dialogs, ...noProse.dialogs, ...escaped.dialogs, ...closed.dialogs], []);
    });
  });

  describe('Export over a lost checkpoint store', () => {
    it('the store was deleted and started anew: the novelist is told in words, with no commit id; nothing is written', async () => {
      const rig = new Rig(fx);
      const saved = await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
      fx.book.repo.close();
      fs.rmSync(path.join(fx.book.root, '.worldline', 'checkpoints.git'), { recursive: true, force: true });
      const fresh = await openRepo(fx.book.root);
      try {
        const lost = rig.answer();
        lost.repo = fresh;
        const target = path.join(fx.book.root, '..', `lost-${Date.now()}.md`);
        assert.equal(await lost.flows.exportWorldline(saved.saveId, target), undefined);
        assert.equal(fs.existsSync(target), false, 'nothing written');
        const [said] = lost.prompter.notified;
        assert.equal(said?.level, 'warning');
        assert.match(said?.text ?? '', /no longer in the checkpoint store/);
        assert.doesNotMatch(said?.text ?? '', /[0-9a-f]{7,}/, 'no commit id');
        assert.ok(lost.translated());
      } finally {
        fresh.close();
      }
    });
  });

  it('a damaged worldlines.json is logged and said once, as it is; the views still show the saves', async () => {
    const rig = new Rig(fx);
    await turnAndSave(rig, '问名', '「客官贵姓？」\n', '雨夜问名');
    fs.mkdirSync(path.dirname(sidecarPath(fx.book.root)), { recursive: true });
    fs.writeFileSync(sidecarPath(fx.book.root), '{ not json');
    const fresh = rig.answer();
    const view = (await fresh.flows.view())!;
    assert.deepEqual(view.worldlines.map((l) => l.saves.map((s) => s.name)), [['雨夜问名']]);
    assert.equal(fresh.warnings.length, 1);
    assert.deepEqual(fresh.prompter.notified.map((n) => [n.level, n.text, n.words.literal]), [['warning', fresh.warnings[0], true]]);
    await fresh.flows.view();
    assert.equal(fresh.warnings.length, 1, 'read once, said once');
  });
});
