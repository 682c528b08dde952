// Over real HTTP, through the real turn runner: a server as strict about role order and tool
// pairing as DeepSeek's reasoner answers 400 to every request shaped wrong. Ten turns with hides,
// stops, failures, a regenerate, a summary and an emptied reply get zero 400s, while the same
// branch sent unshaped would have been refused, and the server is shown to refuse those shapes.
import * as assert from 'node:assert/strict';
import { replay } from '../../../src/agent/prompt';
import { leftOutText } from '../../../src/agent/requestShape';
import type { ChainEntry } from '../../../src/session/entries';
import type { RecordedRequest, ScriptedReplySpec } from '../../fixtures/modelServer';
import { AGENT_MARK, makeTurnEnv, until, type TurnEnv } from './turnHelpers';
import { shapeProblem, type WireMessage } from './strictShape';

describe('agent/requestShape over HTTP (strict server)', () => {
  let env: TurnEnv;
  afterEach(async () => env.close());

  /** Routes the agent's calls through the strict check; `script` answers the well-formed ones. */
  function strict(script: ScriptedReplySpec[]): { refused: string[]; unshaped: WireMessage[][] } {
    const refused: string[] = [];
    const unshaped: WireMessage[][] = [];
    env.agent.setDefault((req: RecordedRequest) => {
      // What the branch would have been on the wire without the shape rules, at this moment.
      const view = env.session.contextWithSummary();
      const raw = [{ role: 'system', content: req.system ?? '' }, ...replay(view.messages, 'zh')];
      if (shapeProblem(raw) !== undefined) unshaped.push(raw);
      const problem = shapeProblem(req.messages ?? []);
      if (problem !== undefined) {
        refused.push(problem);
        return { status: 400, errorBody: { error: { message: `Invalid request: ${problem}`, type: 'invalid_request_error', param: 'messages', code: null } } };
      }
      return script.shift() ?? { text: '好。' };
    });
    return { refused, unshaped };
  }

  async function post(messages: unknown[]): Promise<number> {
    const res = await fetch(`${env.server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'test-model', messages, stream: false }),
    });
    await res.text();
    return res.status;
  }

  const hideAll = async (ids: string[]) => {
    for (const id of ids) await env.session.appendSide({ type: 'hide', targetId: id, hidden: true });
  };
  /** The chain entries of the turn started by `userId` on the current branch (its reply and results). */
  const replyOf = (userId: string): ChainEntry[] => {
    const p = env.session.path();
    const from = p.findIndex((e) => e.id === userId);
    const next = p.findIndex((e, i) => i > from && e.type === 'user');
    return p.slice(from + 1, next < 0 ? p.length : next).filter((e) => e.type === 'assistant' || e.type === 'tool');
  };

  it('ten turns with hides, stops, failures, a regenerate, a summary and an emptied reply: zero 400s', async () => {
    let stopAtTool = false;
    env = await makeTurnEnv({
      client: { maxAttempts: 1 },
      deps: {
        onEvent: (e) => {
          env.events.push(e);
          if (stopAtTool && e.type === 'toolStart') env.runner.stop();
        },
      },
    });
    env.write('chapters/01.md', '# 第一章\n');
    const write = (id: string, content: string) => ({ id, name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content }) });
    const script: ScriptedReplySpec[] = [];
    const { refused, unshaped } = strict(script);
    const statuses: string[] = [];
    const send = async (text: string, replies: ScriptedReplySpec[], during?: () => Promise<void>) => {
      script.push(...replies);
      const p = env.runner.send(text);
      if (during) await during();
      const r = await p;
      await r.scribeDone;
      assert.deepEqual(refused, [], `refused during "${text}"`);
      statuses.push(r.status);
      return r;
    };

    const t1 = await send('一', [{ text: '第一轮。' }]);
    // Ids reused across replies, as some local servers send them.
    const t2 = await send('二', [{ text: '我先写。', toolCalls: [write('call_0', '雨。')] }, { text: '写好了。' }]);
    await hideAll([t2.userEntryId as string]); // hidden instruction: 第一轮 and 我先写 meet
    const t3 = await send('三', [{ toolCalls: [write('call_0', '风。')] }, { text: '第三轮。' }]);
    await hideAll(replyOf(t3.userEntryId as string).map((e) => e.id)); // hidden reply: 三 and 四 meet
    // Stopped mid-stream, then stopped while the model thinks (nothing said).
    const deltas = () => env.events.filter((e) => e.type === 'delta').length;
    const seen = deltas();
    await send('四', [{ text: ['雨', '还在', '下', '……'], chunkDelayMs: 150 }], async () => {
      await until(() => deltas() >= seen + 2 || refused.length > 0);
      env.runner.stop();
    });
    const before = env.agentRequests().length;
    await send('五', [{ text: '想好了', delayMs: 3_000 }], async () => {
      await until(() => env.agentRequests().length > before || refused.length > 0);
      env.runner.stop();
    });
    // Failed: a stream cut after some text; a reply cut inside a tool call (its call left unanswered).
    await send('六', [{ text: ['半', '句', '话'], cutAfterChunks: 2 }]);
    await send('七', [{ toolCalls: [{ id: 'call_0', name: 'append_file', arguments: '{"path": "chapters/01.md", "content": "断' }], finishReason: 'length' }]);
    // Stopped while tools run: the second call is answered "not run".
    stopAtTool = true;
    await send('八', [{ toolCalls: [write('w1', '甲。'), write('w2', '乙。')] }]);
    stopAtTool = false;
    const t9 = await send('九', [{ text: '第九轮。' }]);
    // Regenerate 九, then empty the new reply by an in-place edit; compact the first turn.
    script.push({ text: '重写了。' });
    const again = await env.runner.regenerate(t9.assistantId as string);
    await again.scribeDone;
    statuses.push(`regenerate:${again.status}`);
    await env.session.appendSide({ type: 'edit', targetId: again.assistantId as string, text: '' });
    const firstReply = replyOf(t1.userEntryId as string)[0] as ChainEntry;
    await env.session.append({ type: 'summary', text: '青梧进了茶馆。', coversThroughId: firstReply.id });
    await send('十', [{ toolCalls: [write('call_0', '完。')] }, { text: '收尾。' }]);

    assert.deepEqual(statuses, ['done', 'done', 'done', 'aborted', 'aborted', 'error', 'error', 'aborted', 'done', 'regenerate:done', 'done']);
    assert.deepEqual(refused, [], 'the strict server refused nothing');
    const requests = env.agentRequests();
    assert.equal(requests.length, 14);
    // What the novelist hid or emptied never reached the model; the summary replaced what it covers.
    const lastMessages = requests[requests.length - 1]?.messages ?? [];
    const wire = JSON.stringify(lastMessages);
    for (const gone of ['"二"', '第三轮', '重写了', '第九轮', '第一轮']) assert.ok(!wire.includes(gone), gone);
    assert.ok(requests[requests.length - 1]?.system?.includes('青梧进了茶馆。'));
    assert.deepEqual(lastMessages[1], { role: 'user', content: leftOutText('zh') }, 'a bridge opens the compacted conversation');
    for (const kept of ['我先写', '雨还在', '回复到这里被作者停止了', '半', '未执行：作者停止了这一轮。', '未执行：这一轮在这次调用运行之前就结束了。']) assert.ok(wire.includes(kept), kept);
    const users = lastMessages.filter((m) => m.role === 'user');
    assert.ok(String(users[users.length - 1]?.content).includes('【世界状态】'), 'the newest instruction carries the state');
    assert.ok(String(users[users.length - 1]?.content).endsWith('\n\n十'));
    // Not by accident: unshaped, the branch broke the rules again and again, and the server
    // refuses exactly those requests.
    const wouldFail = unshaped.length;
    assert.ok(wouldFail >= 8, `unshaped requests that break the rules: ${wouldFail}`);
    for (const raw of unshaped.slice(0, wouldFail)) assert.equal(await post(raw), 400);
    console.log(`      strict server: ${requests.length} requests, 0 refused (400); unshaped, ${wouldFail} of them would have been`);
  });

  it('the strict server really answers 400 to each broken shape, and 200 to a sound one', async () => {
    env = await makeTurnEnv();
    strict([]);
    const S = { role: 'system', content: AGENT_MARK.zh };
    const call = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } };
    const shapes: [string, unknown[]][] = [
      ['two users', [S, { role: 'user', content: '一' }, { role: 'user', content: '二' }]],
      ['two assistants', [S, { role: 'user', content: '一' }, { role: 'assistant', content: '甲' }, { role: 'assistant', content: '乙' }, { role: 'user', content: '二' }]],
      ['call without result', [S, { role: 'user', content: '一' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'user', content: '二' }]],
      ['orphan result', [S, { role: 'user', content: '一' }, { role: 'tool', tool_call_id: 'c1', content: 'x' }]],
      ['reply first', [S, { role: 'assistant', content: '甲' }, { role: 'user', content: '一' }]],
    ];
    for (const [name, messages] of shapes) assert.equal(await post(messages), 400, name);
    assert.equal(await post([S, { role: 'user', content: '一' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'c1', content: 'x' }]), 200);
    assert.equal(env.agentRequests().length, shapes.length + 1, 'every one reached the strict route');
  });
});
