// Test Connection: one tiny tool-call request to the writing model, over real HTTP with the
// dialect's rules (the same streaming client a turn uses), and what it shows: whether the
// endpoint answered, whether tools work (the model called the offered tool), whether thinking is
// on (reasoning fields or reasoning tokens came back), and the context window where it is known
// (the endpoint's model list, else the dialect's documented figure).
import type { Dialect, DialectId, ThinkingMode } from './dialects';
import { ModelError, type ModelErrorCode, type ModelErrorKind } from './errors';
import type { EndpointMemory } from './rejected';
import { createStreamingClient, type StreamResult } from './streaming';
import type { ToolSpec } from './wire';

/** The one tool offered; its name is what "tools work" checks for. */
export const PING_TOOL = 'worldline_ping';

const PING: ToolSpec = {
  type: 'function',
  function: {
    name: PING_TOOL,
    description: 'Reports that the connection works. Call it exactly once with {"ok": true}.',
    parameters: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
};

/** Small, but room for a short chain of thought before the call (the cap is raised where the model reasons anyway). */
export const TEST_MAX_TOKENS = 1024;

export interface ConnectionTestInput {
  baseUrl: string;
  /** '' when none is set for this endpoint. */
  apiKey: string;
  model: string;
  dialect: Dialect;
  thinking: ThinkingMode;
  providerPin?: readonly string[];
  timeoutMs?: number;
  headers?: Record<string, string>;
  endpointMemory?: EndpointMemory;
  signal?: AbortSignal;
  /** Reads GET /models for the model's context window; default true. */
  readModelList?: boolean;
  now?: () => number;
}

export interface ConnectionReport {
  /** The endpoint's host, for the words. */
  host: string;
  model: string;
  dialect: DialectId;
  answered: boolean;
  /** Why it did not answer (or answered with an error). The message is the client's English log line. */
  error?: { kind: ModelErrorKind; status?: number; code?: ModelErrorCode; message: string };
  /** Whether a key was sent (an auth error without one says so). */
  keySent: boolean;
  /** `called`: the model called the offered tool; `cut`: the reply hit the cap first; `notCalled`: it answered without. */
  tools?: 'called' | 'notCalled' | 'cut';
  /** Reasoning came back (text fields, or reasoning tokens in the usage). */
  thinking?: boolean;
  reasoningTokens?: number;
  contextWindow?: { tokens: number; source: 'endpoint' | 'dialect' };
  /** The model the server said answered, when it differs from the one asked for. */
  answeredBy?: string;
  finish?: string;
  elapsedMs: number;
  warning?: Dialect['warning'];
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** True when the reply carried reasoning: a non-empty reasoning text, reasoning blocks, or reasoning tokens. */
export function reasoningSeen(result: Pick<StreamResult, 'providerFields' | 'usage'>): boolean {
  const f = result.providerFields ?? {};
  const text = (k: string): boolean => typeof f[k] === 'string' && (f[k] as string).trim() !== '';
  if (text('reasoning_content') || text('reasoning')) return true;
  if (Array.isArray(f['reasoning_details']) && f['reasoning_details'].length > 0) return true;
  return (result.usage?.reasoningTokens ?? 0) > 0;
}

/**
 * Field names servers use for a model's context length in their model list. OpenRouter documents
 * `context_length` ("Maximum context window size in tokens", https://openrouter.ai/docs/models);
 * the others are what vLLM (`max_model_len`), Groq (`context_window`) and LM Studio's REST API
 * (`max_context_length`) put on their model objects. Nothing else is guessed.
 */
const CONTEXT_FIELDS = ['context_length', 'max_model_len', 'context_window', 'max_context_length'] as const;

/** The context window the endpoint's model list gives for `model`, if it gives one. */
export function contextWindowFromList(body: unknown, model: string): number | undefined {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  const entry = data.find((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && (m as Record<string, unknown>)['id'] === model);
  if (!entry) return undefined;
  for (const k of CONTEXT_FIELDS) {
    const v = entry[k];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return undefined;
}

async function listedContextWindow(input: ConnectionTestInput): Promise<number | undefined> {
  try {
    const headers: Record<string, string> = { ...input.headers };
    if (input.apiKey) headers['Authorization'] = `Bearer ${input.apiKey}`;
    const res = await fetch(`${input.baseUrl.trim().replace(/\/+$/, '')}/models`, { headers, signal: AbortSignal.timeout(5000) });
    if (!res.ok) return undefined;
    return contextWindowFromList(await res.json(), input.model);
  } catch {
    return undefined;
  }
}

/** Runs the test. Never throws: every failure is in the report. */
export async function testConnection(input: ConnectionTestInput): Promise<ConnectionReport> {
  const now = input.now ?? Date.now;
  const started = now();
  const report: ConnectionReport = {
    host: hostOf(input.baseUrl),
    model: input.model,
    dialect: input.dialect.id,
    answered: false,
    keySent: input.apiKey !== '',
    elapsedMs: 0,
  };
  if (input.dialect.warning) report.warning = input.dialect.warning;
  const client = createStreamingClient({
    baseURL: input.baseUrl,
    apiKey: input.apiKey,
    model: input.model,
    dialect: input.dialect,
    thinking: input.thinking,
    dialectOptions: { providerPin: [...(input.providerPin ?? [])] },
    // A test reports what happened; it does not wait through retries.
    maxAttempts: 1,
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    ...(input.headers ? { headers: input.headers } : {}),
    ...(input.endpointMemory ? { endpointMemory: input.endpointMemory } : {}),
  });
  try {
    const result = await client.stream({
      messages: [
        { role: 'system', content: `This is a connection test. Call the tool ${PING_TOOL} once with {"ok": true}, and write nothing else.` },
        { role: 'user', content: `Call ${PING_TOOL} now.` },
      ],
      tools: [PING],
      maxTokens: TEST_MAX_TOKENS,
      ...(input.signal ? { signal: input.signal } : {}),
    }, () => undefined);
    report.answered = true;
    report.finish = result.finish;
    report.tools = result.toolCalls.some((c) => c.name === PING_TOOL) ? 'called' : result.finish === 'length' ? 'cut' : 'notCalled';
    report.thinking = reasoningSeen(result);
    if (result.usage?.reasoningTokens !== undefined) report.reasoningTokens = result.usage.reasoningTokens;
    if (result.model && result.model !== input.model) report.answeredBy = result.model;
  } catch (err) {
    const e = err instanceof ModelError ? err : new ModelError('badResponse', err instanceof Error ? err.message : String(err));
    report.error = { kind: e.kind, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}), ...(e.code !== undefined ? { code: e.code } : {}) };
  }
  if (report.answered && input.readModelList !== false) {
    const listed = await listedContextWindow(input);
    if (listed !== undefined) report.contextWindow = { tokens: listed, source: 'endpoint' };
  }
  if (!report.contextWindow) {
    const documented = input.dialect.model(input.model).contextWindow;
    if (documented !== undefined) report.contextWindow = { tokens: documented, source: 'dialect' };
  }
  report.elapsedMs = Math.max(0, now() - started);
  return report;
}
