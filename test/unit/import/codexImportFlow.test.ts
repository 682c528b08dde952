// "Import SillyTavern Lorebook or Character Card…" as the novelist meets it, over a real novel
// folder in a temp dir and a scripted Prompter: the files picked or given, the entries written
// (never over an existing file, also one that appears after the folder was listed), the summary
// and its level, "Open Codex Folder" acted on, and the refusals (no novel, cancelled, a failure).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { diskNovelFiles, type NovelFiles } from '../../../src/codex/novelFiles';
import { importIntoCodex, type CodexImportHost, type PickFilesOptions } from '../../../src/import/codexImportFlow';
import { english, ScriptedPrompter } from '../fixtures/scriptedPrompter';

const fixtures = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'sillytavern');
const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

describe('codex import flow', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function rig(o: { noNovel?: boolean; picked?: string[]; click?: string; files?: (disk: NovelFiles) => NovelFiles } = {}) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-importflow-'));
    dirs.push(root);
    const prompter = new ScriptedPrompter();
    if (o.click) prompter.click = (n) => (n.buttons.includes(o.click!) ? o.click : undefined);
    const seen = { dialogs: [] as PickFilesOptions[], revealed: [] as string[], infos: [] as string[], errors: [] as string[] };
    const disk = diskNovelFiles(root);
    const host: CodexImportHost = {
      prompter,
      log: { info: (m) => void seen.infos.push(m), error: (m) => void seen.errors.push(m) },
      say: english,
      novel: () => (o.noNovel ? undefined : { files: o.files ? o.files(disk) : disk, codexFolder: 'lore' }),
      pickFiles: async (options) => {
        seen.dialogs.push(options);
        return o.picked;
      },
      revealFolder: async (folder) => void seen.revealed.push(folder),
    };
    const codexFiles = () => (fs.readdirSync(path.join(root, 'lore'), { recursive: true }) as string[]).map((p) => p.split(path.sep).join('/')).filter((p) => p.endsWith('.md')).sort();
    return { root, prompter, host, seen, codexFiles };
  }

  it('picks the files, writes their entries into the codex folder, says the summary and opens the folder on request', async () => {
    const r = rig({ picked: [path.join(fixtures, 'Eldoria.json')], click: 'Open Codex Folder' });
    const source = fs.readFileSync(path.join(fixtures, 'Eldoria.json'));
    const run = await importIntoCodex(r.host);
    assert.equal(r.seen.dialogs.length, 1);
    assert.deepEqual([english(r.seen.dialogs[0]!.openLabel), english(r.seen.dialogs[0]!.filterName), r.seen.dialogs[0]!.extensions], ['Import', 'SillyTavern lorebooks and character cards', ['json', 'png']]);
    assert.equal(run?.written.length, 4);
    assert.deepEqual(run?.unwritten, []);
    assert.deepEqual(r.codexFiles(), run!.written.map((p) => p.replace(/^lore\//, '')).sort());
    assert.equal(r.prompter.notified.length, 1);
    const n = r.prompter.notified[0]!;
    assert.equal(n.level, 'info');
    assert.equal(n.text, 'Eldoria.json: 4 codex entries imported.');
    assert.deepEqual(n.buttons, ['Open Codex Folder']);
    assert.deepEqual(r.seen.revealed, ['lore']);
    assert.ok(r.seen.infos.some((l) => l === 'import: Eldoria.json: 4 codex entries imported.'));
    // Source files are never modified.
    assert.deepEqual(fs.readFileSync(path.join(fixtures, 'Eldoria.json')), source);
  });

  it('files given skip the dialog; the card headings are the translated words; existing files are kept', async () => {
    const r = rig();
    fs.mkdirSync(path.join(r.root, 'lore', 'characters'), { recursive: true });
    const before = await importIntoCodex(r.host, [path.join(fixtures, 'card-v2.json')]);
    assert.deepEqual(r.seen.dialogs, []);
    assert.ok(before && before.written.length > 0);
    const first = Object.fromEntries(before.written.map((p) => [p, fs.readFileSync(path.join(r.root, p), 'utf8')]));
    const again = await importIntoCodex(r.host, [path.join(fixtures, 'card-v2.json')]);
    assert.equal(again?.written.length, before.written.length);
    for (const p of again!.written) assert.ok(!(p in first), `${p} was written twice`);
    for (const [p, text] of Object.entries(first)) assert.equal(fs.readFileSync(path.join(r.root, p), 'utf8'), text);
    assert.deepEqual(r.seen.revealed, [], 'not opened unless asked');
  });

  it('a file that appears after the folder was listed is never overwritten: counted, logged, said', async () => {
    const r = rig({
      files: (disk) => ({
        ...disk,
        async writeNew(file, text) {
          fs.mkdirSync(path.dirname(path.join(r.root, file)), { recursive: true });
          fs.writeFileSync(path.join(r.root, file), 'the novelist’s own');
          return disk.writeNew(file, text);
        },
      }),
    });
    const run = await importIntoCodex(r.host, [path.join(fixtures, 'Eldoria.json')]);
    assert.equal(run?.unwritten.length, 4);
    assert.deepEqual(run?.written, []);
    for (const p of run!.unwritten) assert.equal(fs.readFileSync(path.join(r.root, p), 'utf8'), 'the novelist’s own');
    assert.equal(r.seen.errors.length, 4);
    assert.match(r.prompter.notified[0]!.text, /4 files could not be written \(see the Worldline log\)\.$/);
  });

  it('one file not written is said in the singular', async () => {
    let first = true;
    const r = rig({
      files: (disk) => ({
        ...disk,
        async writeNew(file, text) {
          if (first) {
            first = false;
            throw new Error('disk full');
          }
          return disk.writeNew(file, text);
        },
      }),
    });
    await importIntoCodex(r.host, [path.join(fixtures, 'Eldoria.json')]);
    assert.match(r.prompter.notified[0]!.text, / 1 file could not be written \(see the Worldline log\)\.$/);
    assert.match(r.seen.errors[0]!, /not written: disk full/);
  });

  it('nothing importable: an error with the reason, and no button to open the folder', async () => {
    const r = rig({ click: 'Open Codex Folder' });
    const run = await importIntoCodex(r.host, [path.join(fixtures, 'no-card.png')]);
    assert.deepEqual(run, { written: [], unwritten: [] });
    const n = r.prompter.notified[0]!;
    assert.equal(n.level, 'error');
    assert.match(n.text, /^no-card\.png was not imported\. /);
    assert.deepEqual(n.buttons, []);
    assert.deepEqual(r.seen.revealed, []);
  });

  it('cancelled or nothing picked: nothing happens', async () => {
    for (const picked of [undefined, []]) {
      const r = rig(picked ? { picked } : {});
      assert.equal(await importIntoCodex(r.host), undefined);
      assert.deepEqual(r.prompter.notified, []);
      assert.ok(!fs.existsSync(path.join(r.root, 'lore')));
    }
  });

  it('without a novel: says so, no dialog', async () => {
    const r = rig({ noNovel: true, picked: [path.join(fixtures, 'Eldoria.json')] });
    assert.equal(await importIntoCodex(r.host), undefined);
    assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text]), [['error', 'Open a novel folder to import into its codex.']]);
    assert.deepEqual(r.seen.dialogs, []);
  });

  it('a file that cannot be read: the import failed, said and logged', async () => {
    const r = rig();
    assert.equal(await importIntoCodex(r.host, [path.join(r.root, 'missing.json')]), undefined);
    assert.equal(r.prompter.notified[0]!.level, 'error');
    assert.match(r.prompter.notified[0]!.text, /^The import failed: .*missing\.json/);
    assert.equal(r.prompter.notified[0]!.words.message, 'The import failed: {0}');
    assert.match(r.seen.errors[0]!, /^import failed: /);
    assert.ok(!fs.existsSync(path.join(r.root, 'lore')));
  });

  it('every key it says is in the translation bundle', async () => {
    const r = rig({ picked: [path.join(fixtures, 'Eldoria.json')] });
    await importIntoCodex(r.host);
    const none = rig({ noNovel: true });
    await importIntoCodex(none.host);
    const dialog = r.seen.dialogs[0]!;
    for (const t of [dialog.openLabel, dialog.filterName, none.prompter.notified[0]!.words]) assert.ok(t.message in bundle, t.message);
  });
});
