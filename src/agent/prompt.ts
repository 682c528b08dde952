// The agent's request, built purely from the branch: system prompt (+ summary), the branch replayed,
// each instruction after the summary with its block in front (the full scene state, or what
// changed since the instruction before: src/agent/sentBlocks.ts; for the newest one, the codex
// entries the turn names after it, src/codex/story.ts), the recall after the newest instruction,
// then put into the shape every endpoint accepts (requestShape.ts). Every message before the
// newest instruction is serialized exactly as last time, so each request extends the previous one
// byte for byte and provider prompt caches keep hitting; only what is sent once with the newest
// instruction (the codex block, the recall) and a new summary change that message next turn
// (src/memory/compactContext.ts).
import type { ContextMessage } from '../session/entries';
import { appendToNewest, injectState, withBlock } from '../state/inject';
import { blockLines } from '../state/text';
import type { OpenAIMessage, OpenAIToolCall } from '../model/streaming';
import type { Lang } from './manuscript';
import { cutOffText, wellFormed } from './requestShape';
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
  /** The block in front of the newest instruction (the state or its changes); '' for none. */
  stateBlock: string;
  /**
   * The blocks earlier instructions were sent with, by user entry id (src/agent/sentBlocks.ts);
   * an instruction without one is replayed bare. The newest instruction always gets `stateBlock`.
   */
  pastBlocks?: ReadonlyMap<string, string>;
  /** 【相关回忆】 for this turn: after the newest instruction, never replayed. */
  recall?: string;
  lang: Lang;
}

/**
 * Messages for one model call. The summary is appended to the single system message rather than
 * sent as a second system or user message: strict chat templates reject a system message after
 * the first, or two user messages in a row. It changes the prefix once, when it is written: the
 * turns it drops change it there anyway. The shape rules run here, inside the one function
 * every request goes through, so no caller can send a request without them; they run after the
 * state block is injected, so it stays directly in front of the newest instruction even when
 * that instruction is merged with earlier ones.
 */
export function buildRequest(input: RequestInput): OpenAIMessage[] {
  let system = input.system;
  // Summaries stored before blockLines existed (or edited by hand) get the same line rules here.
  const summary = blockLines(input.summaryText ?? '').trim();
  if (summary !== '') {
    const heading = input.lang === 'en' ? SYSTEM_EN.summaryHeading : SYSTEM_ZH.summaryHeading;
    system += `\n\n${heading}\n${summary}`;
  }
  const context = input.pastBlocks && input.pastBlocks.size > 0 ? withPastBlocks(input.context, input.pastBlocks) : input.context;
  const messages: OpenAIMessage[] = [{ role: 'system', content: system }, ...replay(context, input.lang)];
  return wellFormed(appendToNewest(injectState(messages, input.stateBlock), input.recall ?? ''), { lang: input.lang });
}

/**
 * Earlier instructions as they were sent: each with its block in front, as injectState put it
 * there. One edited to nothing stays empty, so the shape rules leave it out as before.
 */
function withPastBlocks(context: readonly ContextMessage[], blocks: ReadonlyMap<string, string>): ContextMessage[] {
  let newest = -1;
  for (let i = context.length - 1; i >= 0 && newest < 0; i--) if (context[i]?.role === 'user') newest = i;
  return context.map((m, i) => {
    const block = m.role === 'user' && i !== newest && m.text.trim() !== '' ? blocks.get(m.entryId) : undefined;
    return block === undefined || block === '' ? m : { ...m, text: withBlock(block, m.text) };
  });
}

/**
 * The branch as wire messages, one per context message, BEFORE the shape rules (wellFormed pairs
 * calls with results and fixes the role order). A stopped reply that said something gets the
 * cut-off note, so the model knows it was not finished.
 */
export function replay(context: readonly ContextMessage[], lang: Lang): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  for (const m of context) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'tool') {
      if (m.callId !== undefined) out.push({ role: 'tool', tool_call_id: m.callId, content: m.text });
    } else {
      const text = m.finish === 'aborted' && m.text.trim() !== '' ? `${m.text}\n\n${cutOffText(lang)}` : m.text;
      const calls = m.toolCalls ?? [];
      if (calls.length === 0) {
        out.push({ role: 'assistant', content: text });
        continue;
      }
      const wire: OpenAIToolCall[] = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: replayArguments(c.arguments) } }));
      out.push({ role: 'assistant', content: text === '' ? null : text, tool_calls: wire });
    }
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
