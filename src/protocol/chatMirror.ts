// What the Chat page holds, kept on the host side, so each update sends only what changed: the
// messages appended or changed (keyed by id and place, compared field by field), the header when
// it changed, the streaming block as the characters added (to its text and to its reasoning). A
// whole render goes only to a page that holds nothing known (it just loaded, an update was lost)
// or when the change is as large as the page. `applyUpdate` is what the page does with an update
// (media/chat.js does the same on the DOM).
import type { ChatHead, ChatMessage, ChatModel, ChatPatch, ChatStream, ChatStreamDelta, ToChatPage } from './chat';

/** What the page shows: update `seq`, the model and the streaming block. */
export interface ChatPageState {
  seq: number;
  model: ChatModel;
  stream?: ChatStream;
}

export type ChatUpdate = Extract<ToChatPage, { type: 'render' | 'patch' | 'stream' }>;

/** What the next update is made from, built only when asked (a streamed token needs no model). */
export interface ChatSources {
  model(): ChatModel;
  /** The streaming block, while a turn is being written. */
  stream(): ChatStream | undefined;
}

export class ChatMirror {
  private seq = 0;
  private page: { messages: readonly ChatMessage[]; head: ChatHead; stream?: ChatStream } | undefined;
  /** What changed since the last update: the messages or the header, or only the streaming block. */
  private modelChanged = true;
  private streamChanged = false;

  /** The page holds nothing known (it loaded again, or an update did not arrive): the next update is a render. */
  reset(): void {
    this.page = undefined;
  }

  /** The messages or the header may have changed. */
  markModel(): void {
    this.modelChanged = true;
  }

  /** Only the streaming block changed (a token). */
  markStream(): void {
    this.streamChanged = true;
  }

  /**
   * The update for what was marked since the last one: from the whole model when the messages
   * may have changed or the page holds nothing known, else from the streaming block alone.
   */
  next(sources: ChatSources): ChatUpdate | undefined {
    if (this.modelChanged || this.unknown) {
      this.modelChanged = false;
      this.streamChanged = false;
      const model = sources.model();
      return this.update(model, model.busy ? sources.stream() : undefined);
    }
    if (!this.streamChanged) return undefined;
    this.streamChanged = false;
    return this.updateStream(sources.stream());
  }

  /** True when the next update will be a whole render. */
  get unknown(): boolean {
    return this.page === undefined;
  }

  /** The update that brings the page to `model` and `stream`; undefined when it shows them already. */
  update(model: ChatModel, stream?: ChatStream): ChatUpdate | undefined {
    const page = this.page;
    if (!page) return this.render(model, stream);
    const head = headOf(model);
    const patch: Omit<ChatPatch, 'type' | 'seq' | 'base'> = {};
    if (!sameJson(head, page.head)) patch.head = head;

    const before = page.messages;
    const after = model.messages;
    // One pass: the same object is unchanged (the kept model gives it again), the same id at the
    // same place is compared, and the first other id is where the splice starts.
    const replace: NonNullable<ChatPatch['replace']> = [];
    const shorter = Math.min(before.length, after.length);
    let same = 0;
    for (; same < shorter; same++) {
      const was = before[same] as ChatMessage;
      const now = after[same] as ChatMessage;
      if (was === now) continue;
      if (was.id !== now.id) break;
      if (!sameJson(now, was)) replace.push({ at: same, message: now });
    }
    if (replace.length > 0) patch.replace = replace;
    if (same < before.length || same < after.length) patch.splice = { keep: same, append: after.slice(same) };
    const sent = replace.length + (patch.splice?.append.length ?? 0);
    if (sent > 0 && sent >= after.length) return this.render(model, stream);

    const delta = streamDelta(page.stream, stream);
    if (delta !== undefined) patch.stream = delta;
    if (Object.keys(patch).length === 0) return undefined;

    const base = this.seq;
    const seq = ++this.seq;
    this.page = { messages: after, head, ...(stream ? { stream: copyStream(stream) } : {}) };
    if (Object.keys(patch).length === 1 && patch.stream) return { type: 'stream', seq, base, ...patch.stream };
    return { type: 'patch', seq, base, ...patch };
  }

  /**
   * The update for a change of the streaming block alone (a streamed token): the messages and the
   * header are left as the page has them. Undefined when the page has it already, or holds nothing
   * known (then `update` renders).
   */
  updateStream(stream?: ChatStream): ChatUpdate | undefined {
    const page = this.page;
    if (!page) return undefined;
    const delta = streamDelta(page.stream, stream);
    if (delta === undefined) return undefined;
    const base = this.seq;
    const seq = ++this.seq;
    this.page = { messages: page.messages, head: page.head, ...(stream ? { stream: copyStream(stream) } : {}) };
    return delta === null ? { type: 'patch', seq, base, stream: null } : { type: 'stream', seq, base, ...delta };
  }

  private render(model: ChatModel, stream: ChatStream | undefined): ChatUpdate {
    const seq = ++this.seq;
    this.page = { messages: model.messages, head: headOf(model), ...(stream ? { stream: copyStream(stream) } : {}) };
    return stream ? { type: 'render', seq, model, stream: copyStream(stream) } : { type: 'render', seq, model };
  }
}

/**
 * The page after an update, or 'resync' when the update does not follow what the page holds
 * (the page then asks for a render). Does not change `page`.
 */
export function applyUpdate(page: ChatPageState | undefined, update: ChatUpdate): ChatPageState | 'resync' {
  if (update.type === 'render') {
    return { seq: update.seq, model: update.model, ...(update.stream ? { stream: copyStream(update.stream) } : {}) };
  }
  if (!page || update.base !== page.seq) return 'resync';
  let messages = page.model.messages;
  let model = page.model;
  let stream = page.stream;
  if (update.type === 'stream') {
    const next = applyStream(stream, update);
    if (next === 'resync') return next;
    stream = next;
  } else {
    if (update.head) model = { ...update.head, messages };
    if (update.replace || update.splice) {
      messages = [...messages];
      for (const r of update.replace ?? []) {
        if (messages[r.at]?.id !== r.message.id) return 'resync';
        messages[r.at] = r.message;
      }
      if (update.splice) {
        if (update.splice.keep > messages.length) return 'resync';
        messages = [...messages.slice(0, update.splice.keep), ...update.splice.append];
      }
    }
    model = { ...model, messages };
    if (update.stream === null) stream = undefined;
    else if (update.stream) {
      const next = applyStream(stream, update.stream);
      if (next === 'resync') return next;
      stream = next;
    }
  }
  return { seq: update.seq, model, ...(stream ? { stream } : {}) };
}

function applyStream(stream: ChatStream | undefined, delta: ChatStreamDelta): ChatStream | 'resync' {
  const text = appended(stream?.text ?? '', delta.from, delta.text);
  const reasoning = delta.reasoning ? appended(stream?.reasoning ?? '', delta.reasoning.from, delta.reasoning.text) : '';
  if (text === undefined || reasoning === undefined) return 'resync';
  return streamOf(text, delta.tools, reasoning, delta.since);
}

/** The first `from` characters of `had` and then `text`; undefined when `had` is shorter (an update went missing). */
function appended(had: string, from: number, text: string): string | undefined {
  return from > had.length ? undefined : had.slice(0, from) + text;
}

/** A streaming block with only the parts it has: no empty reasoning, no undefined `since` (as posting gives it). */
function streamOf(text: string, tools: ChatStream['tools'], reasoning: string | undefined, since: number | undefined): ChatStream {
  const s: ChatStream = { text, tools };
  if (reasoning) s.reasoning = reasoning;
  if (since !== undefined) s.since = since;
  return s;
}

/**
 * The streaming block as a change: null when it went, undefined when it is as the page has it.
 * Each text is sent as what it added when it grew, else whole.
 */
function streamDelta(had: ChatStream | undefined, now: ChatStream | undefined): ChatStreamDelta | null | undefined {
  if (!now) return had ? null : undefined;
  const reasoning = now.reasoning ?? '';
  if (had && now.text === had.text && reasoning === (had.reasoning ?? '') && now.since === had.since && sameJson(now.tools, had.tools)) return undefined;
  const from = had && now.text.startsWith(had.text) ? had.text.length : 0;
  const delta: ChatStreamDelta = { from, text: now.text.slice(from), tools: now.tools };
  if (reasoning) {
    const was = had?.reasoning ?? '';
    const at = reasoning.startsWith(was) ? was.length : 0;
    delta.reasoning = { from: at, text: reasoning.slice(at) };
  }
  if (now.since !== undefined) delta.since = now.since;
  return delta;
}

function copyStream(s: ChatStream): ChatStream {
  return streamOf(s.text, s.tools, s.reasoning, s.since);
}

function headOf(model: ChatModel): ChatHead {
  const head: Partial<ChatModel> = { ...model };
  delete head.messages;
  return head as ChatHead;
}

/**
 * Deep equality of JSON-shaped data, a missing field and an undefined one being the same (as
 * they are once posted). Strings compare by content, so an unchanged message costs a comparison,
 * not a serialization.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k in x) if (!sameJson(x[k], y[k])) return false;
  for (const k in y) if (x[k] === undefined && y[k] !== undefined) return false;
  return true;
}
