// SillyTavern chats → the lines of a new session, loaded back through the real session store.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { readChatFile } from '../../../../src/import/chat/read';
import { ImportTooLargeError, importChats, type ImportInit, type ImportedSession } from '../../../../src/import/chat/sessionLines';
import type { Text } from '../../../../src/common/text';
import { AUTHORS_NOTE_VARIABLE, type ChatFile } from '../../../../src/import/chat/types';
import type { AssistantEntry, ChainEntry, Entry, StateEntry, UserEntry } from '../../../../src/session/entries';
import { SessionLibrary } from '../../../../src/session/library';
import type { Session } from '../../../../src/session/session';
import { TreeIndex } from '../../../../src/session/tree-index';
import { pathTo } from '../../../../src/session/tree-walks';
import { checkHeader, checkStoredEntry } from '../../../../src/session/validate';
import type { SceneState } from '../../../../src/state/types';
import { runs } from '../../long-mode';
import { FakeClock, eventually, removeTempDirs, tempDir } from '../../session/helpers';
import { chat, shownTexts, type Msg } from './chatFiles';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
type Made = Extract<ImportedSession, { ok: true }> & { lines: string[] };

/** The import's result with its lines made (they are made as they are iterated). */
function made(files: ChatFile[], init: Partial<ImportInit> = {}): Made {
  const result = importChats(files, { newId: 'abcdef0123456789', now: NOW, authorsNote: 'state', ...init });
  if (!result.ok) assert.fail(result.error.message);
  return { ...result, lines: [...result.lines] };
}

/** Why the import's lines could not be made (the error their iteration throws), or undefined when they could. */
function refusal(files: ChatFile[], init: Partial<ImportInit>): Text | undefined {
  const result = importChats(files, { newId: 'abcdef0123456789', now: NOW, authorsNote: 'state', ...init });
  if (!result.ok) return result.error;
  try {
    for (const _ of result.lines) void _;
    return undefined;
  } catch (e) {
    if (e instanceof ImportTooLargeError) return e.text;
    throw e;
  }
}

const libraries: SessionLibrary[] = [];

async function load(files: ChatFile[], init: Partial<ImportInit> = {}): Promise<{ session: Session; result: Made }> {
  const lib = new SessionLibrary(tempDir('wl-import-'), { clock: new FakeClock(NOW), pid: 4321, isProcessAlive: () => true });
  libraries.push(lib);
  let result: Made | undefined;
  const session = await lib.createFromLines((id) => {
    result = made(files, { ...init, newId: id });
    return result.lines;
  });
  assert.ok(result);
  assert.equal(session.loadReport.corruptLines.length, 0, JSON.stringify(session.loadReport.corruptLines));
  return { session, result };
}

function texts(entries: readonly ChainEntry[]): string[] {
  return entries.filter((e): e is UserEntry | AssistantEntry => e.type === 'user' || e.type === 'assistant').map((e) => e.text);
}

/** The entry whose label names `chat`: the chat's last message. */
function endOf(session: Session, name: string): ChainEntry {
  const label = session.entries().find((e) => e.type === 'label' && e.label.split(' · ').includes(name));
  assert.ok(label && label.type === 'label', `a label for ${name}`);
  const end = session.get(label.targetId);
  assert.ok(end && (end.type === 'user' || end.type === 'assistant'));
  return end;
}

const MAIN: Msg[] = [
  { c: ['Greeting A', 'Greeting B'], swipe: { sendDate: 'April 29, 2025 2:37pm', sendIso: '2025-04-29T14:37:00.000Z' } },
  { u: 'I wake.', fields: { force_avatar: 'me.png' } },
  { c: ['She smiles.', 'She frowns.', 'She leaves.'], swipe: { reasoning: 'she is kind', extra: { api: 'openai', model: 'gpt-4o' }, info: { gen_started: 'x' } } },
  { u: 'A hidden aside.', hidden: true },
  { u: 'I ask her name.' },
  { c: 'Seraphina.', fields: { title: 'named' } },
];
const SWIPED: Msg = { c: ['She smiles.', 'She frowns.', 'She leaves.'], pick: 1 };
/** A branch made from the second swipe of message 3 (SillyTavern 2026), carrying variables. */
const FROM_SWIPE = chat('main - Branch #1', [...MAIN.slice(0, 2), SWIPED, { u: 'Why so grim?' }, { c: 'None of your business.' }], {
  mainChat: 'main',
  metadata: { variables: { mood: 'grim', hp: '7' } },
});
/** Made from that branch at "Why so grim?", which then went on differently. */
const BRANCH_OF_BRANCH = chat('main - Branch #1 - Branch #1', [...MAIN.slice(0, 2), SWIPED, { u: 'Why so grim?' }, { c: 'Old wounds.' }], { mainChat: 'main - Branch #1' });
const CHECKPOINT = chat('Checkpoint #1', MAIN.slice(0, 3), { mainChat: 'main' });

describe('chat import: session lines', () => {
  afterEach(async () => {
    for (const lib of libraries.splice(0)) await lib.dispose();
    removeTempDirs();
  });

  it('loads back as a session that opens at the main chat\'s end, with swipes as variants in swipe order', async () => {
    const { session, result } = await load([chat('main', MAIN), FROM_SWIPE, BRANCH_OF_BRANCH, CHECKPOINT]);
    assert.equal(session.title, 'Seraphina (SillyTavern)');
    assert.equal(result.main, 'main');
    const main = session.path();
    assert.deepEqual(texts(main), shownTexts(chat('main', MAIN)));
    assert.equal(session.leafId, endOf(session, 'main').id);
    const smile = main[2]!;
    const { siblings, index } = session.variants(smile.id);
    assert.deepEqual(texts(siblings), ['She smiles.', 'She frowns.', 'She leaves.']);
    assert.equal(index, 0);
    assert.deepEqual(texts(session.variants(main[0]!.id).siblings), ['Greeting A', 'Greeting B']);
    assert.deepEqual(result.counts, { messages: 8, variants: 4, files: 4, branches: 2, hidden: 1, skippedLines: 0, systemNotices: 0 });
  });

  it('lands ◀ ▶ on a branch\'s end: the branch from a non-chosen swipe, and the branch of that branch', async () => {
    const { session } = await load([chat('main', MAIN), FROM_SWIPE, BRANCH_OF_BRANCH]);
    const frown = session.variants(session.path()[2]!.id).siblings[1]!;
    // The variable-carrying branch ends in its state entry, which is where ◀ ▶ lands.
    const tip = session.tipOf(frown.id);
    const b1 = session.get(tip);
    assert.ok(b1 && b1.type === 'state');
    assert.equal(b1.parentId, endOf(session, 'main - Branch #1').id);
    assert.deepEqual(texts(session.path(tip)), shownTexts(FROM_SWIPE));
    const grim = session.children(frown.id)[0]!;
    assert.equal((grim as UserEntry).text, 'Why so grim?');
    const [none, old] = session.children(grim.id);
    assert.equal(session.variants(old!.id).index, 1);
    assert.equal(session.tipOf(old!.id), endOf(session, 'main - Branch #1 - Branch #1').id);
    assert.deepEqual(texts(session.path(session.tipOf(old!.id))), shownTexts(BRANCH_OF_BRANCH));
    assert.equal(session.tipOf(none!.id), tip, 'back on branch #1: its end');
    assert.equal(session.tipOf(session.path()[2]!.id), session.leafId, "back on the main chat's swipe: its end");
  });

  it('hides what was hidden, out of the model\'s context, and keeps the checkpoint\'s end labelled on the main path', async () => {
    const { session } = await load([chat('main', MAIN), CHECKPOINT]);
    const aside = session.path().find((e) => e.type === 'user' && e.text === 'A hidden aside.')!;
    assert.ok(session.isHidden(aside.id));
    assert.ok(!session.context().some((m) => m.text === 'A hidden aside.'));
    assert.ok(session.context().some((m) => m.text === 'I ask her name.'));
    const checkpointEnd = endOf(session, 'Checkpoint #1');
    assert.ok(session.isOnPath(checkpointEnd.id));
    assert.equal((checkpointEnd as AssistantEntry).text, 'She smiles.');
    assert.equal(session.labelOf(session.leafId!), 'main');
  });

  it('keeps where each message came from, as metadata, never as text', async () => {
    const { session } = await load([chat('main', MAIN)]);
    const [greeting, wake, smile] = session.path() as [AssistantEntry, UserEntry, AssistantEntry];
    assert.deepEqual(greeting.imported, { from: 'sillytavern', name: 'Seraphina', sendDate: 'April 29, 2025 2:37pm' });
    assert.equal(greeting.ts, '2025-04-29T14:37:00.000Z');
    assert.equal(greeting.model, 'sillytavern');
    assert.equal(wake.ts, new Date(NOW).toISOString(), 'no date: the import time');
    assert.deepEqual(wake.imported, { from: 'sillytavern', name: 'Le', fields: { force_avatar: 'me.png' } });
    assert.equal(smile.model, 'gpt-4o');
    assert.equal(smile.finish, 'stop');
    assert.deepEqual(smile.imported, { from: 'sillytavern', name: 'Seraphina', reasoning: 'she is kind', extra: { api: 'openai', model: 'gpt-4o' }, info: { gen_started: 'x' } });
    assert.ok(!smile.text.includes('she is kind'));
    const frown = session.variants(smile.id).siblings[1] as AssistantEntry;
    assert.equal(frown.imported?.fields, undefined, 'fields go on the shown swipe only');
    const named = session.path().at(-1) as AssistantEntry;
    assert.deepEqual(named.imported?.fields, { title: 'named' });
  });

  it('takes only ISO 8601 dates for ts, the import time otherwise', () => {
    const dated = (sendIso: string): Msg => ({ c: sendIso, swipe: { sendIso } });
    const good = ['2025-04-29T14:38:00', '2025-04-29T06:38:05.602Z', '2024-12-31T23:59:59+08:00'];
    const bad = ['April 29, 2025 2:37pm', '2025-13-01T00:00:00Z', '2025-04-29', '2025-04-29T24:00:00Z', ''];
    const result = made([chat('main', [...good, ...bad].map(dated))]);
    const ts = result.lines.slice(1, 1 + good.length + bad.length).map((l) => (JSON.parse(l) as Entry).ts);
    assert.deepEqual(ts, [...good, ...bad.map(() => new Date(NOW).toISOString())]);
  });

  it('carries a chat\'s variables and author\'s note as scene-state variables on its own branch', async () => {
    const withNote = chat('main', MAIN, { metadata: { note_prompt: 'Keep it gentle.', variables: { day: '3' } } });
    const { session } = await load([withNote, FROM_SWIPE]);
    const leaf = session.get(session.leafId!) as StateEntry;
    assert.equal(leaf.type, 'state');
    assert.equal(leaf.by, 'import');
    assert.deepEqual(leaf.warnings, []);
    assert.deepEqual((leaf.state as SceneState).variables, { day: '3', [AUTHORS_NOTE_VARIABLE]: 'Keep it gentle.' });
    assert.deepEqual((leaf.state as SceneState).characters, {}, 'otherwise the empty opening state');
    const branchTip = session.tipOf(session.variants(session.path()[2]!.id).siblings[1]!.id);
    assert.deepEqual((session.lastOnPath('state', branchTip)!.state as SceneState).variables, { mood: 'grim', hp: '7' });
    assert.equal(session.lastOnPath('state', endOf(session, 'main').id), undefined, "the main chat's state comes after its last message");
  });

  it('hands author\'s notes back for the codex instead, once per distinct text', () => {
    const a = chat('main', MAIN, { metadata: { note_prompt: 'Keep it gentle.' } });
    const b = chat('b', MAIN.slice(0, 3), { mainChat: 'main', metadata: { note_prompt: 'Keep it gentle.' } });
    const c = chat('c', MAIN.slice(0, 2), { mainChat: 'main', metadata: { note_prompt: 'Darker now.' } });
    const d = chat('d', MAIN.slice(0, 1), { mainChat: 'main', metadata: { note_prompt: '   ' } });
    const result = made([c, a, b, d], { authorsNote: 'codex' });
    assert.deepEqual(result.authorsNotes, [
      { file: 'main', text: 'Keep it gentle.' },
      { file: 'c', text: 'Darker now.' },
    ]);
    assert.ok(!result.lines.some((l) => l.includes('"type":"state"')), 'no variables, no note in the state: no state entry');
    assert.deepEqual(made([a], { authorsNote: 'state' }).authorsNotes, []);
  });

  it('writes a format-2 header, the title given or the character\'s, and cheap unique 8-hex entry ids', () => {
    const result = made([chat('main', MAIN), FROM_SWIPE], { title: '  My\nstory ' });
    const header = checkHeader(JSON.parse(result.lines[0]!));
    assert.ok(header.kind === 'header');
    assert.deepEqual(header.header, { type: 'session', version: 2, id: 'abcdef0123456789', createdAt: new Date(NOW).toISOString(), title: 'My story' });
    const entries = result.lines.slice(1).map((l) => JSON.parse(l) as Entry);
    for (const e of entries) assert.ok(checkStoredEntry(e, 2).ok, JSON.stringify(e));
    const ids = entries.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every((id) => /^[0-9a-f]{8}$/.test(id)));
    assert.equal(made([chat('x', [], { characterName: '' })]).title, 'x (SillyTavern)');
    assert.equal(made([chat('x', [{ u: 'hi' }, { c: 'hello', name: 'Lilith' }], { characterName: '' })]).title, 'Lilith (SillyTavern)', "2025 headers say 'unused': the character who speaks");
    assert.equal(made([chat('x.jsonl', [])]).title, 'Seraphina (SillyTavern)');
  });

  it('refuses, with a message saying what to do, what would pass the session limits', () => {
    const big = chat('main', [{ c: Array.from({ length: 30 }, (_, i) => `swipe ${i}`) }]);
    const entries = importChats([big], { newId: 'x', now: NOW, authorsNote: 'state', limits: { maxEntries: 20 } });
    assert.ok(!entries.ok);
    assert.match(entries.error.message, /more than one Worldline session can hold/);
    assert.deepEqual(entries.error.args, ['21', '20']);
    const fewer = importChats([big], { newId: 'x', now: NOW, authorsNote: 'state', limits: { maxEntries: 31 } });
    assert.ok(!fewer.ok, '30 messages and their label and leaf are 32 entries');
    assert.ok(importChats([big], { newId: 'x', now: NOW, authorsNote: 'state', limits: { maxEntries: 32 } }).ok);

    const long = chat('long', [{ u: 'short' }, { c: 'x'.repeat(5000) }]);
    const line = refusal([long], { newId: 'x', limits: { maxLineBytes: 4000 } });
    assert.ok(line);
    assert.deepEqual(line.args.slice(0, 2), [3, 'long'], 'the line and the file of the message');
    const file = refusal([long], { newId: 'x', limits: { maxFileBytes: 3000 } });
    assert.ok(file);
    assert.match(file.message, /too large for one Worldline session/);
    // The count is exact: what fits exactly is not refused, a byte less is.
    const fits = made([long]);
    const bytes = fits.lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    assert.equal(refusal([long], { limits: { maxFileBytes: bytes } }), undefined);
    assert.ok(refusal([long], { limits: { maxFileBytes: bytes - 1 } }));
    assert.ok(!importChats([], { newId: 'x', now: NOW, authorsNote: 'state' }).ok);
  });

  it('createFromLines writes the session under a new id, opens it writable and backs it up', async () => {
    const root = tempDir('wl-import-');
    const lib = new SessionLibrary(root, { clock: new FakeClock(NOW), pid: 4321, isProcessAlive: () => true });
    libraries.push(lib);
    let given = '';
    const session = await lib.createFromLines((id) => {
      given = id;
      return made([chat('main', MAIN)], { newId: id }).lines;
    });
    assert.match(given, /^[0-9a-f]{16}$/);
    assert.equal(session.header.id, given);
    assert.equal(session.readOnly, false);
    assert.deepEqual((await lib.list()).map((x) => x.id), [given]);
    await eventually(async () => (await lib.backups(given)).length === 1);
    await session.append({ type: 'user', text: 'And then?' });
    assert.equal(session.path().length, 7, 'the imported session takes new turns');
  });

  it('createFromLines leaves nothing behind when the lines cannot be made', async () => {
    const root = tempDir('wl-import-');
    const lib = new SessionLibrary(root, { clock: new FakeClock(NOW), pid: 4321, isProcessAlive: () => true });
    libraries.push(lib);
    await assert.rejects(
      lib.createFromLines(() => {
        throw new Error('refused');
      }),
      /refused/,
    );
    function* half(): Generator<string> {
      yield '{"type":"session","version":2,"id":"x","createdAt":"2026-01-01T00:00:00.000Z","title":"t"}';
      throw new Error('midway');
    }
    await assert.rejects(lib.createFromLines(() => half()), /midway/);
    // An import past the limits is found while its lines are written: the writer stops and removes them.
    const big = chat('big', [{ u: 'short' }, { c: 'x'.repeat(5000) }]);
    await assert.rejects(
      lib.createFromLines((id) => {
        const r = importChats([big], { newId: id, now: NOW, authorsNote: 'state', limits: { maxFileBytes: 3000 } });
        if (!r.ok) assert.fail(r.error.message);
        return r.lines;
      }),
      (e: unknown) => e instanceof ImportTooLargeError && /too large for one Worldline session/.test(e.text.message),
    );
    assert.deepEqual(await lib.list(), []);
    assert.deepEqual(fs.readdirSync(path.join(root, '.worldline', 'sessions')), []);
  });

  it('imports the real 42-message sample chat', async () => {
    const dir = path.resolve(__dirname, '..', '..', '..', '..', '..', '..', 'shared', 'data', 'sillytavern', 'chats', 'default_Seraphina');
    const [name] = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')) : [];
    if (!name) return; // the sample lives beside the repository, not in it
    const file = readChatFile({ name: name.slice(0, -'.jsonl'.length), text: fs.readFileSync(path.join(dir, name), 'utf8') });
    const { session, result } = await load([file]);
    assert.equal(texts(session.path()).length, file.messages.length);
    assert.deepEqual(texts(session.path()), shownTexts(file));
    assert.equal(result.title, 'Seraphina (SillyTavern)');
    const replies = session.path().filter((e): e is AssistantEntry => e.type === 'assistant');
    assert.ok(replies.some((e) => e.model === 'grok-3'), 'the model from extra.model');
    assert.ok(replies.some((e) => e.imported?.reasoning === ''), 'the reasoning kept as metadata, even empty');
    assert.ok(session.path().every((e) => !Number.isNaN(Date.parse(e.ts))));
    assert.equal(session.path()[1]!.ts, '2025-04-29T14:38:00', "SillyTavern's own date, as the reader made it ISO");
  });

  it('property: each chat of a random branch set is the path to its labelled end, hidden flags kept', () => {
    const TEXTS = ['a', 'b', '她笑了。', ''];
    const msg = fc.record({ u: fc.boolean(), t: fc.array(fc.constantFrom(...TEXTS), { minLength: 1, maxLength: 3 }), pick: fc.nat(2), hidden: fc.boolean() });
    const copy = fc.record({ from: fc.nat(), cut: fc.nat(), edit: fc.option(fc.record({ at: fc.nat(), text: fc.constantFrom(...TEXTS), hide: fc.boolean() })), more: fc.array(msg, { maxLength: 3 }), vars: fc.boolean() });
    const toMsg = (m: { u: boolean; t: string[]; pick: number; hidden: boolean }): Msg => (m.u ? { u: m.t, pick: m.pick % m.t.length, hidden: m.hidden } : { c: m.t, pick: m.pick % m.t.length, hidden: m.hidden });
    fc.assert(
      fc.property(fc.array(msg, { maxLength: 6 }), fc.array(copy, { maxLength: 5 }), (base, copies) => {
        const files: ChatFile[] = [chat('f0', base.map(toMsg))];
        for (const c of copies) {
          const src = files[c.from % files.length]!;
          const messages = src.messages.slice(0, src.messages.length === 0 ? 0 : (c.cut % src.messages.length) + 1).map((m) => ({ ...m, swipes: [...m.swipes] }));
          const m = c.edit ? messages[c.edit.at % Math.max(1, messages.length)] : undefined;
          if (m && c.edit) {
            if (c.edit.hide) m.hidden = !m.hidden;
            else m.swipes[m.chosen] = { text: c.edit.text };
          }
          const more = chat('x', c.more.map(toMsg)).messages;
          const all = [...messages, ...more].map((x, i) => ({ ...x, line: i + 2 }));
          files.push({ ...chat(`f${files.length}`, [], { mainChat: src.name, metadata: c.vars ? { variables: { n: String(files.length) } } : {} }), messages: all });
        }
        const result = made(files);
        const index = new TreeIndex();
        for (const line of result.lines.slice(1)) {
          const checked = checkStoredEntry(JSON.parse(line), 2);
          assert.ok(checked.ok);
          assert.deepEqual(index.add(checked.value as Entry), {});
        }
        for (const f of files) {
          if (f.messages.length === 0) continue;
          const label = index.all().find((e) => e.type === 'label' && e.label.split(' · ').includes(f.name));
          assert.ok(label && label.type === 'label');
          const path = pathTo(index, label.targetId);
          assert.deepEqual(texts(path), shownTexts(f));
          assert.deepEqual(
            path.map((e) => index.side(e.id, 'hide')?.hidden ?? false),
            f.messages.map((x) => x.hidden),
          );
        }
        const main = files[0]!;
        if (main.messages.length > 0) assert.deepEqual(texts(pathTo(index, index.leafId)), shownTexts(main));
      }),
      { numRuns: runs(150, 3000) },
    );
  });
});
