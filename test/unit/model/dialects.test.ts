// The dialect table: recognition by URL and setting, every row's request rules, the replay rule,
// the refused-parameter reader, and bounds on stored provider fields. Pure; the same rules are
// exercised over real HTTP in providers.http.test.ts.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DIALECTS, DIALECT_IDS, REASONING_ALLOWANCE, dialectById, dialectFor, dialectForEndpoint, isOpenAIReasoningModel, replayFields, requestShape,
  type DialectId, type ThinkingMode,
} from '../../../src/model/dialects';
import { DROPPABLE, EndpointMemory, errorParts, rejectedParameter } from '../../../src/model/rejected';
import { boundProviderFields, carryProviderFields, toWireMessages } from '../../../src/model/replay';
import type { OpenAIMessage } from '../../../src/model/wire';
import type { ContextMessage } from '../../../src/session/entries';
import { PROVIDER_FIELDS_MAX_CHARS, providerFieldsProblem } from '../../../src/session/validate';
import { runs } from '../long-mode';

const shape = (id: DialectId, model: string, thinking: ThinkingMode, extra: Partial<Parameters<typeof requestShape>[1]> = {}) =>
  requestShape(dialectById(id), { model, thinking, temperature: 0.8, maxTokens: 2048, ...extra }).fields;

describe('model/dialects: recognition', () => {
  const cases: [string, DialectId][] = [
    ['https://api.deepseek.com', 'deepseek'],
    ['https://api.deepseek.com/v1', 'deepseek'],
    ['https://api.openai.com/v1', 'openai'],
    ['https://generativelanguage.googleapis.com/v1beta/openai/', 'gemini'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['https://dashscope.aliyuncs.com/compatible-mode/v1', 'qwen'],
    ['https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'qwen'],
    ['https://api.moonshot.cn/v1', 'kimi'],
    ['https://api.moonshot.ai/v1', 'kimi'],
    ['https://open.bigmodel.cn/api/paas/v4', 'glm'],
    ['https://api.z.ai/api/paas/v4', 'glm'],
    ['https://api.siliconflow.cn/v1', 'siliconflow'],
    ['http://localhost:11434/v1', 'ollama'],
    ['http://192.168.1.20:11434/v1', 'ollama'],
    ['http://127.0.0.1:1234/v1', 'lmstudio'],
    ['http://[::1]:8000/v1', 'vllm'],
    ['http://10.0.0.5:8080/v1', 'llamacpp'],
    ['http://gpu-box.local:8080/v1', 'llamacpp'],
    // A bare port says nothing on a public host, nor does a lookalike host.
    ['https://llm.example.com:8000/v1', 'openai-compatible'],
    ['https://api.openai.com.evil.example/v1', 'openai-compatible'],
    ['https://notdeepseek.com/v1', 'openai-compatible'],
    ['http://127.0.0.1:39999/v1', 'openai-compatible'],
    ['not a url', 'openai-compatible'],
  ];
  for (const [url, id] of cases) {
    it(`${url} → ${id}`, () => assert.equal(dialectFor(url).id, id));
  }

  it('worldline.provider names the row whatever the URL; auto and unknown values recognise it', () => {
    assert.equal(dialectFor('http://127.0.0.1:39999/v1', 'deepseek').id, 'deepseek');
    assert.equal(dialectFor('https://api.deepseek.com', 'openai-compatible').id, 'openai-compatible');
    assert.equal(dialectFor('https://api.deepseek.com', 'auto').id, 'deepseek');
    assert.equal(dialectFor('https://api.deepseek.com', 'nonsense').id, 'deepseek');
  });

  it('the setting applies to the scribe endpoint only on the same origin', () => {
    const settings = { baseUrl: 'http://127.0.0.1:5000/v1', provider: 'deepseek' as const };
    assert.equal(dialectForEndpoint('http://127.0.0.1:5000/v1', settings).id, 'deepseek');
    assert.equal(dialectForEndpoint('http://127.0.0.1:5000/other', settings).id, 'deepseek');
    assert.equal(dialectForEndpoint('http://localhost:11434/v1', settings).id, 'ollama');
  });

  it('every id has one row; local rows need no key and leave tools to be tried; Ollama warns of its 4k context', () => {
    assert.deepEqual(DIALECTS.map((d) => d.id), [...DIALECT_IDS]);
    for (const d of DIALECTS) {
      assert.ok(d.docs.length > 0 && d.docs.every((u) => /^https:\/\//.test(u)), `${d.id} cites its docs`);
      assert.equal(d.needsKey, !d.local, d.id);
      if (d.local) assert.equal(d.tools, 'unknown', d.id);
    }
    assert.equal(dialectById('ollama').warning, 'ollamaDefaultContext');
    assert.equal(dialectById('ollama').model('qwen3:8b').contextWindow, 4096);
  });
});

describe('model/dialects: request rules per row', () => {
  it('DeepSeek: thinking {type} on/off, nothing in auto; reasoner is never switched and gets the reasoning allowance', () => {
    assert.deepEqual(shape('deepseek', 'deepseek-chat', 'off'), { temperature: 0.8, max_tokens: 2048, thinking: { type: 'disabled' } });
    assert.deepEqual(shape('deepseek', 'deepseek-chat', 'on').thinking, { type: 'enabled' });
    assert.equal('thinking' in shape('deepseek', 'deepseek-chat', 'auto'), false);
    // Thinking is on by default, so 'auto' budgets for it.
    assert.equal(shape('deepseek', 'deepseek-chat', 'auto')['max_tokens'], 2048 + REASONING_ALLOWANCE);
    assert.deepEqual(shape('deepseek', 'deepseek-reasoner', 'off'), { temperature: 0.8, max_tokens: 2048 + REASONING_ALLOWANCE });
  });

  it('OpenAI: max_completion_tokens always; reasoning models lose temperature and get their lowest effort', () => {
    assert.deepEqual(shape('openai', 'gpt-4o', 'off'), { temperature: 0.8, max_completion_tokens: 2048 });
    assert.deepEqual(shape('openai', 'gpt-5.1', 'off'), { max_completion_tokens: 2048, reasoning_effort: 'none' });
    assert.deepEqual(shape('openai', 'gpt-5-mini', 'off'), { max_completion_tokens: 2048 + REASONING_ALLOWANCE, reasoning_effort: 'minimal' });
    assert.deepEqual(shape('openai', 'o3', 'off'), { max_completion_tokens: 2048 + REASONING_ALLOWANCE, reasoning_effort: 'low' });
    assert.deepEqual(shape('openai', 'o4-mini', 'auto'), { max_completion_tokens: 2048 + REASONING_ALLOWANCE });
    assert.deepEqual(shape('openai', 'gpt-5-pro', 'off'), { max_completion_tokens: 2048 + REASONING_ALLOWANCE });
    assert.deepEqual(shape('openai', 'gpt-5.1', 'on'), { max_completion_tokens: 2048 + REASONING_ALLOWANCE, reasoning_effort: 'medium' });
    for (const m of ['gpt-5', 'gpt-5.1', 'gpt-5-nano', 'o1', 'o3-mini', 'o4-mini-2025-04-16', 'openai/gpt-5']) assert.ok(isOpenAIReasoningModel(m), m);
    for (const m of ['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest', 'gpt-5.1-chat-latest', 'omni-moderation']) assert.ok(!isOpenAIReasoningModel(m), m);
    assert.equal(dialectById('openai').model('gpt-5').contextWindow, 400_000);
  });

  it('Gemini: reasoning_effort none only where thinking can be turned off; low + allowance elsewhere', () => {
    assert.deepEqual(shape('gemini', 'gemini-2.5-flash', 'off'), { temperature: 0.8, max_tokens: 2048, reasoning_effort: 'none' });
    assert.deepEqual(shape('gemini', 'gemini-2.5-pro', 'off'), { temperature: 0.8, max_tokens: 2048 + REASONING_ALLOWANCE, reasoning_effort: 'low' });
    assert.deepEqual(shape('gemini', 'gemini-3-pro-preview', 'off')['reasoning_effort'], 'low');
    assert.deepEqual(shape('gemini', 'gemini-2.0-flash', 'off'), { temperature: 0.8, max_tokens: 2048 });
  });

  it('OpenRouter: one reasoning field, and the provider pin without fallbacks', () => {
    const d = dialectById('openrouter');
    assert.deepEqual(shape('openrouter', 'deepseek/deepseek-chat', 'off').reasoning, { effort: 'none' });
    assert.deepEqual(shape('openrouter', 'deepseek/deepseek-chat', 'on').reasoning, { enabled: true });
    assert.deepEqual(shape('openrouter', 'x/y', 'off', { options: { providerPin: ['DeepInfra', 'Together'] } }).provider, { order: ['DeepInfra', 'Together'], allow_fallbacks: false });
    assert.equal('provider' in shape('openrouter', 'x/y', 'off'), false);
    assert.deepEqual(Object.keys(d.headers({})).sort(), ['HTTP-Referer', 'X-Title']);
    assert.equal(shape('openrouter', 'deepseek/deepseek-r1', 'off')['max_tokens'], 2048 + REASONING_ALLOWANCE);
  });

  it('Qwen and SiliconFlow: enable_thinking; thinking-only models are not switched (SiliconFlow caps their budget)', () => {
    assert.equal(shape('qwen', 'qwen-plus', 'off')['enable_thinking'], false);
    assert.equal(shape('qwen', 'qwen3-32b', 'on')['enable_thinking'], true);
    assert.equal('enable_thinking' in shape('qwen', 'qwq-plus', 'off'), false);
    assert.equal(shape('siliconflow', 'Qwen/Qwen3-32B', 'off')['enable_thinking'], false);
    assert.equal('enable_thinking' in shape('siliconflow', 'Qwen/Qwen3-235B-A22B-Instruct-2507', 'off'), false);
    assert.deepEqual(shape('siliconflow', 'deepseek-ai/DeepSeek-R1', 'off'), { temperature: 0.8, max_tokens: 2048 + REASONING_ALLOWANCE, thinking_budget: 1024 });
  });

  it('Kimi and GLM: thinking {type}; Kimi thinking models take no temperature; context windows from the docs', () => {
    assert.deepEqual(shape('kimi', 'kimi-k2.5', 'off'), { max_tokens: 2048, thinking: { type: 'disabled' } });
    assert.deepEqual(shape('kimi', 'kimi-k2-thinking', 'off'), { max_tokens: 2048 + REASONING_ALLOWANCE });
    assert.deepEqual(shape('kimi', 'moonshot-v1-32k', 'off'), { temperature: 0.8, max_tokens: 2048 });
    assert.equal(dialectById('kimi').model('moonshot-v1-32k').contextWindow, 32 * 1024);
    assert.equal(dialectById('kimi').model('kimi-k2.6').contextWindow, 262_144);
    assert.deepEqual(shape('glm', 'glm-4.6', 'off'), { temperature: 0.8, max_tokens: 2048, thinking: { type: 'disabled' } });
    assert.equal('thinking' in shape('glm', 'glm-4-plus', 'off'), false);
    assert.equal(dialectById('glm').model('glm-4.7').contextWindow, 200_000);
  });

  it('local servers and unknown endpoints are plain: max_tokens, temperature, no thinking field', () => {
    for (const id of ['ollama', 'lmstudio', 'vllm', 'llamacpp', 'openai-compatible'] as const) {
      for (const t of ['off', 'auto', 'on'] as const) assert.deepEqual(shape(id, 'qwen3:8b', t), { temperature: 0.8, max_tokens: 2048 }, `${id} ${t}`);
    }
  });

  it('a refused parameter is never sent again; a refused max tokens field falls back to the other, then to none', () => {
    assert.deepEqual(shape('openai', 'gpt-4o', 'off', { rejected: new Set(['max_completion_tokens']) }), { temperature: 0.8, max_tokens: 2048 });
    assert.deepEqual(shape('openai', 'gpt-4o', 'off', { rejected: new Set(['max_completion_tokens', 'max_tokens', 'temperature']) }), {});
    assert.deepEqual(shape('deepseek', 'deepseek-chat', 'off', { rejected: new Set(['thinking']) }), { temperature: 0.8, max_tokens: 2048 });
  });

  it('property: for any row, model, mode and refused set, the fields are within what the row may send and never a refused one', () => {
    const ids = fc.constantFrom(...DIALECT_IDS);
    const models = fc.constantFrom('deepseek-chat', 'deepseek-reasoner', 'gpt-5', 'gpt-5.1', 'o3', 'gpt-4o', 'gemini-2.5-flash', 'gemini-3-pro-preview', 'qwen3-8b', 'qwq-32b', 'kimi-k2.5', 'kimi-k2-thinking', 'glm-4.6', 'glm-z1-air', 'x/unknown', '');
    const modes = fc.constantFrom<ThinkingMode>('off', 'auto', 'on');
    const refused = fc.subarray([...DROPPABLE]);
    fc.assert(
      fc.property(ids, models, modes, refused, fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }), (id, model, mode, rej, max) => {
        const fields = requestShape(dialectById(id), { model, thinking: mode, temperature: 1, ...(max !== undefined ? { maxTokens: max } : {}), rejected: new Set(rej) }).fields;
        for (const k of Object.keys(fields)) {
          assert.ok((DROPPABLE as readonly string[]).includes(k), `${k} is droppable`);
          assert.ok(!rej.includes(k as never), `${k} was refused`);
        }
        const cap = (fields['max_tokens'] ?? fields['max_completion_tokens']) as number | undefined;
        if (cap !== undefined) assert.ok(max !== undefined && (cap === max || cap === max + REASONING_ALLOWANCE));
      }),
      { numRuns: runs(300, 5000) },
    );
  });
});

describe('model/dialects: replay', () => {
  const withCalls = (providerFields?: Record<string, unknown>, callFields?: Record<string, unknown>) => ({
    role: 'assistant' as const,
    ...(providerFields ? { providerFields } : {}),
    toolCalls: [{ id: 'c1', ...(callFields ? { providerFields: callFields } : {}) }, { id: 'c2' }],
  });

  it('DeepSeek: reasoning_content on every tool-call message, as stored, or empty when none was stored', () => {
    const d = dialectById('deepseek');
    assert.deepEqual(replayFields(d, withCalls({ reasoning_content: 'plan', reasoning: 'x' })).message, { reasoning_content: 'plan' });
    assert.deepEqual(replayFields(d, withCalls()).message, { reasoning_content: '' });
    // Required fields are not skipped even if a 400 once named them.
    assert.deepEqual(replayFields(d, withCalls({ reasoning_content: 'plan' }), new Set(['reasoning_content'])).message, { reasoning_content: 'plan' });
    // Without tool calls it may be dropped, per the docs: nothing goes back.
    assert.deepEqual(replayFields(d, { role: 'assistant', providerFields: { reasoning_content: 'plan' } }), { message: {}, toolCalls: {} });
  });

  it('Gemini: extra_content back on each call that carried one; OpenRouter: reasoning_details; OpenAI: nothing', () => {
    const sig = { google: { thought_signature: 'SIG' } };
    assert.deepEqual(replayFields(dialectById('gemini'), withCalls(undefined, { extra_content: sig })).toolCalls, { c1: { extra_content: sig } });
    const details = [{ type: 'reasoning.encrypted', data: 'E', index: 0 }];
    assert.deepEqual(replayFields(dialectById('openrouter'), withCalls({ reasoning_details: details, reasoning: 'r' })).message, { reasoning_details: details });
    assert.deepEqual(replayFields(dialectById('openai'), withCalls({ reasoning_content: 'r' }, { extra_content: sig })), { message: {}, toolCalls: {} });
    // An unknown endpoint echoes what it sent, unless it refused it.
    const unknown = dialectById('openai-compatible');
    assert.deepEqual(replayFields(unknown, withCalls({ reasoning_content: 'r' })).message, { reasoning_content: 'r' });
    assert.deepEqual(replayFields(unknown, withCalls({ reasoning_content: 'r' }), new Set(['reasoning_content'])).message, {});
  });

  it('carry + wire: fields reach the right assistant message even when call ids repeat across replies; carriers never go on the wire', () => {
    const context: ContextMessage[] = [
      { entryId: 'u', role: 'user', text: 'go' },
      { entryId: 'a1', role: 'assistant', text: '', toolCalls: [{ id: 'x', name: 'f', arguments: '{}' }], providerFields: { reasoning_content: 'first' } },
      { entryId: 't1', role: 'tool', text: 'ok', callId: 'x', name: 'f' },
      { entryId: 'a2', role: 'assistant', text: '', toolCalls: [{ id: 'x', name: 'f', arguments: '{}', providerFields: { extra_content: { k: 1 } } }], providerFields: { reasoning_content: 'second' } },
      { entryId: 't2', role: 'tool', text: 'ok', callId: 'x', name: 'f' },
    ];
    const call = { id: 'x', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
    const wire: OpenAIMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'x', content: 'ok' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'x', content: 'ok' },
    ];
    const carried = carryProviderFields(wire, context);
    const out = toWireMessages(dialectById('deepseek'), carried) as Record<string, unknown>[];
    assert.equal(out[2]?.['reasoning_content'], 'first');
    assert.equal(out[4]?.['reasoning_content'], 'second');
    assert.ok(!JSON.stringify(out).includes('providerFields'));
    const gem = toWireMessages(dialectById('gemini'), carried) as Record<string, unknown>[];
    assert.deepEqual((gem[4]?.['tool_calls'] as Record<string, unknown>[])[0], { ...call, extra_content: { k: 1 } });
    assert.equal('extra_content' in ((gem[2]?.['tool_calls'] as Record<string, unknown>[])[0] ?? {}), false);
    // Without stored fields the wire is exactly what the builder made.
    assert.equal(JSON.stringify(toWireMessages(dialectById('openai'), wire)), JSON.stringify(wire));
  });
});

describe('model/rejected', () => {
  const all = new Set<string>(DROPPABLE);
  it('reads refusals as providers word them, and never a demand', () => {
    assert.equal(rejectedParameter(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'max_tokens', all), 'max_tokens');
    assert.equal(rejectedParameter(400, "Unsupported value: 'temperature' does not support 0.8 with this model. Only the default (1) value is supported.", 'temperature', all), 'temperature');
    assert.equal(rejectedParameter(400, 'Unrecognized request argument supplied: enable_thinking', null, all), 'enable_thinking');
    assert.equal(rejectedParameter(422, "body -> thinking: Extra inputs are not permitted", undefined, all), 'thinking');
    assert.equal(rejectedParameter(400, "Additional properties are not allowed ('reasoning_content' was unexpected)", 'messages[2].reasoning_content', all), 'reasoning_content');
    assert.equal(rejectedParameter(400, 'The reasoning_content in the thinking mode must be passed back to the API.', null, all), undefined);
    assert.equal(rejectedParameter(400, "Unknown model 'x'", null, all), undefined);
    assert.equal(rejectedParameter(500, 'temperature not supported', null, all), undefined);
    assert.equal(rejectedParameter(400, 'temperature not supported', null, new Set(['max_tokens'])), undefined);
    // A name inside another word is not that parameter.
    assert.equal(rejectedParameter(400, 'unsupported: my_temperature_scale', null, all), undefined);
  });

  it('errorParts reads status, message and param, nested or not', () => {
    assert.deepEqual(errorParts({ status: 400, message: '400 bad', error: { message: 'inner', param: 'temperature' } }), { status: 400, message: '400 bad inner', param: 'temperature' });
    assert.deepEqual(errorParts('x'), { status: undefined, message: '', param: undefined });
  });

  it('the memory is per endpoint and model', () => {
    const m = new EndpointMemory();
    m.remember('http://h/v1/', 'a', 'temperature');
    assert.ok(m.rejected('http://h/v1', 'a').has('temperature'));
    assert.equal(m.rejected('http://h/v1', 'b').size, 0);
    assert.equal(m.rejected('http://other/v1', 'a').size, 0);
  });
});

describe('model/replay: bounds on stored provider fields', () => {
  it('keeps small JSON as is, empties the longest strings when too big, keeps what the session accepts', () => {
    assert.deepEqual(boundProviderFields({ reasoning_content: 'r' }), { reasoning_content: 'r' });
    assert.equal(boundProviderFields({}), undefined);
    const big = boundProviderFields({ reasoning_content: 'x'.repeat(PROVIDER_FIELDS_MAX_CHARS + 10), extra_content: { google: { thought_signature: 'S' } } });
    assert.deepEqual(big, { reasoning_content: '', extra_content: { google: { thought_signature: 'S' } } });
    assert.equal(providerFieldsProblem(big), undefined);
  });

  it('property: whatever a provider sends, the bounded fields pass the session check (or are left out)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 4 })), fc.nat({ max: 3 }), (fields, pad) => {
        const input = pad > 0 ? { ...fields, reasoning_content: 'y'.repeat(pad * PROVIDER_FIELDS_MAX_CHARS / 2) } : fields;
        const bounded = boundProviderFields(input as Record<string, unknown>);
        if (bounded !== undefined) assert.equal(providerFieldsProblem(bounded), undefined);
      }),
      { numRuns: runs(100, 2000) },
    );
  });
});
