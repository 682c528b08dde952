// src/model/chatClient against the local model server over real HTTP.
import * as assert from 'node:assert/strict';
import { createChatClient } from '../../../../src/model/chatClient';
import { ModelError } from '../../../../src/model/errors';
import { startModelServer, type ModelServer } from '../../../fixtures/modelServer';

const KEY = 'sk-secret-abcdef123456';

describe('model/chatClient', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer({ requireKey: KEY });
  });
  afterEach(async () => {
    await server.close();
  });

  const client = (over: Partial<Parameters<typeof createChatClient>[0]> = {}) =>
    createChatClient({ baseURL: server.url, apiKey: KEY, model: 'test-scribe', maxRetries: 0, timeoutMs: 5000, ...over });

  it('sends system + messages, model and max_tokens; returns text and usage', async () => {
    server.enqueue({ text: '{"patch":{}}', usage: { prompt_tokens: 12, completion_tokens: 4 } });
    const r = await client().complete({ system: 'SYS', messages: [{ role: 'user', content: 'hello' }], maxTokens: 2048, temperature: 0.2 });
    assert.equal(r.text, '{"patch":{}}');
    assert.deepEqual(r.usage, { promptTokens: 12, completionTokens: 4, totalTokens: 16 });
    assert.equal(r.finishReason, 'stop');
    const req = server.chatRequests()[0];
    assert.ok(req);
    assert.equal(req.model, 'test-scribe');
    assert.equal(req.maxTokens, 2048);
    assert.equal(req.system, 'SYS');
    assert.deepEqual(req.messages?.map((m) => m.role), ['system', 'user']);
    assert.equal(req.authorization, `Bearer ${KEY}`);
    const body = req.body as Record<string, unknown>;
    assert.equal(body['temperature'], 0.2);
    assert.equal(body['stream'], false);
  });

  it('sends nothing that turns reasoning on, and ignores reasoning_content', async () => {
    server.enqueue({ text: 'answer', reasoning: 'long hidden thoughts' });
    const r = await client().complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.text, 'answer');
    const body = server.chatRequests()[0]?.body as Record<string, unknown>;
    for (const k of ['reasoning_effort', 'reasoning', 'thinking', 'enable_thinking']) assert.equal(k in body, false, k);
  });

  it('a per-call model overrides the default; max_completion_tokens when configured', async () => {
    server.enqueue({ text: 'ok' });
    await client({ maxTokensField: 'max_completion_tokens' }).complete({ model: 'other', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 });
    const body = server.chatRequests()[0]?.body as Record<string, unknown>;
    assert.equal(body['model'], 'other');
    assert.equal(body['max_completion_tokens'], 10);
    assert.equal('max_tokens' in body, false);
  });

  const failsWith = async (kind: string, status: number | undefined, run: () => Promise<unknown>): Promise<ModelError> => {
    let caught: unknown;
    try {
      await run();
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof ModelError, `expected ModelError, got ${String(caught)}`);
    assert.equal(caught.kind, kind);
    assert.equal(caught.status, status);
    assert.ok(!caught.message.includes(KEY), 'the key must never appear in a message');
    return caught;
  };

  it('401 → auth, with an actionable message and no key in it', async () => {
    const err = await failsWith('auth', 401, () => client({ apiKey: 'sk-wrong-key-0000' }).complete({ messages: [{ role: 'user', content: 'x' }] }));
    assert.match(err.message, /key/i);
    assert.ok(!err.message.includes('sk-wrong-key-0000'));
  });

  it('a server that echoes the key back has it redacted', async () => {
    server.enqueue({ status: 401, errorBody: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    await failsWith('auth', 401, () => client().complete({ messages: [{ role: 'user', content: 'x' }] }));
  });

  it('429 → rateLimit, 500 → server, 404 → badResponse', async () => {
    server.enqueue({ status: 429 }, { status: 500 }, { status: 404 });
    await failsWith('rateLimit', 429, () => client().complete({ messages: [{ role: 'user', content: 'x' }] }));
    await failsWith('server', 500, () => client().complete({ messages: [{ role: 'user', content: 'x' }] }));
    const e = await failsWith('badResponse', 404, () => client().complete({ messages: [{ role: 'user', content: 'x' }] }));
    assert.match(e.message, /base URL|model/);
  });

  it('retries 5xx when maxRetries allows it', async () => {
    server.enqueue({ status: 503, headers: { 'retry-after-ms': '10' } }, { text: 'second time' });
    const r = await client({ maxRetries: 1 }).complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.text, 'second time');
    assert.equal(server.chatRequests().length, 2);
  });

  it('unreachable server → network; timeout → network', async () => {
    const url = server.url;
    await server.close();
    await failsWith('network', undefined, () => createChatClient({ baseURL: url, apiKey: KEY, model: 'm', maxRetries: 0 }).complete({ messages: [{ role: 'user', content: 'x' }] }));
    server = await startModelServer();
    server.enqueue({ text: 'late', delayMs: 2000 });
    const e = await failsWith('network', undefined, () => client({ timeoutMs: 100 }).complete({ messages: [{ role: 'user', content: 'x' }] }));
    assert.match(e.message, /100 ms/);
  });

  it('a cut body → network or badResponse, never a hang', async () => {
    server.enqueue({ text: 'hello', cutAfterChunks: 0 });
    let caught: unknown;
    try {
      await client().complete({ messages: [{ role: 'user', content: 'x' }] });
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof ModelError && (caught.kind === 'network' || caught.kind === 'badResponse'));
  });

  it('abort → aborted', async () => {
    server.enqueue({ text: 'late', delayMs: 3000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await failsWith('aborted', undefined, () => client().complete({ messages: [{ role: 'user', content: 'x' }], signal: ac.signal }));
    const pre = new AbortController();
    pre.abort();
    await failsWith('aborted', undefined, () => client().complete({ messages: [{ role: 'user', content: 'x' }], signal: pre.signal }));
  });

  it('a completion without choices, or not JSON → badResponse', async () => {
    server.enqueue({ rawBody: { id: 'x', object: 'chat.completion', choices: [] } }, { rawBody: 'not json at all' });
    await failsWith('badResponse', undefined, () => client().complete({ messages: [{ role: 'user', content: 'x' }] }));
    await failsWith('badResponse', undefined, () => client().complete({ messages: [{ role: 'user', content: 'x' }] }));
  });

  it('an empty key still works against a server that needs none', async () => {
    await server.close();
    server = await startModelServer();
    server.enqueue({ text: 'ok' });
    const r = await createChatClient({ baseURL: server.url, apiKey: '', model: 'local', maxRetries: 0 }).complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.text, 'ok');
  });
});
