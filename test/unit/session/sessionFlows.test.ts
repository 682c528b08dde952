// New, Switch, Rename Session and Restore from Backup as the novelist meets them, over a real
// session library in a temp folder, with a scripted Prompter: refused while the agent writes,
// every question with its default, Escape at each step, nothing to pick, what is said after, and
// what a failure says (the store's words by code, else its own message).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Text } from '../../../src/common/text';
import { CurrentSession } from '../../../src/session/currentSession';
import { firstSessionTitle } from '../../../src/session/loadWords';
import { SessionLibrary } from '../../../src/session/library';
import type { Session } from '../../../src/session/session';
import { SessionFlows, type SessionNovel } from '../../../src/session/sessionFlows';
import { defaultSessionTitle } from '../../../src/session/words';
import { english, ScriptedPrompter, type Answer } from '../fixtures/scriptedPrompter';
import { eventually, removeTempDirs, tempDir, user } from './helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

/** The shell's NovelWorkspace, minus VS Code: a real library and the session the window is on. */
class TestNovel implements SessionNovel {
  readonly library: SessionLibrary;
  private readonly current: CurrentSession;

  constructor(readonly root: string, readonly language: 'zh' | 'en' = 'zh') {
    this.library = new SessionLibrary(root, { pid: 1234, isProcessAlive: () => true });
    const quiet = () => undefined;
    this.current = new CurrentSession(this.library, { sessionChanged: quiet, treeChanged: quiet, loaded: quiet, readOnly: quiet, info: quiet, warn: quiet });
  }

  get session(): Session | undefined { return this.current.session; }
  create(title: string): Promise<Session> { return this.current.create(title); }
  open(id: string): Promise<Session> { return this.current.open(id); }
  ensureSession(): Promise<Session> { return this.current.ensure(firstSessionTitle(this.language)); }

  async close(): Promise<void> {
    await this.current.close();
    await this.library.dispose();
  }
}

describe('session flows', function () {
  this.timeout(20_000);
  let novel: TestNovel;
  let open: boolean;
  let busy: boolean;
  let idleAsked: Text[];
  let errors: string[];

  function rig(...answers: Answer[]) {
    const prompter = new ScriptedPrompter(answers);
    const flows = new SessionFlows<TestNovel>({
      prompter,
      log: { error: (m) => void errors.push(m) },
      novel: () => (open ? novel : undefined),
      idle: (action) => (idleAsked.push(action), !busy),
    });
    return { prompter, flows };
  }

  beforeEach(() => {
    novel = new TestNovel(tempDir('wl-session-flows-'));
    open = true;
    busy = false;
    idleAsked = [];
    errors = [];
  });
  afterEach(async () => {
    await novel.close();
    removeTempDirs();
  });

  describe('New Session', () => {
    it('asks for a name with the dated default; the session made is current; a blank name gets the default', async () => {
      const named = rig({ type: '  第二夜 ' });
      const id = await named.flows.newSession();
      assert.equal(novel.session?.header.id, id);
      assert.equal(novel.session?.title, '第二夜');
      const asked = named.prompter.asked[0]!;
      assert.deepEqual([asked.title, english(asked.ask!.prompt!), asked.ask!.value], ['New Session', 'A name for the new conversation', defaultSessionTitle('zh')]);
      assert.deepEqual(idleAsked.map(english), ['start a new session']);
      assert.ok(idleAsked.every((t) => t.message in bundle));

      await rig({ type: '   ' }).flows.newSession();
      assert.equal(novel.session?.title, defaultSessionTitle('zh'));
      const byName = rig();
      await byName.flows.newSession('Third');
      assert.deepEqual(byName.prompter.asked, []);
      assert.deepEqual((await novel.library.list()).map((s) => s.title).sort(), ['Third', defaultSessionTitle('zh'), '第二夜'].sort());
    });

    it('Escape, or a turn running, or no folder: nothing made', async () => {
      assert.equal(await rig({ escape: 'ask' }).flows.newSession(), undefined);
      busy = true;
      const refused = rig({ type: 'never asked' });
      assert.equal(await refused.flows.newSession('by name'), undefined);
      assert.equal(refused.prompter.left, 1);
      busy = false;
      open = false;
      const closed = rig();
      assert.equal(await closed.flows.newSession('x'), undefined);
      assert.deepEqual(closed.prompter.notified.map((n) => [n.level, n.text]), [['warning', 'Open the folder of your novel first (File > Open Folder).']]);
      assert.deepEqual(await novel.library.list(), []);
      assert.ok(!fs.existsSync(path.join(novel.root, '.worldline', 'sessions')) || fs.readdirSync(path.join(novel.root, '.worldline', 'sessions')).length === 0);
    });
  });

  describe('Switch Session', () => {
    it('picks among the sessions (the current one marked) and opens it; by id without asking', async () => {
      const first = await novel.create('第一夜');
      await first.append(user('雨。'));
      const firstId = first.header.id;
      const second = await novel.create('第二夜');
      const sw = rig({ pick: '第一夜' });
      assert.equal(await sw.flows.switchSession(), firstId);
      assert.equal(novel.session?.header.id, firstId);
      const asked = sw.prompter.asked[0]!;
      assert.deepEqual([asked.title, english(asked.pick!.placeHolder!)], ['Switch Session', 'Choose a conversation']);
      assert.deepEqual([...asked.labels].sort(), ['第一夜', '第二夜']);
      assert.equal(asked.descriptions[asked.labels.indexOf('第二夜')], 'current');
      assert.deepEqual(idleAsked.map(english), ['switch sessions']);

      const byId = rig();
      assert.equal(await byId.flows.switchSession(second.header.id), second.header.id);
      assert.deepEqual(byId.prompter.asked, []);
      assert.equal(novel.session?.header.id, second.header.id);
    });

    it('no sessions yet is said; Escape or a turn running switch nothing', async () => {
      const empty = rig();
      assert.equal(await empty.flows.switchSession(), undefined);
      assert.deepEqual(empty.prompter.texts(), ['This novel has no sessions yet.']);
      const s = await novel.create('第一夜');
      await novel.create('第二夜');
      assert.equal(await rig({ escape: 'pick' }).flows.switchSession(), undefined);
      busy = true;
      assert.equal(await rig().flows.switchSession(s.header.id), undefined);
      assert.equal(novel.session?.title, '第二夜');
    });

    it('a session that is gone: the store\'s words for it, the detail in the log', async () => {
      const sw = rig();
      assert.equal(await sw.flows.switchSession('0123456789abcdef'), undefined);
      assert.deepEqual(sw.prompter.notified.map((n) => [n.level, n.text]), [['error', 'That session file no longer exists; it may have been moved or deleted.']]);
      assert.ok(sw.prompter.notified[0]!.words.message in bundle);
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /0123456789abcdef/);
    });
  });

  describe('Rename Session', () => {
    it('asks with the current title (a first session made when there is none); the new title trimmed', async () => {
      const ren = rig({ type: '  雨夜（改） ' });
      assert.equal(await ren.flows.renameSession(), '雨夜（改）');
      const asked = ren.prompter.asked[0]!;
      assert.deepEqual([asked.title, asked.ask!.value], ['Rename Session', '第一个会话']);
      assert.equal(english(asked.ask!.validate!(' ')!), 'The name cannot be empty.');
      assert.equal(asked.ask!.validate!('a'), undefined);
      assert.deepEqual((await novel.library.list()).map((s) => s.title), ['雨夜（改）']);
      assert.deepEqual(idleAsked, [], 'renaming does not wait for the agent');

      const direct = rig();
      assert.equal(await direct.flows.renameSession('第三个名字'), '第三个名字');
      assert.deepEqual(direct.prompter.asked, []);
      assert.equal(novel.session?.title, '第三个名字');
    });

    it('Escape or a blank title renames nothing', async () => {
      await novel.create('原名');
      assert.equal(await rig({ escape: 'ask' }).flows.renameSession(), undefined);
      assert.equal(await rig().flows.renameSession('   '), undefined);
      assert.equal(novel.session?.title, '原名');
    });
  });

  describe('Restore Session from Backup', () => {
    async function withBackup(): Promise<Session> {
      const s = await novel.create('雨夜');
      await s.append(user('雨。'));
      await eventually(async () => (await novel.library.backups(s.header.id)).length > 0);
      return s;
    }

    it('picks a backup (title, time, file name); it comes back as a new session, opened, and is said', async () => {
      const s = await withBackup();
      const restore = rig({ pick: '雨夜' });
      const id = await restore.flows.restoreFromBackup();
      assert.ok(id && id !== s.header.id, 'a new session');
      assert.equal(novel.session?.header.id, id);
      const asked = restore.prompter.asked[0]!;
      assert.deepEqual([asked.title, english(asked.pick!.placeHolder!)], ['Restore Session from Backup', 'The backup comes back as a new session; nothing is overwritten.']);
      const picked = asked.labels.indexOf('雨夜');
      const backup0 = (await novel.library.backups(s.header.id)).find((b) => b.file === asked.values[picked]);
      assert.equal(asked.descriptions[picked], new Date(backup0!.createdAt).toLocaleString(), 'the time of the backup the item stands for');
      assert.equal(restore.prompter.notified.length, 1);
      assert.equal(restore.prompter.notified[0]!.text, `Restored as the new session "${novel.session!.title}".`);
      assert.ok(restore.prompter.notified[0]!.words.message in bundle);
      assert.deepEqual(idleAsked.map(english), ['restore a session']);
      assert.equal((await novel.library.list()).length, 2, 'nothing overwritten');

      const [backup] = await novel.library.backups(s.header.id);
      const byFile = rig();
      assert.ok(await byFile.flows.restoreFromBackup(backup!.file));
      assert.deepEqual(byFile.prompter.asked, []);
    });

    it('no backups yet is said; Escape or a turn running restore nothing; a file that is no backup is said in the store\'s words', async () => {
      const none = rig();
      assert.equal(await none.flows.restoreFromBackup(), undefined);
      assert.deepEqual(none.prompter.texts(), ['There are no session backups yet. Worldline keeps them in .worldline/backups/ as you write.']);
      await withBackup();
      assert.equal(await rig({ escape: 'pick' }).flows.restoreFromBackup(), undefined);
      busy = true;
      assert.equal(await rig().flows.restoreFromBackup('whatever'), undefined);
      busy = false;
      assert.equal((await novel.library.list()).length, 1);

      const bad = rig();
      assert.equal(await bad.flows.restoreFromBackup(path.join(novel.root, 'gone.jsonl')), undefined);
      assert.deepEqual(bad.prompter.texts(), ['That file is not a Worldline session backup, or it no longer exists.']);
      assert.equal((await novel.library.list()).length, 1);
    });
  });

  it('a failure without words of its own is said as its message', async () => {
    const r = rig();
    assert.equal(await r.flows.run(() => Promise.reject(new Error('the disk is full'))), undefined);
    assert.deepEqual(r.prompter.notified.map((n) => [n.level, n.text, n.words.literal]), [['error', 'the disk is full', true]]);
    assert.deepEqual(errors, ['the disk is full']);
    assert.equal(await r.flows.run((n) => Promise.resolve(n.root)), novel.root, 'the value of a command that worked');
  });
});
