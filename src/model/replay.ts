// Provider fields on their way back: from the session's entries onto the request's wire messages
// (`carryProviderFields`), and from those onto the JSON actually sent (`toWireMessages`, the
// streaming client's serialisation), under the dialect's replay rule. Deterministic, so a replayed
// branch serialises byte for byte as it did the last time and prompt caches keep hitting.
import type { ContextMessage, ProviderFields } from '../session/entries';
import { PROVIDER_FIELDS_MAX_CHARS } from '../session/validate';
import { replayFields, type Dialect } from './dialects';
import type { OpenAIMessage, OpenAIToolCall } from './wire';

/**
 * Puts each context message's provider fields on the wire message that replays it. Assistant
 * messages with tool calls are matched in order by their first call id (ids may repeat across
 * replies, never within the order of a branch), which is where every dialect's replay rule
 * applies; fields the request builder already carried are left alone.
 */
export function carryProviderFields(messages: readonly OpenAIMessage[], context: readonly ContextMessage[]): OpenAIMessage[] {
  const sources = context.filter((m) => m.role === 'assistant' && (m.toolCalls ?? []).length > 0);
  let next = 0;
  return messages.map((w) => {
    if (w.role !== 'assistant' || !w.tool_calls || w.tool_calls.length === 0) return w;
    const first = w.tool_calls[0]?.id;
    let found = -1;
    for (let i = next; i < sources.length; i++) {
      if ((sources[i]?.toolCalls ?? []).some((c) => c.id === first)) {
        found = i;
        break;
      }
    }
    if (found < 0) return w;
    next = found + 1;
    const source = sources[found] as ContextMessage;
    const byId = new Map((source.toolCalls ?? []).map((c) => [c.id, c.providerFields] as const));
    const carried = w.providerFields ?? source.providerFields;
    let changed = carried !== w.providerFields;
    const calls = w.tool_calls.map((c): OpenAIToolCall => {
      const fields = c.providerFields ?? byId.get(c.id);
      if (fields === c.providerFields || fields === undefined) return c;
      changed = true;
      return { ...c, providerFields: fields };
    });
    if (!changed) return w;
    const out: OpenAIMessage = { ...w, tool_calls: calls };
    if (carried) out.providerFields = carried;
    return out;
  });
}

/**
 * The messages as sent: carriers removed, the dialect's replayed fields in their place (after
 * `content`, on the message; after `function`, on each call). `skip`: fields the endpoint refused.
 */
export function toWireMessages(dialect: Dialect, messages: readonly OpenAIMessage[], skip: ReadonlySet<string> = new Set<string>()): unknown[] {
  return messages.map((m) => {
    if (m.role !== 'assistant') return m;
    const calls = m.tool_calls ?? [];
    const fields = replayFields(dialect, { role: 'assistant', ...(m.providerFields ? { providerFields: m.providerFields } : {}), toolCalls: calls }, skip);
    const wire: Record<string, unknown> = { role: 'assistant', content: m.content, ...fields.message };
    if (m.tool_calls) {
      wire['tool_calls'] = m.tool_calls.map((c) => ({ id: c.id, type: c.type, function: c.function, ...(fields.toolCalls[c.id] ?? {}) }));
    }
    return wire;
  });
}

/**
 * Provider fields as they may be written to the session: a plain JSON object within the size the
 * session accepts. Over the cap, the longest string values are emptied (the field stays, which is
 * what DeepSeek checks) until it fits; what still does not fit is dropped.
 */
export function boundProviderFields(fields: ProviderFields | undefined): ProviderFields | undefined {
  if (!fields || Object.keys(fields).length === 0) return undefined;
  let out: ProviderFields;
  try {
    out = JSON.parse(JSON.stringify(fields)) as ProviderFields;
  } catch {
    return undefined;
  }
  const size = (): number => JSON.stringify(out).length;
  if (size() <= PROVIDER_FIELDS_MAX_CHARS) return out;
  const strings = Object.keys(out).filter((k) => typeof out[k] === 'string').sort((a, b) => (out[b] as string).length - (out[a] as string).length);
  for (const k of strings) {
    out[k] = '';
    if (size() <= PROVIDER_FIELDS_MAX_CHARS) return out;
  }
  return undefined;
}
