// The dialects over real HTTP against the local model server: what each row puts in the body and
// headers, what the stream gives back (reasoning, thought signatures, cache and reasoning usage),
// the replay that strict providers demand, the once-only retry without a refused parameter, and
// the 402 code.
import * as assert from 'node:assert/strict';
import { createChatClient } from '../../../src/model/chatClient';
import { dialectById, REASONING_ALLOWANCE, type DialectId } from '../../../src/model/dialects';
import { EndpointMemory } from '../../../src/model/rejected';
import { createStreamingClient, type OpenAIMessage } from '../../../src/model/streaming';
import { summaryModelFor } from '../../../src/memory/sideModels';
import type { WorldlineSettings } from '../../../src/model/settings';
import { startModelServer, type ModelServer, type RecordedRequest } from '../../fixtures/modelServer';
import { rejects } from './rejects';

const body = (r: RecordedRequest | undefined): Record<string, unknown> => (r?.body ?? {}) as Record<string, unknown>;

/** DeepSeek's documented 400: an assistant message with tool calls but no reasoning_content. */
function strictDeepSeek(req: RecordedRequest): string | undefined {
  for (const m of req.messages ?? []) {
    if (m.role === 'assistant' && Array.isArray(m['tool_calls']) && !('reasoning_content' in m)) return 'The reasoning_content in the thinking mode must be passed back to the API.';
  }
  return undefined;
}

describe('model/dialects over HTTP', () => {
  let server: ModelServer;
  let memory: EndpointMemory;
  beforeEach(async () => {
    server = await startModelServer();
    memory = new EndpointMemory();
  });
  afterEach(async () => {
    await server.close();
  });

  const chat = (id: DialectId, model: string, over: Partial<Parameters<typeof createChatClient>[0]> = {}) =>
    createChatClient({ baseURL: server.url, apiKey: 'k', model, maxRetries: 0, timeoutMs: 5000, dialect: dialectById(id), thinking: 'off', endpointMemory: memory, ...over });
  const streaming = (id: DialectId, model = 'm', over: Partial<Parameters<typeof createStreamingClient>[0]> = {}) =>
    createStreamingClient({ baseURL: server.url, apiKey: 'k', model, retryBaseDelayMs: 5, timeoutMs: 5000, dialect: dialectById(id), endpointMemory: memory, ...over });
  const ask = [{ role: 'user' as const, content: 'x' }];

  it('side calls send each row\'s thinking-off switch, its max tokens field, and temperature only where allowed', async () => {
    server.setDefault({ text: 'ok' });
    const cases: [DialectId, string, Record<string, unknown>, string[]][] = [
      ['deepseek', 'deepseek-chat', { thinking: { type: 'disabled' }, max_tokens: 2048, temperature: 0.2 }, []],
      ['openai', 'o3', { reasoning_effort: 'low', max_completion_tokens: 2048 + REASONING_ALLOWANCE }, ['temperature', 'max_tokens']],
      ['openai', 'gpt-5.1', { reasoning_effort: 'none', max_completion_tokens: 2048 }, ['temperature', 'max_tokens']],
      ['qwen', 'qwen-plus', { enable_thinking: false, max_tokens: 2048, temperature: 0.2 }, []],
      ['kimi', 'kimi-k2.5', { thinking: { type: 'disabled' }, max_tokens: 2048 }, ['temperature']],
      ['glm', 'glm-4.6', { thinking: { type: 'disabled' } }, []],
      ['gemini', 'gemini-2.5-flash', { reasoning_effort: 'none' }, []],
      ['openrouter', 'deepseek/deepseek-chat', { reasoning: { effort: 'none' } }, []],
      ['ollama', 'qwen3:8b', { max_tokens: 2048, temperature: 0.2 }, ['thinking', 'enable_thinking', 'reasoning_effort', 'reasoning']],
    ];
    for (const [id, model, expected, absent] of cases) {
      await chat(id, model).complete({ messages: ask, maxTokens: 2048, temperature: 0.2 });
      const b = body(server.chatRequests().at(-1));
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(b[k], v, `${id} ${model}: ${k}`);
      for (const k of absent) assert.equal(k in b, false, `${id} ${model}: no ${k}`);
    }
  });

  it('the agent\'s streaming body: OpenAI reasoning model, OpenRouter headers and provider pin, thinking on for DeepSeek', async () => {
    server.setDefault({ text: 'ok' });
    await streaming('openai', 'gpt-5').stream({ messages: ask, temperature: 0.8, maxTokens: 900 }, () => undefined);
    const o = body(server.chatRequests()[0]);
    assert.equal('temperature' in o, false);
    assert.equal('max_tokens' in o, false);
    assert.equal(o['max_completion_tokens'], 900 + REASONING_ALLOWANCE);
    await streaming('openrouter', 'x/y', { dialectOptions: { providerPin: ['DeepInfra'] } }).stream({ messages: ask }, () => undefined);
    const r = server.chatRequests()[1];
    assert.equal(r?.headers['http-referer'], 'https://marketplace.visualstudio.com/items?itemName=worldline.worldline');
    assert.equal(r?.headers['x-title'], 'Worldline');
    assert.deepEqual(body(r)['provider'], { order: ['DeepInfra'], allow_fallbacks: false });
    await streaming('deepseek', 'deepseek-chat', { thinking: 'on' }).stream({ messages: ask }, () => undefined);
    assert.deepEqual(body(server.chatRequests()[2])['thinking'], { type: 'enabled' });
    // Other rows send no attribution headers.
    assert.equal(server.chatRequests()[2]?.headers['x-title'], undefined);
  });

  it('collects reasoning_content deltas, tool-call extra_content and usage with cached and reasoning tokens', async () => {
    server.enqueue({
      reasoning: ['先想', '一想。'],
      text: '好。',
      toolCalls: [{ id: 'c1', name: 'list_manuscript', arguments: '{}', extraContent: { google: { thought_signature: 'SIG1' } } }, { id: 'c2', name: 'read_file', arguments: '{"path":"a.md"}' }],
      usage: { prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 640 }, completion_tokens_details: { reasoning_tokens: 30 } },
    });
    const r = await streaming('gemini').stream({ messages: ask }, () => undefined);
    assert.deepEqual(r.providerFields, { reasoning_content: '先想一想。' });
    assert.deepEqual(r.toolCalls[0]?.providerFields, { extra_content: { google: { thought_signature: 'SIG1' } } });
    assert.equal(r.toolCalls[1]?.providerFields, undefined);
    assert.deepEqual(r.usage, { promptTokens: 1000, completionTokens: 50, totalTokens: 1050, cachedTokens: 640, reasoningTokens: 30 });
    // DeepSeek's own cache field, in the non-streaming client too.
    server.enqueue({ text: 'ok', usage: { prompt_tokens: 10, completion_tokens: 1, prompt_cache_hit_tokens: 8, prompt_cache_miss_tokens: 2 } });
    const c = await chat('deepseek', 'deepseek-chat').complete({ messages: ask });
    assert.deepEqual(c.usage, { promptTokens: 10, completionTokens: 1, totalTokens: 11, cachedTokens: 8 });
  });

  it('OpenRouter reasoning_details pieces are merged per block and replayed on the tool-call message', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
      JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'x/y', choices: [{ index: 0, delta, finish_reason: finish }] });
    server.enqueue({
      rawEvents: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ reasoning: 'ab', reasoning_details: [{ type: 'reasoning.text', text: 'ab', index: 0 }] }),
        chunk({ reasoning: 'c', reasoning_details: [{ type: 'reasoning.text', text: 'c', index: 0 }, { type: 'reasoning.encrypted', data: 'E', index: 1 }] }),
        chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
    });
    const r = await streaming('openrouter').stream({ messages: ask }, () => undefined);
    const details = [{ type: 'reasoning.text', text: 'abc', index: 0 }, { type: 'reasoning.encrypted', data: 'E', index: 1 }];
    assert.deepEqual(r.providerFields, { reasoning: 'abc', reasoning_details: details });
    server.enqueue({ text: 'done' });
    const messages: OpenAIMessage[] = [
      ...ask,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }], ...(r.providerFields ? { providerFields: r.providerFields } : {}) },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ];
    await streaming('openrouter').stream({ messages }, () => undefined);
    const sent = server.chatRequests()[1]?.messages?.[1];
    assert.deepEqual(sent?.['reasoning_details'], details);
    assert.equal('reasoning' in (sent ?? {}), false);
    assert.equal('providerFields' in (sent ?? {}), false);
  });

  it('a strict DeepSeek endpoint: a tool-call message without reasoning_content is refused; the dialect always sends it', async () => {
    server.setDefault((req) => {
      const why = strictDeepSeek(req);
      return why ? { status: 400, errorBody: { error: { message: why, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } } : { text: 'ok' };
    });
    const call = { id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
    const lost: OpenAIMessage[] = [...ask, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'c1', content: 'r' }];
    // The emulator really rejects the broken shape (a plain OpenAI client would send it)…
    const e = await rejects(streaming('openai').stream({ messages: lost }, () => undefined));
    assert.equal(e.status, 400);
    // …and is not read as a refused parameter: one request, nothing remembered.
    assert.equal(server.chatRequests().length, 1);
    assert.equal(memory.rejected(server.url, 'm').size, 0);
    // DeepSeek's dialect sends what was stored, or '' when nothing was.
    await streaming('deepseek').stream({ messages: lost }, () => undefined);
    assert.equal(server.chatRequests()[1]?.messages?.[1]?.['reasoning_content'], '');
    const stored: OpenAIMessage[] = [...ask, { role: 'assistant', content: null, tool_calls: [call], providerFields: { reasoning_content: '想过了' } }, { role: 'tool', tool_call_id: 'c1', content: 'r' }];
    await streaming('deepseek').stream({ messages: stored }, () => undefined);
    assert.equal(server.chatRequests()[2]?.messages?.[1]?.['reasoning_content'], '想过了');
  });

  it('an unknown endpoint refusing a parameter: retried once without it, remembered for the endpoint and model', async () => {
    let refusals = 0;
    server.setDefault((req) => {
      if ('temperature' in body(req)) {
        refusals += 1;
        return { status: 400, errorBody: { error: { message: "Unsupported value: 'temperature' does not support 0.8 with this model.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' } } };
      }
      return { text: 'ok' };
    });
    const r = await streaming('openai-compatible').stream({ messages: ask, temperature: 0.8 }, () => undefined);
    assert.equal(r.text, 'ok');
    assert.equal(server.chatRequests().length, 2);
    assert.equal(refusals, 1);
    // The next request (a new client, as each turn makes) leaves it out from the start.
    await streaming('openai-compatible').stream({ messages: ask, temperature: 0.8 }, () => undefined);
    assert.equal(server.chatRequests().length, 3);
    assert.equal('temperature' in body(server.chatRequests()[2]), false);
    // Another model on the same endpoint still gets it.
    await streaming('openai-compatible', 'other').stream({ messages: ask, temperature: 0.8 }, () => undefined);
    assert.equal(refusals, 2);
    // The non-streaming client shares the memory: max_tokens refused → max_completion_tokens.
    server.setDefault((req) =>
      'max_tokens' in body(req)
        ? { status: 400, errorBody: { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } } }
        : { text: 'ok' },
    );
    const before = server.chatRequests().length;
    await chat('openai-compatible', 'proxy-gpt-5').complete({ messages: ask, maxTokens: 100 });
    const sent = server.chatRequests().slice(before);
    assert.equal(sent.length, 2);
    assert.equal(body(sent[1])['max_completion_tokens'], 100);
    assert.ok(memory.rejected(server.url, 'proxy-gpt-5').has('max_tokens'));
  });

  it('a refusal that keeps coming is final after a bounded number of tries', async () => {
    server.setDefault({ status: 400, errorBody: { error: { message: 'Unrecognized request arguments supplied: temperature, max_tokens, stream_options, enable_thinking', type: 'invalid_request_error' } } });
    const e = await rejects(streaming('qwen', 'qwen-plus', { thinking: 'off' }).stream({ messages: ask, temperature: 0.5, maxTokens: 10 }, () => undefined));
    assert.equal(e.status, 400);
    assert.ok(server.chatRequests().length <= 4, `${server.chatRequests().length} requests`);
  });

  it('402 Insufficient Balance is a billing error with a code, from both clients, never retried', async () => {
    server.setDefault({ status: 402, errorBody: { error: { message: 'Insufficient Balance', type: 'unknown_error', param: null, code: 'invalid_request_error' } } });
    const s = await rejects(streaming('deepseek').stream({ messages: ask }, () => undefined));
    assert.equal(s.kind, 'billing');
    assert.equal(s.code, 'insufficientBalance');
    assert.equal(s.status, 402);
    assert.match(s.message, /balance/i);
    assert.equal(server.chatRequests().length, 1);
    const c = await rejects(chat('deepseek', 'deepseek-chat').complete({ messages: ask }));
    assert.equal(c.code, 'insufficientBalance');
  });

  it('summaries get the thinking-off switch of the provider setting on the main endpoint, and not on another origin', async () => {
    server.setDefault({ text: 'ok' });
    const settings = {
      baseUrl: server.url, model: 'deepseek-chat', scribeBaseUrl: server.url, scribeModel: 'deepseek-chat', provider: 'deepseek',
    } as unknown as WorldlineSettings;
    await summaryModelFor(settings, { scribe: '' }).client.complete({ messages: ask, maxTokens: 100 });
    assert.deepEqual(body(server.chatRequests()[0])['thinking'], { type: 'disabled' });
    const elsewhere = { ...settings, baseUrl: 'https://api.deepseek.com' } as WorldlineSettings;
    await summaryModelFor(elsewhere, { scribe: '' }).client.complete({ messages: ask, maxTokens: 100 });
    assert.equal('thinking' in body(server.chatRequests()[1]), false);
  });
});
