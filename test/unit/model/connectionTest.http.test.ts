// Test Connection over real HTTP against the local model server: the one request it sends (a
// tool, a small cap, the dialect's fields, the key and the custom headers), and what it reports
// when tools work, when the model ignores the tool, when reasoning comes back (as text or only as
// reasoning tokens), when the key is refused or missing, when the model is unknown, when nothing
// listens; the context window from the endpoint's list or the dialect; and the words for each.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { connectionWords } from '../../../src/model/connectionWords';
import { contextWindowFromList, PING_TOOL, reasoningSeen, testConnection, TEST_MAX_TOKENS, type ConnectionTestInput } from '../../../src/model/connectionTest';
import { dialectById } from '../../../src/model/dialects';
import { EndpointMemory } from '../../../src/model/rejected';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const ping = { toolCalls: [{ name: PING_TOOL, arguments: '{"ok":true}' }] };

describe('model/connectionTest over HTTP', () => {
  let server: ModelServer;
  const input = (over: Partial<ConnectionTestInput> = {}): ConnectionTestInput => ({
    baseUrl: server.url, apiKey: 'sk-test', model: 'test-model', dialect: dialectById('openai-compatible'), thinking: 'auto',
    timeoutMs: 5000, endpointMemory: new EndpointMemory(), ...over,
  });
  beforeEach(async () => { server = await startModelServer(); });
  afterEach(async () => { await server.close(); });

  it('sends one streamed request offering the ping tool, with the key and the custom headers; tools work', async () => {
    server.enqueue(ping);
    const report = await testConnection(input({ headers: { 'x-gateway-tenant': 'novel' } }));
    assert.equal(report.answered, true);
    assert.equal(report.tools, 'called');
    assert.equal(report.thinking, false);
    assert.equal(report.error, undefined);
    const chats = server.chatRequests();
    assert.equal(chats.length, 1, 'one request');
    const req = chats[0]!;
    assert.equal(req.stream, true);
    assert.equal(req.authorization, 'Bearer sk-test');
    assert.equal(req.headers['x-gateway-tenant'], 'novel');
    assert.deepEqual((req.tools ?? []).map((t) => (t as { function: { name: string } }).function.name), [PING_TOOL]);
    assert.equal(req.maxTokens, TEST_MAX_TOKENS);
    // The endpoint's list was read too (it gives no context length here).
    assert.ok(server.requests.some((r) => r.path === '/v1/models' && r.authorization === 'Bearer sk-test' && r.headers['x-gateway-tenant'] === 'novel'));
    const words = connectionWords(report);
    assert.equal(words.level, 'info');
    assert.deepEqual(words.lines.map((l) => l.message).slice(1, 2), ['Tools work: the model called the test tool.']);
  });

  it('reports a model that answers without calling the tool, and points to Select Model', async () => {
    server.enqueue({ text: 'Hello! How can I help?' });
    const report = await testConnection(input());
    assert.equal(report.answered, true);
    assert.equal(report.tools, 'notCalled');
    const words = connectionWords(report);
    assert.equal(words.level, 'warning');
    assert.equal(words.action, 'selectModel');
  });

  it('a reply cut at the cap before any call is "not known", not "no tools"', async () => {
    server.enqueue({ reasoning: 'Let me think about this carefully…', finishReason: 'length' });
    const report = await testConnection(input());
    assert.equal(report.tools, 'cut');
    assert.equal(report.thinking, true);
  });

  it('sees thinking in reasoning_content, and in reasoning tokens alone (OpenAI sends no reasoning text)', async () => {
    server.enqueue({ reasoning: ['The novelist wants', ' a ping.'], ...ping });
    const deepseek = await testConnection(input({ dialect: dialectById('deepseek'), model: 'deepseek-chat', thinking: 'on' }));
    assert.equal(deepseek.thinking, true);
    assert.equal(deepseek.tools, 'called');
    assert.deepEqual((server.chatRequests()[0]!.body as Record<string, unknown>)['thinking'], { type: 'enabled' }, 'the dialect\'s switch went out');

    server.enqueue({ ...ping, usage: { prompt_tokens: 50, completion_tokens: 80, completion_tokens_details: { reasoning_tokens: 64 } } });
    const openai = await testConnection(input({ dialect: dialectById('openai'), model: 'o3' }));
    assert.equal(openai.thinking, true);
    assert.equal(openai.reasoningTokens, 64);
    assert.equal(openai.contextWindow?.tokens, 200_000);
    assert.equal(openai.contextWindow?.source, 'dialect');
    const body = server.chatRequests()[1]!.body as Record<string, unknown>;
    assert.equal(body['temperature'], undefined, 'a reasoning model gets no temperature');
    assert.ok(typeof body['max_completion_tokens'] === 'number' && !('max_tokens' in body));
    assert.match(connectionWords(openai).lines.map((l) => l.message).join(' '), /64 reasoning tokens|\{0\} reasoning tokens/);
    assert.equal(reasoningSeen({}), false);
  });

  it('a refused key is an auth error with Set API Key; no key at all says none is set', async () => {
    await server.close();
    server = await startModelServer({ requireKey: 'sk-right' });
    const wrong = await testConnection(input({ apiKey: 'sk-wrong' }));
    assert.equal(wrong.answered, false);
    assert.equal(wrong.error?.kind, 'auth');
    assert.equal(wrong.error?.status, 401);
    assert.ok(!JSON.stringify(wrong).includes('sk-wrong'), 'the key is nowhere in the report');
    const words = connectionWords(wrong);
    assert.equal(words.level, 'error');
    assert.equal(words.action, 'setKey');
    assert.match(words.lines[0]!.message, /rejected the API key/);
    assert.equal(server.requests.filter((r) => r.path === '/v1/models').length, 0, 'no model list after a failure');

    const none = await testConnection(input({ apiKey: '' }));
    assert.equal(none.keySent, false);
    assert.match(connectionWords(none).lines[0]!.message, /none is set/);
  });

  it('a 404 points at the base URL or the model name; nothing listening is a network error', async () => {
    server.enqueue({ status: 404, errorBody: { error: { message: 'The model `nope` does not exist', type: 'invalid_request_error', param: null, code: 'model_not_found' } } });
    const missing = await testConnection(input({ model: 'nope' }));
    assert.equal(missing.error?.status, 404);
    assert.match(connectionWords(missing).lines[0]!.message, /404/);
    const port = server.port;
    await server.close();
    const down = await testConnection(input({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 2000 }));
    assert.equal(down.answered, false);
    assert.equal(down.error?.kind, 'network');
    assert.equal(connectionWords(down).action, 'chooseProvider');
    server = await startModelServer();
  });

  it('takes the context window from the endpoint\'s list when it gives one, else from the dialect (Ollama: 4k, warned)', async () => {
    // A minimal endpoint whose /models says the context length (OpenRouter's shape).
    const listing = http.createServer((req, res) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ id: 'other', context_length: 1 }, { id: 'test-model', context_length: 163_840 }] }));
        return;
      }
      // Chat: forward to the model server by answering the way it would: a ping tool call.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (o: unknown): string => `data: ${JSON.stringify(o)}\n\n`;
      res.write(chunk({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: PING_TOOL, arguments: '{"ok":true}' } }] }, finish_reason: null }] }));
      res.write(chunk({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }));
      res.end('data: [DONE]\n\n');
    });
    await new Promise<void>((r) => listing.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(listing.address() as AddressInfo).port}/v1`;
      const listed = await testConnection(input({ baseUrl: url }));
      assert.equal(listed.tools, 'called');
      assert.deepEqual(listed.contextWindow, { tokens: 163_840, source: 'endpoint' });
    } finally {
      listing.closeAllConnections();
      await new Promise<void>((r) => listing.close(() => r()));
    }
    server.enqueue(ping);
    const ollama = await testConnection(input({ dialect: dialectById('ollama'), apiKey: '' }));
    assert.deepEqual(ollama.contextWindow, { tokens: 4096, source: 'dialect' });
    assert.equal(ollama.warning, 'ollamaDefaultContext');
    assert.match(connectionWords(ollama).lines.at(-1)!.message, /OLLAMA_CONTEXT_LENGTH/);
  });

  it('reads a context length only from the model\'s own entry, and only a positive integer', () => {
    const body = { data: [{ id: 'a', context_length: 8192 }, { id: 'b', max_model_len: 32768 }, { id: 'c', context_length: '9' }, { id: 'd', context_window: -1 }] };
    assert.equal(contextWindowFromList(body, 'a'), 8192);
    assert.equal(contextWindowFromList(body, 'b'), 32768);
    assert.equal(contextWindowFromList(body, 'c'), undefined);
    assert.equal(contextWindowFromList(body, 'd'), undefined);
    assert.equal(contextWindowFromList(body, 'zzz'), undefined);
    assert.equal(contextWindowFromList(null, 'a'), undefined);
    assert.equal(contextWindowFromList({ data: 'x' }, 'a'), undefined);
  });

  it('every sentence it can say has a Chinese translation', async () => {
    const reports = [
      { answered: true, tools: 'called', thinking: true, reasoningTokens: 3, contextWindow: { tokens: 1, source: 'endpoint' }, warning: 'ollamaDefaultContext' },
      { answered: true, tools: 'notCalled', thinking: true, contextWindow: { tokens: 1, source: 'dialect' } },
      { answered: true, tools: 'cut', thinking: false },
      ...(['auth', 'billing', 'rateLimit', 'server', 'network', 'aborted', 'badResponse'] as const).map((kind) => ({ answered: false, error: { kind, message: '' } })),
      { answered: false, keySent: true, error: { kind: 'auth', message: '' } },
      { answered: false, error: { kind: 'badResponse', status: 404, message: '' } },
    ] as const;
    for (const r of reports) {
      const words = connectionWords({ host: 'h', model: 'm', dialect: 'openai', keySent: false, elapsedMs: 1200, ...r } as Parameters<typeof connectionWords>[0]);
      assert.ok(words.lines.length > 0);
      for (const line of words.lines) assert.ok(line.message in bundle, `no translation for: ${line.message}`);
    }
  });
});
