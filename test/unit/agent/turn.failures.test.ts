// Every way a turn can fail ends as an error/aborted assistant entry, with no checkpoint and no
// scribe, Retry offered, and no unhandled promise rejection anywhere. Also: stop, and the busy guard.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { TurnBusyError } from '../../../src/agent/turnTypes';
import { createStreamingClient } from '../../../src/model/streaming';
import type { AssistantEntry, ToolEntry } from '../../../src/session/entries';
import { makeTurnEnv, shape, until, type TurnEnv } from './turnHelpers';

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('agent/turn failures', () => {
  let env: TurnEnv;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => {
    process.off('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await env.close();
    // Let any stray rejection surface before judging.
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled.map(String), [], 'no unhandled promise rejection');
  });

  /** The common verdict for a failed turn. */
  function assertFailed(r: Awaited<ReturnType<TurnEnv['runner']['send']>>, finish: 'error' | 'aborted'): AssistantEntry {
    assert.equal(r.status, finish);
    const last = env.session.get(r.assistantId as string) as AssistantEntry;
    assert.equal(last.type, 'assistant');
    assert.equal(last.finish, finish);
    assert.deepEqual(env.hookLog, [], 'no checkpoint, no scribe');
    assert.equal(r.scribeDone, undefined);
    assert.equal(env.runner.retryTarget, r.userEntryId);
    assert.equal(env.runner.busy, false);
    if (finish === 'error') {
      assert.equal(r.retryable, true);
      assert.equal(last.error, r.error);
      assert.ok(env.events.some((e) => e.type === 'error' && e.retryable && e.message === r.error));
    }
    return last;
  }

  it('network error (nothing listening): error, then Retry with a working client is a sibling reply', async () => {
    const port = await closedPort();
    env = await makeTurnEnv({ client: { baseURL: `http://127.0.0.1:${port}/v1`, maxAttempts: 2 } });
    const r = await env.runner.send('写一段');
    const failed = assertFailed(r, 'error');
    assert.match(failed.error ?? '', /Could not reach/);
    env.runner.update({ client: createStreamingClient(env.streamingOptions({ baseURL: env.server.url })) });
    env.agent.enqueue({ text: '写好了。' });
    const again = await env.runner.retry();
    assert.equal(again.status, 'done');
    assert.equal(again.userEntryId, r.userEntryId);
    assert.deepEqual(env.session.variants(again.assistantId as string).siblings.map((e) => e.id), [r.assistantId, again.assistantId]);
    assert.equal(env.runner.retryTarget, undefined);
    await assert.rejects(env.runner.retry(), /没有可以重试/);
  });

  it('401: error telling the novelist to set the key', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ status: 401 });
    const r = await env.runner.send('写');
    const failed = assertFailed(r, 'error');
    assert.match(failed.error ?? '', /Worldline: Set API Key/);
    assert.equal(env.agentRequests().length, 1);
  });

  it('429 then success: retried inside the client; one clean reply', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ status: 429 }, { text: '好的。' });
    const r = await env.runner.send('写');
    assert.equal(r.status, 'done');
    assert.deepEqual(shape(env.session), ['user:写', 'assistant:stop:好的。']);
    assert.equal(env.agentRequests().length, 2);
  });

  it('500 on every attempt: error after the bounded retries', async () => {
    env = await makeTurnEnv({ client: { maxAttempts: 3 } });
    env.agent.setDefault({ status: 500 });
    const r = await env.runner.send('写');
    const failed = assertFailed(r, 'error');
    assert.match(failed.error ?? '', /failed with 500/);
    assert.equal(env.agentRequests().length, 3);
  });

  it('a stream cut mid-reply: the partial text is recorded with finish error, tool work of earlier steps stays unsaved', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '第一段。' }) }] },
      { text: ['我写了', '第一段，', '接着'], cutAfterChunks: 3 },
    );
    const r = await env.runner.send('写两段');
    const failed = assertFailed(r, 'error');
    assert.equal(failed.text, '我写了第一段，');
    assert.match(failed.error ?? '', /dropped in the middle|ended before/);
    assert.equal(r.changes.length, 1, 'the result still lists what the tools changed');
    assert.equal(env.agentRequests().length, 2, 'no silent retry after output');
  });

  it('a stream cut inside a tool call: the half call is never recorded or run', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ toolCalls: [{ name: 'write_file', arguments: ['{"path":"chapters/09.md",', '"content":"半', '句"}'] }], cutAfterChunks: 3 });
    const r = await env.runner.send('写');
    const failed = assertFailed(r, 'error');
    assert.equal(failed.toolCalls, undefined);
    assert.equal(r.changes.length, 0);
    assert.throws(() => env.read('chapters/09.md'));
  });

  it('a malformed streamed chunk: error, retry offered', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ rawEvents: ['{"choices":[{"index":0,"delta":{"content":"a"', '[DONE]'] });
    const r = await env.runner.send('写');
    const failed = assertFailed(r, 'error');
    assert.match(failed.error ?? '', /malformed/);
  });

  it('stop mid-stream: the partial reply is recorded with finish aborted', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: ['雨', '还在', '下', '……', '没完'], chunkDelayMs: 150 });
    const p = env.runner.send('写雨');
    await until(() => env.events.filter((e) => e.type === 'delta').length >= 2);
    assert.equal(env.runner.stop(), true);
    const r = await p;
    const last = assertFailed(r, 'aborted');
    assert.equal(last.text, '雨还在');
    assert.equal(last.error, undefined);
    assert.ok(!env.events.some((e) => e.type === 'error'));
    assert.equal(env.runner.stop(), false);
    // The aborted text is part of the branch: the next request replays it.
    env.agent.enqueue({ text: '继续。' });
    await env.runner.send('继续');
    assert.ok(JSON.stringify(env.agentRequests()[1]?.messages).includes('雨还在'));
  });

  it('stop while tools run: the call in progress finishes, the rest are answered "not run"', async () => {
    env = await makeTurnEnv({
      deps: {
        onEvent: (e) => {
          env.events.push(e);
          if (e.type === 'toolStart') env.runner.stop();
        },
      },
    });
    env.agent.enqueue({
      toolCalls: [
        { id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '一。' }) },
        { id: 'w2', name: 'write_file', arguments: JSON.stringify({ path: 'chapters/02.md', content: '二。' }) },
      ],
    });
    const r = await env.runner.send('写两章');
    assertFailed(r, 'aborted');
    assert.equal(env.read('chapters/01.md'), '一。');
    assert.throws(() => env.read('chapters/02.md'));
    const tools = env.session.path().filter((e): e is ToolEntry => e.type === 'tool');
    assert.deepEqual(tools.map((t) => [t.callId, t.isError]), [['w1', false], ['w2', true]]);
    assert.match(tools[1]?.result ?? '', /未执行/);
    assert.equal(env.agentRequests().length, 1);
  });

  it('busy: a second turn, regenerate, edit, retry and guarded actions are refused while a turn runs', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '第一轮。' }, { text: ['慢', '慢', '写'], chunkDelayMs: 100 });
    const first = await env.runner.send('一');
    await first.scribeDone;
    const running = env.runner.send('二');
    assert.equal(env.runner.busy, true);
    await assert.rejects(env.runner.send('三'), TurnBusyError);
    await assert.rejects(env.runner.regenerate(first.assistantId as string), TurnBusyError);
    await assert.rejects(env.runner.editAndBranch(first.userEntryId as string, '一改'), TurnBusyError);
    await assert.rejects(env.runner.retry(), TurnBusyError);
    for (const action of ['switch variant', 'compact', 'restore']) {
      assert.throws(() => env.runner.guard(action), (e: unknown) => e instanceof TurnBusyError && e.action === action && /助手正在写作/.test(e.message));
    }
    const r = await running;
    assert.equal(r.status, 'done');
    assert.equal(env.runner.busy, false);
    assert.doesNotThrow(() => env.runner.guard('switch variant'));
    assert.equal(env.agentRequests().length, 2);
    assert.deepEqual(shape(env.session), ['user:一', 'assistant:stop:第一轮。', 'user:二', 'assistant:stop:慢慢写']);
  });

  it('a beforeTurn failure (e.g. prose restore) ends the turn before any model call', async () => {
    env = await makeTurnEnv({
      hooks: {
        beforeTurn: async (info) => {
          if (info.kind === 'regenerate') throw new Error('could not restore the prose');
        },
      },
    });
    env.agent.enqueue({ text: '甲。' });
    const first = await env.runner.send('写');
    const r = await env.runner.regenerate(first.assistantId as string);
    assert.equal(r.status, 'error');
    assert.match(r.error ?? '', /could not restore the prose/);
    assert.equal(env.agentRequests().length, 1);
    const failed = env.session.get(r.assistantId as string) as AssistantEntry;
    assert.equal(failed.finish, 'error');
    assert.equal(env.session.variants(failed.id).siblings.length, 2);
  });

  it('a closed session: the turn ends as an error, nothing thrown', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '好。' });
    await env.session.close();
    const r = await env.runner.send('写');
    assert.equal(r.status, 'error');
    assert.match(r.error ?? '', /closed/);
    assert.equal(r.retryable, false);
  });

  it('refused before starting: an empty instruction, an unknown entry, a disposed runner; nothing recorded', async () => {
    env = await makeTurnEnv();
    await assert.rejects(env.runner.send('  \n'), /指令是空的/);
    await assert.rejects(env.runner.regenerate('nope'), /not in this session/);
    await assert.rejects(env.runner.editAndBranch('nope', '新'), /not an instruction/);
    env.runner.dispose();
    await assert.rejects(env.runner.send('写'), /closed/);
    assert.equal(env.session.path().length, 0);
    assert.equal(env.runner.busy, false);
  });

  it('a view that throws from onEvent cannot break the turn', async () => {
    env = await makeTurnEnv({
      deps: {
        onEvent: () => {
          throw new Error('view crashed');
        },
      },
    });
    env.agent.enqueue({ text: '好。' });
    const r = await env.runner.send('写');
    assert.equal(r.status, 'done');
  });
});
