// What a model request carries besides its body: how long it may take, and the novelist's custom
// headers. The rules for headers are written once here: a header the novelist set goes only to the
// main endpoint's origin (the same rule as the key: a gateway's token must not travel to another
// host), credentials are never set through it (the key lives in secret storage and follows its
// own origin rule), and nothing that could break the HTTP framing passes.
import { sameEndpoint } from './keys';

/** Streaming: connect timeout and the longest silence between two chunks. */
export const DEFAULT_REQUEST_TIMEOUT_S = 60;
/**
 * Side calls (scribe, summaries, embeddings, the connection test's model list) are not streamed:
 * the whole answer, reasoning included, must arrive within the timeout, so it is longer.
 */
export const DEFAULT_SIDE_REQUEST_TIMEOUT_S = 180;
export const MIN_TIMEOUT_S = 5;
export const MAX_TIMEOUT_S = 3600;

/** A number of seconds from a setting, clamped; the default for anything that is not a number. */
export function timeoutSeconds(raw: unknown, fallback: number): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return fallback;
  return Math.max(MIN_TIMEOUT_S, Math.min(MAX_TIMEOUT_S, Math.round(raw)));
}

/** `worldline.maxOutputTokens`: a positive cap, or undefined (0, absent, nonsense: the provider's default). */
export function maxOutputTokens(raw: unknown): number | undefined {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 1) return undefined;
  return Math.min(1_000_000, Math.floor(raw));
}

export type HeaderRefusal = 'credentials' | 'framing' | 'badName' | 'badValue';

export interface CustomHeaders {
  /** Names lower-cased, values trimmed: what is sent. */
  headers: Record<string, string>;
  /** What was left out and why; names only, never values (they may be secrets). */
  refused: { name: string; why: HeaderRefusal }[];
}

/** Credentials: the key is set with Set API Key only (secret storage, bound to its origin). */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie', 'api-key', 'x-api-key']);
/** The client and the HTTP stack own these; a wrong value breaks or smuggles the request. */
const FRAMING = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
/** RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII and Latin-1 text with spaces and tabs inside; no CR, LF or NUL. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * `worldline.customHeaders` (an object of header → value) as it may be sent. Anything that is not
 * a string value, a valid name, or a value without line breaks is refused, as are credentials and
 * framing headers; a name given twice (in any case) keeps its last value.
 */
export function customHeaders(raw: unknown): CustomHeaders {
  const out: CustomHeaders = { headers: {}, refused: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const lower = name.trim().toLowerCase();
    const shown = lower === '' ? '(empty)' : TOKEN.test(lower) ? lower : JSON.stringify(name.slice(0, 40));
    if (!TOKEN.test(lower)) out.refused.push({ name: shown, why: 'badName' });
    else if (CREDENTIALS.has(lower)) out.refused.push({ name: shown, why: 'credentials' });
    else if (FRAMING.has(lower)) out.refused.push({ name: shown, why: 'framing' });
    else if (typeof value !== 'string' || !VALUE.test(value) || value.trim() === '') out.refused.push({ name: shown, why: 'badValue' });
    else {
      // "__proto__" is a valid token: define, never assign, so a setting cannot reach a prototype.
      Object.defineProperty(out.headers, lower, { value: value.trim(), enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/** What request options depend on in the settings snapshot. */
export interface RequestSettings {
  baseUrl: string;
  requestTimeoutSeconds?: number;
  sideRequestTimeoutSeconds?: number;
  customHeaders?: Record<string, string>;
}

export interface RequestOptions {
  timeoutMs: number;
  /** Present only when there is something to send to this endpoint. */
  headers?: Record<string, string>;
}

/**
 * The options of a client for `endpoint`: the streaming timeout for the writing model, the side
 * timeout for the rest; the custom headers only when the endpoint has the main endpoint's origin.
 */
export function requestOptions(settings: RequestSettings, endpoint: string, kind: 'stream' | 'side'): RequestOptions {
  const seconds = kind === 'stream'
    ? timeoutSeconds(settings.requestTimeoutSeconds, DEFAULT_REQUEST_TIMEOUT_S)
    : timeoutSeconds(settings.sideRequestTimeoutSeconds, DEFAULT_SIDE_REQUEST_TIMEOUT_S);
  const out: RequestOptions = { timeoutMs: seconds * 1000 };
  const headers = settings.customHeaders ?? {};
  if (Object.keys(headers).length > 0 && sameEndpoint(endpoint, settings.baseUrl)) out.headers = { ...headers };
  return out;
}
