// Memory inside a real VS Code: Compact Now writes a summary that the next request carries, and
// recall brings back an archived passage on the current branch (asserted on what the test model
// server received).
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { ModelServer } from '../../fixtures/modelServer';
import { api, appendProse, isScribe, isSummariser, startNovelSession } from './helpers';
const SUMMARY = '## 前情提要\n【摘要标记】第一天傍晚，沈砚住进听雨轩。\n## 人物\n沈砚、青梧、铁匠老周。\n## 承诺与伏笔\n老周答应修好那把断剑。\n## 事实账\n断剑在老周的铺子里。\n## 当前场景\n听雨轩大堂。';

describe('Memory in a real VS Code', function () {
  let server: ModelServer;

  before(async () => {
    await vscode.workspace.getConfiguration('worldline').update('memory.keepRecentTurns', 1, vscode.ConfigurationTarget.Workspace);
    ({ server } = await startNovelSession('memory test'));
    server.route(isSummariser, { text: SUMMARY }, 'summariser');
  });

  after(async () => {
    await vscode.workspace.getConfiguration('worldline').update('memory.keepRecentTurns', undefined, vscode.ConfigurationTarget.Workspace);
    await server.close();
  });

  // Enough text that Compact Now has something worth summarising (its threshold is 500 characters).
  const filler = '雨水顺着檐角一串串往下落，巷子里的青石板亮得像一面面小镜子，远处渡口的船家在喊人。'.repeat(10);
  const turns: [string, string][] = [
    ['写沈砚去找铁匠老周。', `\n沈砚穿过渡口，找到铁匠老周的铺子。老周看了一眼那把断剑，说三天后来取。${filler}\n`],
    ['写青梧在柜台后记账。', `\n青梧在柜台后记账，算盘声一下一下，像在数雨点。${filler}\n`],
    ['写夜里下起了雪。', `\n夜里雨变成了雪，听雨轩的灯笼被风吹得直晃。${filler}\n`],
  ];

  it('Compact Now writes a summary that the next request carries; recall brings back an archived passage', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    for (const [instruction, prose] of turns) {
      server.enqueue(appendProse(prose), { text: '写好了。' });
      const result = await worldline.agent().send(instruction);
      assert.equal(result?.status, 'done', result?.error);
      await result?.scribeDone;
    }
    await worldline.agent().scribeIdle();
    const outcome = (await vscode.commands.executeCommand('worldline.compactNow')) as { kind: string } | undefined;
    assert.equal(outcome?.kind, 'applied', JSON.stringify(outcome));
    const summary = session.path().filter((e) => e.type === 'summary').at(-1);
    assert.ok(summary, 'a summary entry is on the branch');
    assert.ok(server.chatRequests().some(isSummariser), 'the side model was asked for the summary');

    server.enqueue({ text: '好的。' });
    const result = await worldline.agent().send('老周那边，断剑修得怎么样了？');
    assert.equal(result?.status, 'done', result?.error);
    await result?.scribeDone;
    const last = server.chatRequests().filter((r) => !isScribe(r) && !isSummariser(r)).at(-1)!;
    const messages = last.messages ?? [];
    assert.match(String(messages[0]?.content), /【摘要标记】/, 'the summary rides in the system message');
    const texts = messages.map((m) => (typeof m.content === 'string' ? m.content : ''));
    assert.ok(!texts.some((t) => t === '写沈砚去找铁匠老周。'), 'the covered instruction is no longer replayed');
    const newest = texts.at(-1)!;
    assert.match(newest, /【相关回忆】/, 'recall is injected next to the state');
    assert.match(newest, /铁匠老周的铺子/, 'the archived passage about 老周 is recalled');
  });
});
