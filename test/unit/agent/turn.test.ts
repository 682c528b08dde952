// The turn: streaming, the tool loop writing a chapter, hooks, and how the branch becomes the next
// request (regenerate, edit, hide, the full state then the changes in front of the instructions,
// the recall after the newest). Real HTTP,
// real files, a real Session.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { firstMalformedCall } from '../../../src/agent/turn';
import type { ContextTransform } from '../../../src/agent/sentBlocks';
import { TurnRunner } from '../../../src/agent/turnRunner';
import { shortenOldToolPayloads } from '../../../src/memory/compactContext';
import type { AssistantEntry } from '../../../src/session/entries';
import { makeTurnEnv, shape, textOf, until, type TurnEnv } from './turnHelpers';

const STATE_ZH = '【世界状态】';

describe('agent/turn', () => {
  let env: TurnEnv;
  afterEach(async () => {
    await env.close();
  });

  it('streams a plain reply: user and assistant entries, deltas, usage, phases', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: ['好的，', '我先想想这一章。'], usage: { prompt_tokens: 120, completion_tokens: 9 } });
    const r = await env.runner.send('先聊聊第三章的走向');
    assert.equal(r.status, 'done');
    assert.deepEqual(shape(env.session), ['user:先聊聊第三章的走向', 'assistant:stop:好的，我先想想这一章。']);
    const a = env.session.get(r.assistantId as string) as AssistantEntry;
    assert.deepEqual(a.usage, { promptTokens: 120, completionTokens: 9 });
    assert.equal(a.model, 'test-model');
    const deltas = env.events.filter((e) => e.type === 'delta').map((e) => (e.type === 'delta' ? e.text : ''));
    assert.deepEqual(deltas, ['好的，', '我先想想这一章。']);
    assert.deepEqual(env.events.filter((e) => e.type === 'entry').length, 2);
    assert.equal(env.runner.busy, false);
    assert.equal(r.proseAdded, '');
    await r.scribeDone;
    await env.runner.idle();
    const phases = env.events.filter((e) => e.type === 'phase').map((e) => (e.type === 'phase' ? e.phase : ''));
    assert.deepEqual(phases, ['writing', 'scribe', 'idle']);
  });

  it('the request: system prompt (role, title, style, tool rules), tools, state block, raw history', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '嗯。' });
    await env.runner.send('写开头');
    const req = env.agentRequests()[0];
    assert.ok(req && req.messages);
    const system = req.system ?? '';
    for (const must of ['合写助手', '《雨夜》', '冷峻，短句', 'append_file', 'read_file', 'world_state_get', '只动稿件文件', '回复要短']) {
      assert.ok(system.includes(must), must);
    }
    assert.equal(req.messages.length, 2);
    const last = textOf(req.messages[1] as never);
    assert.ok(last.startsWith(STATE_ZH));
    assert.ok(last.includes('地点：茶馆'));
    assert.ok(last.includes('青梧（在场）'));
    assert.ok(last.endsWith('\n\n写开头'));
    assert.deepEqual(
      (req.tools as { function: { name: string } }[]).map((t) => t.function.name),
      ['list_manuscript', 'read_file', 'write_file', 'edit_file', 'append_file', 'world_state_get', 'codex_lookup'],
    );
  });

  it('the tool loop writes a chapter; checkpoint then scribe get the turn; results pair with calls', async () => {
    env = await makeTurnEnv();
    env.write('chapters/01.md', '# 第一章\n\n雨下了一夜。\n');
    const prose = '青梧推开茶馆的门。\n\n檐下的灯笼摇了一下。';
    env.agent.enqueue(
      { text: '我先看看稿子。', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"chapters/01.md"}' }] },
      { toolCalls: [{ id: 'c2', name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: `\n${prose}\n` }) }] },
      { text: '续写了第一章的一段。' },
    );
    const r = await env.runner.send('续写第一章');
    assert.equal(r.status, 'done');
    assert.equal(env.read('chapters/01.md'), `# 第一章\n\n雨下了一夜。\n\n${prose}\n`);
    assert.deepEqual(shape(env.session), [
      'user:续写第一章',
      'assistant:stop:我先看看稿子。:calls=read_file',
      'tool:read_file:ok',
      'assistant:stop::calls=append_file',
      'tool:append_file:ok',
      'assistant:stop:续写了第一章的一段。',
    ]);
    assert.equal(r.changes.length, 1);
    assert.equal(r.proseAdded, prose);
    const ends = env.events.filter((e) => e.type === 'toolEnd');
    assert.equal(ends.length, 2);
    const summary = ends[1]?.type === 'toolEnd' ? ends[1].summary : undefined;
    assert.match(summary ?? '', /^续写 chapters\/01\.md，\+\d+ 字$/);
    assert.deepEqual(env.hookLog, ['checkpoint', 'scribe']);
    assert.equal(env.checkpoints[0]?.assistantId, r.assistantId);
    assert.deepEqual(env.scribes[0] && { i: env.scribes[0].instruction, p: env.scribes[0].proseAdded, r: env.scribes[0].reply }, {
      i: '续写第一章',
      p: prose,
      r: '我先看看稿子。\n\n续写了第一章的一段。',
    });
    // The third request replays both steps: each call followed by its result, ids paired.
    const third = env.agentRequests()[2]?.messages ?? [];
    assert.deepEqual(third.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    assert.deepEqual((third[2]?.['tool_calls'] as { id: string }[]).map((c) => c.id), ['c1']);
    assert.equal(third[3]?.['tool_call_id'], 'c1');
    assert.ok(textOf(third[3] as never).includes('雨下了一夜。'));
    assert.equal(third[4]?.content, null);
    assert.equal(third[5]?.['tool_call_id'], 'c2');
    // Within the turn each request is a byte-identical prefix of the next (minus the closing "]}").
    const bodies = env.agentRequests().map((q) => q.rawBody);
    for (let i = 0; i + 1 < bodies.length; i++) {
      const a = bodies[i] as string;
      assert.ok((bodies[i + 1] as string).startsWith(a.slice(0, a.length - 2)), `request ${i} is a prefix of ${i + 1}`);
    }
  });

  it('malformed tool-call JSON ends the turn as a retryable error: nothing run, no checkpoint, no scribe; Retry succeeds', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue(
      { text: '我来写第二章。', toolCalls: [
        { id: 'ok', name: 'list_manuscript', arguments: '{}' },
        { id: 'bad', name: 'write_file', arguments: '{"path": "chapters/02.md", "content": "雨' },
      ] },
      { toolCalls: [{ id: 'good', name: 'write_file', arguments: '{"path":"chapters/02.md","content":"雨停了。"}' }] },
      { text: '写好了第二章。' },
    );
    const r = await env.runner.send('写第二章');
    assert.equal(r.status, 'error');
    assert.equal(r.retryable, true);
    assert.match(r.error ?? '', /write_file.*不是合法的 JSON/);
    assert.equal(fs.existsSync(path.join(env.root, 'chapters/02.md')), false, 'no call of the step ran');
    assert.deepEqual(shape(env.session).slice(-1), ['assistant:error:我来写第二章。:calls=list_manuscript,write_file']);
    assert.equal(env.checkpoints.length, 0);
    assert.equal(env.scribes.length, 0);
    assert.ok(env.events.some((e) => e.type === 'error' && e.retryable));

    const again = await env.runner.retry();
    assert.equal(again.status, 'done');
    assert.equal(env.read('chapters/02.md'), '雨停了。');
    // The broken call never reaches a later request: the retry replays the instruction only.
    const retried = env.agentRequests()[1]?.messages ?? [];
    assert.ok(!JSON.stringify(retried).includes('"bad"'));
  });

  it('firstMalformedCall: JSON (also JSON inside a string, or empty for parameterless tools) passes; anything else is named', () => {
    const call = (args: string) => ({ id: 'x', name: 'write_file', arguments: args });
    assert.equal(firstMalformedCall([call('{"a":1}'), call(''), call('null'), call('"{\\"a\\":1}"')]), undefined);
    assert.equal(firstMalformedCall([call('{"a":1}'), call('{"a":')])?.name, 'write_file');
    assert.ok(firstMalformedCall([call('"{\\"a\\":"')]), 'a string holding broken JSON');
    fc.assert(fc.property(fc.string(), (s) => {
      const bad = firstMalformedCall([call(s)]);
      let parses = s.trim() === '';
      try { JSON.parse(s); parses = true; } catch { /* not JSON */ }
      return parses || bad !== undefined;
    }));
  });

  it('hostile paths from the model over HTTP: .., absolute, .git, .worldline and a symlink out are refused; nothing outside changes', async () => {
    env = await makeTurnEnv();
    const outside = path.join(path.dirname(env.root), 'outside.md');
    fs.writeFileSync(outside, '书外的文件。');
    fs.symlinkSync(path.dirname(env.root), path.join(env.root, 'chapters', 'escape'));
    const hostile = ['../outside.md', outside, '.git/config', '.worldline/sessions/feed0001.jsonl', 'chapters/escape/outside.md', 'chapters\\..\\..\\outside.md'];
    env.agent.enqueue(
      { toolCalls: hostile.map((p, i) => ({ id: `h${i}`, name: 'write_file', arguments: JSON.stringify({ path: p, content: '被改写了' }) })) },
      { text: '这些路径都被拒绝了。' },
    );
    const r = await env.runner.send('把书外的文件改掉');
    assert.equal(r.status, 'done');
    assert.equal(fs.readFileSync(outside, 'utf8'), '书外的文件。');
    assert.ok(!fs.readFileSync(path.join(env.root, '.worldline', 'sessions', 'feed0001.jsonl'), 'utf8').startsWith('被改写了'));
    assert.equal(fs.existsSync(path.join(env.root, '.git')), false);
    const results = env.session.path().filter((e) => e.type === 'tool');
    assert.equal(results.length, hostile.length);
    for (const e of results) assert.equal(e.type === 'tool' && e.isError, true, JSON.stringify(e));
    assert.deepEqual(r.changes, []);
  });

  it('the step limit ends the turn as an error naming the setting; no checkpoint, no scribe', async () => {
    env = await makeTurnEnv({ maxSteps: 3 });
    env.agent.setDefault({ toolCalls: [{ name: 'list_manuscript', arguments: '{}' }] });
    const r = await env.runner.send('写吧');
    assert.equal(r.status, 'error');
    assert.equal(r.retryable, true);
    assert.match(r.error ?? '', /worldline\.maxToolSteps/);
    assert.equal(env.agentRequests().length, 3);
    const last = env.session.get(r.assistantId as string) as AssistantEntry;
    assert.equal(last.finish, 'error');
    assert.match(last.error ?? '', /3 步/);
    assert.deepEqual(env.hookLog, []);
    assert.equal(r.scribeDone, undefined);
    assert.equal(env.runner.retryTarget, env.session.path()[0]?.id);
    // Retry: the unanswered call of the last step is not replayed.
    env.agent.setDefault(undefined);
    env.agent.enqueue({ text: '好。' });
    const again = await env.runner.retry();
    assert.equal(again.status, 'done');
    const msgs = env.agentRequests()[3]?.messages ?? [];
    assert.deepEqual(msgs.map((m) => m.role), ['system', 'user']);
  });

  it('regenerate: the new reply is a sibling of the old (variants 2/2); the old one is not sent', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '版本甲：她没有回头。' }, { text: '版本乙：她回头笑了。' });
    const first = await env.runner.send('写她离开');
    await first.scribeDone;
    const second = await env.runner.regenerate(first.assistantId as string);
    assert.equal(second.status, 'done');
    assert.equal(second.userEntryId, first.userEntryId);
    const v = env.session.variants(second.assistantId as string);
    assert.equal(v.siblings.length, 2);
    assert.equal(v.index, 1);
    assert.equal(v.siblings[0]?.id, first.assistantId);
    const req = env.agentRequests()[1]?.messages ?? [];
    assert.ok(!JSON.stringify(req).includes('版本甲'));
    assert.deepEqual(shape(env.session), ['user:写她离开', 'assistant:stop:版本乙：她回头笑了。']);
  });

  it('edit as a new branch: a sibling instruction; the next request has the new text only', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '一。' }, { text: '二。' }, { text: '三。' });
    await env.runner.send('第一句');
    const second = await env.runner.send('原来的第二句');
    const edited = await env.runner.editAndBranch(second.userEntryId as string, '改过的第二句');
    assert.equal(edited.status, 'done');
    const v = env.session.variants(edited.userEntryId as string);
    assert.equal(v.siblings.length, 2);
    const req = JSON.stringify(env.agentRequests()[2]?.messages);
    assert.ok(req.includes('改过的第二句') && !req.includes('原来的第二句') && !req.includes('二。'));
    assert.ok(req.includes('第一句') && req.includes('一。'));
  });

  it('hidden messages stay out of the next request; an in-place edit changes it', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '（闲聊）今天写得真顺。' }, { text: '她的眼睛是灰色的。' }, { text: '好。' });
    const ooc = await env.runner.send('OOC：随便聊两句');
    const eyes = await env.runner.send('写她的眼睛');
    await env.session.appendSide({ type: 'hide', targetId: ooc.userEntryId as string, hidden: true });
    await env.session.appendSide({ type: 'hide', targetId: ooc.assistantId as string, hidden: true });
    await env.session.appendSide({ type: 'edit', targetId: eyes.assistantId as string, text: '她的眼睛是琥珀色的。' });
    await env.runner.send('继续');
    const req = JSON.stringify(env.agentRequests()[2]?.messages);
    assert.ok(!req.includes('随便聊两句') && !req.includes('今天写得真顺'));
    assert.ok(req.includes('琥珀色') && !req.includes('灰色'));
  });

  it('across turns the first instruction carries the full state, each later one the changes since; the scribe\'s ledger reaches the next turn', async () => {
    env = await makeTurnEnv({ scribe: 'real' });
    env.write('chapters/01.md', '');
    env.scribe.enqueue({ text: '{"patch":{"location":"渡口","time":"深夜","characters":{"青梧":{"at":"渡口"}}}}' });
    env.agent.enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '深夜，青梧走到渡口。' }) }] },
      { text: '写了渡口一段。' },
      { text: '第二轮。' },
      { text: '第三轮。' },
    );
    const t1 = await env.runner.send('写她去渡口');
    const outcome = await t1.scribeDone;
    assert.equal(outcome && outcome.kind, 'applied');
    const t2 = await env.runner.send('第二条指令');
    await t2.scribeDone; // no prose: skipped
    await env.runner.send('第三条指令');
    const reqs = env.agentRequests();
    assert.equal(reqs.length, 4);
    const lastUsers = (reqs[3]?.messages ?? []).filter((m) => m.role === 'user').map(textOf);
    assert.ok(lastUsers[0]?.startsWith(STATE_ZH) && lastUsers[0].includes('【登场名录】') && lastUsers[0].includes('地点：茶馆'), 'the first instruction with the full state before it');
    assert.ok(lastUsers[0]?.endsWith('\n\n写她去渡口'));
    // The scribe's ledger reaches the next turn, as what changed.
    const second = lastUsers[1] ?? '';
    assert.ok(second.startsWith('【世界状态变化】') || second.startsWith(STATE_ZH), second);
    assert.ok(second.includes('地点：渡口') && second.includes('时间：深夜') && second.endsWith('\n\n第二条指令'), second);
    assert.equal(lastUsers[2], '【世界状态】自上一条指令起没有变化。\n\n第三条指令', 'no scribe after the second turn: nothing changed');
    // Each request is the one before it, byte for byte, with the new messages after it.
    for (let i = 1; i < reqs.length; i++) {
      const prev = reqs[i - 1]?.messages ?? [];
      assert.deepEqual(reqs[i]?.messages?.slice(0, prev.length), prev, `request ${i} extends request ${i - 1}`);
    }
    assert.deepEqual(shape(env.session).filter((s) => s === 'state').length, 1);
  });

  it('the recall goes after the newest instruction, that turn only; the rest of the request is replayed as sent', async () => {
    let n = 0;
    env = await makeTurnEnv({ hooks: { recall: async () => `【相关回忆】\n- 第${++n}次回忆` } });
    env.agent.enqueue({ text: '一。' }, { text: '二。' }, { text: '三。' });
    await env.runner.send('第一条');
    await env.runner.send('第二条');
    const [q1, q2] = env.agentRequests().map((r) => r.messages ?? []);
    const users = (q2 ?? []).filter((m) => m.role === 'user').map(textOf);
    assert.match(users[1] ?? '', /^【世界状态】[\s\S]*\n\n第二条\n\n【相关回忆】\n- 第2次回忆$/);
    assert.ok(!(users[0] ?? '').includes('回忆') && (users[0] ?? '').endsWith('\n\n第一条'), 'the first instruction lost its recall');
    // Up to the first instruction's text, the second request is the first one byte for byte.
    const first = textOf((q1 ?? [])[1] as never);
    assert.ok(first.endsWith('\n\n第一条\n\n【相关回忆】\n- 第1次回忆'));
    assert.equal(users[0], first.slice(0, first.indexOf('\n\n【相关回忆】')));
    assert.deepEqual((q2 ?? [])[0], (q1 ?? [])[0]);
    // A runner made afresh (the session reopened) sends the same bytes: nothing is remembered.
    const again = new TurnRunner({ ...env.deps, hooks: {} });
    try {
      await again.send('第三条');
      const third = (env.agentRequests()[2]?.messages ?? []).filter((m) => m.role === 'user').map(textOf);
      assert.deepEqual(third.slice(0, 2), [users[0], (users[1] ?? '').slice(0, (users[1] ?? '').indexOf('\n\n【相关回忆】'))]);
      assert.ok(!(third[2] ?? '').includes('回忆') && (third[2] ?? '').endsWith('\n\n第三条'));
    } finally {
      again.dispose();
    }
  });

  it('a summary changes the prefix once: the instructions before it go bare and shortened, the ones after it as sent', async () => {
    const transformContext: ContextTransform = (messages, at) => ({ messages: shortenOldToolPayloads(messages, at.beforeSummary, { lang: 'zh' }), oldTurns: at.beforeSummary });
    env = await makeTurnEnv({ scribe: 'real', deps: { transformContext } });
    env.write('chapters/01.md', '');
    const turn = async (time: string): Promise<void> => {
      env.scribe.enqueue({ text: JSON.stringify({ patch: { time } }) });
      env.agent.enqueue(
        { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: `${time}，雨还在下。`.repeat(20) }) }] },
        { text: `写了${time}。` },
      );
      await (await env.runner.send(`写${time}`)).scribeDone;
    };
    await turn('一更');
    await turn('二更');
    const second = env.session.path().filter((e) => e.type === 'user')[1];
    await env.session.append({ type: 'summary', text: '青梧守了一更。', coversThroughId: second?.parentId as string });
    await turn('三更');
    await turn('四更');
    const reqs = env.agentRequests().map((r) => r.messages ?? []);
    assert.equal(reqs.length, 8);
    const [first, after, next, later] = [reqs[3] ?? [], reqs[4] ?? [], reqs[5] ?? [], reqs[6] ?? []];
    assert.match(textOf(first.filter((m) => m.role === 'user')[1] as never), /^【世界状态/, 'before the summary the second instruction had its block');
    assert.ok(textOf(after[0] as never).includes('青梧守了一更。'), 'the summary is in the system message');
    const users = after.filter((m) => m.role === 'user').map(textOf);
    assert.equal(users[0], '写二更', 'the instruction before the summary goes bare');
    assert.match(JSON.stringify(after[2]), /全文/, 'and its payload shortened');
    assert.ok(users[1]?.startsWith(STATE_ZH) && users[1].includes('【登场名录】') && users[1].includes('时间：二更') && users[1].endsWith('\n\n写三更'), 'the first after the summary: the full state');
    assert.deepEqual(next.slice(0, after.length), after, 'within the turn the request extends the last');
    assert.deepEqual(later.slice(0, next.length), next, 'and across turns: the summary changed the prefix once');
    const laterUsers = later.filter((m) => m.role === 'user').map(textOf);
    assert.ok(laterUsers[2]?.includes('时间：三更') && laterUsers[2].endsWith('\n\n写四更'));
  });

  it('a checkpoint failure is a warning; the turn stands and the scribe still runs', async () => {
    env = await makeTurnEnv({
      hooks: {
        checkpoint: async () => {
          throw new Error('disk full');
        },
      },
    });
    env.agent.enqueue({ text: '好。' });
    const r = await env.runner.send('写');
    assert.equal(r.status, 'done');
    await r.scribeDone;
    assert.equal(env.scribes.length, 1);
    assert.ok(env.events.some((e) => e.type === 'warning' && e.message.includes('disk full')));
  });

  it('the next turn waits for the running scribe, so the state lands before the new instruction', async () => {
    env = await makeTurnEnv({ scribe: 'real' });
    env.scribe.enqueue({ text: '{"patch":{"time":"黎明"}}', delayMs: 300 });
    env.agent.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '天亮了。' }) }] },
      { text: '写好。' },
      { text: '第二轮。' },
    );
    const first = await env.runner.send('写天亮');
    assert.equal(env.runner.scribeRunning, true);
    const second = await env.runner.send('接着写');
    assert.equal(second.status, 'done');
    await until(() => !env.runner.scribeRunning);
    const types = env.session.path().map((e) => e.type);
    assert.deepEqual(types.slice(-3), ['state', 'user', 'assistant']);
    assert.ok(textOf(env.agentRequests()[2]?.messages?.slice(-1)[0] as never).includes('时间：黎明'));
    assert.equal((await first.scribeDone)?.kind, 'applied');
  });

  it('the work after the scribe (a summary) is waited for too: nothing it appends lands inside the next turn', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    env = await makeTurnEnv({
      hooks: {
        afterScribe: async ({ userEntryId }) => {
          order.push(`after:${env.session.get(userEntryId)?.type}`);
          await gate; // a slow summary call
          await env.session.append({ type: 'summary', text: '前情提要', coversThroughId: userEntryId });
        },
      },
    });
    env.agent.enqueue({ text: '第一轮。' }, { text: '第二轮。' });
    const first = await env.runner.send('第一轮');
    await first.scribeDone;
    assert.equal(env.runner.scribeRunning, true, 'the summary still runs after the scribe');
    const second = env.runner.send('第二轮');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(env.agentRequests().length, 1, 'the second turn has not called the model yet');
    release();
    assert.equal((await second).status, 'done');
    assert.deepEqual(order, ['after:user']);
    assert.deepEqual(env.session.path().map((e) => e.type), ['user', 'assistant', 'summary', 'user', 'assistant']);
  });

  it('background work (Save Point, Compact Now) is refused during a turn and holds the next turn back', async () => {
    env = await makeTurnEnv();
    env.agent.enqueue({ text: '慢慢写。', delayMs: 300 }, { text: '第二轮。' });
    const running = env.runner.send('第一轮');
    await until(() => env.runner.busy);
    await assert.rejects(env.runner.background('save', async () => 'x'), (e: unknown) => e instanceof Error && /save|存档|writing|写作/.test(e.message));
    await running;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const saved = env.runner.background('save', async () => {
      await gate;
      return env.session.append({ type: 'summary', text: '存档前', coversThroughId: env.session.leafId ?? '' });
    });
    const second = env.runner.send('第二轮');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(env.agentRequests().length, 1, 'the turn waits for the background work');
    release();
    await saved;
    assert.equal((await second).status, 'done');
    const types = env.session.path().map((e) => e.type);
    assert.deepEqual(types.slice(-3), ['summary', 'user', 'assistant']);
  });

  it('work started before the runner existed (a save with no runner yet) holds the first turn back', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = gate.then(async () => { await env.session.append({ type: 'summary', text: '早先的存档工作', coversThroughId: env.session.leafId ?? '' }); });
    env = await makeTurnEnv({ pending });
    env.agent.enqueue({ text: '第一轮。' });
    const turn = env.runner.send('第一轮');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(env.agentRequests().length, 0, 'the turn waits');
    release();
    assert.equal((await turn).status, 'done');
    assert.deepEqual(env.session.path().map((e) => e.type), ['summary', 'user', 'assistant']);
  });

  it('an English project gets the English prompt and [World State] block', async () => {
    env = await makeTurnEnv({ lang: 'en' });
    env.agent.enqueue({ text: 'Done.' });
    await env.runner.send('Write the opening');
    const req = env.agentRequests()[0];
    assert.ok(req?.system?.startsWith("You are the novelist's co-writer on the novel \"雨夜\""));
    assert.ok(textOf(req?.messages?.[1] as never).startsWith('[World State]'));
  });
});
