// Every model failure carries a code and arguments the shell words, from both clients over real
// HTTP: each status, the providers' own "context too long" answers (as their users quote them),
// timeouts and unreachable hosts. The key never reaches a message, an argument or the detail,
// even when the server quotes it back (a property over random keys). A context-length refusal is
// never retried by the client (the Story compacts and retries once instead).
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createChatClient } from '../../../src/model/chatClient';
import { dialectById } from '../../../src/model/dialects';
import { isContextLengthRefusal, ModelError, MODEL_ERROR_CODES, readableErrorBody, type ModelErrorCode } from '../../../src/model/errors';
import { ErrorTap, problemOf } from '../../../src/model/problem';
import { EndpointMemory } from '../../../src/model/rejected';
import { createStreamingClient } from '../../../src/model/streaming';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { runs } from '../long-mode';
import { rejects } from './rejects';

const KEY = 'sk-test-0123456789abcdef';

/** The answers of each provider when the prompt does not fit, as its users quote them. */
const OVERFLOWS: { who: string; status: number; body: unknown }[] = [
  { who: 'OpenAI', status: 400, body: { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130021 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } },
  { who: 'DeepSeek', status: 400, body: { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 141980 tokens (133980 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.", type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } },
  { who: 'Gemini', status: 400, body: [{ error: { code: 400, message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } }] },
  { who: 'Qwen', status: 400, body: { error: { code: 'invalid_parameter_error', message: '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]', param: null, type: 'invalid_request_error' } } },
  { who: 'Kimi', status: 400, body: { error: { message: 'Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)', type: 'invalid_request_error' } } },
  { who: 'GLM', status: 400, body: { error: { code: '1261', message: 'Prompt exceeds max length' } } },
  { who: 'OpenRouter', status: 400, body: { error: { message: "This endpoint's maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, 131072 in the output). Please reduce the length of either one.", code: 400 } } },
  { who: 'llama.cpp (500)', status: 500, body: { error: { code: 500, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error', n_prompt_tokens: 1407, n_ctx: 256 } } },
  { who: 'vLLM', status: 400, body: { object: 'error', message: 'The decoder prompt (length 163840) is longer than the maximum model length of 131072.', type: 'BadRequestError', param: null, code: 400 } },
];

describe('model/errors: codes and arguments over HTTP', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const memory = new EndpointMemory();
  const chat = (apiKey = KEY, over: Partial<Parameters<typeof createChatClient>[0]> = {}) =>
    createChatClient({ baseURL: server.url, apiKey, model: 'm', maxRetries: 0, timeoutMs: 5000, dialect: dialectById('openai-compatible'), endpointMemory: memory, ...over });
  const streaming = (apiKey = KEY, over: Partial<Parameters<typeof createStreamingClient>[0]> = {}) =>
    createStreamingClient({ baseURL: server.url, apiKey, model: 'm', retryBaseDelayMs: 5, timeoutMs: 5000, dialect: dialectById('openai-compatible'), endpointMemory: memory, ...over });
  const ask = [{ role: 'user' as const, content: 'x' }];
  const both = async (): Promise<[ModelError, ModelError]> => [
    await rejects(streaming().stream({ messages: ask }, () => undefined)),
    await rejects(chat().complete({ messages: ask })),
  ];

  for (const o of OVERFLOWS) {
    it(`${o.who}: "too long" is contextLength, with the provider's words as the detail, asked once`, async () => {
      server.setDefault({ status: o.status, errorBody: o.body });
      for (const e of await both()) {
        assert.equal(e.code, 'contextLength', `${o.who}: ${e.message}`);
        assert.equal(e.args.host, new URL(server.url).host);
        assert.match(e.args.detail ?? '', /context|token|length|long/i, `${o.who}: the provider's own words`);
        assert.doesNotMatch(e.message, /check the model name/i);
      }
      // The streaming client does not retry it; the chat client's package would retry only a 5xx.
      const streamed = server.chatRequests().filter((r) => r.stream).length;
      assert.equal(streamed, 1, `${o.who}: one streamed request`);
    });
  }

  it('each status has its code; the detail is the server\'s message, redacted', async () => {
    const cases: [number, ModelErrorCode][] = [[401, 'auth'], [403, 'auth'], [402, 'insufficientBalance'], [429, 'rateLimit'], [404, 'notFound'], [400, 'badRequest'], [422, 'badRequest'], [503, 'server']];
    for (const [status, code] of cases) {
      server.setDefault({ status, errorBody: { error: { message: `nope ${status}, key ${KEY}` } } });
      const [s, c] = await both();
      for (const e of [s, c]) {
        assert.equal(e.code, code, `${status}`);
        assert.equal(e.args.status, String(status));
        assert.match(e.args.detail ?? '', new RegExp(`nope ${status}`));
        assert.ok(!JSON.stringify({ m: e.message, a: e.args }).includes(KEY), `${status}: the key never shows`);
      }
    }
  });

  it('error bodies the openai package would lose (Gemini\'s arrays, a top-level message) keep their words', async () => {
    server.setDefault({ status: 400, errorBody: [{ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } }] });
    for (const e of await both()) assert.match(e.args.detail ?? '', /API key not valid/);
    server.setDefault({ status: 400, errorBody: { object: 'error', message: 'temperature must be non-negative', type: 'BadRequestError', code: 400 } });
    for (const e of await both()) assert.match(e.args.detail ?? '', /temperature must be non-negative/);
    assert.equal(readableErrorBody('{"error":{"message":"fine"}}'), undefined, 'a readable body is left alone');
    assert.equal(readableErrorBody('not json'), undefined);
    assert.deepEqual(JSON.parse(readableErrorBody('[{"error":{"message":"m","code":7}}]')!), { error: { message: 'm', code: 7 } });
  });

  it('a rate limit that mentions tokens is not read as too long', async () => {
    server.setDefault({ status: 429, errorBody: { error: { message: 'Rate limit reached: tokens per min (TPM) exceeded the maximum context length budget', type: 'tokens' } } });
    const e = await rejects(chat().complete({ messages: ask }));
    assert.equal(e.code, 'rateLimit');
  });

  it('no key: noKey, and the host names where to set it', async () => {
    server.setDefault({ status: 401, errorBody: { error: { message: 'missing key' } } });
    const s = await rejects(streaming('').stream({ messages: ask }, () => undefined));
    const c = await rejects(chat('').complete({ messages: ask }));
    for (const e of [s, c]) {
      assert.equal(e.code, 'noKey');
      assert.equal(e.args.host, new URL(server.url).host);
    }
  });

  it('silence is a timeout with its seconds; an unreachable host is network with the host', async () => {
    server.setDefault({ text: 'late', delayMs: 3000 });
    const s = await rejects(streaming(KEY, { timeoutMs: 300, maxAttempts: 1 }).stream({ messages: ask }, () => undefined));
    assert.equal(s.code, 'timeout');
    assert.equal(s.args.seconds, '0');
    const c = await rejects(chat(KEY, { timeoutMs: 300 }).complete({ messages: ask }));
    assert.equal(c.code, 'timeout');
    // A port nobody listens on: a server started and closed again.
    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', () => r()));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((r) => gone.close(() => r()));
    const n = await rejects(createChatClient({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY, model: 'm', maxRetries: 0, timeoutMs: 2000 }).complete({ messages: ask }));
    assert.equal(n.code, 'network');
    assert.equal(n.args.host, `127.0.0.1:${port}`);
  });

  it('the tap keeps the last failure of a client, matched by its message, and forgets it on clear', async () => {
    server.setDefault({ status: 402, errorBody: { error: { message: 'Insufficient Balance' } } });
    const tap = new ErrorTap();
    const client = tap.completer(chat());
    const e = await rejects(client.complete({ messages: ask }));
    assert.deepEqual(tap.problemFor(`The summary's model call failed: ${e.message}`), problemOf(e));
    assert.equal(tap.problemFor('something else entirely'), undefined);
    tap.clear();
    assert.equal(tap.problemFor(e.message), undefined);
    const streamTap = new ErrorTap();
    const s = await rejects(streamTap.streaming(streaming()).stream({ messages: ask }, () => undefined));
    assert.equal(streamTap.problemFor(s.message)?.code, 'insufficientBalance');
  });

  it('property: a key the server quotes back never reaches the message or the arguments', async () => {
    const keyArb = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/).map((k) => `sk-${k}`);
    await fc.assert(fc.asyncProperty(keyArb, fc.constantFrom(400, 401, 402, 429, 500), async (key, status) => {
      server.setDefault({ status, errorBody: { error: { message: `Incorrect API key provided: ${key}. Context: ${key}` } } });
      const e = await rejects(createChatClient({ baseURL: server.url, apiKey: key, model: 'm', maxRetries: 0, timeoutMs: 5000, endpointMemory: memory }).complete({ messages: ask }));
      assert.ok(!`${e.message} ${JSON.stringify(e.args)}`.includes(key));
    }), { numRuns: runs(15, 200) });
  });

  it('the recogniser: every provider wording, never for key, balance or rate-limit answers', () => {
    for (const o of OVERFLOWS) assert.ok(isContextLengthRefusal(o.status, JSON.stringify(o.body)), o.who);
    for (const status of [401, 402, 403, 429]) assert.equal(isContextLengthRefusal(status, "This model's maximum context length is 8192 tokens"), false);
    assert.equal(isContextLengthRefusal(400, 'temperature is not supported with this model'), false);
    assert.equal(MODEL_ERROR_CODES.length, new Set(MODEL_ERROR_CODES).size);
  });
});
