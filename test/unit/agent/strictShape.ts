// A strict judge of a chat request's shape, written apart from src/agent/requestShape.ts so the
// tests do not grade the code with itself. It answers what a strict endpoint (DeepSeek's
// reasoner, strict local chat templates) would refuse with a 400: the first problem, or undefined.

export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

function callIds(m: WireMessage): string[] | undefined {
  if (m.tool_calls === undefined) return undefined;
  if (!Array.isArray(m.tool_calls)) return [];
  return m.tool_calls.map((c: unknown) => String((c as { id?: unknown }).id));
}

function isBlank(content: unknown): boolean {
  return content === null || content === undefined || (typeof content === 'string' && content.trim() === '');
}

export function shapeProblem(messages: readonly WireMessage[]): string | undefined {
  if (messages.length === 0) return 'no messages';
  let i = 0;
  if (messages[0]?.role === 'system') i = 1;
  if (messages.slice(i).some((m) => m.role === 'system')) return 'a system message after the first';
  if (i >= messages.length) return 'no user message';
  if (messages[i]?.role !== 'user') return `the first message after the system prompt is "${messages[i]?.role}", not "user"`;
  let previous = 'system';
  for (; i < messages.length; i++) {
    const m = messages[i] as WireMessage;
    if (m.role === 'tool') return `message ${i}: a tool result (${String(m.tool_call_id)}) that answers no call before it`;
    if (m.role !== 'user' && m.role !== 'assistant') return `message ${i}: unknown role "${m.role}"`;
    if (m.role === previous) return `message ${i}: two "${m.role}" messages in a row`;
    previous = m.role;
    const ids = m.role === 'assistant' ? callIds(m) : undefined;
    if (ids !== undefined && ids.length === 0) return `message ${i}: an empty tool_calls list`;
    if (m.role === 'assistant' && ids === undefined && isBlank(m.content)) return `message ${i}: an empty assistant message`;
    if (ids === undefined) continue;
    if (new Set(ids).size !== ids.length) return `message ${i}: a repeated tool call id`;
    for (const id of ids) {
      const r = messages[i + 1];
      if (!r || r.role !== 'tool') return `message ${i}: tool call ${id} has no result after it`;
      if (r.tool_call_id !== id) return `message ${i + 1}: the result for ${String(r.tool_call_id)} where ${id} was due`;
      i++;
    }
    previous = 'tool';
  }
  if (previous === 'assistant') return 'the request ends with an assistant message';
  return undefined;
}
