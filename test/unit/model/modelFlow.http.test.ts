// Select Model over a scripted Prompter and the real model server: the endpoint's list (sorted, the
// demo model labelled, read with the key set for that endpoint only), a name typed in, Escape, an
// empty list, and the choice written to the workspace settings.
import { strict as assert } from 'node:assert';
import { selectModel } from '../../../src/model/modelFlow';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { askAt, asked, english, fakePorts, pickAt, shown } from './flowFakes';

describe('model/modelFlow: Select Model', () => {
  let server: ModelServer;
  beforeEach(async () => { server = await startModelServer({ models: ['b-model', 'worldline-demo', 'a-model'] }); });
  afterEach(async () => { await server.close(); });

  it('offers the endpoint\'s models, read with its key, and writes the one picked to the workspace', async () => {
    const p = fakePorts([{ pick: 'b-model' }], { baseUrl: server.url, model: 'a-model' });
    await p.keys.set('main', 'sk-here', p.settings.read());
    assert.equal(await selectModel(p), 'b-model');
    const pick = pickAt(p.prompter, 0);
    assert.deepEqual(shown(pick), [['a-model', undefined], ['b-model', undefined], ['worldline-demo', 'demo model (scripted, offline)'], ['Enter a model name…', undefined]]);
    assert.equal(english(pick.pick.title), 'Select Model');
    assert.equal(english(pick.pick.placeHolder!), 'a-model', 'the current model as the placeholder');
    assert.equal(server.requests[0]?.authorization, 'Bearer sk-here');
    assert.deepEqual(p.settings.writes, [{ name: 'model', value: 'b-model', scope: 'workspace' }]);
  });

  it('a name typed in (trimmed), starting from the current one; Escape or a blank name changes nothing', async () => {
    const typed = fakePorts([{ pick: 'Enter a model name…' }, { type: '  my-model ' }], { baseUrl: server.url, model: 'a-model' });
    assert.equal(await selectModel(typed), 'my-model');
    assert.equal(askAt(typed.prompter, 1).value, 'a-model');
    assert.equal(english(askAt(typed.prompter, 1).prompt!), 'Model name, e.g. gpt-4o or deepseek-chat');
    assert.equal(typed.settings.values['model'], 'my-model');

    for (const answers of [[{ escape: 'pick' as const }], [{ pick: 'Enter a model name…' }, { escape: 'ask' as const }], [{ pick: 'Enter a model name…' }, { type: '   ' }]]) {
      const p = fakePorts(answers, { baseUrl: server.url, model: 'a-model' });
      assert.equal(await selectModel(p), undefined);
      assert.deepEqual(p.settings.writes, []);
      assert.equal(p.prompter.left, 0);
    }
  });

  it('a model given: no questions, trimmed; a blank one is no model', async () => {
    const p = fakePorts([], { baseUrl: server.url });
    assert.equal(await selectModel(p, ' given '), 'given');
    assert.deepEqual(p.settings.writes, [{ name: 'model', value: 'given', scope: 'workspace' }]);
    assert.equal(await selectModel(p, '   '), undefined);
    assert.equal(p.settings.writes.length, 1);
    assert.equal(server.requests.length, 0);
  });

  it('an endpoint that lists nothing without its key: only the name box, the base URL as the placeholder; the other host\'s key stays home', async () => {
    const guarded = await startModelServer({ requireKey: 'sk-right', models: ['hidden'] });
    try {
      const p = fakePorts([{ pick: 'Enter a model name…' }, { type: 'x' }], { baseUrl: server.url });
      await p.keys.set('main', 'sk-for-the-other', p.settings.read());
      p.settings.values['baseUrl'] = guarded.url;
      assert.equal(await selectModel(p), 'x');
      assert.deepEqual(asked(p.prompter), ['pick Select Model', 'ask Select Model']);
      assert.deepEqual(shown(pickAt(p.prompter, 0)), [['Enter a model name…', undefined]]);
      assert.equal(english(pickAt(p.prompter, 0).pick.placeHolder!), guarded.url);
      assert.deepEqual(guarded.requests.map((r) => r.authorization), [undefined]);
    } finally {
      await guarded.close();
    }
  });
});
