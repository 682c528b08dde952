// Parameters an endpoint refused. An endpoint we do not know (and sometimes one we do: a new model
// under an old name) answers 400 when a request carries a parameter it does not take — a
// temperature on a reasoning model, `max_tokens` where `max_completion_tokens` is wanted, a
// thinking switch it has never heard of. When the answer names such a parameter, the client sends
// the request once more without it and remembers that for the endpoint and model, in memory for
// the window's life (clients are made per turn; the memory outlives them).

/** Parameters Worldline adds on its own and can do without; nothing else is ever dropped. */
export const DROPPABLE = [
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'stream_options',
  'thinking',
  'enable_thinking',
  'thinking_budget',
  'reasoning_effort',
  'reasoning',
  'provider',
  // Replayed provider fields (never the ones a dialect requires).
  'reasoning_content',
  'reasoning_details',
  'extra_content',
] as const;

export type DroppableParameter = (typeof DROPPABLE)[number];

/** Words with which servers refuse a parameter (OpenAI, vLLM/pydantic, llama.cpp, gateways). */
const REFUSAL = /unsupported|not supported|does not support|doesn't support|unrecognized|unrecognised|unknown|unexpected|not allowed|not permitted|extra (inputs|fields)|invalid|only the default|cannot be|can't be|is not a valid/i;
/** …and with which they ask for one: such an answer is never read as a refusal. */
const DEMAND = /must be passed back|must be provided|is required|are required|missing/i;

function record(x: unknown): Record<string, unknown> | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

/**
 * The parameter a 400/422 answer refuses, among `candidates` (what this request actually sent),
 * or undefined. The error's own `param` wins (OpenAI names it, e.g. "max_tokens" or
 * "messages[2].reasoning_content"); else the first candidate named as a whole word in a message
 * that reads as a refusal and not as a demand.
 */
export function rejectedParameter(
  status: number | undefined,
  message: string,
  param: unknown,
  candidates: ReadonlySet<string>,
): string | undefined {
  if (status !== 400 && status !== 422) return undefined;
  if (typeof param === 'string' && param !== '') {
    const last = param.split(/[.[\]]/).filter((s) => s !== '').pop() ?? '';
    if (candidates.has(last) && !DEMAND.test(message)) return last;
  }
  if (!REFUSAL.test(message) || DEMAND.test(message)) return undefined;
  let best: { name: string; at: number } | undefined;
  for (const name of candidates) {
    const m = new RegExp(`(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)`).exec(message);
    if (!m) continue;
    const at = m.index;
    if (!best || at < best.at) best = { name, at };
  }
  return best?.name;
}

/** The message, status and `param` of an `openai` package APIError (or anything shaped like one). */
export function errorParts(err: unknown): { status: number | undefined; message: string; param: unknown } {
  const o = record(err);
  const status = typeof o?.['status'] === 'number' ? (o['status'] as number) : undefined;
  const inner = record(o?.['error']);
  const nested = record(inner?.['error']) ?? inner;
  const parts = [typeof o?.['message'] === 'string' ? (o['message'] as string) : '', typeof nested?.['message'] === 'string' ? (nested['message'] as string) : ''];
  const param = o?.['param'] ?? nested?.['param'];
  return { status, message: parts.filter((p) => p !== '').join(' '), param };
}

export class EndpointMemory {
  private readonly byEndpoint = new Map<string, Set<string>>();

  private static key(baseURL: string, model: string): string {
    return `${baseURL.trim().replace(/\/+$/, '')}\n${model}`;
  }

  rejected(baseURL: string, model: string): ReadonlySet<string> {
    return this.byEndpoint.get(EndpointMemory.key(baseURL, model)) ?? new Set<string>();
  }

  remember(baseURL: string, model: string, param: string): void {
    const key = EndpointMemory.key(baseURL, model);
    const set = this.byEndpoint.get(key) ?? new Set<string>();
    set.add(param);
    this.byEndpoint.set(key, set);
  }

  clear(): void {
    this.byEndpoint.clear();
  }
}

/** The window's memory (one extension host, one module instance). */
export const endpointMemory = new EndpointMemory();

/** How many parameters one request may shed before its 400 stands. */
export const MAX_PARAMETER_RETRIES = 3;
