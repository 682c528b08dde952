// An OpenAI-compatible embeddings endpoint as an Embedder, over the `openai` package. Texts go in
// batches; floats are asked for explicitly (some compatible servers ignore base64 and would be
// misread). Every failure becomes a value carrying the model layer's actionable message.
import OpenAI from 'openai';
import { toModelError } from '../model/errors';
import type { Embedder } from './embed';
import { normalize } from './vector';
import { fail, ok, type Result } from './types';

export interface OpenAIEmbedderOptions {
  baseURL: string;
  /** May be empty for local servers. Never logged. */
  apiKey: string;
  model: string;
  /** Texts per request; default 64. */
  batchSize?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** Extra headers (the novelist's custom headers, only for the main endpoint's origin). */
  headers?: Record<string, string>;
}

export function openAIEmbedder(opts: OpenAIEmbedderOptions): Embedder {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const batchSize = Math.max(1, opts.batchSize ?? 64);
  const client = new OpenAI({
    baseURL: opts.baseURL,
    apiKey: opts.apiKey === '' ? 'no-key' : opts.apiKey,
    organization: null,
    project: null,
    timeout: timeoutMs,
    maxRetries: opts.maxRetries ?? 2,
    ...(opts.headers && Object.keys(opts.headers).length > 0 ? { defaultHeaders: opts.headers } : {}),
  });
  const ctx = { baseURL: opts.baseURL, apiKey: opts.apiKey, model: opts.model, timeoutMs };
  let dims = 0;

  async function batch(texts: string[], signal?: AbortSignal): Promise<Result<Float32Array[]>> {
    let body: unknown;
    try {
      body = await client.embeddings.create({ model: opts.model, input: texts, encoding_format: 'float' }, signal ? { signal } : undefined);
    } catch (err) {
      return fail('embed', `Embedding failed: ${toModelError(err, ctx).message}`);
    }
    const vectors = readVectors(body, texts.length);
    if (typeof vectors === 'string') return fail('embed', `The embeddings model "${opts.model}" answered oddly: ${vectors}`);
    const first = vectors[0];
    if (first && dims === 0) dims = first.length;
    if (vectors.some((v) => v.length !== dims)) {
      return fail('embed', `The embeddings model "${opts.model}" returned vectors of ${first?.length} numbers, but earlier ones had ${dims}. Use one model per novel.`);
    }
    return ok(vectors);
  }

  return {
    id: `api:${opts.model}`,
    get dims() {
      return dims;
    },
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const r = await batch(texts.slice(i, i + batchSize), signal);
        if (!r.ok) return r;
        out.push(...r.value);
      }
      return ok(out);
    },
  };
}

/** The vectors in input order, or what is wrong with the body. */
function readVectors(body: unknown, count: number): Float32Array[] | string {
  const data = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['data'] : undefined;
  if (!Array.isArray(data) || data.length !== count) return `expected ${count} embeddings, got ${Array.isArray(data) ? data.length : 'none'}.`;
  const out = new Array<Float32Array | undefined>(count);
  for (let i = 0; i < data.length; i++) {
    const item = data[i] as Record<string, unknown> | null;
    const index = typeof item?.['index'] === 'number' ? (item['index'] as number) : i;
    const embedding = item?.['embedding'];
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      return `embedding ${i} is not a list of numbers.`;
    }
    if (index < 0 || index >= count || out[index]) return `embedding ${i} has a bad index (${index}).`;
    out[index] = normalize(Float32Array.from(embedding as number[]));
  }
  return out as Float32Array[];
}
