// Test Connection as a command, over a scripted Prompter and the real model server: no model (the
// way to Choose Provider), quiet (the report only), the progress and its Cancel, the key set for the
// endpoint (and only that one) sent, the report in one notification in the novelist's language, and
// the button of each failure running its command.
import { strict as assert } from 'node:assert';
import * as net from 'node:net';
import { runConnectionTest, type ConnectionFlowPorts } from '../../../src/model/connectionFlow';
import { PING_TOOL } from '../../../src/model/connectionTest';
import type { Text } from '../../../src/common/text';
import type { Progress } from '../../../src/model/flowPorts';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { chinese, english, fakePorts, FailingPrompter, notes, settle, zh } from './flowFakes';

const ping = { toolCalls: [{ name: PING_TOOL, arguments: '{"ok":true}' }] };

/** A progress notification that records its title and, with `cancelAfterMs`, is cancelled. */
function progress(cancelAfterMs?: number): { titles: Text[]; run: Progress } {
  const titles: Text[] = [];
  return {
    titles,
    run: (title, work) => {
      titles.push(title);
      const abort = new AbortController();
      if (cancelAfterMs !== undefined) setTimeout(() => abort.abort(), cancelAfterMs);
      return work(abort.signal);
    },
  };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('model/connectionFlow: Test Connection', () => {
  let server: ModelServer;
  beforeEach(async () => { server = await startModelServer(); });
  afterEach(async () => { await server.close(); });

  function ports(values: Record<string, unknown>, cancelAfterMs?: number, say = english) {
    const f = fakePorts([], values, say);
    const pr = progress(cancelAfterMs);
    const p: ConnectionFlowPorts = { ...f, progress: pr.run };
    return { f, p, titles: pr.titles };
  }

  it('with no model chosen, sends nothing and offers Choose Provider', async () => {
    const { f, p } = ports({ baseUrl: server.url });
    f.prompter.click = () => 'Choose Provider…';
    assert.equal(await runConnectionTest(p, { quiet: true }), undefined);
    await settle();
    assert.deepEqual(notes(f.prompter), [{ level: 'warning', text: 'No model is chosen yet, so there is nothing to test.', buttons: ['Choose Provider…'] }]);
    assert.deepEqual(f.commands.ran, [{ command: 'worldline.chooseProvider', args: [] }]);
    assert.equal(server.requests.length, 0);
  });

  it('quiet: the report only, with the key set for this endpoint; the log line has no key', async () => {
    const { f, p, titles } = ports({ baseUrl: server.url, model: 'test-model' });
    await f.keys.set('main', 'sk-secret-here', f.settings.read());
    server.enqueue(ping);
    const report = await runConnectionTest(p, { quiet: true });
    assert.equal(report?.answered, true);
    assert.equal(report?.tools, 'called');
    assert.equal(server.chatRequests()[0]?.authorization, 'Bearer sk-secret-here');
    await settle();
    assert.deepEqual(notes(f.prompter), []);
    assert.deepEqual(titles, [], 'no progress either');
    const line = f.log.lines.find((l) => l.startsWith('info: connection test: '));
    assert.ok(line?.includes('test-model answered=true tools=called'), line);
    assert.ok(!f.log.lines.join('\n').includes('sk-secret'));
  });

  it('a model given as an argument is tested instead of the setting; a key set for another host is not sent', async () => {
    const { f, p } = ports({ baseUrl: 'https://api.example.com/v1', model: 'set-model' });
    await f.keys.set('main', 'sk-elsewhere', f.settings.read());
    f.settings.values['baseUrl'] = server.url;
    server.enqueue(ping);
    const report = await runConnectionTest(p, { model: '  other-model ', quiet: true });
    assert.equal(report?.model, 'other-model');
    assert.equal(server.chatRequests()[0]?.model, 'other-model');
    assert.equal(server.chatRequests()[0]?.authorization, 'Bearer no-key');
  });

  it('shows the report in one notification, under a progress titled with the model, in the novelist\'s language', async () => {
    const { f, p, titles } = ports({ baseUrl: server.url, model: 'test-model' }, undefined, chinese);
    server.enqueue(ping);
    await runConnectionTest(p);
    assert.deepEqual(titles.map(english), ['Worldline: testing test-model…']);
    await settle();
    assert.equal(notes(f.prompter).length, 1);
    const n = notes(f.prompter)[0]!;
    assert.equal(n.level, 'info');
    assert.deepEqual(n.buttons, []);
    // The sentences joined with spaces, each translated.
    const host = new URL(server.url).host;
    assert.ok(n.text.startsWith(zh('Connected to {0} ({1}) in {2} s.').replace('{0}', host).replace('{1}', 'test-model').split('{2}')[0]!), n.text);
    assert.ok(n.text.includes(` ${zh('Tools work: the model called the test tool.')} `), n.text);
    assert.ok(n.text.includes(zh('Thinking: none seen in this reply.')), n.text);
  });

  it('each failure\'s button runs the command that fixes it', async () => {
    // The model answers without the tool: Select Model.
    const notCalled = ports({ baseUrl: server.url, model: 'test-model' });
    notCalled.f.prompter.click = (n) => n.buttons[0];
    server.enqueue({ text: 'hello' });
    assert.equal((await runConnectionTest(notCalled.p))?.tools, 'notCalled');
    await settle();
    assert.equal(notes(notCalled.f.prompter)[0]?.level, 'warning');
    assert.deepEqual(notes(notCalled.f.prompter)[0]?.buttons, ['Select Model']);
    assert.deepEqual(notCalled.f.commands.ran, [{ command: 'worldline.selectModel', args: [] }]);

    // No key where one is wanted: Set API Key.
    const guarded = await startModelServer({ requireKey: 'sk-right' });
    try {
      const auth = ports({ baseUrl: guarded.url, model: 'test-model' });
      auth.f.prompter.click = (n) => n.buttons[0];
      assert.equal((await runConnectionTest(auth.p))?.error?.kind, 'auth');
      await settle();
      assert.deepEqual(notes(auth.f.prompter), [{ level: 'error', text: `${new URL(guarded.url).host} asks for an API key, and none is set for it. Set one with Set API Key.`, buttons: ['Set API Key'] }]);
      assert.deepEqual(auth.f.commands.ran, [{ command: 'worldline.setApiKey', args: [] }]);
    } finally {
      await guarded.close();
    }

    // Nothing listens: Choose Provider.
    const down = ports({ baseUrl: `http://127.0.0.1:${await freePort()}/v1`, model: 'test-model' });
    down.f.prompter.click = (n) => n.buttons[0];
    assert.equal((await runConnectionTest(down.p))?.error?.kind, 'network');
    await settle();
    assert.deepEqual(notes(down.f.prompter)[0]?.buttons, ['Choose Provider…']);
    assert.match(notes(down.f.prompter)[0]!.text, /^Could not reach /);
    assert.deepEqual(down.f.commands.ran, [{ command: 'worldline.chooseProvider', args: [] }]);

    // Dismissed: nothing runs.
    const dismissed = ports({ baseUrl: server.url, model: 'test-model' });
    server.enqueue({ text: 'hello' });
    await runConnectionTest(dismissed.p);
    await settle();
    assert.deepEqual(dismissed.f.commands.ran, []);
  });

  it('Cancel on the progress aborts the request and says so', async () => {
    const { f, p } = ports({ baseUrl: server.url, model: 'test-model' }, 50);
    server.enqueue({ ...ping, delayMs: 3000 });
    const started = Date.now();
    const report = await runConnectionTest(p);
    assert.ok(Date.now() - started < 2500, 'did not wait for the reply');
    assert.equal(report?.error?.kind, 'aborted');
    await settle();
    assert.deepEqual(notes(f.prompter), [{ level: 'info', text: 'The connection test was cancelled.', buttons: [] }]);
  });

  it('a failing notification is logged', async () => {
    const { f, p } = ports({ baseUrl: server.url, model: 'test-model' });
    p.prompter = f.prompter = new FailingPrompter();
    server.enqueue({ text: 'hello' });
    await runConnectionTest(p);
    await settle();
    assert.ok(f.log.lines.includes('warn: the connection report failed: the window is gone'), f.log.lines.join('\n'));
  });
});
