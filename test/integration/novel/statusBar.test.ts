// The status bar's per-turn word change inside a real VS Code: a turn sent while the last scribe
// still runs counts only its own words, and Regenerate counts from the restored prose.
import { strict as assert } from 'node:assert';
import type { ModelServer, RouteHandle } from '../../fixtures/modelServer';
import { countWords } from '../../../src/agent/manuscript';
import { api, appendProse, startNovelSession } from './helpers';

describe('Status bar word delta in a real VS Code', function () {
  let server: ModelServer;
  let scribe: RouteHandle;

  before(async () => {
    ({ server, scribe } = await startNovelSession('字数'));
  });

  after(async () => {
    await server.close();
  });

  it('a turn sent while the scribe runs, then Regenerate, each show only their own change', async () => {
    const worldline = await api();
    const agent = worldline.agent();
    const statusBar = worldline.statusBar();
    const first = '\n沈砚推门进了客栈，抖落一身雨水。\n';
    const second = '\n青梧端来一碗姜汤。\n';
    const third = '\n青梧没有端汤，只递过一条干巾子，又转身去拨炉火。\n';

    // Turn 1; its scribe answers slowly, so the next instruction starts while it runs.
    scribe.enqueue({ text: '{"patch":{}}', delayMs: 1500 });
    server.enqueue(appendProse(first), { text: '写好了。' });
    const one = await agent.send('写沈砚进店。');
    assert.equal(one?.status, 'done', one?.error);
    await statusBar.whenTurnCounted();
    assert.equal(statusBar.turnWordDelta, countWords(first), `changes: ${JSON.stringify(one?.changes.map((c) => c.path))}; tools: ${JSON.stringify(worldline.chat().transcript().at(-1)?.tools)}`);

    // Turn 2 goes scribe → writing, never through idle.
    assert.equal(agent.phase, 'scribe', 'the first turn\'s scribe is still running');
    server.enqueue(appendProse(second), { text: '写好了。' });
    const two = await agent.send('写青梧端汤。');
    assert.equal(two?.status, 'done', two?.error);
    await statusBar.whenTurnCounted();
    assert.equal(statusBar.turnWordDelta, countWords(second), 'only the second turn\'s words');
    await two?.scribeDone;
    await agent.scribeIdle();

    // Regenerate brings the prose back to before turn 2, then writes differently: the change is
    // measured from the restored prose, not from the length after turn 2.
    const total = await statusBar.count();
    server.enqueue(appendProse(third), { text: '换了个写法。' });
    const three = await agent.regenerate();
    assert.equal(three?.status, 'done', three?.error);
    await statusBar.whenTurnCounted();
    assert.equal(statusBar.turnWordDelta, countWords(third), 'the regenerated turn\'s words only');
    assert.equal(statusBar.wordCount, total! - countWords(second) + countWords(third), `after turn 2 ${total}, ${second.length}/${third.length} chars`);
    await three?.scribeDone;
    await agent.scribeIdle();
  });
});
