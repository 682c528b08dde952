// Provider fields through a real turn: what the stream brings (DeepSeek's reasoning_content,
// Gemini's thought signature, cached tokens) is stored on the session entries, survives a reload,
// and goes back on the tool-call messages of every later request — against endpoints that refuse
// the request without it, as the providers' docs say they do.
import * as assert from 'node:assert/strict';
import { dialectById } from '../../../src/model/dialects';
import type { AssistantEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import type { RecordedRequest, ScriptedReplySpec } from '../../fixtures/modelServer';
import { makeTurnEnv, type TurnEnv } from './turnHelpers';

/** An endpoint that answers 400 when `missing(req)` names something, else the reply. */
function strict(missing: (req: RecordedRequest) => string | undefined, reply: ScriptedReplySpec) {
  return (req: RecordedRequest): ScriptedReplySpec => {
    const why = missing(req);
    return why ? { status: 400, errorBody: { error: { message: why, type: 'invalid_request_error', param: null, code: null } } } : reply;
  };
}

const toolMessages = (req: RecordedRequest) => (req.messages ?? []).filter((m) => m.role === 'assistant' && Array.isArray(m['tool_calls']));

const deepseekMissing = (req: RecordedRequest): string | undefined =>
  toolMessages(req).some((m) => !('reasoning_content' in m)) ? 'The reasoning_content in the thinking mode must be passed back to the API.' : undefined;

const geminiMissing = (req: RecordedRequest): string | undefined =>
  toolMessages(req).some((m) => (m['tool_calls'] as Record<string, unknown>[]).some((c) => !(c['extra_content'] as { google?: { thought_signature?: string } } | undefined)?.google?.thought_signature))
    ? 'Function call is missing a thought_signature in functionCall parts.'
    : undefined;

describe('agent/turn: provider fields', () => {
  let env: TurnEnv;
  afterEach(async () => {
    await env.close();
  });

  it('DeepSeek: reasoning_content is stored on the entry and replayed in every later request; cached tokens are kept', async () => {
    env = await makeTurnEnv({ client: { dialect: dialectById('deepseek'), model: 'deepseek-chat' } });
    env.write('chapters/01.md', '雨下了一夜。\n');
    env.agent.enqueue(
      strict(deepseekMissing, {
        reasoning: ['先读一下', '第一章。'],
        toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"chapters/01.md"}' }],
        usage: { prompt_tokens: 900, completion_tokens: 40, prompt_cache_hit_tokens: 512, prompt_cache_miss_tokens: 388, completion_tokens_details: { reasoning_tokens: 25 } },
      }),
      strict(deepseekMissing, { reasoning: '读完了。', text: '第一章只有一句。' }),
      strict(deepseekMissing, { text: '好的。' }),
    );
    const first = await env.runner.send('看看第一章');
    assert.equal(first.status, 'done', first.error);
    const a1 = env.session.path().find((e) => e.type === 'assistant' && e.toolCalls) as AssistantEntry;
    assert.deepEqual(a1.providerFields, { reasoning_content: '先读一下第一章。' });
    assert.deepEqual(a1.usage, { promptTokens: 900, completionTokens: 40, cachedTokens: 512, reasoningTokens: 25 });
    const last = env.session.get(first.assistantId as string) as AssistantEntry;
    assert.deepEqual(last.providerFields, { reasoning_content: '读完了。' });
    await first.scribeDone;
    await env.runner.idle();

    const second = await env.runner.send('继续');
    assert.equal(second.status, 'done', second.error);
    const requests = env.agentRequests();
    assert.equal(requests.length, 3);
    for (const req of requests.slice(1)) {
      const replayed = toolMessages(req);
      assert.equal(replayed.length, 1);
      assert.equal(replayed[0]?.['reasoning_content'], '先读一下第一章。');
    }
    // A message without tool calls goes back without its reasoning (the docs allow dropping it).
    const plain = (requests[2]?.messages ?? []).filter((m) => m.role === 'assistant' && !m['tool_calls']);
    assert.ok(plain.length > 0 && plain.every((m) => !('reasoning_content' in m)));
    assert.ok(!requests.some((r) => r.rawBody.includes('providerFields')));

    // The entries pass the session's checks on reload.
    await env.session.flush();
    const file = env.session.file;
    const { session, report } = await Session.open(file, { readOnly: true });
    try {
      assert.deepEqual(report.corruptLines, []);
      const again = session.get(a1.id) as AssistantEntry;
      assert.deepEqual(again.providerFields, a1.providerFields);
      assert.equal(again.usage?.cachedTokens, 512);
    } finally {
      await session.close();
    }
  });

  it('Gemini: each call\'s thought signature is stored on the call and replayed on it', async () => {
    env = await makeTurnEnv({ client: { dialect: dialectById('gemini'), model: 'gemini-3-flash-preview' } });
    env.agent.enqueue(
      strict(geminiMissing, { toolCalls: [{ id: 'g1', name: 'list_manuscript', arguments: '{}', extraContent: { google: { thought_signature: 'c2lnbmF0dXJl' } } }] }),
      strict(geminiMissing, { text: '稿子是空的。' }),
    );
    const r = await env.runner.send('看看有什么');
    assert.equal(r.status, 'done', r.error);
    const a1 = env.session.path().find((e) => e.type === 'assistant' && e.toolCalls) as AssistantEntry;
    assert.deepEqual(a1.toolCalls?.[0]?.providerFields, { extra_content: { google: { thought_signature: 'c2lnbmF0dXJl' } } });
    const sent = toolMessages(env.agentRequests()[1] as RecordedRequest)[0]?.['tool_calls'] as Record<string, unknown>[];
    assert.deepEqual(sent[0]?.['extra_content'], { google: { thought_signature: 'c2lnbmF0dXJl' } });
  });

  it('the strict endpoints really refuse a request without the fields (so the tests above cannot pass by accident)', async () => {
    env = await makeTurnEnv({ client: { dialect: dialectById('openai'), model: 'gpt-4o' } });
    env.agent.enqueue(
      strict(deepseekMissing, { reasoning: 'r', toolCalls: [{ id: 'c1', name: 'list_manuscript', arguments: '{}' }] }),
      strict(deepseekMissing, { text: 'never' }),
    );
    const r = await env.runner.send('看看');
    // OpenAI's dialect replays nothing, so the DeepSeek-strict endpoint answers 400 on step two.
    assert.equal(r.status, 'error');
    assert.match(r.error ?? '', /400/);
    assert.equal(env.agentRequests().length, 2);
  });
});
