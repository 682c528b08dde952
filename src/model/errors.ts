// Typed errors for model calls. Every message says what to do next and never contains the key.
import OpenAI from 'openai';

export type ModelErrorKind = 'network' | 'auth' | 'rateLimit' | 'server' | 'badResponse' | 'aborted';

export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status?: number;

  constructor(kind: ModelErrorKind, message: string, status?: number) {
    super(message);
    this.name = 'ModelError';
    this.kind = kind;
    if (status !== undefined) this.status = status;
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

function host(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

function serverMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  // The package builds "<status> <server message>"; keep only a short tail of it.
  const raw = err.message || '';
  return raw.length > 300 ? `${raw.slice(0, 300)}…` : raw;
}

/** Maps anything thrown by the `openai` package (or fetch) onto a ModelError. */
export function toModelError(err: unknown, ctx: ErrorContext): ModelError {
  if (err instanceof ModelError) return err;
  const where = host(ctx.baseURL);
  const clean = (s: string): string => redactKey(s, ctx.apiKey);

  if (err instanceof OpenAI.APIUserAbortError) {
    return new ModelError('aborted', 'The model call was cancelled.');
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(
      'network',
      `No answer from ${where} within ${ctx.timeoutMs} ms. Check the server is up, or raise the timeout.`,
    );
  }
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = err.cause instanceof Error ? ` (${clean(err.cause.message)})` : '';
    return new ModelError(
      'network',
      `Could not reach ${where}${cause}. Check the base URL and your network, then retry.`,
    );
  }
  if (err instanceof OpenAI.APIError) {
    const status = typeof err.status === 'number' ? err.status : undefined;
    const detail = clean(serverMessage(err));
    if (status === 401 || status === 403) {
      return new ModelError(
        'auth',
        `${where} rejected the API key (${status}). Set a valid key for this endpoint. Server said: ${detail}`,
        status,
      );
    }
    if (status === 429) {
      return new ModelError(
        'rateLimit',
        `${where} is rate limiting requests (429). Wait a moment and retry, or check your plan's quota. Server said: ${detail}`,
        status,
      );
    }
    if (status !== undefined && status >= 500) {
      return new ModelError(
        'server',
        `${where} failed with ${status}. This is on the provider's side; retry later. Server said: ${detail}`,
        status,
      );
    }
    if (status === 404) {
      return new ModelError(
        'badResponse',
        `${where} answered 404: check the base URL (it usually ends in /v1) and the model name "${ctx.model}". Server said: ${detail}`,
        status,
      );
    }
    return new ModelError(
      'badResponse',
      `${where} refused the request (${status ?? 'no status'}). Check the model name "${ctx.model}" and settings. Server said: ${detail}`,
      status,
    );
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new ModelError('aborted', 'The model call was cancelled.');
  }
  const text = err instanceof Error ? err.message : String(err);
  return new ModelError('badResponse', `Unexpected failure talking to ${where}: ${clean(text)}`);
}
