// Thin wrapper over the `openai` package: one place that knows its options, error classes and
// response shape. Non-streaming `complete` is what the scribe needs; streaming will sit beside it.
import OpenAI from 'openai';
import { dialectFor, requestShape, type Dialect } from './dialects';
import { ModelError, readableErrorFetch, toModelError } from './errors';
import { DROPPABLE, MAX_PARAMETER_RETRIES, endpointMemory, errorParts, rejectedParameter } from './rejected';
import { cachedTokensOf } from './streaming';
import type { ChatClientOptions, ChatCompleter, ChatUsage, CompleteRequest, CompleteResult } from './types';

export interface ChatClient extends ChatCompleter {
  readonly model: string;
  readonly baseURL: string;
  readonly dialect: Dialect;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;

function readUsage(u: unknown): ChatUsage | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  const o = u as Record<string, unknown>;
  const num = (k: string): number => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : 0);
  const usage: ChatUsage = { promptTokens: num('prompt_tokens'), completionTokens: num('completion_tokens'), totalTokens: num('total_tokens') };
  const cached = cachedTokensOf(o);
  if (cached !== undefined) usage.cachedTokens = cached;
  const details = o['completion_tokens_details'];
  const reasoning = typeof details === 'object' && details !== null ? (details as Record<string, unknown>)['reasoning_tokens'] : undefined;
  if (typeof reasoning === 'number' && Number.isFinite(reasoning) && reasoning >= 0) usage.reasoningTokens = reasoning;
  return usage;
}

/** Pulls the visible text out of a completion; anything reasoning-like is ignored on purpose. */
function readCompletion(body: unknown): CompleteResult {
  if (typeof body !== 'object' || body === null) {
    throw new ModelError('badResponse', 'The server returned no JSON completion. Check the base URL points at an OpenAI-compatible /v1 endpoint.');
  }
  const o = body as Record<string, unknown>;
  const choices = o['choices'];
  if (!Array.isArray(choices) || choices.length === 0 || typeof choices[0] !== 'object' || choices[0] === null) {
    throw new ModelError('badResponse', 'The completion had no choices. The model may have been filtered or the endpoint is not chat-compatible.');
  }
  const choice = choices[0] as Record<string, unknown>;
  const message = choice['message'];
  const content = typeof message === 'object' && message !== null ? (message as Record<string, unknown>)['content'] : undefined;
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    // A few servers return content parts; keep only text parts.
    text = content
      .map((p) => (typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>)['text'] === 'string' ? ((p as Record<string, unknown>)['text'] as string) : ''))
      .join('');
  }
  const result: CompleteResult = { text };
  const usage = readUsage(o['usage']);
  if (usage) result.usage = usage;
  if (typeof choice['finish_reason'] === 'string') result.finishReason = choice['finish_reason'];
  if (typeof o['model'] === 'string') result.model = o['model'];
  return result;
}

export function createChatClient(opts: ChatClientOptions): ChatClient {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const dialect = opts.dialect ?? dialectFor(opts.baseURL);
  const thinking = opts.thinking ?? 'auto';
  const dialectOptions = opts.dialectOptions ?? {};
  const memory = opts.endpointMemory ?? endpointMemory;
  const headers = { ...dialect.headers(dialectOptions), ...opts.headers };
  const openai = new OpenAI({
    baseURL: opts.baseURL,
    // The package refuses an empty key; local servers need none, so send a harmless placeholder.
    apiKey: opts.apiKey === '' ? 'no-key' : opts.apiKey,
    // Explicit nulls so stray OPENAI_* environment variables never add headers.
    organization: null,
    project: null,
    fetch: readableErrorFetch(), // error bodies the package would lose (Gemini's arrays) stay readable
    timeout: timeoutMs,
    maxRetries: opts.maxRetries ?? DEFAULT_MAX_RETRIES,
    ...(Object.keys(headers).length > 0 ? { defaultHeaders: headers } : {}),
  });
  const ctx = { baseURL: opts.baseURL, apiKey: opts.apiKey, model: opts.model, timeoutMs };

  async function complete(req: CompleteRequest): Promise<CompleteResult> {
    const model = req.model ?? opts.model;
    const messages: { role: 'system' | 'user' | 'assistant'; content: string }[] = [];
    if (req.system !== undefined && req.system !== '') messages.push({ role: 'system', content: req.system });
    for (const m of req.messages) messages.push({ role: m.role, content: m.content });
    for (let refusals = 0; ; refusals++) {
      // The dialect's rules: thinking switch, max tokens field (cap raised where the model reasons
      // anyway), temperature only where the model takes one; refused parameters left out.
      const shape = requestShape(dialect, {
        model,
        thinking,
        rejected: memory.rejected(opts.baseURL, model),
        options: dialectOptions,
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
        ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
        ...(opts.maxTokensField ? { maxTokensField: opts.maxTokensField } : {}),
      });
      const body: Record<string, unknown> = { model, messages, stream: false, ...shape.fields };
      if (req.signal?.aborted) throw new ModelError('aborted', 'The model call was cancelled.');
      let raw: unknown;
      try {
        raw = await openai.chat.completions.create(
          body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
          req.signal ? { signal: req.signal } : undefined,
        );
      } catch (err) {
        const parts = errorParts(err);
        const droppable = new Set(Object.keys(shape.fields).filter((k) => (DROPPABLE as readonly string[]).includes(k)));
        const refused = rejectedParameter(parts.status, parts.message, parts.param, droppable);
        if (refused !== undefined && refusals < MAX_PARAMETER_RETRIES) {
          memory.remember(opts.baseURL, model, refused);
          continue;
        }
        throw toModelError(err, { ...ctx, model });
      }
      return readCompletion(raw);
    }
  }

  return { complete, model: opts.model, baseURL: opts.baseURL, dialect };
}
