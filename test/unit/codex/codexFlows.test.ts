// New Codex Entry…, Rename Codex Entry and Create Entry as the novelist meets them, over a real
// novel folder in a temp dir and a scripted Prompter: what is asked, Escape at each step, the
// refusals (no novel, nothing chosen, a bad name, a file with no front matter, a draft that is
// not an entry, a failed side model), that no file is ever overwritten (a taken path gets -2,
// also when the file appears between the check and the write), and what is said after.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodexFlows, type CodexFlowHost, type CodexNovel } from '../../../src/codex/codexFlows';
import { formatCodexFile, parseCodexFile } from '../../../src/codex/file';
import { loadCodex } from '../../../src/codex/load';
import { diskNovelFiles, type NovelFiles } from '../../../src/codex/novelFiles';
import type { CodexNode } from '../../../src/codex/tree';
import { CODEX_KINDS, type CodexEntry } from '../../../src/codex/types';
import type { Text } from '../../../src/common/text';
import { emptyState } from '../../../src/state/normalize';
import fc from 'fast-check';
import { english, ScriptedPrompter, type Answer } from '../fixtures/scriptedPrompter';
import { runs } from '../long-mode';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const DRAFT_REPLY = '```json\n{"keys":["沈公子"],"body":"外乡来的书生，雨夜投宿听雨轩。"}\n```';

describe('codex flows', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function rig(answers: Answer[] = [], o: { noNovel?: boolean; files?: (disk: NovelFiles) => NovelFiles; reply?: () => Promise<string>; edit?: (draft: string) => string; click?: string } = {}) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-codexflows-'));
    dirs.push(root);
    const prompter = new ScriptedPrompter(answers);
    if (o.click) prompter.click = (n) => (n.buttons.includes(o.click!) ? o.click : undefined);
    const disk = diskNovelFiles(root);
    const files = o.files ? o.files(disk) : disk;
    let entries: readonly CodexEntry[] = [];
    const seen = { reloads: 0, shown: [] as string[], progress: [] as string[], closed: 0, drafts: [] as string[], infos: [] as string[], warns: [] as string[], prompts: [] as string[] };
    const novel: CodexNovel = { files, folder: 'codex', lang: 'zh', story: () => ({ state: emptyState(), path: [] }) };
    const host: CodexFlowHost = {
      prompter,
      log: { info: (m) => void seen.infos.push(m), warn: (m) => void seen.warns.push(m) },
      say: english,
      uiLang: 'en',
      novel: () => (o.noNovel ? undefined : novel),
      entries: () => entries,
      reload: async () => {
        seen.reloads++;
        entries = (await loadCodex(root, 'codex')).entries;
      },
      show: async (file) => void seen.shown.push(file),
      drafter: async () => ({
        model: 'side',
        client: { complete: async (req) => {
          seen.prompts.push(String(req.messages.at(-1)?.content));
          return { text: await (o.reply ?? (async () => DRAFT_REPLY))() };
        } },
      }),
      progress: async (title: Text, work) => {
        seen.progress.push(english(title));
        return work();
      },
      editDraft: async (text) => {
        seen.drafts.push(text);
        return { text: () => (o.edit ? o.edit(text) : text), close: async () => void seen.closed++ };
      },
    };
    const put = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
    const has = (rel: string) => fs.existsSync(path.join(root, rel));
    const load = async () => host.reload();
    return { root, prompter, flows: new CodexFlows(host), seen, put, read, has, load, entry: (p: string) => entries.find((e) => e.path === p)! };
  }

  const entryText = (name: string, body = '') => formatCodexFile({ name, kind: 'character', keys: [name], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body });

  describe('New Codex Entry…', () => {
    it('asks the kind, then the name; writes the entry, reloads the view and opens the file', async () => {
      const r = rig([{ pick: 'Place' }, { type: '  听雨轩 ' }]);
      assert.equal(await r.flows.newEntry(), 'codex/places/听雨轩.md');
      assert.deepEqual(r.prompter.asked.map((a) => [a.kind, a.title]), [['pick', 'New Codex Entry: what is it?'], ['ask', 'New Codex Entry: its name']]);
      assert.equal(english(r.prompter.asked[1]!.ask!.prompt!), 'The name the prose uses; other spellings go into "keys" in the file.');
      const parsed = parseCodexFile('codex/places/听雨轩.md', r.read('codex/places/听雨轩.md'));
      assert.ok(parsed.ok);
      assert.equal(parsed.entry.name, '听雨轩');
      assert.equal(parsed.entry.kind, 'place');
      assert.deepEqual([...parsed.entry.keys], ['听雨轩']);
      assert.equal(r.seen.reloads, 1);
      assert.deepEqual(r.seen.shown, ['codex/places/听雨轩.md']);
      assert.deepEqual(r.prompter.notified, []);
    });

    it('a taken path gets -2, and the file there is untouched', async () => {
      const r = rig();
      r.put('codex/characters/青梧.md', 'mine');
      assert.equal(await r.flows.newEntry('character', '青梧'), 'codex/characters/青梧-2.md');
      assert.equal(r.read('codex/characters/青梧.md'), 'mine');
      assert.ok(r.has('codex/characters/青梧-2.md'));
    });

    it('a file that appears between the check and the write is never overwritten (the next number is taken)', async () => {
      let raced = false;
      const r = rig([], {
        files: (disk) => ({
          ...disk,
          async writeNew(file, text) {
            if (!raced) {
              raced = true;
              fs.writeFileSync(path.join(r.root, ...file.split('/')), 'written by someone else');
            }
            return disk.writeNew(file, text);
          },
        }),
      });
      fs.mkdirSync(path.join(r.root, 'codex', 'characters'), { recursive: true });
      assert.equal(await r.flows.newEntry('character', '青梧'), 'codex/characters/青梧-2.md');
      assert.equal(r.read('codex/characters/青梧.md'), 'written by someone else');
      assert.match(r.read('codex/characters/青梧-2.md'), /name: 青梧/);
    });

    it('Escape at the kind or the name, or a name that cannot be one, writes nothing', async () => {
      for (const [answers, kind, name] of [[[{ escape: 'pick' }]], [[{ pick: 'Character' }, { escape: 'ask' }]], [[], 'character', '   '], [[], 'character', 'two\nlines']] as [Answer[], 'character'?, string?][]) {
        const r = rig(answers);
        assert.equal(await r.flows.newEntry(kind, name), undefined);
        assert.equal(r.prompter.left, 0);
        assert.ok(!r.has('codex'), 'nothing written');
        assert.equal(r.seen.reloads, 0);
      }
    });

    it('a kind or name argument that is not one is asked for instead', async () => {
      const r = rig([{ pick: 'Item' }, { type: '铜铃' }]);
      assert.equal(await r.flows.newEntry('bogus' as never, 42 as never), 'codex/items/铜铃.md');
      assert.equal(r.prompter.left, 0);
    });

    it('the name box refuses an empty name with the reason', async () => {
      const r = rig([{ pick: 'Character' }, { escape: 'ask' }]);
      await r.flows.newEntry();
      const validate = r.prompter.asked[1]!.ask!.validate!;
      assert.equal(english(validate(' ')!), 'Give the entry a name.');
      assert.equal(validate('青梧'), undefined);
    });

    it('without a novel: says so and asks nothing', async () => {
      const r = rig([], { noNovel: true });
      assert.equal(await r.flows.newEntry(), undefined);
      assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text]), [['warning', 'Open the folder of your novel first (File > Open Folder).']]);
      assert.deepEqual(r.prompter.asked, []);
    });

    it('a file that cannot be written: said and logged, nothing else changes', async () => {
      const r = rig();
      r.put('codex', 'a file where the folder should be');
      assert.equal(await r.flows.newEntry('character', '青梧'), undefined);
      assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text]), [['error', 'The codex file codex/characters/青梧.md could not be written (see the Worldline log).']]);
      assert.equal(r.seen.warns.length, 1);
      assert.equal(r.read('codex'), 'a file where the folder should be');
      assert.equal(r.seen.reloads, 0);
    });
  });

  describe('Rename Codex Entry', () => {
    it('asks with the old name; sets the name in the front matter, moves the file, keeps the rest', async () => {
      const r = rig([{ type: '沈公子' }]);
      r.put('codex/characters/沈砚.md', entryText('沈砚', '外乡来的书生。\n'));
      await r.load();
      const node: CodexNode = { kind: 'entry', entry: r.entry('codex/characters/沈砚.md'), injected: false };
      assert.equal(await r.flows.renameEntry(node), 'codex/characters/沈公子.md');
      assert.equal(r.prompter.asked[0]!.title, 'Rename Codex Entry');
      assert.equal(r.prompter.asked[0]!.ask!.value, '沈砚');
      assert.ok(!r.has('codex/characters/沈砚.md'));
      const text = r.read('codex/characters/沈公子.md');
      assert.match(text, /^name: "沈公子"$/m);
      assert.match(text, /外乡来的书生。/);
      assert.equal(r.seen.reloads, 2);
      assert.deepEqual(r.prompter.notified, []);
    });

    it('by path; a name whose file is taken gets -2 and that file is untouched', async () => {
      const r = rig();
      r.put('codex/characters/a.md', entryText('a'));
      r.put('codex/characters/b.md', 'the other b');
      await r.load();
      assert.equal(await r.flows.renameEntry('codex/characters/a.md', 'b'), 'codex/characters/b-2.md');
      assert.equal(r.read('codex/characters/b.md'), 'the other b');
      assert.match(r.read('codex/characters/b-2.md'), /^name: "b"$/m);
      assert.ok(!r.has('codex/characters/a.md'));
    });

    it('the same name, Escape, or a bad name changes nothing', async () => {
      for (const [answers, name] of [[[], '青梧'], [[{ escape: 'ask' }], undefined], [[], ' ']] as [Answer[], string?][]) {
        const r = rig(answers);
        r.put('codex/characters/青梧.md', entryText('青梧'));
        await r.load();
        assert.equal(await r.flows.renameEntry('codex/characters/青梧.md', name), undefined);
        assert.equal(r.read('codex/characters/青梧.md'), entryText('青梧'));
        assert.equal(r.seen.reloads, 1);
      }
    });

    it('nothing chosen: says to choose an entry', async () => {
      const r = rig();
      assert.equal(await r.flows.renameEntry({ kind: 'group', group: 'character', count: 1 }), undefined);
      assert.equal(await r.flows.renameEntry('codex/nowhere.md', 'x'), undefined);
      assert.deepEqual(r.prompter.texts(), ['Choose a codex entry in the Codex view first.', 'Choose a codex entry in the Codex view first.']);
    });

    it('a file without front matter is refused with the reason and left as it was', async () => {
      const r = rig();
      const entry: CodexEntry = { path: 'codex/characters/x.md', name: 'x', kind: 'character', keys: ['x'], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: '' };
      r.put(entry.path, 'just prose');
      assert.equal(await r.flows.renameEntry({ kind: 'entry', entry, injected: false }, 'y'), undefined);
      assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text]), [['error', 'The file has no front matter (a first line "---").']]);
      assert.equal(r.read(entry.path), 'just prose');
      assert.ok(!r.has('codex/characters/y.md'));
    });

    it('an entry whose file is gone: said, nothing made', async () => {
      const r = rig();
      const entry: CodexEntry = { path: 'codex/characters/gone.md', name: 'gone', kind: 'character', keys: ['gone'], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: '' };
      assert.equal(await r.flows.renameEntry({ kind: 'entry', entry, injected: false }, 'here'), undefined);
      assert.equal(r.prompter.notified[0]!.level, 'error');
      assert.ok(!r.has('codex/characters/here.md'));
    });
  });

  describe('Create Entry', () => {
    const missing = (name: string): CodexNode => ({ kind: 'missing', missing: { name, kind: 'character' } });

    it('drafts with progress, shows the draft, asks; Write writes the text as the editor holds it', async () => {
      const r = rig([], { click: 'Write', edit: (d) => d.replace('书生', '书生，善琴') });
      assert.deepEqual(await r.flows.createEntry(missing('沈砚')), { written: 'codex/characters/沈砚.md' });
      assert.deepEqual(r.seen.progress, ['Worldline: drafting a codex entry for "沈砚"…']);
      assert.match(r.seen.prompts[0]!, /沈砚/);
      assert.equal(r.seen.drafts.length, 1);
      assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text, n.buttons]), [
        ['info', 'Write this entry to codex/characters/沈砚.md? You may edit the draft first; Write takes its text as it is then.', ['Write', 'Discard']],
        ['info', 'Wrote the codex entry codex/characters/沈砚.md.', []],
      ]);
      assert.equal(r.seen.closed, 1);
      const text = r.read('codex/characters/沈砚.md');
      assert.match(text, /^---\nname: 沈砚\nkind: character\nkeys: \[沈砚, ?沈公子\]\n---\n/);
      assert.match(text, /外乡来的书生，善琴/);
      assert.deepEqual(r.seen.shown, ['codex/characters/沈砚.md']);
      assert.equal(r.seen.reloads, 1);
    });

    it('Discard (or dismissing the question) writes nothing and closes the draft', async () => {
      for (const click of ['Discard', undefined]) {
        const r = rig([], click ? { click } : {});
        assert.deepEqual(await r.flows.createEntry('沈砚'), { discarded: true });
        assert.equal(r.seen.closed, 1);
        assert.ok(!r.has('codex'));
        assert.equal(r.seen.reloads, 0);
      }
    });

    it('a taken path: the question names the free one, and the file there is untouched', async () => {
      const r = rig([], { click: 'Write' });
      r.put('codex/characters/沈砚.md', 'mine');
      assert.deepEqual(await r.flows.createEntry('沈砚'), { written: 'codex/characters/沈砚-2.md' });
      assert.match(r.prompter.notified[0]!.text, /codex\/characters\/沈砚-2\.md\?/);
      assert.equal(r.read('codex/characters/沈砚.md'), 'mine');
    });

    it('a draft edited into something that is not an entry (broken front matter): nothing written, the reason said', async () => {
      const r = rig([], { click: 'Write', edit: () => '---\nkind: [\n---\nprose' });
      const result = await r.flows.createEntry('沈砚');
      assert.ok(result && 'error' in result && result.error.startsWith('Nothing was written to codex/characters/沈砚.md: the text is not a codex entry ('), JSON.stringify(result));
      assert.equal(r.prompter.notified.at(-1)!.level, 'error');
      assert.equal(r.prompter.notified.at(-1)!.text, result.error);
      assert.ok(!r.has('codex/characters/沈砚.md'));
    });

    it('the side model fails or sends no entry: nothing shown or written, the reason said and logged', async () => {
      for (const reply of [async () => { throw new Error('connection refused'); }, async () => 'no json here']) {
        const r = rig([], { reply });
        const result = await r.flows.createEntry('沈砚');
        assert.ok(result && 'error' in result, JSON.stringify(result));
        assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text]), [['error', result.error]]);
        assert.match(r.seen.warns[0]!, /^codex draft for 沈砚: /);
        assert.deepEqual(r.seen.drafts, []);
        assert.ok(!r.has('codex'));
      }
    });

    it('nothing chosen, or no novel: said, no draft asked for', async () => {
      const r = rig();
      assert.equal(await r.flows.createEntry({ kind: 'missingGroup', count: 2 }), undefined);
      assert.deepEqual(r.prompter.texts(), ['Choose a name under "Not in the codex yet" in the Codex view first.']);
      const none = rig([], { noNovel: true });
      assert.equal(await none.flows.createEntry('沈砚'), undefined);
      assert.deepEqual(none.prompter.texts(), ['Open the folder of your novel first (File > Open Folder).']);
      assert.deepEqual([...r.seen.progress, ...none.seen.progress], []);
    });
  });

  it('every notification is a translated key', async () => {
    const r = rig([], { click: 'Write' });
    r.put('codex', 'file');
    await r.flows.createEntry('沈砚');
    await r.flows.newEntry('character', 'x');
    assert.ok(r.prompter.notified.length >= 2);
    for (const n of r.prompter.notified) assert.ok(n.words.literal || n.words.message in bundle, n.words.message);
  });

  it('hostile command arguments (another extension, the palette) never throw and never write without Write (property)', async () => {
    const hostile = fc.oneof(
      fc.anything(),
      fc.record({ kind: fc.constantFrom('entry', 'missing', 'group', 'missingGroup'), entry: fc.anything(), missing: fc.anything() }, { requiredKeys: ['kind'] }),
    );
    await fc.assert(fc.asyncProperty(hostile, fc.option(fc.string(), { nil: undefined }), async (arg, name) => {
      fc.pre(!(CODEX_KINDS as readonly unknown[]).includes(arg));
      const r = rig([], { click: 'Discard' });
      r.prompter.ask = async () => undefined;
      r.prompter.pick = async () => undefined;
      await r.flows.renameEntry(arg, name);
      await r.flows.createEntry(arg);
      await r.flows.newEntry(arg as never, name);
      assert.ok(!r.has('codex'), 'nothing written');
    }), { numRuns: runs(60, 1000) });
  });
});
