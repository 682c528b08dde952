// Agent mode inside a real VS Code, with the sample novel open and the test model server as the
// endpoint (real HTTP and SSE). Asserts on the files in the workspace and on what the server got.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ModelServer, RecordedRequest } from '../../fixtures/modelServer';
import { api, isScribe, startNovelSession } from './helpers';

function root(): string {
  return vscode.workspace.workspaceFolders![0]!.uri.fsPath;
}

function agentRequests(server: ModelServer): RecordedRequest[] {
  return server.chatRequests().filter((r) => !isScribe(r));
}
function allText(r: RecordedRequest): string {
  return (r.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
}
function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('Agent mode in a real VS Code', function () {
  let server: ModelServer;

  before(async () => {
    ({ server } = await startNovelSession('agent test', { text: '{"patch":{"facts":["青梧收下了碎银"]}}' }));
  });

  after(async () => {
    await server.close();
  });

  it('an instruction changes a chapter file in the workspace, and the reply streams into the chat', async () => {
    const worldline = await api();
    const chapter = path.join(root(), 'chapters', '01.md');
    const before = fs.readFileSync(chapter, 'utf8');
    server.enqueue(
      { text: ['好的，', '我接着写。'], toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '\n沈砚把碎银推了过去。\n' }) }] },
      { text: ['写好了：', '沈砚付了房钱。'], chunkDelayMs: 10 },
    );
    const result = await worldline.agent().send('写沈砚付房钱。');
    assert.equal(result?.status, 'done', result?.error);
    assert.equal(fs.readFileSync(chapter, 'utf8'), `${before.replace(/\n?$/, '\n')}\n沈砚把碎银推了过去。\n`);
    const transcript = worldline.chat().transcript();
    const reply = transcript.at(-1)!;
    assert.equal(reply.role, 'assistant');
    assert.match(reply.text, /沈砚付了房钱/);
    assert.ok(reply.tools.some((t) => t.path === 'chapters/01.md'), 'the tool line links the chapter');
    await result?.scribeDone;
    // The scribe's patch landed on the branch.
    assert.ok(worldline.sceneState().current()!.state.facts.includes('青梧收下了碎银'));
  });

  it('Regenerate shows 2/2 and ◀ returns to 1/2 with that variant\'s text', async () => {
    const worldline = await api();
    const firstText = worldline.chat().transcript().at(-1)!.text;
    server.enqueue({ text: '另一种写法：沈砚没有付钱。' });
    const result = await worldline.agent().regenerate();
    assert.equal(result?.status, 'done', result?.error);
    await result?.scribeDone;
    let reply = worldline.chat().transcript().at(-1)!;
    assert.deepEqual(reply.variant, { index: 1, count: 2 });
    assert.equal(reply.text, '另一种写法：沈砚没有付钱。');
    assert.equal(await vscode.commands.executeCommand('worldline.previousVariant'), true);
    reply = worldline.chat().transcript().at(-1)!;
    assert.deepEqual(reply.variant, { index: 0, count: 2 });
    assert.equal(reply.text, firstText);
  });

  it('Hide removes a message from the next request; an in-place edit changes it', async () => {
    const worldline = await api();
    const chat = worldline.chat();
    const firstUser = chat.transcript().find((m) => m.role === 'user')!;
    await chat.onMessage({ type: 'hide', id: firstUser.id, hidden: true });
    assert.equal(chat.transcript().find((m) => m.id === firstUser.id)!.hidden, true);

    const reply = chat.transcript().at(-1)!;
    await chat.onMessage({ type: 'edit', id: reply.id, text: '（作者改过的回复）', asBranch: false });

    server.enqueue({ text: '继续。' });
    const result = await worldline.agent().send('继续写。');
    assert.equal(result?.status, 'done', result?.error);
    await result?.scribeDone;
    const last = agentRequests(server).at(-1)!;
    const text = allText(last);
    assert.ok(!text.includes('写沈砚付房钱。'), 'the hidden instruction is not sent');
    assert.ok(text.includes('（作者改过的回复）'), 'the edited reply is sent');
    assert.ok(!text.includes('写好了：沈砚付了房钱。'), 'the original reply text is not sent');
  });

  it('the first instruction carries the full state block, each later one what changed since the one before', async () => {
    const last = agentRequests(server).at(-1)!;
    const users = (last.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));
    // No summary yet. The bridge in front of a conversation whose first instruction is hidden is
    // not an instruction; the first visible one gets the full ledger, the others its changes (or
    // the one line that nothing changed, or the full ledger again when that is shorter).
    const instructions = users.filter((u) => u !== '（更早的对话已略去。）');
    assert.ok(instructions.length > 0);
    assert.ok(instructions[0]!.startsWith('【世界状态】') && instructions[0]!.includes('【登场名录】'), instructions[0]);
    for (const u of instructions.slice(1)) assert.ok(u.startsWith('【世界状态变化】') || u.startsWith('【世界状态】'), u);
  });

  it('an in-place edit of a reply in several parts reads, and is sent, exactly as saved', async () => {
    const worldline = await api();
    const chat = worldline.chat();
    server.enqueue(
      { text: '好，这就写沈砚上楼。', toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '\n沈砚提着灯上了楼。\n' }) }] },
      { text: '写好了：沈砚上楼歇下。' },
    );
    const first = await worldline.agent().send('写沈砚上楼。');
    assert.equal(first?.status, 'done', first?.error);
    await first?.scribeDone;
    const reply = chat.transcript().at(-1)!;
    assert.equal(reply.role, 'assistant');
    assert.equal(reply.text, '好，这就写沈砚上楼。\n\n写好了：沈砚上楼歇下。');

    // The page's edit box opens with the message's text (media/chat.js); the novelist changes the
    // second part and saves in place, which posts this message to the view.
    const edited = reply.text.replace('沈砚上楼歇下', '沈砚在楼梯口停住');
    await chat.onMessage({ type: 'edit', id: reply.id, text: edited, asBranch: false });
    const after = chat.transcript().at(-1)!;
    assert.equal(after.text, edited, 'the message reads what was saved');
    assert.equal(after.edited, true);
    assert.deepEqual(after.tools.map((t) => t.path), ['chapters/01.md'], 'the tool line stays');

    server.enqueue({ text: '继续。' });
    const next = await worldline.agent().send('接着写。');
    assert.equal(next?.status, 'done', next?.error);
    await next?.scribeDone;
    const request = agentRequests(server).at(-1)!;
    const text = allText(request);
    assert.equal(occurrences(text, '好，这就写沈砚上楼。'), 1, 'the first part is sent once');
    assert.equal(occurrences(text, '沈砚在楼梯口停住'), 1, 'the edited part is sent once');
    assert.equal(occurrences(text, '沈砚上楼歇下'), 0, 'the old text is not sent');
    // The call and its result are still paired in the request.
    const messages = request.messages ?? [];
    const call = messages.find((m) => Array.isArray(m['tool_calls']) && JSON.stringify(m['tool_calls']).includes('沈砚提着灯上了楼'));
    assert.ok(call, 'the tool call is still sent');
    const callId = (call['tool_calls'] as { id: string }[])[0]!.id;
    assert.ok(messages.some((m) => m.role === 'tool' && m['tool_call_id'] === callId), 'with its result');
  });

  it('while a reply streams, a recorded tool line is not shown again in the streaming block', async () => {
    const worldline = await api();
    const chat = worldline.chat();
    const instruction = '写青梧关门。';
    let most = 0;
    let streamedLine = false;
    let events = 0;
    const sub = worldline.agent().onDidChange(() => {
      const stream = chat.streamView();
      if (!stream) return;
      events++;
      const messages = chat.transcript();
      let at = messages.length - 1;
      while (at >= 0 && !(messages[at]!.role === 'user' && messages[at]!.text === instruction)) at--;
      const listed = at < 0 ? 0 : messages.slice(at + 1).reduce((n, m) => n + m.tools.length, 0);
      if (stream.tools.length > 0) streamedLine = true;
      most = Math.max(most, listed + stream.tools.length);
    });
    try {
      server.enqueue(
        { text: '好的。', toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '\n青梧关上了门。\n' }) }] },
        { text: ['门', '关', '好', '了', '。'], chunkDelayMs: 20 },
      );
      const result = await worldline.agent().send(instruction);
      assert.equal(result?.status, 'done', result?.error);
      await result?.scribeDone;
    } finally {
      sub.dispose();
    }
    assert.ok(events > 5, `the reply streamed (${events} events)`);
    assert.ok(streamedLine, 'the tool line showed in the streaming block before its result was recorded');
    assert.equal(most, 1, 'the one tool line never showed twice');
    assert.equal(chat.transcript().at(-1)!.tools.length, 1);
  });

  it('a new chapter is created through the workspace (its folder too) and is in the turn\'s checkpoint', async () => {
    const worldline = await api();
    const root = vscode.workspace.workspaceFolders![0]!.uri;
    const rel = 'chapters/卷二/05.md';
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: rel, content: '# 第五章\n\n天亮了。\n' }) }] },
      { text: '新开了第五章。' },
    );
    const result = await worldline.agent().send('新开第五章。');
    assert.equal(result?.status, 'done', result?.error);
    await result?.scribeDone;
    const uri = vscode.Uri.joinPath(root, 'chapters', '卷二', '05.md');
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)), '# 第五章\n\n天亮了。\n');
    const session = worldline.novel()!.session!;
    const checkpoint = session.lastOnPath('checkpoint');
    assert.ok(checkpoint?.changed.includes(rel), `the checkpoint lists ${rel}: ${JSON.stringify(checkpoint?.changed)}`);
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(root, 'chapters', '卷二'), { recursive: true });
  });

  it('Edit as a new branch on a reply: a sibling with the new words and the same prose; ◀ returns to the original', async () => {
    const worldline = await api();
    const chat = worldline.chat();
    server.enqueue(
      { text: '这就写雨停。', toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '\n雨停了，檐下还在滴水。\n' }) }] },
      { text: '写好了：雨停。' },
    );
    const turn = await worldline.agent().send('写雨停。');
    assert.equal(turn?.status, 'done', turn?.error);
    await turn?.scribeDone;
    const prose = fs.readFileSync(path.join(root(), 'chapters', '01.md'), 'utf8');
    const original = chat.transcript().at(-1)!;
    const mine = '（作者自己写的回复：雨停了，她没有出门。）';
    await chat.onMessage({ type: 'edit', id: original.id, text: mine, asBranch: true });

    const copy = chat.transcript().at(-1)!;
    assert.equal(copy.text, mine);
    assert.notEqual(copy.id, original.id);
    assert.deepEqual(copy.variant, { index: 1, count: 2 }); // 2/2, 0-based
    assert.deepEqual(copy.tools.map((t) => t.path), ['chapters/01.md'], 'the tool work is part of the copy');
    assert.equal(fs.readFileSync(path.join(root(), 'chapters', '01.md'), 'utf8'), prose, 'the prose is untouched');
    const session = worldline.novel()!.session!;
    assert.equal(session.lastOnPath('checkpoint')?.commit, original.checkpoint?.commit, 'the copy keeps the turn\'s checkpoint');

    await chat.onMessage({ type: 'variant', id: copy.id, delta: -1 });
    assert.equal(chat.transcript().at(-1)!.text, '这就写雨停。\n\n写好了：雨停。');
    await chat.onMessage({ type: 'variant', id: original.id, delta: 1 });
    assert.equal(chat.transcript().at(-1)!.text, mine);

    server.enqueue({ text: '接着写。' });
    const next = await worldline.agent().send('继续。');
    assert.equal(next?.status, 'done', next?.error);
    const sent = allText(agentRequests(server).at(-1)!);
    assert.ok(sent.includes(mine) && !sent.includes('写好了：雨停。'), 'the next request carries the new words only');
  });
});
