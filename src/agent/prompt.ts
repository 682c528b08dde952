// The agent's request, built purely from the branch: system prompt (+ summary), the branch replayed
// raw, and the scene-state block in front of the NEWEST user message only. Past messages are
// serialized exactly as last time, so each request is a byte-identical prefix of the next one and
// provider prompt caches keep hitting.
import type { ContextMessage } from '../session/entries';
import { injectState } from '../state/inject';
import { blockLines } from '../state/text';
import type { OpenAIMessage, OpenAIToolCall } from '../model/streaming';
import type { Lang } from './manuscript';
import { SYSTEM_EN } from './prompts/en';
import { SYSTEM_ZH } from './prompts/zh';

export interface SystemPromptInput {
  lang: Lang;
  /** The novel's title from worldline.yaml ('' when unset). */
  title: string;
  /** The style text from worldline.yaml ('' when unset). */
  style: string;
}

/** Role, style and tool rules. Stable for a given project file: no per-turn content. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const p = input.lang === 'en' ? SYSTEM_EN : SYSTEM_ZH;
  const parts = [p.role(input.title.trim())];
  const style = input.style.trim();
  if (style !== '') parts.push(`${p.styleHeading}\n${style}`);
  parts.push(`${p.rulesHeading}\n${p.rules.map((r) => `- ${r}`).join('\n')}`);
  return parts.join('\n\n');
}

export interface RequestInput {
  system: string;
  /** The active summary's text (Session.contextWithSummary), when the branch has one. */
  summaryText?: string;
  /** The branch's messages after the summary (Session.context / contextWithSummary().messages). */
  context: readonly ContextMessage[];
  /** formatState output for the current leaf; '' for none. */
  stateBlock: string;
  lang: Lang;
}

/**
 * Messages for one model call. The summary is appended to the single system message rather than
 * sent as a second system or user message: strict chat templates reject a system message after
 * the first, or two user messages in a row.
 */
export function buildRequest(input: RequestInput): OpenAIMessage[] {
  let system = input.system;
  // Summaries stored before blockLines existed (or edited by hand) get the same line rules here.
  const summary = blockLines(input.summaryText ?? '').trim();
  if (summary !== '') {
    const heading = input.lang === 'en' ? SYSTEM_EN.summaryHeading : SYSTEM_ZH.summaryHeading;
    system += `\n\n${heading}\n${summary}`;
  }
  const messages: OpenAIMessage[] = [{ role: 'system', content: system }, ...replay(input.context)];
  return injectState(messages, input.stateBlock);
}

/**
 * The branch as wire messages. Every tool call must be answered by a tool message right after its
 * assistant message (providers reject anything else), so calls without results — an aborted turn,
 * a hidden result — are dropped, and so are results that do not follow their call.
 */
export function replay(context: readonly ContextMessage[]): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  for (let i = 0; i < context.length; i++) {
    const m = context[i] as ContextMessage;
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.text });
      continue;
    }
    if (m.role === 'tool') continue; // results are taken with their call below; strays are dropped
    // An assistant message and the tool results that directly follow it.
    const results = new Map<string, ContextMessage>();
    let j = i + 1;
    for (; j < context.length && (context[j] as ContextMessage).role === 'tool'; j++) {
      const r = context[j] as ContextMessage;
      if (r.callId !== undefined && !results.has(r.callId)) results.set(r.callId, r);
    }
    const calls = (m.toolCalls ?? []).filter((c) => results.has(c.id));
    i = j - 1;
    if (calls.length === 0) {
      if (m.text !== '') out.push({ role: 'assistant', content: m.text });
      continue;
    }
    const wire: OpenAIToolCall[] = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: replayArguments(c.arguments) } }));
    out.push({ role: 'assistant', content: m.text === '' ? null : m.text, tool_calls: wire });
    for (const c of calls) out.push({ role: 'tool', tool_call_id: c.id, content: (results.get(c.id) as ContextMessage).text });
  }
  return out;
}

/**
 * Arguments as replayed. Malformed JSON (the tool already answered with an error) becomes "{}":
 * some servers parse past arguments to render their chat template and reject the whole request.
 * Deterministic, so the replay stays byte-stable.
 */
export function replayArguments(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return args;
  } catch {
    // fall through
  }
  return '{}';
}
