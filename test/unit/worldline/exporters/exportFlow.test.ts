// Export Worldline as… as the novelist meets it, over a real Story, session and checkpoint store,
// with a scripted Prompter and a real folder: which save, which format, progress, where to (beside
// the novel folder by default), what is written, the notice that names it, and every way out
// (Escape at each step, a cancelled dialog, a save without prose, a write that fails).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import type { SaveEntry } from '../../../../src/session/entries';
import type { ExportPorts } from '../../../../src/worldline/exporters/exportFlow';
import { SaveFlows, type SaveFlowHost } from '../../../../src/worldline/saveFlows';
import { english, ScriptedPrompter, type Answer } from '../../fixtures/scriptedPrompter';
import { CHAPTER, openStoryFixture, type StoryFixture } from '../../story/helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

class Rig {
  readonly prompter: ScriptedPrompter;
  readonly flows: SaveFlows<string>;
  readonly dialogs: { kind: 'file' | 'folder'; title: string; defaultPath: string; extension?: string }[] = [];
  readonly progress: string[] = [];
  readonly opened: string[] = [];
  readonly revealed: string[] = [];
  readonly warnings: string[] = [];
  dialogAnswer: string | undefined;
  failWrites = false;
  storeOn = true;

  constructor(readonly fx: StoryFixture, answers: Answer[] = [], withPorts = true) {
    this.prompter = new ScriptedPrompter(answers);
    const ports: ExportPorts<string> = {
      chooseFile: (title, defaultPath, filter) => {
        this.dialogs.push({ kind: 'file', title: english(title), defaultPath, extension: filter.extension });
        return Promise.resolve(this.dialogAnswer);
      },
      chooseFolder: (title, defaultPath) => {
        this.dialogs.push({ kind: 'folder', title: english(title), defaultPath });
        return Promise.resolve(this.dialogAnswer);
      },
      child: (folder, name) => path.join(folder, name),
      pathOf: (t) => t,
      exists: (t) => Promise.resolve(fs.existsSync(t)),
      makeFolder: (t) => Promise.resolve(void fs.mkdirSync(t, { recursive: true })),
      writeFile: (t, bytes) => (this.failWrites ? Promise.reject(new Error('EACCES: permission denied')) : Promise.resolve(fs.writeFileSync(t, bytes))),
      reveal: (t) => Promise.resolve(void this.revealed.push(t)),
      now: () => new Date('2026-12-02T08:00:00Z'),
    };
    const host: SaveFlowHost<string> = {
      prompter: this.prompter,
      log: { warn: (m) => void this.warnings.push(m) },
      open: () => ({ root: fx.book.root, title: '听雨', lang: 'zh', session: fx.book.session }),
      ensureStory: () => Promise.resolve(fx.story),
      currentStory: () => fx.story,
      store: () => Promise.resolve(this.storeOn ? fx.book.repo : undefined),
      showDiff: () => Promise.resolve(),
      chooseTarget: () => Promise.reject(new Error('the Markdown-only dialog is not used by Export as…')),
      writeFile: () => Promise.reject(new Error('the Markdown-only write is not used by Export as…')),
      nameOf: (t) => path.basename(t),
      openDocument: (t) => Promise.resolve(void this.opened.push(t)),
      changed: () => undefined,
      progress: (title, work) => {
        this.progress.push(english(title));
        return work();
      },
      ...(withPorts ? { exportTo: ports } : {}),
    };
    this.flows = new SaveFlows(host);
  }

  translated(): boolean {
    return this.prompter.notified.every((n) => n.words.literal || n.words.message in bundle)
      && this.prompter.notified.every((n) => n.buttons.every((b) => b in bundle))
      && this.prompter.asked.every((a) => a.title in bundle)
      && this.dialogs.every((d) => d.title in bundle);
  }
}

describe('Export Worldline as…', function () {
  this.timeout(20_000);
  let fx: StoryFixture;
  let out: string;
  let saved: SaveEntry;

  beforeEach(async () => {
    fx = await openStoryFixture('always');
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-export-'));
    await fx.book.turn('问名', '　　“客官贵姓？”她问。\n');
    const s = await new Rig(fx).flows.savePoint('雨夜问名');
    assert.ok(s);
    saved = s;
    // Written after the save: never in its export.
    fs.appendFileSync(path.join(fx.book.root, CHAPTER), '后来改过的一句。\n');
  });
  afterEach(async () => {
    fs.rmSync(out, { recursive: true, force: true });
    await fx.close();
  });

  it('asks which save, then which format; the dialog starts beside the novel folder with the format\'s extension', async () => {
    const rig = new Rig(fx, [{ pick: '$(location) 雨夜问名' }, { pick: 'EPUB' }]);
    rig.dialogAnswer = path.join(out, 'book.epub');
    rig.prompter.click = () => 'Show in Folder';
    assert.equal(await rig.flows.exportWorldlineAs(), rig.dialogAnswer);
    assert.deepEqual(rig.prompter.asked.map((a) => a.title), ['Export Worldline as…', 'Export Worldline as…']);
    assert.deepEqual(rig.prompter.asked[1]!.labels, ['Markdown', 'DOCX', 'EPUB', 'TXT']);
    assert.deepEqual(rig.dialogs, [{ kind: 'file', title: 'Export Worldline as…', defaultPath: path.join(path.dirname(fx.book.root), '听雨-主线-雨夜问名.epub'), extension: 'epub' }]);
    assert.deepEqual(rig.progress, ['Exporting "雨夜问名" as EPUB…']);
    const files = unzipSync(fs.readFileSync(rig.dialogAnswer));
    const chapter = Object.keys(files).find((f) => /chapter-001\.xhtml$/.test(f))!;
    assert.match(strFromU8(files[chapter]!), /<p>　　“客官贵姓？”她问。<\/p>/);
    assert.doesNotMatch(strFromU8(files[chapter]!), /后来改过/, 'the prose at the save, not now');
    assert.deepEqual(rig.prompter.notified.map((n) => [n.level, n.text, n.buttons]), [['info', 'Exported 1 chapter to book.epub.', ['Show in Folder']]]);
    await rig.flows.idle();
    assert.deepEqual(rig.revealed, [rig.dialogAnswer]);
    assert.ok(rig.translated());
  });

  it('DOCX to the target given: no question but none needed, the document holds the prose', async () => {
    const rig = new Rig(fx);
    const target = path.join(out, 'book.docx');
    assert.equal(await rig.flows.exportWorldlineAs(saved.saveId, 'docx', target), target);
    assert.deepEqual([rig.prompter.asked, rig.dialogs], [[], []]);
    const xml = strFromU8(unzipSync(fs.readFileSync(target))['word/document.xml']!);
    assert.match(xml, /听雨/);
    assert.match(xml, /　　“客官贵姓？”她问。/);
    assert.deepEqual(rig.prompter.texts(), ['Exported 1 chapter to book.docx.']);
  });

  it('Markdown is today\'s export; its notice offers Open', async () => {
    const rig = new Rig(fx);
    rig.prompter.click = () => 'Open';
    const target = path.join(out, 'book.md');
    await rig.flows.exportWorldlineAs(saved.saveId, 'markdown', target);
    assert.match(fs.readFileSync(target, 'utf8'), /^# 听雨\n\n> 世界线「主线」 · 存档「雨夜问名」\n/);
    await rig.flows.idle();
    assert.deepEqual(rig.opened, [target]);
  });

  it('TXT: a folder named after the book and save inside the folder chosen, a fresh one each time', async () => {
    const rig = new Rig(fx, [{ pick: 'TXT' }]);
    rig.dialogAnswer = out;
    const first = await rig.flows.exportWorldlineAs(saved.saveId);
    assert.equal(first, path.join(out, '听雨-主线-雨夜问名'));
    assert.deepEqual(rig.dialogs.map((d) => [d.kind, d.defaultPath]), [['folder', path.dirname(fx.book.root)]]);
    assert.deepEqual(fs.readdirSync(first!), ['01 第一章.txt']);
    assert.equal(fs.readFileSync(path.join(first!, '01 第一章.txt'), 'utf8'), '第一章\n\n　　“客官贵姓？”她问。\n');
    assert.deepEqual(rig.prompter.texts(), ['Exported 1 chapter as a text file into the folder 听雨-主线-雨夜问名.']);
    assert.ok(rig.translated());

    const again = new Rig(fx);
    assert.equal(await again.flows.exportWorldlineAs(saved.saveId, 'txt', out), path.join(out, '听雨-主线-雨夜问名 (2)'), 'an earlier export is never mixed in');
    assert.deepEqual(fs.readdirSync(out).sort(), ['听雨-主线-雨夜问名', '听雨-主线-雨夜问名 (2)']);
  });

  it('every way out writes nothing: Escape on the save or the format, a cancelled dialog, no prose at the save, no ports', async () => {
    const noSave = new Rig(fx, [{ escape: 'pick' }]);
    assert.equal(await noSave.flows.exportWorldlineAs(), undefined);
    const noFormat = new Rig(fx, [{ escape: 'pick' }]);
    assert.equal(await noFormat.flows.exportWorldlineAs(saved.saveId), undefined);
    const cancelled = new Rig(fx);
    assert.equal(await cancelled.flows.exportWorldlineAs(saved.saveId, 'docx'), undefined);
    assert.equal(cancelled.dialogs.length, 1);
    const off = new Rig(fx);
    off.storeOn = false;
    assert.equal(await off.flows.exportWorldlineAs(saved.saveId, 'epub', path.join(out, 'x.epub')), undefined);
    assert.deepEqual(off.prompter.notified.map((n) => [n.level, n.text]), [['warning', 'This save has no checkpoint of the manuscript, so there is nothing to export.']]);
    const shell = new Rig(fx, [], false);
    assert.equal(await shell.flows.exportWorldlineAs(saved.saveId, 'docx', path.join(out, 'y.docx')), undefined);
    assert.deepEqual(fs.readdirSync(out), []);
    for (const r of [noSave, noFormat, cancelled, shell]) assert.deepEqual(r.prompter.notified, []);
  });

  it('a write that fails says so in words and leaves the manuscript alone', async () => {
    const before = fs.readFileSync(path.join(fx.book.root, CHAPTER), 'utf8');
    const rig = new Rig(fx);
    rig.failWrites = true;
    assert.equal(await rig.flows.exportWorldlineAs(saved.saveId, 'epub', path.join(out, 'z.epub')), undefined);
    assert.deepEqual(rig.prompter.notified.map((n) => [n.level, n.text]), [['error', 'The export could not be written: EACCES: permission denied. Your manuscript is unchanged; try another place.']]);
    assert.ok(rig.translated());
    assert.equal(fs.readFileSync(path.join(fx.book.root, CHAPTER), 'utf8'), before);
  });

  it('never into the novel folder, where the export would become manuscript', async () => {
    for (const [format, target] of [['txt', fx.book.root], ['markdown', path.join(fx.book.root, 'chapters', 'all.md')], ['epub', path.join(fx.book.root, 'book.epub')]] as const) {
      const rig = new Rig(fx);
      assert.equal(await rig.flows.exportWorldlineAs(saved.saveId, format, target), undefined, format);
      assert.deepEqual(rig.prompter.texts(), ['That place is inside the novel folder, where the export would become part of the manuscript. Choose a place outside it.']);
      assert.ok(rig.translated());
    }
    assert.deepEqual(fs.readdirSync(fx.book.root).filter((f) => /听雨|all\.md|\.epub$/.test(f)), []);
    assert.ok(!fs.existsSync(path.join(fx.book.root, 'chapters', 'all.md')));
  });
});
