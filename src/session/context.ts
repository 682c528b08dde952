// Rebuilds the model's context from a branch: "the world is a function of the branch".
//
// Rules (documented choices):
//  - only user, assistant and tool entries become messages; checkpoint, state, summary and save
//    entries are bookkeeping and are left out;
//  - an `edit` side entry replaces the text (a tool entry's result); a `hide` side entry leaves the
//    message out;
//  - an assistant turn that ended in `error` or `aborted` is included when it has text: the
//    novelist saw that text and the model should know it was said. Its `error` is not included;
//    its `finish` is (set only when it is not 'stop'), so a stopped reply can be replayed marked
//    as cut off;
//  - each tool result belongs to the nearest earlier assistant on the branch with an open call of
//    that id (ids may repeat across replies). A result is kept only with its visible call; a
//    result with no call (or a second one) is left out. A call whose result is hidden is left out
//    with it; a call that was never answered on this branch (a failed or interrupted turn) is
//    kept, and the request builder (src/agent/requestShape.ts) answers it "not run";
//  - an assistant message with neither text nor a kept tool call is left out (nothing to say).
//
// This is the branch as the model may see it, not yet a request: role order and pairing are the
// request builder's job.

import { AssistantEntry, ChainEntry, ContextMessage, SummaryEntry, ToolCall } from './entries';

export interface TextSource {
  textOf(entry: ChainEntry): string;
  isHidden(id: string): boolean;
}

export function buildContext(path: readonly ChainEntry[], source: TextSource): ContextMessage[] {
  const owners = resultOwners(path);
  const messages: ContextMessage[] = [];
  for (const e of path) {
    if (source.isHidden(e.id)) continue;
    if (e.type === 'user') {
      messages.push({ entryId: e.id, role: 'user', text: source.textOf(e) });
    } else if (e.type === 'assistant') {
      const message = assistantMessage(e, source.textOf(e), owners.answers.get(e.id), source);
      if (message) messages.push(message);
    } else if (e.type === 'tool') {
      const owner = owners.ownerOf.get(e.id);
      if (owner === undefined || source.isHidden(owner)) continue; // no call for it, or its call is hidden
      messages.push({ entryId: e.id, role: 'tool', text: source.textOf(e), callId: e.callId, name: e.name });
    }
  }
  return messages;
}

/** Who answers what: for each tool entry its assistant, for each assistant its calls' result entries. */
function resultOwners(path: readonly ChainEntry[]): { ownerOf: Map<string, string>; answers: Map<string, Map<string, string>> } {
  const ownerOf = new Map<string, string>();
  const answers = new Map<string, Map<string, string>>();
  const open = new Map<string, string[]>(); // call id -> assistants with that call still open, oldest first
  for (const e of path) {
    if (e.type === 'assistant') {
      for (const call of e.toolCalls ?? []) {
        const waiting = open.get(call.id) ?? [];
        if (!waiting.includes(e.id)) waiting.push(e.id);
        open.set(call.id, waiting);
      }
    } else if (e.type === 'tool') {
      const owner = open.get(e.callId)?.pop(); // the nearest earlier open call
      if (owner === undefined) continue;
      ownerOf.set(e.id, owner);
      const mine = answers.get(owner) ?? new Map<string, string>();
      mine.set(e.callId, e.id);
      answers.set(owner, mine);
    }
  }
  return { ownerOf, answers };
}

/** An assistant entry as a message: its visible calls (answered or not), or undefined when it says nothing. */
export function assistantMessage(
  e: AssistantEntry,
  text: string,
  answers: ReadonlyMap<string, string> | undefined,
  source: TextSource,
): ContextMessage | undefined {
  const seen = new Set<string>();
  const calls: ToolCall[] = (e.toolCalls ?? []).filter((c) => {
    if (seen.has(c.id)) return false; // a repeated id in one reply could never be answered apart
    seen.add(c.id);
    const result = answers?.get(c.id);
    return result === undefined || !source.isHidden(result);
  });
  if (text.length === 0 && calls.length === 0) return undefined;
  const message: ContextMessage = { entryId: e.id, role: 'assistant', text };
  if (calls.length > 0) message.toolCalls = calls;
  if (e.finish !== 'stop') message.finish = e.finish;
  if (e.providerFields !== undefined) message.providerFields = e.providerFields;
  return message;
}

/**
 * The active summary of a branch: the last visible `summary` entry on the path whose
 * `coversThroughId` is on the path. Returns where the uncovered messages start.
 * The covered entry is looked for backwards from the summary first (it lies a few turns before
 * it), so the cost is what lies after the covered entry, not the whole path.
 */
export function activeSummary(
  path: readonly ChainEntry[],
  source: Pick<TextSource, 'isHidden'>,
): { summary: SummaryEntry; firstUncovered: number } | undefined {
  let position: Map<string, number> | undefined;
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (e.type !== 'summary' || source.isHidden(e.id)) continue;
    let covered = position ? (position.get(e.coversThroughId) ?? -1) : -1;
    for (let j = i - 1; !position && j >= 0; j--) {
      if ((path[j] as ChainEntry).id === e.coversThroughId) {
        covered = j;
        break;
      }
    }
    if (covered < 0 && !position) {
      // Not before it (a hand-edited file): anywhere on the path still counts, as it always did.
      position = new Map();
      for (let k = 0; k < path.length; k++) position.set((path[k] as ChainEntry).id, k);
      covered = position.get(e.coversThroughId) ?? -1;
    }
    if (covered >= 0) return { summary: e, firstUncovered: covered + 1 };
  }
  return undefined;
}

/** The summary view of a branch: the active summary's text and the messages it does not cover. */
export function activeSummaryView(
  path: readonly ChainEntry[],
  source: TextSource,
): { summary?: SummaryEntry; summaryText?: string; messages: ContextMessage[] } {
  const active = activeSummary(path, source);
  if (!active) return { messages: buildContext(path, source) };
  return {
    summary: active.summary,
    summaryText: source.textOf(active.summary),
    messages: buildContext(path.slice(active.firstUncovered), source),
  };
}
