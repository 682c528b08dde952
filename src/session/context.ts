// Rebuilds the model's context from a branch: "the world is a function of the branch".
//
// Rules (documented choices):
//  - only user, assistant and tool entries become messages; checkpoint, state, summary and save
//    entries are bookkeeping and are left out;
//  - an `edit` side entry replaces the text (a tool entry's result); a `hide` side entry leaves the
//    message out;
//  - an assistant turn that ended in `error` or `aborted` is included when it has text: the
//    novelist saw that text and the model should know it was said. Its `error` is not included;
//  - a tool call is kept only together with its result on the same branch, and a result only with
//    its call: a provider rejects a call without a result or a result without a call, and an
//    aborted turn, a hidden message or a summary cut can each leave one without the other;
//  - an assistant message with neither text nor a kept tool call is left out (nothing to say).

import { AssistantEntry, ChainEntry, ContextMessage, SummaryEntry, ToolCall } from './entries';

export interface TextSource {
  textOf(entry: ChainEntry): string;
  isHidden(id: string): boolean;
}

export function buildContext(path: readonly ChainEntry[], source: TextSource): ContextMessage[] {
  const answered = new Set<string>();
  for (const e of path) if (e.type === 'tool' && !source.isHidden(e.id)) answered.add(e.callId);

  const called = new Set<string>();
  const messages: ContextMessage[] = [];
  for (const e of path) {
    if (source.isHidden(e.id)) continue;
    if (e.type === 'user') {
      messages.push({ entryId: e.id, role: 'user', text: source.textOf(e) });
    } else if (e.type === 'assistant') {
      const message = assistantMessage(e, source.textOf(e), answered);
      if (!message) continue;
      for (const call of message.toolCalls ?? []) called.add(call.id);
      messages.push(message);
    } else if (e.type === 'tool') {
      if (!called.delete(e.callId)) continue; // no call for it, or already answered
      messages.push({ entryId: e.id, role: 'tool', text: source.textOf(e), callId: e.callId, name: e.name });
    }
  }
  return messages;
}

function assistantMessage(e: AssistantEntry, text: string, answered: ReadonlySet<string>): ContextMessage | undefined {
  const calls: ToolCall[] = (e.toolCalls ?? []).filter((c) => answered.has(c.id));
  if (text.length === 0 && calls.length === 0) return undefined;
  const message: ContextMessage = { entryId: e.id, role: 'assistant', text };
  if (calls.length > 0) message.toolCalls = calls;
  return message;
}

/**
 * The active summary of a branch: the last visible `summary` entry on the path whose
 * `coversThroughId` is on the path. Returns where the uncovered messages start.
 */
export function activeSummary(
  path: readonly ChainEntry[],
  source: Pick<TextSource, 'isHidden'>,
): { summary: SummaryEntry; firstUncovered: number } | undefined {
  const position = new Map<string, number>();
  path.forEach((e, i) => position.set(e.id, i));
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (e.type !== 'summary' || source.isHidden(e.id)) continue;
    const covered = position.get(e.coversThroughId);
    if (covered !== undefined) return { summary: e, firstUncovered: covered + 1 };
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
