// Typed errors for model calls. Every message says what to do next and never contains the key.
// The message is the English log line; `code` and `args` are what the shell words for the
// novelist in their language (src/story/words.ts), with the provider's own message kept as a
// detail (`args.detail`, untranslated).
import OpenAI from 'openai';

export type ModelErrorKind = 'network' | 'auth' | 'rateLimit' | 'server' | 'badResponse' | 'aborted' | 'billing';

/**
 * What went wrong, finer than the kind (which decides retries):
 * - `noKey`: the endpoint wants a key and none is set; `auth`: it rejected the key (401/403);
 * - `insufficientBalance`: the account has run out of money (402; DeepSeek documents it as
 *   "402 - Insufficient Balance", https://api-docs.deepseek.com/quick_start/error_codes);
 * - `rateLimit` (429); `contextLength`: the prompt is longer than the model's context window
 *   (see `isContextLengthRefusal`); `timeout`: no answer in time; `network`: not reached, or the
 *   connection dropped; `server` (5xx); `notFound` (404: base URL or model name);
 * - `badRequest`: any other refusal (the provider's message says why); `badResponse`: an answer
 *   that could not be read; `aborted`: stopped by the novelist.
 */
export type ModelErrorCode =
  | 'noKey' | 'auth' | 'insufficientBalance' | 'rateLimit' | 'contextLength' | 'timeout'
  | 'network' | 'server' | 'notFound' | 'badRequest' | 'badResponse' | 'aborted';

export const MODEL_ERROR_CODES: readonly ModelErrorCode[] = [
  'noKey', 'auth', 'insufficientBalance', 'rateLimit', 'contextLength', 'timeout', 'network', 'server', 'notFound', 'badRequest', 'badResponse', 'aborted',
];

/**
 * Values for the wording: `host` (never the key, never user info), `status`, `model`,
 * `seconds`, and `detail`: the provider's own message, redacted and clipped, shown untranslated.
 */
export type ModelErrorArgs = Readonly<Partial<Record<'host' | 'status' | 'model' | 'seconds' | 'detail', string>>>;

const CODE_OF_KIND: Record<ModelErrorKind, ModelErrorCode> = {
  network: 'network', auth: 'auth', rateLimit: 'rateLimit', server: 'server', badResponse: 'badResponse', aborted: 'aborted', billing: 'insufficientBalance',
};

export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status?: number;
  /** Always set: given, or the kind's own code. */
  readonly code: ModelErrorCode;
  readonly args: ModelErrorArgs;

  constructor(kind: ModelErrorKind, message: string, status?: number, code?: ModelErrorCode, args?: ModelErrorArgs) {
    super(message);
    this.name = 'ModelError';
    this.kind = kind;
    if (status !== undefined) this.status = status;
    this.code = code ?? CODE_OF_KIND[kind];
    this.args = args ?? {};
  }
}

export function isModelError(x: unknown): x is ModelError {
  return x instanceof ModelError;
}

interface ErrorContext {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/** Removes the key from any text that may have echoed it (some servers quote the bad key back). */
export function redactKey(text: string, apiKey: string): string {
  if (apiKey.length < 4) return text;
  return text.split(apiKey).join('***');
}

/** The host of a base URL, without user info (an endpoint setting may carry https://user:secret@host). */
export function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL.replace(/^[a-z]+:\/\/[^@/]*@/i, '');
  }
}

/** The longest provider message kept; the rest is in the log. */
const DETAIL_CHARS = 300;

function serverMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  // The package builds "<status> <server message>"; keep only a short tail of it.
  const raw = err.message || '';
  return raw.length > DETAIL_CHARS ? `${raw.slice(0, DETAIL_CHARS)}…` : raw;
}

/**
 * The providers' own ways of saying "the prompt does not fit the context window", as their
 * answers quote them:
 * - OpenAI: code `context_length_exceeded`, "This model's maximum context length is N tokens.
 *   However, your messages resulted in M tokens" (400 invalid_request_error); DeepSeek, vLLM and
 *   OpenRouter use the same sentence ("This endpoint's maximum context length is …" on OpenRouter).
 * - Gemini (OpenAI-compatible endpoint): "The input token count (M) exceeds the maximum number of
 *   tokens allowed (N)" (400 INVALID_ARGUMENT).
 * - Qwen (DashScope): "InternalError.Algo.InvalidParameter: Range of input length should be [1, N]".
 * - Kimi (Moonshot): "Invalid request: Your request exceeded model token limit: N (requested: M)".
 * - GLM (Zhipu): error 1261, "Prompt exceeds max length"; "Prompt is too long" through gateways.
 * - llama.cpp server: type `exceed_context_size_error`, "the request exceeds the available
 *   context size"; vLLM also: "… is longer than the maximum model length", "too long to fit into
 *   the model".
 * Wordings collected from the providers' answers as users quote them in public issue threads
 * (the docs rarely print them); a refusal that names none of them stays a plain bad request.
 */
const CONTEXT_LENGTH_WORDS: readonly RegExp[] = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /exceeds? the (available )?context (size|window|length)/i,
  /exceed_context_size_error/i,
  /input token count[^.]*exceeds the maximum number of tokens/i,
  /range of input length should be/i,
  /exceeded model token limit/i,
  /prompt exceeds max(imum)? length/i,
  /\b(prompt|input) is too long\b/i,
  /longer than the maximum model length/i,
  /too long to fit into the model/i,
];

/** True when a refusal says the prompt is longer than the model's context window. */
export function isContextLengthRefusal(status: number | undefined, text: string): boolean {
  // Rate limits and key problems may mention tokens too ("tokens per minute"): never these.
  if (status === 401 || status === 402 || status === 403 || status === 429) return false;
  return CONTEXT_LENGTH_WORDS.some((re) => re.test(text));
}

/** The error's own code/type fields (OpenAI's `code`, llama.cpp's `type`), as text to match. */
function errorFields(err: InstanceType<typeof OpenAI.APIError>): string {
  const parts: string[] = [];
  for (const v of [err.code, err.type]) if (typeof v === 'string') parts.push(v);
  return parts.join(' ');
}

function record(x: unknown): Record<string, unknown> | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

/**
 * An error body as the `openai` package reads it (`{"error": {…}}`), from the shapes it would
 * lose: a JSON array of such objects (Gemini's OpenAI-compatible endpoint answers errors as
 * `[{"error": {…}}]`) and a top-level message (older vLLM: `{"object": "error", "message": …}`).
 * Undefined when the body is readable already, or not JSON (the package keeps that text itself).
 */
export function readableErrorBody(text: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const top = record(v);
  if (top && top['error'] !== undefined && top['error'] !== null) return undefined;
  if (Array.isArray(v)) {
    const inner = v.map((x) => record(x)?.['error']).find((e) => record(e) !== undefined);
    return inner !== undefined ? JSON.stringify({ error: inner }) : JSON.stringify({ error: { message: text.slice(0, 2000) } });
  }
  if (top && typeof top['message'] === 'string') {
    const { message, type, code, param } = top;
    return JSON.stringify({ error: { message, ...(type !== undefined ? { type } : {}), ...(code !== undefined ? { code } : {}), ...(param !== undefined ? { param } : {}) } });
  }
  return undefined;
}

/**
 * A fetch for the `openai` package whose error answers it can always read (`readableErrorBody`):
 * otherwise a Gemini refusal reaches the novelist as "400 status code (no body)". Successful
 * answers, streams included, pass untouched.
 */
export function readableErrorFetch(inner: typeof fetch = (input, init) => globalThis.fetch(input, init)): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (res.ok) return res;
    const text = await res.clone().text().catch(() => undefined);
    const fixed = text === undefined ? undefined : readableErrorBody(text);
    if (fixed === undefined) return res;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('content-type', 'application/json');
    return new Response(fixed, { status: res.status, statusText: res.statusText, headers });
  };
}

/** Maps anything thrown by the `openai` package (or fetch) onto a ModelError. */
export function toModelError(err: unknown, ctx: ErrorContext): ModelError {
  if (err instanceof ModelError) return err;
  const where = hostOf(ctx.baseURL);
  const clean = (s: string): string => redactKey(s, ctx.apiKey);

  if (err instanceof OpenAI.APIUserAbortError) {
    return new ModelError('aborted', 'The model call was cancelled.');
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(
      'network',
      `No answer from ${where} within ${ctx.timeoutMs} ms. Check the server is up, or raise the timeout.`,
      undefined,
      'timeout',
      { host: where, seconds: String(Math.round(ctx.timeoutMs / 1000)) },
    );
  }
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = err.cause instanceof Error ? clean(err.cause.message) : '';
    return new ModelError(
      'network',
      `Could not reach ${where}${cause ? ` (${cause})` : ''}. Check the base URL and your network, then retry.`,
      undefined,
      'network',
      cause ? { host: where, detail: cause } : { host: where },
    );
  }
  if (err instanceof OpenAI.APIError) {
    const status = typeof err.status === 'number' ? err.status : undefined;
    const detail = clean(serverMessage(err));
    const args = { host: where, status: String(status ?? ''), model: ctx.model, detail };
    if (status === 401 || status === 403) {
      const code = ctx.apiKey === '' ? 'noKey' : 'auth';
      return new ModelError(
        'auth',
        `${where} rejected the API key (${status}). Set a valid key for this endpoint. Server said: ${detail}`,
        status,
        code,
        args,
      );
    }
    if (status === 402) {
      return new ModelError(
        'billing',
        `${where} says the account's balance is used up (402). Top up the account on the provider's site, then retry. Server said: ${detail}`,
        status,
        'insufficientBalance',
        args,
      );
    }
    if (status === 429) {
      return new ModelError(
        'rateLimit',
        `${where} is rate limiting requests (429). Wait a moment and retry, or check your plan's quota. Server said: ${detail}`,
        status,
        'rateLimit',
        args,
      );
    }
    // Before the 5xx branch: llama.cpp has answered an overflow with 500. Not retried (the same
    // request fails the same way); the Story compacts and retries once instead.
    if (isContextLengthRefusal(status, `${errorFields(err)} ${err.message}`)) {
      return new ModelError(
        'badResponse',
        `${where} refused the request because the conversation is longer than the model "${ctx.model}" can take (${status ?? 'no status'}). Server said: ${detail}`,
        status,
        'contextLength',
        args,
      );
    }
    if (status !== undefined && status >= 500) {
      return new ModelError(
        'server',
        `${where} failed with ${status}. This is on the provider's side; retry later. Server said: ${detail}`,
        status,
        'server',
        args,
      );
    }
    if (status === 404) {
      return new ModelError(
        'badResponse',
        `${where} answered 404: check the base URL (it usually ends in /v1) and the model name "${ctx.model}". Server said: ${detail}`,
        status,
        'notFound',
        args,
      );
    }
    return new ModelError(
      'badResponse',
      `${where} refused the request (${status ?? 'no status'}). Server said: ${detail}`,
      status,
      'badRequest',
      args,
    );
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new ModelError('aborted', 'The model call was cancelled.');
  }
  const text = clean(err instanceof Error ? err.message : String(err));
  return new ModelError('badResponse', `Unexpected failure talking to ${where}: ${text}`, undefined, 'badResponse', { host: where, detail: text.slice(0, DETAIL_CHARS) });
}
