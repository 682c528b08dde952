// SillyTavern chat files → the lines of a new Worldline session (format 2), the way restore.ts
// makes a restored backup's: a header, then the entries. Pure: the shell reads the chat files and
// has the library write the lines (SessionLibrary.createFromLines). The lines are made as the
// writer takes them, never all held at once: an 18 MB chat is a 12 MB session, and holding both
// made the import a third slower (bench/import.bench.ts). So the size limits are checked as they
// are made: past one, ImportTooLargeError stops the writer, and it removes what it wrote.
//
// Every node of the joined tree (join.ts) is a `user` or `assistant` entry carrying where it came
// from (`imported`); a hidden message gets a `hide` entry. A file whose chat has variables (or an
// author's note kept as one) gets a `state` entry after its last message, on its own branch. Then
// each file's end gets a `label` naming the chat and a `leaf` entry: branches first, the main chat
// last, so the session opens at the main chat's end and ◀ ▶ onto a branch lands at that branch's end.

import type { Text } from '../../common/text';
import { SESSION_FORMAT_VERSION, type ImportedFrom, type SessionHeader } from '../../session/entries';
import { sessionLimits, type SessionLimits } from '../../session/limits';
import { openingStateWithWarnings } from '../../state/opening';
import type { Lang } from '../../state/types';
import { chatFamilies, chatName } from './families';
import { joinChats, type JoinNode } from './join';
import { AUTHORS_NOTE_VARIABLE, type ChatFile, type ImportCounts } from './types';

const l10n = { t: (s: string): string => s };

export interface ImportInit {
  /** The new session's id (the library picks it). */
  newId: string;
  /** The import time, ms since the epoch: the header's date, and a message's when it has none. */
  now: number;
  /** Default: the character's (or group's) name + " (SillyTavern)". */
  title?: string;
  /** The chat to open at (file name); default the root of the files' `main_chat` links. */
  main?: string;
  /** Where an author's note goes: a scene-state variable (`authors_note`), or back to the shell for the codex. */
  authorsNote: 'state' | 'codex';
  /** The book's language, for the scene state's warnings. */
  lang?: Lang;
  /** The session size limits (tests lower them); the defaults are in src/session/limits.ts. */
  limits?: Partial<SessionLimits>;
}

/** An author's note for the shell to write as a codex `always` entry. */
export interface ImportedNote {
  /** The chat it came from (the first, main chat first, when several carry the same note). */
  file: string;
  text: string;
}

export type ImportedSession =
  | {
      readonly ok: true;
      /** The session's lines, made as they are read (each iteration makes them again); throws ImportTooLargeError past the limits. */
      readonly lines: Iterable<string>;
      readonly counts: ImportCounts;
      readonly title: string;
      /** The chat the session opens at. */
      readonly main: string;
      /** With `authorsNote: 'codex'`: each distinct author's note; else empty. */
      readonly authorsNotes: ImportedNote[];
    }
  | { readonly ok: false; readonly error: Text };

const text = (message: string, ...args: (string | number)[]): Text => ({ message, args });

export function importChats(files: readonly ChatFile[], init: ImportInit): ImportedSession {
  if (files.length === 0) return { ok: false, error: text(l10n.t('There is no chat file to import.')) };
  const limits = sessionLimits(init.limits);
  const joined = joinChats(files, { main: init.main, maxNodes: limits.maxEntries });
  if (!joined.ok) return { ok: false, error: tooManyEntries(joined.nodes, limits) };
  const { nodes } = joined;
  const mainFile = files[joined.main] as ChatFile;
  const nowIso = new Date(init.now).toISOString();

  // What goes at each file's end, decided before writing so the entry count is known up front.
  const states: { at: JoinNode; warnings: string[]; json: string }[] = [];
  const stateOfFile: (number | undefined)[] = files.map(() => undefined);
  const authorsNotes: ImportedNote[] = [];
  const notesSeen = new Set<string>();
  const byEnd = new Map<JoinNode, Map<string, number>>();
  for (const fi of [joined.main, ...files.map((_, i) => i).filter((i) => i !== joined.main)]) {
    const { file, end } = joined.files[fi] as { file: ChatFile; end: JoinNode | null };
    const note = authorsNoteOf(file);
    if (init.authorsNote === 'codex' && note !== undefined && !notesSeen.has(note)) {
      notesSeen.add(note);
      authorsNotes.push({ file: file.name, text: note });
    }
    if (!end) continue; // no messages: no branch to carry anything on
    const variables = carriedVariables(file, init.authorsNote === 'state' ? note : undefined);
    if (!variables) continue;
    const { state, warnings } = openingStateWithWarnings({ variables }, { lang: init.lang });
    const json = JSON.stringify(state);
    let same = byEnd.get(end);
    if (!same) byEnd.set(end, (same = new Map()));
    let k = same.get(json);
    if (k === undefined) {
      k = states.length;
      same.set(json, k);
      states.push({ at: end, warnings, json });
    }
    stateOfFile[fi] = k;
  }

  // Leaves: branches of branches first, then branches, the main chat last (tipOf takes the latest).
  const depth: number[] = files.map(() => 0);
  for (const family of chatFamilies(files.map((f, i) => ({ name: f.name, mainChat: f.mainChat, isGroup: f.isGroup, i })))) {
    family.files.forEach((f, k) => (depth[f.i] = family.depths[k] ?? 0));
  }
  const leafOrder = files
    .map((_, i) => i)
    .filter((i) => i !== joined.main)
    .sort((a, b) => (depth[b] as number) - (depth[a] as number) || a - b);
  leafOrder.push(joined.main);
  const labels = new Map<JoinNode, string[]>();
  for (const fi of [joined.main, ...leafOrder]) {
    const end = joined.files[fi]?.end;
    if (!end) continue;
    const names = labels.get(end) ?? [];
    const name = chatName((files[fi] as ChatFile).name);
    if (!names.includes(name)) names.push(name);
    labels.set(end, names);
  }

  let hiddenNodes = 0;
  for (const n of nodes) if (n.hidden) hiddenNodes++;
  const entries = nodes.length + hiddenNodes + states.length + labels.size + leafOrder.length;
  if (entries > limits.maxEntries || entries + 1 > limits.maxLines) return { ok: false, error: tooManyEntries(entries, limits) };

  const title = cleanTitle(init.title) ?? `${speakerOf(mainFile)} (SillyTavern)`;
  const header: SessionHeader = { type: 'session', version: SESSION_FORMAT_VERSION, id: init.newId, createdAt: nowIso, title };
  // Made while they are written, never all held at once (an 18 MB chat is a 12 MB session): the
  // writer takes them line by line, and a session past the limits stops it (ImportTooLargeError).
  const { files: joinedFiles, main: mainIndex } = joined;
  // `counted` false: the same lines without the budget (its exact recount of the first ones).
  function* write(counted = true): Generator<string> {
    const budget = counted ? new LineBudget(limits, firstBytes) : undefined;
    const out = { admit: (line: string, at?: JoinNode): string => (budget ? budget.admit(line, at) : line) };
    const nextId = entryIds(init.newId);
    const ids: string[] = new Array<string>(nodes.length);
    let leaf: string | null = null;
    yield out.admit(JSON.stringify(header));
    for (const n of nodes) {
      const id = nextId();
      ids[n.index] = id;
      const parentId = n.parent === null ? null : (ids[n.parent.index] as string);
      const s = n.swipe;
      const imported: ImportedFrom = { from: 'sillytavern', name: n.name };
      if (s.sendDate !== undefined) imported.sendDate = s.sendDate;
      if (s.reasoning !== undefined) imported.reasoning = s.reasoning;
      if (s.extra !== undefined) imported.extra = s.extra;
      if (s.info !== undefined) imported.info = s.info;
      if (n.fields !== undefined) imported.fields = n.fields;
      const ts = isoOr(s.sendIso, nowIso);
      yield out.admit(n.isUser
        ? JSON.stringify({ id, parentId, type: 'user', ts, text: n.text, imported })
        : JSON.stringify({ id, parentId, type: 'assistant', ts, text: n.text, model: modelOf(s.extra), finish: 'stop', imported }), n);
      leaf = id;
      if (n.hidden) yield out.admit(JSON.stringify({ id: nextId(), parentId: leaf, type: 'hide', ts: nowIso, targetId: id, hidden: true }), n);
    }
    const stateIds: string[] = [];
    for (const st of states) {
      const id = nextId();
      stateIds.push(id);
      yield out.admit(`{"id":${JSON.stringify(id)},"parentId":${JSON.stringify(ids[st.at.index])},"type":"state","ts":${JSON.stringify(nowIso)},"state":${st.json},"by":"import","warnings":${JSON.stringify(st.warnings)}}`);
      leaf = id;
    }
    for (const [end, names] of labels) {
      yield out.admit(JSON.stringify({ id: nextId(), parentId: leaf, type: 'label', ts: nowIso, targetId: ids[end.index], label: names.join(' · ') }));
    }
    for (const fi of leafOrder) {
      const end = joinedFiles[fi]?.end;
      const k = stateOfFile[fi];
      const target = k !== undefined ? (stateIds[k] as string) : end ? (ids[end.index] as string) : null;
      if (target === null && fi !== mainIndex) continue;
      yield out.admit(JSON.stringify({ id: nextId(), parentId: leaf, type: 'leaf', ts: nowIso, targetId: target }));
      leaf = target;
    }
  }
  /** The exact UTF-8 size of the first `count` lines (each with its newline). */
  function firstBytes(count: number): number {
    let bytes = 0;
    let n = 0;
    for (const line of write(false)) {
      if (n++ >= count) break;
      bytes += Buffer.byteLength(line, 'utf8') + 1;
    }
    return bytes;
  }
  return { ok: true, lines: { [Symbol.iterator]: () => write() }, counts: joined.counts, title, main: mainFile.name, authorsNotes };
}

/** Whom the chat is with: the header's name, else (2025 headers say 'unused') the character who speaks, else the chat's name. */
function speakerOf(file: ChatFile): string {
  const named = file.characterName?.trim();
  if (named) return named;
  const speaker = file.isGroup ? undefined : file.messages.find((m) => !m.isUser && m.name.trim() !== '')?.name.trim();
  return cleanTitle(speaker) ?? chatName(file.name);
}

/** `chat_metadata.note_prompt` when it says something. */
function authorsNoteOf(file: ChatFile): string | undefined {
  const note = file.metadata['note_prompt'];
  return typeof note === 'string' && note.trim() !== '' ? note : undefined;
}

/** The chat's local variables (and the author's note, when it goes there), or undefined when there are none. */
function carriedVariables(file: ChatFile, note: string | undefined): Record<string, unknown> | undefined {
  const vars: Record<string, unknown> = {};
  let any = false;
  const v = file.metadata['variables'];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    for (const k of Object.keys(v)) {
      // The state's merge drops what cannot be stored (with a warning on the entry); copied plainly here.
      Object.defineProperty(vars, k, { value: (v as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
      any = true;
    }
  }
  if (note !== undefined) {
    vars[AUTHORS_NOTE_VARIABLE] = note;
    any = true;
  }
  return any ? vars : undefined;
}

function modelOf(extra: Record<string, unknown> | undefined): string {
  const model = extra?.['model'];
  if (typeof model === 'string' && model !== '') return model;
  const api = extra?.['api'];
  if (typeof api === 'string' && api !== '') return api;
  return 'sillytavern';
}

/** The swipe's date when it is one; else the import time (an entry's `ts` must be ISO 8601). */
function isoOr(iso: string | undefined, fallback: string): string {
  return iso !== undefined && ISO.test(iso) ? iso : fallback;
}

/**
 * ISO 8601 date and time, fields in range (a regular expression, not Date.parse: it is one test per
 * message of a chat of thousands); without a zone it is local time (SillyTavern's humanized dates have none).
 */
const ISO = /^[+-]?\d{4,6}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

function cleanTitle(title: string | undefined): string | undefined {
  const clean = title?.replace(/[\r\n\t]+/g, ' ').trim();
  return clean ? clean : undefined;
}

/**
 * Entry ids: 8 hex digits like the session's own (ids.ts), counted up from a start taken from the
 * session id. Unique within the session (it cannot hold 2^32 entries), and cheap: no random bytes
 * per entry. New entries written later draw random ids and check them against these.
 */
function entryIds(sessionId: string): () => string {
  let h = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) h = Math.imul(h ^ sessionId.charCodeAt(i), 0x01000193) >>> 0;
  let n = h;
  return () => {
    const id = n.toString(16).padStart(8, '0');
    n = (n + 1) >>> 0;
    return id;
  };
}

/** A session past the limits, found while its lines were made: nothing is kept (the writer removes what it wrote). */
export class ImportTooLargeError extends Error {
  constructor(readonly text: Text) {
    super(text.message);
    this.name = 'ImportTooLargeError';
  }
}

/**
 * Keeps the lines within the session limits as they are made (so the new session always opens).
 * A UTF-16 unit is at most 3 UTF-8 bytes, so the lines are only counted by length until 3 bytes a
 * unit could pass the limit (a session of over 85 million characters); from then on the count is
 * exact: once for the lines so far (`firstBytes`, made again), then line by line.
 */
class LineBudget {
  private lines = 0;
  /** UTF-16 units of the lines so far (each with its newline), while counting by length. */
  private units = 0;
  /** Exact bytes so far, once counting is exact. */
  private bytes: number | undefined;

  constructor(
    private readonly limits: SessionLimits,
    private readonly firstBytes: (count: number) => number,
  ) {}

  /** The line, counted; ImportTooLargeError when it (or the session with it) is past a limit. */
  admit(line: string, at?: JoinNode): string {
    if (line.length * 3 > this.limits.maxLineBytes) {
      const size = Buffer.byteLength(line, 'utf8');
      if (size > this.limits.maxLineBytes) throw new ImportTooLargeError(this.lineError(size, at));
    }
    this.lines++;
    if (this.bytes !== undefined) this.bytes += Buffer.byteLength(line, 'utf8') + 1;
    else {
      this.units += line.length + 1;
      if (this.units * 3 > this.limits.maxFileBytes) this.bytes = this.firstBytes(this.lines);
    }
    if (this.bytes !== undefined && this.bytes > this.limits.maxFileBytes) throw new ImportTooLargeError(this.fileError());
    return line;
  }

  private lineError(bytes: number, at: JoinNode | undefined): Text {
    if (!at) return this.fileError();
    return text(
      l10n.t('The message on line {0} of {1} is too large for one Worldline entry ({2}, over the {3} limit). Nothing was imported; the chat files are unchanged.'),
      at.line,
      at.file,
      megabytes(bytes),
      megabytes(this.limits.maxLineBytes),
    );
  }

  private fileError(): Text {
    return text(
      l10n.t('These chats are too large for one Worldline session (over {0}). Import fewer branch files at once; the chat files are unchanged.'),
      megabytes(this.limits.maxFileBytes),
    );
  }
}

function tooManyEntries(entries: number, limits: SessionLimits): Text {
  // {0} is always past the limit, so always more than one: no plural forms needed.
  return text(
    l10n.t('These chats would make {0} entries, more than one Worldline session can hold ({1}). Import fewer branch files at once; the chat files are unchanged.'),
    entries.toLocaleString('en-US'),
    Math.min(limits.maxEntries, limits.maxLines - 1).toLocaleString('en-US'),
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
