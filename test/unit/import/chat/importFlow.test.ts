// "Import SillyTavern Chat…" and "Export Session as SillyTavern Chat" as the novelist meets them,
// over a real novel folder in a temp dir, a real session library and a scripted Prompter: one
// file or a folder (and which of its chats), the same source again (said, a new copy or the old
// session offered), the author's note to the codex or the scene state, the summary's words, a file
// that cannot be read or is too large, and the export written and read back. The sources are
// never modified.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatImportFlows, nodeChatFiles, type ChatImportFiles, type ChatImportHost, type ChatImportNovel } from '../../../../src/import/chat/importFlow';
import { readChatFile } from '../../../../src/import/chat/read';
import { parseImportRecord } from '../../../../src/import/chat/importRecord';
import { SessionLibrary } from '../../../../src/session/library';
import type { Session } from '../../../../src/session/session';
import { branchOf, openingOf } from '../../../../src/story/branch';
import { english, ScriptedPrompter, type Answer } from '../../fixtures/scriptedPrompter';

const OPTIONS = { opening: openingOf({}, 'en'), lang: 'en' as const };
const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

const header = (o: { character?: string; metadata?: Record<string, unknown> } = {}) =>
  JSON.stringify({ user_name: 'Ann', character_name: o.character ?? 'Bob', create_date: '2024-01-01@12h00m00s', chat_metadata: o.metadata ?? {} });
const userLine = (mes: string) => JSON.stringify({ name: 'Ann', is_user: true, is_system: false, send_date: 'January 1, 2024 12:00pm', mes });
const botLine = (mes: string, swipes?: string[], swipeId = 0, hidden = false) => JSON.stringify({
  name: 'Bob', is_user: false, is_system: hidden, send_date: 'January 1, 2024 12:01pm', mes,
  ...(swipes ? { swipes, swipe_id: swipeId } : {}),
});

/** A chat with a swiped reply (the second swipe chosen) and a hidden message. */
function swipedChat(metadata: Record<string, unknown> = {}): string {
  return [
    header({ metadata }),
    userLine('Hello, Bob.'),
    botLine('Hi there, second.', ['Hi there, first.', 'Hi there, second.', 'Hi there, third.'], 1),
    userLine('Tell me a story.'),
    botLine('Once upon a time.', undefined, 0, true),
  ].join('\n') + '\n';
}

describe('chat import flow', () => {
  const dirs: string[] = [];
  const libraries: SessionLibrary[] = [];
  after(async () => {
    for (const l of libraries) await l.dispose();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function temp(prefix: string): string {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  }

  function rig(o: { answers?: Answer[]; click?: string; codex?: boolean; files?: (disk: ChatImportFiles) => ChatImportFiles; noNovel?: boolean } = {}) {
    const root = temp('wl-chatimport-');
    if (o.codex) fs.mkdirSync(path.join(root, 'lore'), { recursive: true });
    const library = new SessionLibrary(root);
    libraries.push(library);
    const prompter = new ScriptedPrompter(o.answers ?? []);
    if (o.click) prompter.click = (n) => (n.buttons.includes(o.click!) ? o.click : undefined);
    const state = { current: undefined as Session | undefined, opened: [] as string[], warnings: [] as string[], infos: [] as string[], targets: [] as string[] };
    const novel: ChatImportNovel = {
      root,
      codexFolder: 'lore',
      library,
      get session() { return state.current; },
      branch: () => (state.current ? branchOf(state.current, OPTIONS) : undefined),
      open: async (id) => {
        state.current = (await library.open(id)).session;
        state.opened.push(id);
        return state.current;
      },
    };
    const host: ChatImportHost = {
      prompter,
      files: o.files ? o.files(nodeChatFiles) : nodeChatFiles,
      log: { info: (m) => void state.infos.push(m), warn: (m) => void state.warnings.push(m) },
      say: english,
      novel: () => (o.noNovel ? undefined : novel),
      idle: () => true,
      pickSource: async () => undefined,
      chooseTarget: async (_title, defaultPath) => {
        state.targets.push(defaultPath);
        return path.join(root, 'exported.jsonl');
      },
      now: () => new Date('2026-02-03T04:05:06Z'),
    };
    return { root, library, prompter, state, flows: new ChatImportFlows(host) };
  }

  /** A folder of chat files, their texts by name. */
  function folder(files: Record<string, string>, parent?: string): string {
    const dir = parent ?? temp('wl-stchats-');
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return dir;
  }

  const texts = (session: Session) => branchOf(session, OPTIONS).transcript.map((m) => m.text);

  it('imports one chat file: the session is made current, the chosen swipe on the branch, and the summary counts', async () => {
    const { prompter, state, flows } = rig();
    const dir = folder({ 'Bob - 2024-01-01.jsonl': swipedChat() });
    const file = path.join(dir, 'Bob - 2024-01-01.jsonl');
    const before = fs.readFileSync(file, 'utf8');
    const outcome = await flows.importChat(file);
    assert.equal(outcome?.kind, 'imported');
    assert.equal(state.current?.header.id, outcome.sessionId, 'the new session is current');
    assert.deepEqual(texts(state.current!), ['Hello, Bob.', 'Hi there, second.', 'Tell me a story.', 'Once upon a time.']);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the source is never modified');
    const summary = prompter.notified.at(-1)!;
    assert.equal(summary.level, 'info');
    assert.match(summary.text, /^Imported "Bob \(SillyTavern\)": 4 messages, 2 variants, 0 branches, 1 hidden message\.$/);
  });

  it('the summary keys are translated, each plural form its own key', () => {
    for (const key of ['Imported "{0}": {1}, {2}, {3}, {4}.', '{0} message', '{0} messages', '{0} variant', '{0} variants', '{0} branch', '{0} branches',
      '{0} hidden message', '{0} hidden messages', '"{0}" was imported already, as the session "{1}".', 'Import a New Copy', 'Open the Imported Session',
      '{0} line could not be read and was skipped ({1}); the Worldline log says why.', '{0} lines could not be read and were skipped ({1}); the Worldline log says why.']) {
      assert.ok(bundle[key], `no zh-cn for ${key}`);
    }
  });

  it('a damaged line is skipped with its line number in the summary and the log; the rest is imported', async () => {
    const { prompter, state, flows } = rig();
    const text = swipedChat().replace(userLine('Tell me a story.'), '{"name": "Ann", broken');
    const dir = folder({ 'chat.jsonl': text });
    const outcome = await flows.importChat(path.join(dir, 'chat.jsonl'));
    assert.equal(outcome?.kind, 'imported');
    const summary = prompter.notified.at(-1)!;
    assert.equal(summary.level, 'warning');
    assert.match(summary.text, /1 line could not be read and was skipped \(chat\.jsonl: 4\)/);
    assert.ok(state.warnings.some((w) => /chat\.jsonl line 4 skipped/.test(w)), state.warnings.join('\n'));
  });

  it('the same source again says so: dismissed, nothing is made; "Open the Imported Session" opens it; "Import a New Copy" makes another', async () => {
    const dir = folder({ 'chat.jsonl': swipedChat() });
    const file = path.join(dir, 'chat.jsonl');
    const first = rig();
    const done = await first.flows.importChat(file);
    assert.equal(done?.kind, 'imported');
    const count = async () => (await first.library.list()).length;
    assert.equal(await count(), 1);

    // The same flows again, the notification dismissed.
    assert.equal(await first.flows.importChat(file), undefined);
    assert.equal(await count(), 1, 'nothing duplicated silently');
    const said = first.prompter.notified.at(-1)!;
    assert.equal(said.text, '"chat" was imported already, as the session "Bob (SillyTavern)".');
    assert.deepEqual(said.buttons, ['Import a New Copy', 'Open the Imported Session']);

    first.prompter.click = (n) => (n.buttons.includes('Open the Imported Session') ? 'Open the Imported Session' : undefined);
    const opened = await first.flows.importChat(file);
    assert.deepEqual(opened, { kind: 'opened', sessionId: done.sessionId });
    assert.equal(await count(), 1);

    first.prompter.click = (n) => (n.buttons.includes('Import a New Copy') ? 'Import a New Copy' : undefined);
    const copy = await first.flows.importChat(file);
    assert.equal(copy?.kind, 'imported');
    assert.notEqual(copy.sessionId, done.sessionId);
    assert.equal(await count(), 2);
    const record = parseImportRecord(fs.readFileSync(path.join(first.root, '.worldline', 'imports.json'), 'utf8'));
    assert.deepEqual(record.imports.map((i) => i.sessionId), [done.sessionId, copy.sessionId]);
    assert.equal(new Set(record.imports.map((i) => i.fingerprint)).size, 1);
  });

  it('the same chat copied elsewhere is the same source; a changed chat is not; a record whose session is gone is ignored', async () => {
    const { root, prompter, flows, library } = rig();
    const a = folder({ 'chat.jsonl': swipedChat() });
    const b = folder({ 'chat.jsonl': swipedChat() });
    const c = folder({ 'chat.jsonl': swipedChat() + userLine('One more.') + '\n' });
    const first = await flows.importChat(path.join(a, 'chat.jsonl'));
    assert.equal(first?.kind, 'imported');
    assert.equal(await flows.importChat(path.join(b, 'chat.jsonl')), undefined, 'a copy is the same chat');
    assert.match(prompter.notified.at(-1)!.text, /was imported already/);
    assert.equal((await flows.importChat(path.join(c, 'chat.jsonl')))?.kind, 'imported', 'a changed chat is imported');

    // The first session's file gone: its record no longer counts.
    const sessions = path.join(root, '.worldline', 'sessions');
    const gone = fs.readdirSync(sessions).find((n) => n.includes(first.sessionId))!;
    fs.rmSync(path.join(sessions, gone));
    assert.ok(!(await library.list()).some((s) => s.id === first.sessionId));
    assert.equal((await flows.importChat(path.join(a, 'chat.jsonl')))?.kind, 'imported');
  });

  it("the author's note: a codex `always` entry when the codex exists (never overwriting), else kept on the session", async () => {
    const note = { note_prompt: 'Write in the past tense.' };
    const withCodex = rig({ codex: true });
    const dir = folder({ 'chat.jsonl': swipedChat(note) });
    const taken = path.join(withCodex.root, 'lore', 'style', "Author's note of chat.md");
    fs.mkdirSync(path.dirname(taken), { recursive: true });
    fs.writeFileSync(taken, 'mine');
    const outcome = await withCodex.flows.importChat(path.join(dir, 'chat.jsonl'));
    assert.equal(outcome?.kind, 'imported');
    assert.deepEqual(outcome.codexFiles, ["lore/style/Author's note of chat-2.md"]);
    assert.equal(fs.readFileSync(taken, 'utf8'), 'mine', 'an existing entry is never overwritten');
    const entry = fs.readFileSync(path.join(withCodex.root, 'lore', 'style', "Author's note of chat-2.md"), 'utf8');
    assert.match(entry, /always: true/);
    assert.match(entry, /Write in the past tense\./);
    assert.match(withCodex.prompter.notified.at(-1)!.text, /The author's note is in the codex: lore\/style\/Author's note of chat-2\.md\./);

    const without = rig();
    const kept = await without.flows.importChat(path.join(dir, 'chat.jsonl'));
    assert.equal(kept?.kind, 'imported');
    assert.deepEqual(kept.codexFiles, []);
    assert.ok(!fs.existsSync(path.join(without.root, 'lore')), 'no codex folder is made');
    const state = branchOf(without.state.current!, OPTIONS).state.state;
    assert.match(JSON.stringify(state), /Write in the past tense\./, 'the note is kept in the scene state');
  });

  it('a folder with several chats asks which, naming each by its main chat, messages and branches; its branch files join it', async () => {
    const main = swipedChat();
    const branch = [header({ metadata: { main_chat: 'Bob - main' } }), userLine('Hello, Bob.'), botLine('Hi there, second.', ['Hi there, first.', 'Hi there, second.'], 1), userLine('A branch.')].join('\n') + '\n';
    const other = [header({ character: 'Bob' }), userLine('Unrelated.')].join('\n') + '\n';
    const dir = folder({ 'Bob - main.jsonl': main, 'Branch #1 - Bob.jsonl': branch, 'Bob - other.jsonl': other });
    const { prompter, state, flows } = rig({ answers: [{ pick: 'Bob - main' }] });
    const outcome = await flows.importChat(dir);
    assert.equal(outcome?.kind, 'imported');
    const asked = prompter.asked[0]!;
    assert.deepEqual(asked.labels.slice().sort(), ['Bob - main', 'Bob - other']);
    assert.equal(asked.descriptions[asked.labels.indexOf('Bob - main')], '4 messages · 1 branch');
    assert.equal(asked.descriptions[asked.labels.indexOf('Bob - other')], '1 message · 0 branches');
    assert.equal(outcome.counts.files, 2, 'the branch file joined its main chat');
    assert.ok(state.current);
  });

  it('a folder pick closed imports nothing', async () => {
    const dir = folder({ 'a.jsonl': swipedChat(), 'b.jsonl': [header({ character: 'Cleo' }), userLine('x')].join('\n') });
    const { library, flows } = rig({ answers: [{ escape: 'pick' }] });
    assert.equal(await flows.importChat(dir), undefined);
    assert.equal((await library.list()).length, 0);
  });

  it('a file that cannot be read, or is too large, is named; the rest of the folder is imported', async () => {
    const dir = folder({ 'good.jsonl': swipedChat(), 'bad.jsonl': swipedChat(), 'big.jsonl': 'x' });
    const { prompter, flows } = rig({
      files: (disk) => ({
        ...disk,
        readText: (f) => (path.basename(f) === 'bad.jsonl' ? Promise.reject(new Error('EACCES: permission denied')) : disk.readText(f)),
        stat: async (f) => (path.basename(f) === 'big.jsonl' ? { size: 500 * 2 ** 20, isDirectory: false } : disk.stat(f)),
      }),
    });
    // Only good.jsonl is read: one family, nothing to pick.
    const outcome = await flows.importChat(dir).catch((e: unknown) => e);
    assert.ok(outcome && typeof outcome === 'object' && 'kind' in outcome && outcome.kind === 'imported', String(outcome));
    const summary = prompter.notified.at(-1)!;
    assert.equal(summary.level, 'warning');
    assert.match(summary.text, /bad\.jsonl could not be read: EACCES: permission denied/);
    assert.match(summary.text, /big\.jsonl is too large to import \(500 MB; the limit is 128 MB\)\./);
  });

  it('a single file that cannot be read is refused in words, and nothing is made', async () => {
    const dir = folder({ 'chat.jsonl': swipedChat() });
    const { prompter, library, flows } = rig({ files: (disk) => ({ ...disk, readText: () => Promise.reject(new Error('EIO: i/o error')) }) });
    assert.equal(await flows.importChat(path.join(dir, 'chat.jsonl')), undefined);
    assert.equal(prompter.notified.at(-1)!.level, 'error');
    assert.match(prompter.notified.at(-1)!.text, /chat\.jsonl could not be read: EIO: i\/o error/);
    assert.equal((await library.list()).length, 0);
  });

  it('a record that cannot be written leaves the import made, and says so in the log', async () => {
    const dir = folder({ 'chat.jsonl': swipedChat() });
    const { state, library, flows } = rig({ files: (disk) => ({ ...disk, replace: () => Promise.reject(new Error('EROFS: read-only file system')) }) });
    const outcome = await flows.importChat(path.join(dir, 'chat.jsonl'));
    assert.equal(outcome?.kind, 'imported');
    assert.equal((await library.list()).length, 1);
    assert.ok(state.warnings.some((w) => /imports\.json not written: EROFS/.test(w)), state.warnings.join('\n'));
  });

  it('a folder without chats, and no novel, are said', async () => {
    const empty = rig();
    assert.equal(await empty.flows.importChat(folder({ 'notes.txt': 'x' })), undefined);
    assert.match(empty.prompter.notified.at(-1)!.text, /holds no SillyTavern chats/);
    const none = rig({ noNovel: true });
    assert.equal(await none.flows.importChat('/nowhere'), undefined);
    assert.match(none.prompter.notified.at(-1)!.text, /Open the folder of your novel first/);
  });

  it('a headerless group chat in SillyTavern\'s layout finds its group JSON beside it', async () => {
    const user = temp('wl-stuser-');
    const chat = [JSON.stringify({ name: 'Ann', is_user: true, is_system: false, send_date: 1704110400000, mes: 'Hi all' }),
      JSON.stringify({ name: 'Bob', is_user: false, is_system: false, send_date: 1704110460000, mes: 'Hi from Bob', original_avatar: 'Bob.png' }),
      JSON.stringify({ name: 'Cleo', is_user: false, is_system: false, send_date: 1704110520000, mes: 'Hi from Cleo', original_avatar: 'Cleo.png' })].join('\n') + '\n';
    folder({ '1704110400000.jsonl': chat }, path.join(user, 'group chats'));
    folder({ 'grp1.json': JSON.stringify({ id: 'grp1', name: 'The Tavern', members: ['Bob.png', 'Cleo.png'], chats: ['1704110400000'], chat_id: '1704110400000', chat_metadata: { variables: { mood: 'merry' } } }) }, path.join(user, 'groups'));
    const { state, flows } = rig();
    const outcome = await flows.importChat(path.join(user, 'group chats', '1704110400000.jsonl'));
    assert.equal(outcome?.kind, 'imported');
    assert.equal(state.current!.title, 'The Tavern (SillyTavern)');
    const branch = branchOf(state.current!, OPTIONS);
    assert.match(JSON.stringify(branch.state.state), /merry/, "the group's chat metadata came along");
    const messages = branch.transcript;
    assert.deepEqual(messages.map((m) => [m.speaker, m.text]), [['Ann', 'Hi all'], ['Bob', 'Hi from Bob'], ['Cleo', 'Hi from Cleo']]);
  });

  it('export writes the current branch as a SillyTavern chat, atomically, and it reads back', async () => {
    const { root, prompter, state, flows } = rig();
    const dir = folder({ 'chat.jsonl': swipedChat() });
    await flows.importChat(path.join(dir, 'chat.jsonl'));
    const written = await flows.exportChat();
    assert.equal(written, path.join(root, 'exported.jsonl'));
    assert.deepEqual(state.targets, [path.join(root, 'Bob (SillyTavern).jsonl')], 'the dialog starts at <session title>.jsonl');
    assert.equal(prompter.notified.at(-1)!.text, 'Exported the current branch to exported.jsonl.');
    const back = readChatFile({ name: 'exported', text: fs.readFileSync(written!, 'utf8') });
    assert.deepEqual(back.messages.map((m) => m.swipes[m.chosen]!.text), ['Hello, Bob.', 'Hi there, second.', 'Tell me a story.', 'Once upon a time.']);
    assert.equal(back.messages[1]!.swipes.length, 3, 'the variants are swipes');
    assert.equal(back.messages[3]!.hidden, true);
    assert.deepEqual(back.skipped, []);
  });

  it('export without a session says so', async () => {
    const { prompter, flows } = rig();
    assert.equal(await flows.exportChat(), undefined);
    assert.match(prompter.notified.at(-1)!.text, /Open a session first/);
  });
});
