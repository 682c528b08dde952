// The streaming client against the local OpenAI-compatible server over real HTTP.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { createStreamingClient, type StreamDelta, type StreamingClientOptions } from '../../../src/model/streaming';
import { toolSchemas } from '../../../src/agent/tools';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { rejects } from '../model/rejects';

const KEY = 'sk-test-secret-key-123';

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('model/streaming', () => {
  let server: ModelServer;
  const client = (over: Partial<StreamingClientOptions> = {}) =>
    createStreamingClient({ baseURL: server.url, apiKey: KEY, model: 'test-model', retryBaseDelayMs: 5, timeoutMs: 5_000, ...over });
  const user = [{ role: 'user' as const, content: 'hi' }];

  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('streams text piece by piece, reasoning apart from it, records usage and asks for it', async () => {
    server.enqueue({ text: ['雨', '下了', '一夜。'], reasoning: ['secret ', 'thoughts'], usage: { prompt_tokens: 11, completion_tokens: 3 } });
    const deltas: StreamDelta[] = [];
    const r = await client().stream({ messages: user, temperature: 0.7, maxTokens: 500 }, (d) => deltas.push(d));
    assert.deepEqual(deltas, [{ reasoning: 'secret ' }, { reasoning: 'thoughts' }, { text: '雨' }, { text: '下了' }, { text: '一夜。' }]);
    assert.equal(r.text, '雨下了一夜。', 'the reasoning is never the reply');
    assert.deepEqual(r.providerFields, { reasoning_content: 'secret thoughts' }, 'and is kept for replay as before');
    assert.equal(r.finish, 'stop');
    assert.deepEqual(r.toolCalls, []);
    assert.deepEqual(r.usage, { promptTokens: 11, completionTokens: 3, totalTokens: 14 });
    assert.equal(r.attempts, 1);
    const req = server.chatRequests()[0];
    assert.ok(req);
    assert.equal(req.stream, true);
    assert.deepEqual((req.body as Record<string, unknown>)['stream_options'], { include_usage: true });
    assert.equal(req.maxTokens, 500);
    assert.equal(req.authorization, `Bearer ${KEY}`);
  });

  it('reasoning in the other shapes: Ollama\'s `reasoning`, OpenRouter\'s pair (said once), details alone; an encrypted block says nothing', async () => {
    const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    const detail = (text: string) => ({ type: 'reasoning.text', text, format: 'unknown', index: 0 });
    server.enqueue({ rawEvents: [
      frame({ reasoning: '想' }),
      frame({ reasoning: '一想', reasoning_details: [detail('一想')] }),
      frame({ reasoning_details: [detail('，再写')] }),
      frame({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'opaque', index: 1 }] }),
      frame({ content: '好。' }),
      frame({}, 'stop'),
      '[DONE]',
    ] });
    const deltas: StreamDelta[] = [];
    const r = await client().stream({ messages: user }, (d) => deltas.push(d));
    assert.deepEqual(deltas, [{ reasoning: '想' }, { reasoning: '一想' }, { reasoning: '，再写' }, { text: '好。' }]);
    assert.equal(r.text, '好。');
    assert.equal(r.providerFields?.['reasoning'], '想一想', 'the fields accumulate as before');
    assert.deepEqual(r.providerFields?.['reasoning_details'], [detail('一想，再写'), { type: 'reasoning.encrypted', data: 'opaque', index: 1 }]);
  });

  it('a stream cut after reasoning has been shown is not retried silently (it would be shown twice)', async () => {
    // Frames: role, reasoning, reasoning, text…; the cut lands after the first reasoning piece.
    server.enqueue({ reasoning: ['想', '一想'], text: '好。', cutAfterChunks: 2 }, { text: 'must not be used' });
    const seen: StreamDelta[] = [];
    const e = await rejects(client().stream({ messages: user }, (d) => seen.push(d)));
    assert.equal(e.kind, 'network');
    assert.deepEqual(seen, [{ reasoning: '想' }]);
    assert.equal(server.chatRequests().length, 1);
  });

  it('assembles streamed tool calls; tools are serialized before messages', async () => {
    server.enqueue({
      text: '我来写。',
      toolCalls: [
        { name: 'append_file', arguments: ['{"path":"ch', 'apters/01.md","content":"', '雨夜。"}'], id: 'call_a' },
        { name: 'list_manuscript', arguments: '{}', id: 'call_b' },
      ],
    });
    const names: string[] = [];
    const r = await client().stream({ messages: user, tools: toolSchemas('zh') }, (d) => d.toolCallName && names.push(d.toolCallName));
    assert.equal(r.finish, 'tool_calls');
    assert.deepEqual(names, ['append_file', 'list_manuscript']);
    assert.deepEqual(r.toolCalls, [
      { id: 'call_a', name: 'append_file', arguments: '{"path":"chapters/01.md","content":"雨夜。"}' },
      { id: 'call_b', name: 'list_manuscript', arguments: '{}' },
    ]);
    const raw = server.chatRequests()[0]?.rawBody ?? '';
    assert.ok(raw.indexOf('"tools"') > 0 && raw.indexOf('"tools"') < raw.indexOf('"messages"'), 'tools come before messages');
  });

  it('429 then success: retried after a backoff, one reply', async () => {
    server.enqueue({ status: 429 }, { text: 'ok' });
    const r = await client().stream({ messages: user }, () => undefined);
    assert.equal(r.text, 'ok');
    assert.equal(r.attempts, 2);
    assert.equal(server.chatRequests().length, 2);
  });

  it('honours retry-after, capped by maxRetryDelayMs', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '30' } }, { text: 'ok' });
    const t0 = Date.now();
    const r = await client({ maxRetryDelayMs: 150 }).stream({ messages: user }, () => undefined);
    const waited = Date.now() - t0;
    assert.equal(r.text, 'ok');
    assert.ok(waited >= 140 && waited < 3_000, `waited ${waited} ms`);
  });

  it('500 on every attempt: fails as a server error after maxAttempts', async () => {
    server.enqueue({ status: 500 }, { status: 502 }, { status: 503 }, { text: 'never' });
    const e = await rejects(client({ maxAttempts: 3 }).stream({ messages: user }, () => undefined));
    assert.equal(e.kind, 'server');
    assert.equal(e.status, 503);
    assert.equal(server.chatRequests().length, 3);
    assert.equal(server.queued(), 1);
  });

  it('401: no retry, says how to set the key, never quotes it', async () => {
    await server.close();
    server = await startModelServer({ requireKey: 'the-right-key' });
    const e = await rejects(client().stream({ messages: user }, () => undefined));
    assert.equal(e.kind, 'auth');
    assert.equal(e.status, 401);
    assert.match(e.message, /Worldline: Set API Key/);
    assert.ok(!e.message.includes(KEY));
    assert.equal(server.chatRequests().length, 1);
    const none = await rejects(client({ apiKey: '' }).stream({ messages: user }, () => undefined));
    assert.match(none.message, /no API key is set/);
  });

  it('network error (nothing listening): retried, then a network error', async () => {
    const port = await closedPort();
    const c = createStreamingClient({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY, model: 'm', retryBaseDelayMs: 5, maxAttempts: 2 });
    const e = await rejects(c.stream({ messages: user }, () => undefined));
    assert.equal(e.kind, 'network');
    assert.match(e.message, /Could not reach 127\.0\.0\.1/);
  });

  it('a stream cut after text has arrived: an error, never a silent retry', async () => {
    server.enqueue({ text: ['第一句。', '第二句。', '第三句。'], cutAfterChunks: 3 }, { text: 'must not be used' });
    const seen: string[] = [];
    const e = await rejects(client().stream({ messages: user }, (d) => d.text && seen.push(d.text)));
    assert.equal(e.kind, 'network');
    assert.match(e.message, /dropped in the middle of the reply|ended before it was complete/);
    assert.deepEqual(seen, ['第一句。', '第二句。']);
    assert.equal(server.chatRequests().length, 1);
  });

  it('a stream cut before any output is retried like a network error', async () => {
    server.enqueue({ text: 'x', cutAfterChunks: 1 }, { text: 'second try' });
    const r = await client().stream({ messages: user }, () => undefined);
    assert.equal(r.text, 'second try');
    assert.equal(r.attempts, 2);
  });

  it('a stream that closes without a finish reason is incomplete', async () => {
    const chunk = (content: string) => JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    server.enqueue({ rawEvents: [chunk('half a sen')] });
    const e = await rejects(client({ maxAttempts: 1 }).stream({ messages: user }, () => undefined));
    assert.equal(e.kind, 'network');
    assert.match(e.message, /ended before it was complete/);
  });

  it('a malformed chunk is a bad response, printed nowhere', async () => {
    const good = JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] });
    server.enqueue({ rawEvents: [good, '{"choices": [broken', '[DONE]'] });
    const original = console.error;
    const printed: unknown[] = [];
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      const e = await rejects(client().stream({ messages: user }, () => undefined));
      assert.equal(e.kind, 'badResponse');
      assert.match(e.message, /malformed/);
    } finally {
      console.error = original;
    }
    assert.deepEqual(printed, []);
    assert.equal(server.chatRequests().length, 1);
  });

  it('finish received, then the connection drops: the reply stands without usage', async () => {
    // Frames: role, text, finish, usage. The cut lands after the finish frame.
    server.enqueue({ text: '完整。', cutAfterChunks: 3 }, { text: 'must not be used' });
    const r = await client().stream({ messages: user }, () => undefined);
    assert.equal(r.text, '完整。');
    assert.equal(r.finish, 'stop');
    assert.equal(r.usage, undefined);
    assert.equal(server.chatRequests().length, 1);
  });

  it('finish received but no [DONE]: the reply stands', async () => {
    const frame = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    server.enqueue({ rawEvents: [frame({ content: '完整。' }, null), frame({}, 'stop')] });
    const r = await client().stream({ messages: user }, () => undefined);
    assert.equal(r.text, '完整。');
    assert.equal(r.finish, 'stop');
  });

  it('cancel mid-stream: rejects as aborted promptly', async () => {
    server.enqueue({ text: ['a', 'b', 'c', 'd', 'e', 'f'], chunkDelayMs: 200 });
    const controller = new AbortController();
    const seen: string[] = [];
    const p = client().stream({ messages: user, signal: controller.signal }, (d) => {
      if (d.text) seen.push(d.text);
      if (seen.length === 1) controller.abort();
    });
    const t0 = Date.now();
    const e = await rejects(p);
    assert.equal(e.kind, 'aborted');
    assert.ok(Date.now() - t0 < 1_000);
    assert.deepEqual(seen, ['a']);
  });

  it('cancel during the backoff between retries', async () => {
    server.enqueue({ status: 503 }, { text: 'late' });
    const controller = new AbortController();
    const p = client({ retryBaseDelayMs: 5_000 }).stream({ messages: user, signal: controller.signal }, () => undefined);
    setTimeout(() => controller.abort(), 100);
    const t0 = Date.now();
    const e = await rejects(p);
    assert.equal(e.kind, 'aborted');
    assert.ok(Date.now() - t0 < 1_000);
    assert.equal(server.chatRequests().length, 1);
  });

  it('a server that goes silent mid-reply times out as a network error', async () => {
    server.enqueue({ text: ['a', 'b'], chunkDelayMs: 1_500 });
    const e = await rejects(client({ timeoutMs: 300, maxAttempts: 1 }).stream({ messages: user }, () => undefined));
    assert.equal(e.kind, 'network');
    assert.match(e.message, /went silent/);
  });
});
