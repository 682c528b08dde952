// A Worldline branch back to a SillyTavern chat file, in SillyTavern's current format (2025 on):
// header `{chat_metadata, user_name: 'unused', character_name: 'unused'}` with a fresh `integrity`,
// then one message per line with its swipes, ISO 8601 dates for Worldline's own entries (PR #4806),
// and every field the import kept (`imported`), so import → export → import gives the same branch.
// Rules and their sources: README.md, "Export".
// Pure apart from the uuid; the shell writes the file.
import { randomUUID } from 'node:crypto';
import type { ChainEntry, ImportedFrom } from '../../session/entries';
import { AUTHORS_NOTE_VARIABLE, type ChatFile, type ChatSwipe } from './types';

/** One swipe: its text, what the import kept of it, or (for Worldline's own entries) when it was written. */
export interface ExportSwipe {
  text: string;
  imported?: ImportedFrom;
  /** ISO 8601; used when there is no `imported` (an imported swipe keeps its own date, or none). */
  sendDate?: string;
}

/** One message slot to write: its swipes and the chosen one. */
export interface ExportMessage {
  isUser: boolean;
  /** The speaker. */
  name: string;
  /** Written as `is_system: true` (SillyTavern's hidden flag). */
  hidden: boolean;
  /** At least one; `swipes[chosen]` is the shown text. */
  swipes: ExportSwipe[];
  chosen: number;
}

export interface ExportChatInput {
  messages: readonly ExportMessage[];
  /** `chat_metadata` (variables, author's note…) as given; `integrity` is always minted fresh. */
  metadata: Record<string, unknown>;
  /** Names for messages that have none (the header's are always `'unused'`, as SillyTavern writes them now). */
  userName: string;
  characterName: string;
  /** ms since the epoch: the `send_date` of a swipe that is neither imported nor dated. */
  now: number;
}

type Json = Record<string, unknown>;

/** Keys the exporter writes itself; a kept field of the same name never overrides them. */
const CORE_KEYS: ReadonlySet<string> = new Set([
  'name', 'is_user', 'is_system', 'send_date', 'mes', 'extra', 'swipes', 'swipe_id', 'swipe_info', 'gen_started', 'gen_finished',
]);

function extraOf(imported: ImportedFrom | undefined): Json {
  const extra: Json = { ...(imported?.extra ?? {}) };
  if (imported?.reasoning !== undefined) extra.reasoning = imported.reasoning;
  return extra;
}

/** An imported swipe's own date (none if it had none), else the entry's, else now. */
function dateOf(s: ExportSwipe, nowIso: string): string | number | undefined {
  return s.imported ? s.imported.sendDate : (s.sendDate ?? nowIso);
}

function swipeInfoOf(s: ExportSwipe, nowIso: string): Json {
  const imported = s.imported;
  const info: Json = {};
  const date = dateOf(s, nowIso);
  if (date !== undefined) info.send_date = date;
  for (const [k, v] of Object.entries(imported?.info ?? {})) if (k !== 'send_date' && k !== 'extra') info[k] = v;
  info.extra = extraOf(imported);
  return info;
}

function messageLine(m: ExportMessage, input: ExportChatInput, nowIso: string): string {
  const chosen = Math.min(Math.max(0, Math.trunc(m.chosen) || 0), m.swipes.length - 1);
  const shown: ExportSwipe = m.swipes[chosen] ?? { text: '' };
  const imp = shown.imported;
  const out: Json = {
    name: m.name || (m.isUser ? input.userName : input.characterName),
    is_user: m.isUser,
    is_system: m.hidden,
  };
  const date = dateOf(shown, nowIso);
  if (date !== undefined) out.send_date = date;
  out.mes = shown.text;
  out.extra = extraOf(imp);
  for (const k of ['gen_started', 'gen_finished']) if (imp?.info && k in imp.info) out[k] = imp.info[k];
  // SillyTavern gives every reply its swipe arrays, a user message only when it was swiped (or,
  // here, when its swipe_info holds more than the gen times written above).
  const moreInfo = Object.keys(imp?.info ?? {}).some((k) => k !== 'gen_started' && k !== 'gen_finished');
  if (!m.isUser || m.swipes.length > 1 || moreInfo) {
    out.swipes = m.swipes.map((s) => s.text);
    out.swipe_id = chosen;
    out.swipe_info = m.swipes.map((s) => swipeInfoOf(s, nowIso));
  }
  for (const [k, v] of Object.entries(imp?.fields ?? {})) if (!CORE_KEYS.has(k)) out[k] = v;
  return JSON.stringify(out);
}

/** What an import keeps of a swipe (`imported` on its entry): the same mapping as the session lines. */
export function importedOf(swipe: ChatSwipe, name: string, fields?: Record<string, unknown>): ImportedFrom {
  const imported: ImportedFrom = { from: 'sillytavern', name };
  if (swipe.sendDate !== undefined) imported.sendDate = swipe.sendDate;
  if (swipe.reasoning !== undefined) imported.reasoning = swipe.reasoning;
  if (swipe.extra !== undefined) imported.extra = swipe.extra;
  if (swipe.info !== undefined) imported.info = swipe.info;
  if (fields !== undefined) imported.fields = fields;
  return imported;
}

/** A chat file as read, straight back to export messages (the message's fields ride on its chosen swipe). */
export function chatToExport(file: Pick<ChatFile, 'messages'>): ExportMessage[] {
  return file.messages.map((m) => ({
    isUser: m.isUser,
    name: m.name,
    hidden: m.hidden,
    chosen: m.chosen,
    swipes: m.swipes.map((s, i) => ({ text: s.text, imported: importedOf(s, m.name, i === m.chosen ? m.fields : undefined) })),
  }));
}

/** The chat file's text: header line, then one line per message, no trailing newline (as SillyTavern saves). */
export function exportChat(input: ExportChatInput): string {
  const nowIso = new Date(input.now).toISOString();
  const header = {
    chat_metadata: { ...input.metadata, integrity: randomUUID() },
    user_name: 'unused',
    character_name: 'unused',
  };
  const lines = [JSON.stringify(header)];
  for (const m of input.messages) if (m.swipes.length > 0) lines.push(messageLine(m, input, nowIso));
  return lines.join('\n');
}

/**
 * `chat_metadata` from a scene state: its `variables` (SillyTavern's local variables), the
 * author's note variable going back to `note_prompt`.
 */
export function metadataFromState(state: unknown): { variables: Record<string, unknown>; note_prompt?: string } {
  const vars = isObject(state) && isObject(state.variables) ? state.variables : {};
  const variables: Record<string, unknown> = {};
  let note: unknown;
  for (const [k, v] of Object.entries(vars)) {
    if (k === AUTHORS_NOTE_VARIABLE) note = v;
    else variables[k] = v;
  }
  return typeof note === 'string' ? { variables, note_prompt: note } : { variables };
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What branchToExport reads of a session; `Session` (src/session/session.ts) has it all. */
export interface BranchReader {
  /** Chain entries from the root to the leaf (`leafId` given: to that entry). */
  path(leafId?: string | null): readonly ChainEntry[];
  /** A message's text with its latest edit applied. */
  textOf(id: string): string;
  isHidden(id: string): boolean;
  /** Same-parent chain entries of the same type, and this one's place among them. */
  variants(id: string): { siblings: readonly ChainEntry[]; index: number };
  /** The last leaf inside the subtree of `id` (where ◀ ▶ lands). */
  tipOf(id: string): string;
}

export interface BranchExportOptions {
  /** Names for Worldline's own turns; default '' (exportChat then writes its own names). */
  userName?: string;
  characterName?: string;
  /** The branch's leaf; default the reader's current one. */
  leafId?: string | null;
}

type Speaking = Extract<ChainEntry, { type: 'user' | 'assistant' }>;

const isSpeaking = (e: ChainEntry): e is Speaking => e.type === 'user' || e.type === 'assistant';

/** A native turn's reply: its assistant texts from `from` on, up to the next user or imported entry. */
function nativeReplyText(reader: BranchReader, entries: readonly ChainEntry[], from: number): { text: string; end: number } {
  const parts: string[] = [];
  let i = from;
  for (; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.type === 'user' || (e.type === 'assistant' && e.imported)) break;
    if (e.type !== 'assistant') continue; // tool results and bookkeeping stay out
    const t = reader.textOf(e.id);
    if (t.trim() !== '') parts.push(t);
  }
  return { text: parts.join('\n\n'), end: i };
}

/** The text of a variant (a sibling entry) as one message. */
function variantText(reader: BranchReader, sibling: ChainEntry): string {
  if (sibling.type === 'user' || (sibling.type === 'assistant' && sibling.imported)) return reader.textOf(sibling.id);
  // A native reply variant: its entries down to its own tip.
  const path = reader.path(reader.tipOf(sibling.id));
  const at = path.findIndex((e) => e.id === sibling.id);
  return at < 0 ? reader.textOf(sibling.id) : nativeReplyText(reader, path, at).text;
}

/**
 * One swipe per text, the chosen one kept where it is. Siblings with the same text exist where an
 * import forked on a hide (SillyTavern has no hidden flag per swipe) or a reply came out the same
 * twice; as SillyTavern swipes they would be the same swipe, and the import makes them one again.
 */
function distinct(swipes: ExportSwipe[], chosen: number): { swipes: ExportSwipe[]; chosen: number } {
  const chosenText = swipes[chosen]!.text;
  const seen = new Set<string>();
  const kept: ExportSwipe[] = [];
  let at = 0;
  swipes.forEach((s, i) => {
    if (i !== chosen && (s.text === chosenText || seen.has(s.text))) return;
    seen.add(s.text);
    if (i === chosen) at = kept.length;
    kept.push(s);
  });
  return { swipes: kept, chosen: at };
}

/**
 * The branch as export messages. An imported user or assistant entry is one message (its
 * `imported.name` the speaker); a native turn's reply, however many assistant entries and tool
 * calls it took, is one message of its assistant texts joined by a blank line; tool results are
 * left out. Swipes are the variants of the message's first entry in sibling order, the chosen
 * one the branch's. Edits are applied (textOf).
 */
export function branchToExport(reader: BranchReader, opts: BranchExportOptions): ExportMessage[] {
  const entries = opts.leafId === undefined ? reader.path() : reader.path(opts.leafId);
  const out: ExportMessage[] = [];
  let i = 0;
  while (i < entries.length) {
    const e = entries[i]!;
    if (!isSpeaking(e)) {
      i++;
      continue;
    }
    const { siblings, index } = reader.variants(e.id);
    const known = index >= 0 && siblings[index]?.id === e.id;
    const list = known ? siblings : [e];
    const chosen = known ? index : 0;
    const swipes = list.map((s) => {
      const text = s.id === e.id ? undefined : variantText(reader, s);
      const imported = isSpeaking(s) ? s.imported : undefined;
      return { text: text ?? '', ...(imported ? { imported } : { sendDate: s.ts }) };
    });
    let next = i + 1;
    if (e.type === 'assistant' && !e.imported) {
      const reply = nativeReplyText(reader, entries, i);
      swipes[chosen]!.text = reply.text;
      next = reply.end;
    } else {
      swipes[chosen]!.text = reader.textOf(e.id);
    }
    const isUser = e.type === 'user';
    const name = e.imported?.name ?? (isUser ? opts.userName : opts.characterName) ?? '';
    out.push({ isUser, name, hidden: reader.isHidden(e.id), ...distinct(swipes, chosen) });
    i = next;
  }
  return out;
}
