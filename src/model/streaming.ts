// Streaming chat completions with tool calls, over the `openai` package (any OpenAI-compatible
// endpoint). Retries 429 / 5xx / network failures with exponential backoff, but ONLY while nothing
// has arrived yet: once text, reasoning or a tool call has started, a failure is final, because a
// silent retry would show the novelist the same words twice. Every failure is a ModelError with an
// actionable message that never contains the key.
import OpenAI from 'openai';
import type { ProviderFields } from '../session/entries';
import { dialectFor, requestShape, type Dialect } from './dialects';
import type { EndpointOptions } from './types';
import { ModelError, readableErrorFetch, redactKey, toModelError, type ModelErrorKind } from './errors';
import { DROPPABLE, MAX_PARAMETER_RETRIES, endpointMemory, errorParts, rejectedParameter } from './rejected';
import { toWireMessages } from './replay';
import type { OpenAIMessage, ToolSpec } from './wire';

export type { OpenAIMessage, OpenAIToolCall, ToolSpec } from './wire';

export interface StreamRequest {
  messages: OpenAIMessage[];
  tools?: readonly ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** Overrides the client's model for this call. */
  model?: string;
  signal?: AbortSignal;
}

/** One streamed piece: visible text, reasoning text, or the name of a tool call that has just started. */
export interface StreamDelta {
  text?: string;
  /**
   * A piece of the model's reasoning (`reasoning_content`, `reasoning`, or the text of OpenRouter's
   * `reasoning_details`), as it streams: shown collapsed, never as the reply.
   */
  reasoning?: string;
  toolCallName?: string;
}

export interface StreamToolCall {
  id: string;
  name: string;
  /** The raw arguments string as the model wrote it (may be malformed JSON; the tool decides). */
  arguments: string;
  /** What the provider sent with the call besides id/name/arguments (Gemini's `extra_content`). */
  providerFields?: ProviderFields;
}

export type StreamFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

export interface StreamUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the provider's cache, when it reports them. */
  cachedTokens?: number;
  /** Reasoning tokens inside completionTokens, when the provider reports them. */
  reasoningTokens?: number;
}

export interface StreamResult {
  text: string;
  toolCalls: StreamToolCall[];
  finish: StreamFinish;
  usage?: StreamUsage;
  /** The `model` the server said answered. */
  model?: string;
  /** How many HTTP attempts it took (1 = no retry). */
  attempts: number;
  /**
   * Message-level fields the provider sent besides the text (`reasoning_content`, `reasoning`,
   * `reasoning_details`, `extra_content`), as received; the dialect decides what is replayed.
   */
  providerFields?: ProviderFields;
}

export interface StreamingClientOptions extends EndpointOptions {
  baseURL: string;
  /** May be empty for local servers. Never logged or put in messages. */
  apiKey: string;
  model: string;
  /** Connect timeout and the longest silence between two chunks. Default 60 000 ms. */
  timeoutMs?: number;
  /** Attempts in all, first included, for retryable failures before any output. Default 3. */
  maxAttempts?: number;
  /** First backoff delay; doubles each retry. Default 1000 ms (tests use a few ms). */
  retryBaseDelayMs?: number;
  /** Cap on one backoff delay, `retry-after` included. Default 20 000 ms. */
  maxRetryDelayMs?: number;
}

export interface StreamingClient {
  readonly model: string;
  readonly baseURL: string;
  readonly dialect: Dialect;
  stream(req: StreamRequest, onDelta: (d: StreamDelta) => void): Promise<StreamResult>;
}

const DEFAULTS = { timeoutMs: 60_000, maxAttempts: 3, retryBaseDelayMs: 1_000, maxRetryDelayMs: 20_000 } as const;

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set<ModelErrorKind>(['network', 'rateLimit', 'server']);

/** True for failures that may pass if the same request is sent again later. */
export function isRetryableKind(kind: ModelErrorKind): boolean {
  return RETRYABLE.has(kind);
}

/** The command the novelist runs to store a key; quoted in every auth error. */
export const SET_API_KEY_COMMAND = 'Worldline: Set API Key';

// ---------------------------------------------------------------------------------------------

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

function record(x: unknown): Record<string, unknown> | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

function readUsage(u: unknown): StreamUsage | undefined {
  const o = record(u);
  if (!o) return undefined;
  const num = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
  const usage: StreamUsage = {
    promptTokens: num(o['prompt_tokens']),
    completionTokens: num(o['completion_tokens']),
    totalTokens: num(o['total_tokens']),
  };
  const cached = cachedTokensOf(o);
  if (cached !== undefined) usage.cachedTokens = cached;
  const reasoning = record(o['completion_tokens_details'])?.['reasoning_tokens'];
  if (typeof reasoning === 'number' && Number.isFinite(reasoning) && reasoning >= 0) usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Cached prompt tokens in any of the shapes providers use: OpenAI's
 * `prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`
 * (https://api-docs.deepseek.com/guides/kv_cache), Moonshot's top-level `cached_tokens`.
 */
export function cachedTokensOf(usage: Record<string, unknown>): number | undefined {
  for (const v of [record(usage['prompt_tokens_details'])?.['cached_tokens'], usage['prompt_cache_hit_tokens'], usage['cached_tokens']]) {
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  return undefined;
}

/** Message-level delta fields kept as provider fields: reasoning text is concatenated. */
const TEXT_FIELDS = ['reasoning_content', 'reasoning'] as const;

/**
 * Merges a streamed JSON object piece into what came before: objects merge key by key, the text
 * keys named concatenate (a reasoning block's `text` arrives in pieces), anything else is replaced.
 */
function mergeJson(prev: unknown, next: unknown, concat: ReadonlySet<string> = NO_CONCAT): unknown {
  const a = record(prev);
  const b = record(next);
  if (!a || !b) return next;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (k === '__proto__') continue; // data from the wire never reaches a prototype
    const old = a[k];
    out[k] = concat.has(k) && typeof old === 'string' && typeof v === 'string' ? old + v : k in a ? mergeJson(old, v) : v;
  }
  return out;
}

const NO_CONCAT: ReadonlySet<string> = new Set();
/** OpenRouter's reasoning_details text parts (https://openrouter.ai/docs/use-cases/reasoning-tokens). */
const DETAIL_TEXT: ReadonlySet<string> = new Set(['text', 'summary']);

/** The readable text of streamed `reasoning_details` pieces (an encrypted block has none). */
function detailText(pieces: readonly unknown[]): string {
  let out = '';
  for (const piece of pieces) {
    const p = record(piece);
    if (!p) continue;
    for (const k of DETAIL_TEXT) if (typeof p[k] === 'string') out += p[k] as string;
  }
  return out;
}

/**
 * OpenRouter streams `reasoning_details` as array pieces; pieces with the same `index` (or, without
 * one, the same type following each other) are one block whose text parts concatenate.
 */
function mergeDetails(into: unknown[], pieces: unknown[]): void {
  for (const piece of pieces) {
    const p = record(piece);
    if (!p) continue;
    const last = record(into[into.length - 1]);
    const same = last && (typeof p['index'] === 'number' ? last['index'] === p['index'] : last['type'] === p['type'] && typeof last['index'] !== 'number');
    if (same && last) into[into.length - 1] = mergeJson(last, p, DETAIL_TEXT);
    else into.push({ ...p });
  }
}

/** Accumulates chunks into a reply. Tolerates the variations real servers send. */
class ReplyBuilder {
  text = '';
  finish: string | undefined;
  usage: StreamUsage | undefined;
  model: string | undefined;
  /** Anything visible or tool-related has arrived: from here on, no retry. */
  received = false;
  /** The server's `retry-after`, when a failed attempt carried one. */
  retryAfterMs: number | undefined;
  private readonly calls: { id: string; name: string; arguments: string; extra?: unknown }[] = [];
  private readonly fields: Record<string, unknown> = {};

  constructor(private readonly onDelta: (d: StreamDelta) => void) {}

  add(chunk: unknown): void {
    const o = record(chunk);
    if (!o) return;
    if (typeof o['model'] === 'string' && o['model'] !== '') this.model = o['model'];
    // Usage at the top of the chunk, or (Moonshot's stream) inside the choice.
    const usage = readUsage(o['usage']) ?? readUsage(record(Array.isArray(o['choices']) ? o['choices'][0] : undefined)?.['usage']);
    if (usage) this.usage = usage;
    const choices = o['choices'];
    if (!Array.isArray(choices)) return;
    for (const c of choices) {
      const choice = record(c);
      if (!choice || (typeof choice['index'] === 'number' && choice['index'] !== 0)) continue;
      const delta = record(choice['delta']);
      if (delta) this.addDelta(delta);
      if (typeof choice['finish_reason'] === 'string' && choice['finish_reason'] !== '') this.finish = choice['finish_reason'];
    }
  }

  private addDelta(delta: Record<string, unknown>): void {
    // Reasoning is never shown as the reply, but it is kept: some providers must get it back. Its
    // text is also handed on as it streams (the Chat shows it collapsed), once per delta.
    let thought = '';
    for (const k of TEXT_FIELDS) {
      const v = delta[k];
      if (typeof v === 'string' && v !== '') {
        this.fields[k] = (typeof this.fields[k] === 'string' ? (this.fields[k] as string) : '') + v;
        thought += v;
      }
    }
    const details = delta['reasoning_details'];
    if (Array.isArray(details)) {
      const into = Array.isArray(this.fields['reasoning_details']) ? (this.fields['reasoning_details'] as unknown[]) : [];
      mergeDetails(into, details);
      if (into.length > 0) this.fields['reasoning_details'] = into;
      // OpenRouter sends `reasoning` beside the details with the same text: said once.
      if (thought === '') thought = detailText(details);
    }
    if (thought !== '') {
      this.received = true; // shown to the novelist: a silent retry would show it twice
      this.onDelta({ reasoning: thought });
    }
    if (record(delta['extra_content'])) this.fields['extra_content'] = mergeJson(this.fields['extra_content'], delta['extra_content']);
    const content = delta['content'];
    if (typeof content === 'string' && content !== '') {
      this.received = true;
      this.text += content;
      this.onDelta({ text: content });
    }
    const toolCalls = delta['tool_calls'];
    if (!Array.isArray(toolCalls)) return;
    toolCalls.forEach((raw, position) => {
      const tc = record(raw);
      if (!tc) return;
      const index = typeof tc['index'] === 'number' ? tc['index'] : this.positionOf(tc['id'], position);
      let call = this.calls[index];
      if (!call) {
        call = { id: '', name: '', arguments: '' };
        this.calls[index] = call;
      }
      this.received = true;
      if (typeof tc['id'] === 'string' && tc['id'] !== '' && call.id === '') call.id = tc['id'];
      const fn = record(tc['function']);
      const name = fn?.['name'];
      if (typeof name === 'string' && name !== '' && name !== call.name) {
        // Some servers resend the full name on every chunk; others never split it.
        const started = call.name === '';
        call.name = started ? name : call.name + name;
        if (started) this.onDelta({ toolCallName: name });
      }
      const args = fn?.['arguments'];
      if (typeof args === 'string') call.arguments += args;
      else if (record(args)) call.arguments += JSON.stringify(args); // a few servers send an object
      // Gemini's thought signature rides on the call (extra_content.google.thought_signature).
      if (record(tc['extra_content'])) call.extra = mergeJson(call.extra, tc['extra_content']);
    });
  }

  /**
   * Where a call without `index` goes (Gemini sends each parallel call whole, with no index): a
   * known id continues its call, a new id starts the next one, no id continues the last one.
   */
  private positionOf(id: unknown, position: number): number {
    if (typeof id !== 'string' || id === '') return Math.max(0, Math.min(position, this.calls.length - 1));
    const known = this.calls.findIndex((c) => c.id === id);
    return known >= 0 ? known : this.calls.length;
  }

  providerFields(): ProviderFields | undefined {
    return Object.keys(this.fields).length > 0 ? { ...this.fields } : undefined;
  }

  toolCalls(): StreamToolCall[] {
    const out: StreamToolCall[] = [];
    this.calls.forEach((c, i) => {
      if (!c || c.name === '') return; // a call without a name cannot be run or replayed
      // Servers that omit ids still need one to pair the result with its call.
      const call: StreamToolCall = { id: c.id !== '' ? c.id : `call_${i}_${Date.now().toString(36)}`, name: c.name, arguments: c.arguments };
      if (c.extra !== undefined) call.providerFields = { extra_content: c.extra };
      out.push(call);
    });
    return out;
  }
}

/** `retry-after` / `retry-after-ms` of an API error, in ms, when present. */
function retryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof OpenAI.APIError)) return undefined;
  const headers: unknown = err.headers;
  if (!headers || typeof (headers as Headers).get !== 'function') return undefined;
  const h = headers as Headers;
  const ms = Number.parseFloat(h.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = h.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function abortError(): ModelError {
  return new ModelError('aborted', 'The reply was stopped.');
}

/** Waits `ms`, or rejects with an aborted ModelError as soon as `signal` fires. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function createStreamingClient(opts: StreamingClientOptions): StreamingClient {
  const timeoutMs = opts.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxAttempts = Math.max(1, opts.maxAttempts ?? DEFAULTS.maxAttempts);
  const baseDelay = opts.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
  const maxDelay = opts.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs;
  const dialect = opts.dialect ?? dialectFor(opts.baseURL);
  const thinking = opts.thinking ?? 'auto';
  const dialectOptions = opts.dialectOptions ?? {};
  const memory = opts.endpointMemory ?? endpointMemory;
  const where = hostOf(opts.baseURL);
  const headers = { ...dialect.headers(dialectOptions), ...opts.headers };
  const openai = new OpenAI({
    baseURL: opts.baseURL,
    // The package refuses an empty key; local servers need none.
    apiKey: opts.apiKey === '' ? 'no-key' : opts.apiKey,
    organization: null,
    project: null,
    fetch: readableErrorFetch(), // error bodies the package would lose (Gemini's arrays) stay readable
    timeout: timeoutMs,
    maxRetries: 0, // retries are ours: the package's would also retry after output began
    logLevel: 'off', // a malformed chunk must not print the reply to the console
    ...(Object.keys(headers).length > 0 ? { defaultHeaders: headers } : {}),
  });

  /** The body of one attempt, and which of its parameters could be dropped on a refusal. */
  function buildBody(req: StreamRequest, model: string): { body: Record<string, unknown>; droppable: Set<string> } {
    const rejected = memory.rejected(opts.baseURL, model);
    const shape = requestShape(dialect, {
      model,
      thinking,
      rejected,
      options: dialectOptions,
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
      ...(opts.maxTokensField ? { maxTokensField: opts.maxTokensField } : {}),
    });
    const body: Record<string, unknown> = { model, stream: true };
    if (!rejected.has('stream_options')) body['stream_options'] = { include_usage: true };
    Object.assign(body, shape.fields);
    // Fixed parts before `messages`: the serialized request then grows only at its end, turn
    // after turn, which is what prompt caches (and the prefix bench) reward.
    if (req.tools && req.tools.length > 0) body['tools'] = req.tools;
    const messages = toWireMessages(dialect, req.messages, rejected);
    body['messages'] = messages;
    const droppable = new Set<string>(Object.keys(body).filter((k) => (DROPPABLE as readonly string[]).includes(k)));
    const required = new Set(dialect.replay.required);
    for (const m of messages) {
      const o = record(m);
      for (const k of Object.keys(o ?? {})) if ((DROPPABLE as readonly string[]).includes(k) && !required.has(k)) droppable.add(k);
      const calls = o?.['tool_calls'];
      if (Array.isArray(calls)) for (const c of calls) for (const k of Object.keys(record(c) ?? {})) if ((DROPPABLE as readonly string[]).includes(k)) droppable.add(k);
    }
    return { body, droppable };
  }

  /** Maps any failure onto a ModelError; `midStream` = after the response began. */
  function mapError(err: unknown, model: string, midStream: boolean): ModelError {
    const mapped = toModelError(err, { baseURL: opts.baseURL, apiKey: opts.apiKey, model, timeoutMs });
    if (mapped.kind === 'auth') {
      const why = opts.apiKey === '' ? 'no API key is set' : `it rejected the API key (${mapped.status ?? 'auth'})`;
      return new ModelError('auth', `${where}: ${why}. Set your API key with "${SET_API_KEY_COMMAND}" (Command Palette), then retry.`, mapped.status, mapped.code, mapped.args);
    }
    if (midStream && !(err instanceof OpenAI.APIError) && mapped.kind === 'badResponse') {
      if (err instanceof SyntaxError) {
        return new ModelError('badResponse', `${where} sent a malformed piece of the streamed reply (not JSON). The reply was discarded; retry, or try another model or endpoint.`, undefined, 'badResponse', { host: where });
      }
      const detail = err instanceof Error ? ` (${redactKey(err.message, opts.apiKey)})` : '';
      return new ModelError('network', `The connection to ${where} dropped in the middle of the reply${detail}. Retry.`, undefined, 'network', { host: where });
    }
    return mapped;
  }

  async function attempt(req: StreamRequest, reply: ReplyBuilder, model: string): Promise<void> {
    // One controller per attempt: the caller's signal and the idle timer both end it.
    const inner = new AbortController();
    let timedOut = false;
    let idle: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => {
        timedOut = true;
        inner.abort();
      }, timeoutMs);
    };
    const onAbort = (): void => inner.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const silence = (): ModelError =>
      new ModelError('network', `${where} went silent for ${Math.round(timeoutMs / 1000)} s ${reply.received ? 'in the middle of the reply' : 'before answering'}. Retry, or raise the timeout.`, undefined, 'timeout', { host: where, seconds: String(Math.round(timeoutMs / 1000)) });
    try {
      const { body, droppable } = buildBody(req, model);
      arm();
      let stream: AsyncIterable<unknown>;
      try {
        stream = await openai.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming, { signal: inner.signal });
      } catch (err) {
        if (req.signal?.aborted) throw abortError();
        if (timedOut) throw silence();
        reply.retryAfterMs = retryAfterMs(err);
        const parts = errorParts(err);
        const refused = rejectedParameter(parts.status, parts.message, parts.param, droppable);
        if (refused !== undefined) throw new RefusedParameter(refused, mapError(err, model, false));
        throw mapError(err, model, false);
      }
      try {
        for await (const chunk of stream) {
          arm();
          reply.add(chunk);
        }
      } catch (err) {
        // A dropped connection after the finish reason lost nothing but the usage figures.
        if (reply.finish === undefined || req.signal?.aborted || timedOut) {
          if (req.signal?.aborted) throw abortError();
          if (timedOut) throw silence();
          throw mapError(err, model, true);
        }
      }
      // The package ends the iteration quietly on abort; say why it ended.
      if (req.signal?.aborted) throw abortError();
      if (timedOut) throw silence();
      if (reply.finish === undefined) {
        throw new ModelError('network', `The reply from ${where} ended before it was complete (the stream closed without a finish). Retry.`, undefined, 'network', { host: where });
      }
    } finally {
      if (idle) clearTimeout(idle);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  async function stream(req: StreamRequest, onDelta: (d: StreamDelta) => void): Promise<StreamResult> {
    const model = req.model ?? opts.model;
    let refusals = 0;
    for (let n = 1; ; n++) {
      if (req.signal?.aborted) throw abortError();
      const reply = new ReplyBuilder(onDelta);
      try {
        await attempt(req, reply, model);
      } catch (err) {
        // A refused parameter: remembered for the endpoint, and the request goes once more without it.
        if (err instanceof RefusedParameter) {
          if (refusals >= MAX_PARAMETER_RETRIES) throw err.error;
          refusals += 1;
          memory.remember(opts.baseURL, model, err.parameter);
          n -= 1;
          continue;
        }
        const e = err instanceof ModelError ? err : mapError(err, model, reply.received);
        if (e.kind === 'aborted' || reply.received || !isRetryableKind(e.kind) || n >= maxAttempts) throw e;
        const wait = Math.min(maxDelay, reply.retryAfterMs ?? baseDelay * 2 ** (n - 1));
        await sleep(wait, req.signal);
        continue;
      }
      const result: StreamResult = { text: reply.text, toolCalls: reply.toolCalls(), finish: reply.finish ?? 'stop', attempts: n };
      if (reply.usage) result.usage = reply.usage;
      if (reply.model) result.model = reply.model;
      const fields = reply.providerFields();
      if (fields) result.providerFields = fields;
      return result;
    }
  }

  return { stream, model: opts.model, baseURL: opts.baseURL, dialect };
}

/** An attempt refused because of one parameter Worldline can drop (rejected.ts). */
class RefusedParameter extends Error {
  constructor(readonly parameter: string, readonly error: ModelError) {
    super(error.message);
    this.name = 'RefusedParameter';
  }
}
