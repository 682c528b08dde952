// The shape rules, case by case: what a hidden, stopped, failed, edited or compacted branch turns
// into on the wire, in both project languages. Every request here also passes the strict judge.
import * as assert from 'node:assert/strict';
import { buildRequest } from '../../../src/agent/prompt';
import { cutOffText, leftOutText, notRunText, wellFormed } from '../../../src/agent/requestShape';
import type { OpenAIMessage } from '../../../src/model/streaming';
import type { ContextMessage } from '../../../src/session/entries';
import { shapeProblem } from './strictShape';

const BLOCK = '【世界状态】\n地点：茶馆';
const u = (id: string, text: string): ContextMessage => ({ entryId: id, role: 'user', text });
const a = (id: string, text: string, extra: Partial<ContextMessage> = {}): ContextMessage => ({ entryId: id, role: 'assistant', text, ...extra });
const tr = (id: string, callId: string, text: string): ContextMessage => ({ entryId: id, role: 'tool', text, callId, name: 'read_file' });
const call = (id: string) => ({ id, name: 'read_file', arguments: '{"path":"a.md"}' });
const wire = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.md"}' } });

function request(context: ContextMessage[], lang: 'zh' | 'en' = 'zh', stateBlock = BLOCK): OpenAIMessage[] {
  const msgs = buildRequest({ system: 'S', context, stateBlock, lang });
  assert.equal(shapeProblem(msgs), undefined, JSON.stringify(msgs));
  return msgs.slice(1);
}

describe('agent/requestShape', () => {
  it('a hidden reply: the two instructions merge, the block stays right in front of the newest', () => {
    assert.deepEqual(request([u('1', '写开头'), u('3', '再冷一点')]), [{ role: 'user', content: `写开头\n\n${BLOCK}\n\n再冷一点` }]);
    // Without a block the merged text is just the two instructions.
    assert.deepEqual(request([u('1', 'one'), u('3', 'two')], 'en', ''), [{ role: 'user', content: 'one\n\ntwo' }]);
  });

  it('a hidden instruction: the replies around it merge, the later one keeps its calls and results', () => {
    const ctx = [u('1', '一'), a('2', '甲'), a('4', '乙', { toolCalls: [call('c1')], providerFields: { reasoning_content: 'x' } }), tr('5', 'c1', '内容'), u('6', '三')];
    assert.deepEqual(request(ctx), [
      { role: 'user', content: '一' },
      { role: 'assistant', content: '甲\n\n乙', tool_calls: [wire('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: '内容' },
      { role: 'user', content: `${BLOCK}\n\n三` },
    ]);
    // A provider's extra fields on the reply with calls survive a merge (wellFormed spreads it).
    const merged = wellFormed(
      [
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', content: null, tool_calls: [wire('c1')], reasoning_content: 'r' } as OpenAIMessage,
        { role: 'tool', tool_call_id: 'c1', content: 't' },
      ],
      { lang: 'en' },
    );
    assert.deepEqual(merged[1], { role: 'assistant', content: 'a', tool_calls: [wire('c1')], reasoning_content: 'r' });
  });

  it('a stopped reply is replayed marked as cut off; a stop before any word leaves nothing to replay', () => {
    assert.deepEqual(request([u('1', '写雨'), a('2', '雨还在', { finish: 'aborted' }), u('3', '继续')]), [
      { role: 'user', content: '写雨' },
      { role: 'assistant', content: `雨还在\n\n${cutOffText('zh')}` },
      { role: 'user', content: `${BLOCK}\n\n继续` },
    ]);
    assert.equal(cutOffText('en'), '(Cut off here: the novelist stopped this reply.)');
    assert.deepEqual(request([u('1', 'rain'), a('2', '   ', { finish: 'aborted' }), u('3', 'go on')], 'en', ''), [{ role: 'user', content: 'rain\n\ngo on' }]);
  });

  it('stopped or failed mid-tool: a call without its result is answered "not run", in call order', () => {
    const ctx = [u('1', '写两章'), a('2', '', { toolCalls: [call('w1'), call('w2'), call('w3')], finish: 'aborted' }), tr('3', 'w2', '好'), u('4', '然后')];
    assert.deepEqual(request(ctx), [
      { role: 'user', content: '写两章' },
      { role: 'assistant', content: null, tool_calls: [wire('w1'), wire('w2'), wire('w3')] },
      { role: 'tool', tool_call_id: 'w1', content: notRunText('zh') },
      { role: 'tool', tool_call_id: 'w2', content: '好' },
      { role: 'tool', tool_call_id: 'w3', content: notRunText('zh') },
      { role: 'user', content: `${BLOCK}\n\n然后` },
    ]);
    assert.match(notRunText('en'), /^Not run/);
  });

  it('a failed turn that said nothing, and an edit that emptied a reply, leave no empty message behind', () => {
    const ctx = [u('1', '一'), a('2', '', { finish: 'error' }), u('3', '二'), a('4', ''), u('5', '三')];
    assert.deepEqual(request(ctx, 'zh', ''), [{ role: 'user', content: '一\n\n二\n\n三' }]);
  });

  it('compacted or first instruction hidden: a reply first gets a bridging instruction in the project language', () => {
    for (const lang of ['zh', 'en'] as const) {
      const msgs = request([a('2', 'reply'), u('3', 'next')], lang, '');
      assert.deepEqual(msgs, [{ role: 'user', content: leftOutText(lang) }, { role: 'assistant', content: 'reply' }, { role: 'user', content: 'next' }]);
    }
    assert.equal(leftOutText('zh'), '（更早的对话已略去。）');
  });

  it('never ends with a reply; strays and repeated call ids go; empty older instructions go', () => {
    const msgs = wellFormed(
      [
        { role: 'system', content: 'S' },
        { role: 'tool', tool_call_id: 'zz', content: 'stray' },
        { role: 'user', content: '  ' },
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [wire('c1'), wire('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'one' },
        { role: 'tool', tool_call_id: 'c1', content: 'two' },
        { role: 'user', content: '' },
        { role: 'assistant', content: 'trailing' },
      ],
      { lang: 'en' },
    );
    assert.deepEqual(msgs, [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [wire('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'user', content: '' },
    ]);
  });

  it('idempotent, pure, and a clean branch passes through unchanged', () => {
    const clean: OpenAIMessage[] = [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a', tool_calls: [wire('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 't' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'v' },
    ];
    const frozen = JSON.stringify(clean);
    assert.deepEqual(wellFormed(clean, { lang: 'zh' }), clean);
    assert.equal(JSON.stringify(clean), frozen);
    const messy: OpenAIMessage[] = [{ role: 'assistant', content: 'x' }, { role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'system', content: 'late' }];
    const once = wellFormed(messy, { lang: 'zh' });
    assert.deepEqual(wellFormed(once, { lang: 'zh' }), once);
    assert.equal(shapeProblem(once), undefined);
    assert.deepEqual(once[0], { role: 'system', content: 'late' });
  });

  it('the strict judge refuses each broken shape (so the checks above can fail)', () => {
    const S = { role: 'system', content: 'S' };
    const broken: [string, object[]][] = [
      ['two users', [S, { role: 'user', content: 'a' }, { role: 'user', content: 'b' }]],
      ['two assistants', [S, { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'assistant', content: 'c' }, { role: 'user', content: 'd' }]],
      ['call without result', [S, { role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [wire('c1')] }, { role: 'user', content: 'd' }]],
      ['orphan result', [S, { role: 'user', content: 'a' }, { role: 'tool', tool_call_id: 'c9', content: 'x' }]],
      ['results out of order', [S, { role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [wire('c1'), wire('c2')] }, { role: 'tool', tool_call_id: 'c2', content: 'x' }, { role: 'tool', tool_call_id: 'c1', content: 'y' }]],
      ['reply first', [S, { role: 'assistant', content: 'b' }, { role: 'user', content: 'a' }]],
      ['ends with a reply', [S, { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }]],
      ['empty reply', [S, { role: 'user', content: 'a' }, { role: 'assistant', content: '' }, { role: 'user', content: 'b' }]],
      ['second system', [S, { role: 'user', content: 'a' }, S]],
    ];
    for (const [name, msgs] of broken) assert.notEqual(shapeProblem(msgs as never), undefined, name);
  });
});
