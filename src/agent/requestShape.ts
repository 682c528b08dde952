// The shape rules every chat request obeys, whatever the branch holds (hidden, stopped, failed,
// edited, compacted messages). Strict endpoints (DeepSeek's reasoner, many local chat templates)
// answer 400 to anything else, and Retry would repeat the same 400. So, after this function:
//  - system messages come first (gathered into one);
//  - the first message after them is a user message;
//  - user and assistant alternate: never two user or two assistant messages in a row;
//  - an assistant message with tool calls is followed by exactly one tool message per call, in
//    call order, and a tool message appears nowhere else;
//  - no assistant message is empty, and the request never ends with an assistant message.
// The bridging texts exist only in the request (the Chat shows the session, never this).
import type { OpenAIMessage, OpenAIToolCall } from '../model/streaming';
import type { Lang } from './manuscript';

export interface ShapeOptions {
  lang: Lang;
}

type Assistant = Extract<OpenAIMessage, { role: 'assistant' }>;
type Tool = Extract<OpenAIMessage, { role: 'tool' }>;

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

/**
 * The result given to a call whose result never came (the turn failed, was stopped or crashed
 * before it ran). Not turn.ts's "the novelist stopped the turn": that is only one of the causes.
 */
export function notRunText(lang: Lang): string {
  return t(lang, 'Not run: the turn ended before this call could run.', '未执行：这一轮在这次调用运行之前就结束了。');
}

/** Put in front of a conversation that would start with a reply (its instruction hidden or summarised). */
export function leftOutText(lang: Lang): string {
  return t(lang, '(Earlier messages are left out.)', '（更早的对话已略去。）');
}

/** Appended to a reply the novelist stopped, so the model knows it was not finished. */
export function cutOffText(lang: Lang): string {
  return t(lang, '(Cut off here: the novelist stopped this reply.)', '（回复到这里被作者停止了。）');
}

const JOIN = '\n\n';

/**
 * Returns the messages rearranged to the rules above; the input is not changed. Decisions:
 *  - Consecutive user messages are MERGED (texts joined by a blank line, empty ones left out),
 *    not bridged with an invented reply: a made-up assistant line is words put in the model's
 *    mouth, which it tends to imitate. The state block is injected before this runs, so it stays
 *    directly in front of the newest instruction, at the end of the merged message.
 *  - Consecutive assistant messages are merged too; only the last of a run can carry tool calls
 *    (a call is always followed by its results), so its calls, its results and its other fields
 *    (a provider's extras) are kept, and the texts before it are prepended.
 *  - A tool call without a result gets notRunText; a tool message that does not directly answer
 *    a call of the assistant message before it is dropped; a repeated call id in one message is
 *    dropped (it could never be answered apart).
 *  - A conversation starting with a reply gets leftOutText as its first user message, and a
 *    trailing assistant message without tool calls (nothing to answer) is left out.
 * Deterministic and idempotent: the same input gives the same bytes.
 */
export function wellFormed(messages: readonly OpenAIMessage[], opts: ShapeOptions): OpenAIMessage[] {
  const systems: string[] = [];
  const body: OpenAIMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') systems.push(m.content);
    else body.push(m);
  }

  // Units: a user message, or an assistant message with exactly its results. A tool message is
  // taken by the call it answers; any other is a stray and goes.
  const units: Unit[] = [];
  for (let i = 0; i < body.length; i++) {
    const m = body[i] as OpenAIMessage;
    if (m.role === 'user') units.push({ user: m });
    if (m.role !== 'assistant') continue;
    const run: Tool[] = [];
    while (i + 1 < body.length && (body[i + 1] as OpenAIMessage).role === 'tool') run.push(body[++i] as Tool);
    const reply = withResults(m, run, opts.lang);
    if (reply) units.push({ reply });
  }
  // An empty user message says nothing (some servers refuse one); the newest stays: it is the turn.
  const newest = units.map((u) => 'user' in u).lastIndexOf(true);
  const kept = units.filter((u, i) => !('user' in u) || i === newest || u.user.content.trim() !== '');
  // Nothing to answer after a trailing reply without calls: a model would only continue it.
  while (kept.length > 0 && isTextOnly(kept[kept.length - 1] as Unit)) kept.pop();

  const out: OpenAIMessage[] = [];
  if (systems.length > 0) out.push({ role: 'system', content: systems.join(JOIN) });
  const start = out.length;
  for (const unit of kept) {
    const prev = out[out.length - 1];
    if ('user' in unit) {
      if (prev?.role === 'user') out[out.length - 1] = { ...prev, content: joinTexts(prev.content, unit.user.content) };
      else out.push(unit.user);
      continue;
    }
    const [head, ...results] = unit.reply;
    if (out.length === start) out.push({ role: 'user', content: leftOutText(opts.lang) });
    const last = out[out.length - 1] as OpenAIMessage;
    // Only a text-only reply can end `out` here: one with calls is always followed by its results.
    if (last.role === 'assistant') out[out.length - 1] = { ...head, content: joinTexts(last.content ?? '', head.content ?? '') || null };
    else out.push(head);
    out.push(...results);
  }
  return out;
}

type Unit = { user: Extract<OpenAIMessage, { role: 'user' }> } | { reply: [Assistant, ...Tool[]] };

/** The assistant message followed by exactly its results, or undefined when it has nothing to say. */
function withResults(m: Assistant, run: readonly Tool[], lang: Lang): [Assistant, ...Tool[]] | undefined {
  const seen = new Set<string>();
  const calls: OpenAIToolCall[] = [];
  for (const c of m.tool_calls ?? []) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    calls.push(c);
  }
  if (calls.length === 0) {
    const content = m.content ?? '';
    if (content.trim() === '') return undefined;
    const { tool_calls: _none, ...rest } = m;
    return [{ ...rest, content }];
  }
  const results = new Map<string, Tool>();
  for (const r of run) if (!results.has(r.tool_call_id)) results.set(r.tool_call_id, r);
  const head: Assistant = { ...m, content: m.content === '' ? null : m.content, tool_calls: calls };
  return [head, ...calls.map((c): Tool => results.get(c.id) ?? { role: 'tool', tool_call_id: c.id, content: notRunText(lang) })];
}

function isTextOnly(u: Unit): boolean {
  return 'reply' in u && u.reply.length === 1;
}

function joinTexts(a: string, b: string): string {
  return [a, b].filter((s) => s.trim() !== '').join(JOIN);
}
