// What the Chat view shows of a branch: one message per user entry, and one per turn reply that
// gathers the turn's assistant entries and tool results into compact lines. An imported reply
// (SillyTavern) is a message of its own, as it was there: a group chat's replies in a row stay
// apart, each with its speaker and its own ◀ ▶ over its swipes. Pure: it reads a Session and
// returns plain data.
import type { ChainEntry, AssistantEntry, ToolEntry, FinishReason } from '../session/entries';

export interface TranscriptSource {
  path(): readonly ChainEntry[];
  textOf(id: string): string;
  isHidden(id: string): boolean;
  sideFor(targetId: string, type: 'edit'): unknown;
  variants(id: string): { siblings: ChainEntry[]; index: number };
}

export interface TranscriptToolLine {
  text: string;
  path?: string;
  isError: boolean;
}

export interface TranscriptMessage {
  /** The entry that carries variants, regenerate, branch-here: the user entry, or the turn's first reply entry. */
  id: string;
  role: 'user' | 'assistant';
  /** Every entry the message stands for (hide applies to all of them). */
  entryIds: string[];
  /** The entry an in-place edit changes: the last reply entry with text. */
  editId: string;
  text: string;
  hidden: boolean;
  edited: boolean;
  variant: { index: number; count: number };
  finish?: FinishReason;
  error?: string;
  tools: TranscriptToolLine[];
  model?: string;
  /** An imported message's speaker as the source named it (SillyTavern's `name`); absent on Worldline's own. */
  speaker?: string;
  checkpoint?: { entryId: string; commit: string; changed: string[] };
}

const WRITE_TOOLS = new Set(['write_file', 'edit_file', 'append_file', 'read_file']);

export function buildTranscript(source: TranscriptSource): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  let reply: TranscriptMessage | undefined;
  const callArgs = new Map<string, { name: string; path?: string }>();
  const variantOf = (id: string) => {
    const v = source.variants(id);
    return { index: Math.max(0, v.index), count: Math.max(1, v.siblings.length) };
  };

  for (const e of source.path()) {
    if (e.type === 'user') {
      reply = undefined;
      out.push({
        id: e.id, role: 'user', entryIds: [e.id], editId: e.id, text: source.textOf(e.id),
        hidden: source.isHidden(e.id), edited: source.sideFor(e.id, 'edit') !== undefined,
        variant: variantOf(e.id), tools: [],
        ...(e.imported ? { speaker: e.imported.name } : {}),
      });
    } else if (e.type === 'assistant' && e.imported) {
      // Its own message; nothing after it joins it (an imported reply has no tool calls).
      const own: TranscriptMessage = {
        id: e.id, role: 'assistant', entryIds: [], editId: e.id, text: '', hidden: true, edited: false,
        variant: variantOf(e.id), tools: [], speaker: e.imported.name,
      };
      addAssistant(own, e, source);
      out.push(own);
      reply = undefined;
    } else if (e.type === 'assistant') {
      if (!reply) {
        reply = {
          id: e.id, role: 'assistant', entryIds: [], editId: e.id, text: '', hidden: true, edited: false,
          variant: variantOf(e.id), tools: [],
        };
        out.push(reply);
      }
      addAssistant(reply, e, source);
      for (const call of e.toolCalls ?? []) callArgs.set(call.id, { name: call.name, path: pathArg(call.arguments) });
    } else if (e.type === 'tool' && reply) {
      addTool(reply, e, callArgs.get(e.callId));
    } else if (e.type === 'checkpoint' && reply && !reply.checkpoint) {
      // The first checkpoint after a reply is its turn's end; a later one (taken before the next
      // instruction, when the novelist edited by hand) belongs to no reply.
      reply.checkpoint = { entryId: e.id, commit: e.commit, changed: e.changed };
    }
  }
  return out;
}

function addAssistant(reply: TranscriptMessage, e: AssistantEntry, source: TranscriptSource): void {
  reply.entryIds.push(e.id);
  const text = source.textOf(e.id);
  if (text.trim()) {
    reply.text = reply.text ? `${reply.text}\n\n${text}` : text;
    reply.editId = e.id;
  }
  reply.hidden = reply.entryIds.length === 1 ? source.isHidden(e.id) : reply.hidden && source.isHidden(e.id);
  if (source.sideFor(e.id, 'edit') !== undefined) reply.edited = true;
  reply.finish = e.finish;
  reply.model = e.model;
  if (e.error) reply.error = e.error;
}

function addTool(reply: TranscriptMessage, e: ToolEntry, call: { name: string; path?: string } | undefined): void {
  reply.entryIds.push(e.id);
  const first = (e.result.split('\n')[0] ?? '').trim();
  const summary = first.length > 140 ? `${first.slice(0, 139)}…` : first;
  const line: TranscriptToolLine = { text: summary || e.name, isError: e.isError };
  const path = call?.path;
  if (path && WRITE_TOOLS.has(e.name) && !e.isError) line.path = path;
  reply.tools.push(line);
}

function pathArg(json: string): string | undefined {
  try {
    const v: unknown = JSON.parse(json);
    if (typeof v === 'object' && v !== null && 'path' in v) {
      const p = (v as { path: unknown }).path;
      return typeof p === 'string' ? p : undefined;
    }
  } catch {
    // Malformed arguments were reported to the model already; the line just has no link.
  }
  return undefined;
}

/**
 * How many of the agent's streamed tool lines the message list already shows. The agent's stream
 * restarts at every recorded assistant entry and then gains one line per finished call, in call
 * order, just before that call's result is recorded. So the stream's first lines are those of the
 * results recorded since the newest assistant entry on the branch: the tool entries at the end of
 * the path that answer its calls.
 */
export function recordedToolLines(path: readonly ChainEntry[]): number {
  let i = path.length - 1;
  while (i >= 0 && path[i]!.type === 'tool') i--;
  const reply = path[i];
  if (!reply || reply.type !== 'assistant') return 0;
  const calls = new Set((reply.toolCalls ?? []).map((c) => c.id));
  let recorded = 0;
  for (let j = i + 1; j < path.length; j++) {
    const e = path[j]!;
    if (e.type === 'tool' && calls.has(e.callId)) recorded++;
  }
  return recorded;
}
