// The pure request builder: system prompt, summary placement, raw replay, tool-call pairing, the
// blocks in front of the instructions as they were sent, the recall after the newest one.
import * as assert from 'node:assert/strict';
import { buildRequest, buildSystemPrompt, replay, replayArguments } from '../../../src/agent/prompt';
import type { ContextMessage } from '../../../src/session/entries';

const BLOCK = '【世界状态】\n时间：傍晚\n地点：茶馆\n【登场名录】人物：青梧。名录之外的名字才是新登场。';

const u = (id: string, text: string): ContextMessage => ({ entryId: id, role: 'user', text });
const a = (id: string, text: string, calls?: { id: string; name: string; arguments: string }[]): ContextMessage =>
  calls ? { entryId: id, role: 'assistant', text, toolCalls: calls } : { entryId: id, role: 'assistant', text };
const tr = (id: string, callId: string, text: string): ContextMessage => ({ entryId: id, role: 'tool', text, callId, name: 'read_file' });

describe('agent/prompt', () => {
  it('system prompt: role, title, style, tool rules; no style heading without style; stable', () => {
    const zh = buildSystemPrompt({ lang: 'zh', title: '雨夜', style: '冷峻。' });
    assert.ok(zh.startsWith('你是作者的合写助手，和作者一起写小说《雨夜》。'));
    for (const must of ['【文风】\n冷峻。', '【工作方式】', 'append_file', 'edit_file', 'write_file', 'read_file', 'list_manuscript', 'world_state_get', '.worldline', '回复要短', '先读']) {
      assert.ok(zh.includes(must), must);
    }
    assert.equal(zh, buildSystemPrompt({ lang: 'zh', title: '雨夜', style: '冷峻。' }));
    const bare = buildSystemPrompt({ lang: 'zh', title: '', style: '  ' });
    assert.ok(bare.includes('一部小说') && !bare.includes('【文风】'));
    const en = buildSystemPrompt({ lang: 'en', title: 'Rain', style: 'Terse.' });
    assert.ok(en.startsWith(`You are the novelist's co-writer on the novel "Rain".`));
    for (const must of ['[Style]\nTerse.', '[How to work]', 'world_state_get', 'Read before you write', 'Keep replies to the novelist short', 'Touch only manuscript files']) {
      assert.ok(en.includes(must), must);
    }
  });

  it('system first, summary appended to it, state block on the newest user message only', () => {
    const ctx = [u('1', '第一条'), a('2', '回复一'), u('3', '第二条')];
    const msgs = buildRequest({ system: 'SYS', summaryText: '林砚借宿客栈。', context: ctx, stateBlock: BLOCK, lang: 'zh' });
    assert.deepEqual(msgs, [
      { role: 'system', content: 'SYS\n\n【前情提要】（更早的对话已压缩成下面的摘要）\n林砚借宿客栈。' },
      { role: 'user', content: '第一条' },
      { role: 'assistant', content: '回复一' },
      { role: 'user', content: `${BLOCK}\n\n第二条` },
    ]);
    const en = buildRequest({ system: 'SYS', summaryText: 'Recap.', context: ctx, stateBlock: '', lang: 'en' });
    assert.equal(en[0]?.content, 'SYS\n\n[Story so far] (the earlier conversation, summarised)\nRecap.');
    assert.equal(en[3]?.content, '第二条', 'no block, no separator');
    assert.equal(buildRequest({ system: 'S', summaryText: '  ', context: [], stateBlock: BLOCK, lang: 'zh' }).length, 1);
  });

  it('during the tool loop the block stays on the turn\'s instruction (the newest user message)', () => {
    const ctx = [u('1', '写'), a('2', '', [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.md"}' }]), tr('3', 'c1', '内容')];
    const msgs = buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, lang: 'zh' });
    assert.deepEqual(msgs.slice(1), [
      { role: 'user', content: `${BLOCK}\n\n写` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.md"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '内容' },
    ]);
  });

  it('incomplete tool-call sequences are completed, strays dropped, so the provider never rejects the request', () => {
    const ctx: ContextMessage[] = [
      u('1', '写'),
      // Two calls, one answered: the other gets a "not run" result.
      a('2', '我看看。', [
        { id: 'c1', name: 'read_file', arguments: '{}' },
        { id: 'c2', name: 'read_file', arguments: '{}' },
      ]),
      tr('3', 'c1', 'r1'),
      // Only calls, none answered; then a stray result with no call.
      a('4', '', [{ id: 'c3', name: 'read_file', arguments: '{}' }]),
      tr('5', 'zz', 'stray'),
      // A result separated from its call by a user message is a stray too.
      a('6', '', [{ id: 'c4', name: 'read_file', arguments: '{}' }]),
      u('7', '插话'),
      tr('8', 'c4', 'late'),
      a('9', '只剩文字', [{ id: 'c5', name: 'read_file', arguments: '{}' }]),
      u('10', '继续'),
    ];
    const call = (id: string) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{}' } });
    const notRun = '未执行：这一轮在这次调用运行之前就结束了。';
    const msgs = buildRequest({ system: 'S', context: ctx, stateBlock: '', lang: 'zh' });
    assert.deepEqual(msgs.slice(1), [
      { role: 'user', content: '写' },
      { role: 'assistant', content: '我看看。', tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', tool_call_id: 'c1', content: 'r1' },
      { role: 'tool', tool_call_id: 'c2', content: notRun },
      { role: 'assistant', content: null, tool_calls: [call('c3')] },
      { role: 'tool', tool_call_id: 'c3', content: notRun },
      { role: 'assistant', content: null, tool_calls: [call('c4')] },
      { role: 'tool', tool_call_id: 'c4', content: notRun },
      { role: 'user', content: '插话' },
      { role: 'assistant', content: '只剩文字', tool_calls: [call('c5')] },
      { role: 'tool', tool_call_id: 'c5', content: notRun },
      { role: 'user', content: '继续' },
    ]);
    // Invariant: every tool message directly answers a call of the assistant message before it.
    let open = new Set<string>();
    for (const m of msgs) {
      if (m.role === 'tool') assert.ok(open.delete(m.tool_call_id));
      else {
        assert.equal(open.size, 0, 'every call answered before the next message');
        open = new Set(m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []);
      }
    }
    // Before the shape rules the raw replay still has the strays (that is what wellFormed is for).
    assert.ok(replay(ctx, 'zh').some((m) => m.role === 'tool' && m.tool_call_id === 'zz'));
  });

  it('malformed arguments are replayed as "{}", valid ones byte for byte', () => {
    assert.equal(replayArguments('{"path": "a.md",  "content":"x"}'), '{"path": "a.md",  "content":"x"}');
    assert.equal(replayArguments('{"path": "a.md", "content": "x'), '{}');
    assert.equal(replayArguments('"{}"'), '{}');
    assert.equal(replayArguments('[1]'), '{}');
    assert.equal(replayArguments(''), '{}');
  });

  it('the builder is pure: inputs untouched, the same input gives the same bytes', () => {
    const ctx = [u('1', '一'), a('2', '二'), u('3', '三')];
    const frozen = JSON.stringify(ctx);
    const one = JSON.stringify(buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, lang: 'zh' }));
    const two = JSON.stringify(buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, lang: 'zh' }));
    assert.equal(one, two);
    assert.equal(JSON.stringify(ctx), frozen);
  });

  it('earlier instructions get the blocks they were sent with; the newest gets the turn\'s; an emptied one stays empty', () => {
    const ctx = [u('1', '第一条'), a('2', '回复一'), u('3', '  '), a('4', '回复二'), u('5', '第三条')];
    const pastBlocks = new Map([['1', 'B1'], ['3', 'B3'], ['5', 'B5']]);
    const msgs = buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, pastBlocks, lang: 'zh' });
    assert.deepEqual(msgs.slice(1).map((m) => m.content), ['B1\n\n第一条', '回复一\n\n回复二', `${BLOCK}\n\n第三条`]);
    const bare = buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, lang: 'zh' });
    assert.equal(bare[1]?.content, '第一条', 'without past blocks, replayed bare');
  });

  it('the recall goes after the newest instruction, also when it is merged with an earlier one; dropping it next turn changes nothing before', () => {
    const ctx = [u('1', '第一条'), a('2', '回复一'), u('3', '第二条'), u('4', '第三条')];
    const msgs = buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, pastBlocks: new Map([['1', 'B1'], ['3', 'B3']]), recall: '【相关回忆】\n- 甲', lang: 'zh' });
    assert.deepEqual(msgs.slice(1).map((m) => m.content), ['B1\n\n第一条', '回复一', `B3\n\n第二条\n\n${BLOCK}\n\n第三条\n\n【相关回忆】\n- 甲`]);
    const next = [...ctx, a('5', '回复三'), u('6', '第四条')];
    const later = buildRequest({ system: 'S', context: next, stateBlock: 'B6', pastBlocks: new Map([['1', 'B1'], ['3', 'B3'], ['4', BLOCK]]), lang: 'zh' });
    const sent = String(msgs[3]?.content);
    assert.equal(later[3]?.content, sent.slice(0, sent.indexOf('\n\n【相关回忆】')));
    assert.equal(buildRequest({ system: 'S', context: ctx, stateBlock: BLOCK, recall: '', lang: 'zh' })[3]?.content, `第二条\n\n${BLOCK}\n\n第三条`, 'no recall: nothing after');
  });

  it('turn after turn, with the blocks replayed, each request is a byte-identical prefix of the next', () => {
    const ctx: ContextMessage[] = [];
    const sent = new Map<string, string>();
    let previous: string | undefined;
    for (let turn = 0; turn < 20; turn++) {
      const state = `${BLOCK}\n事实：第 ${turn} 轮`; // the state changes every turn
      ctx.push(u(`u${turn}`, `指令 ${turn}`));
      const wire = JSON.stringify(buildRequest({ system: 'S', context: ctx, stateBlock: state, pastBlocks: sent, lang: 'zh' }));
      if (previous) assert.ok(wire.startsWith(previous.slice(0, -1)), `request ${turn} extends request ${turn - 1}`);
      sent.set(`u${turn}`, state);
      ctx.push(a(`a${turn}`, `回复 ${turn}`));
      previous = wire;
    }
  });

  it('turn after turn, everything before the previous newest instruction is byte-identical', () => {
    const ctx: ContextMessage[] = [];
    let previous: string[] | undefined;
    for (let turn = 0; turn < 20; turn++) {
      ctx.push(u(`u${turn}`, `指令 ${turn}`), a(`a${turn}`, `回复 ${turn}`));
      const state = `${BLOCK}\n事实：第 ${turn} 轮`; // the state changes every turn
      const msgs = buildRequest({ system: 'S', context: ctx.slice(0, -1), stateBlock: state, lang: 'zh' }).map((m) => JSON.stringify(m));
      if (previous) assert.deepEqual(msgs.slice(0, previous.length - 1), previous.slice(0, -1));
      previous = msgs;
    }
  });
});
