// The first-run facts over fakes: nothing until the first read; a folder, worldline.yaml and the
// main endpoint's key read into the Chat's inputs and into the walkthrough's context keys; a local
// server or a key set for the endpoint is no missing key, a key set for another host is; reads run
// one at a time, report a change only when a fact changed, and a failed read is logged.
import { strict as assert } from 'node:assert';
import { hostOf, SetupFacts, type SetupPorts } from '../../../src/model/setupFlow';
import { fakePorts } from './flowFakes';
import { DEMO_MODEL } from '../../../src/model/models';

function setup(values: Record<string, unknown>, project: boolean | undefined) {
  const f = fakePorts([], values);
  const contexts: [string, boolean][] = [];
  let changes = 0;
  const folder = { project: project ?? false, reads: 0, failing: false };
  const ports: SetupPorts = {
    novel: () => (project === undefined ? undefined : {
      hasProjectFile: async () => {
        folder.reads++;
        await new Promise((r) => setImmediate(r));
        if (folder.failing) throw new Error('the disk is gone');
        return folder.project;
      },
    }),
    settings: f.settings,
    keys: f.keys,
    setContext: (key, value) => { contexts.push([key, value]); return Promise.resolve(); },
    log: f.log,
  };
  const facts = new SetupFacts(ports, () => { changes++; });
  return { f, facts, contexts, folder, changes: () => changes };
}

describe('model/setupFlow: the first-run facts', () => {
  it('nothing before the first read; then the facts, the host and the context keys', async () => {
    const s = setup({ baseUrl: 'https://api.deepseek.com/v1' }, true);
    assert.equal(s.facts.inputs(), undefined, 'no flash of a wrong step');
    await s.facts.refresh();
    assert.deepEqual(s.facts.inputs(), { folder: true, project: true, keyMissing: true, host: 'api.deepseek.com' });
    assert.deepEqual(s.contexts, [['worldline.hasProject', true], ['worldline.keyReady', false]]);
    assert.equal(s.changes(), 1);

    await s.f.keys.set('main', 'sk-1', s.f.settings.read());
    await s.facts.refresh();
    assert.equal(s.facts.inputs()?.keyMissing, false);
    assert.deepEqual(s.contexts.at(-1), ['worldline.keyReady', true]);
    assert.equal(s.changes(), 2);

    // The same facts again: the context keys are set, no change is reported.
    await s.facts.refresh();
    assert.equal(s.changes(), 2);
  });

  it('no folder: no project; a local server wants no key; a key set for another host is missing here', async () => {
    const none = setup({ baseUrl: 'http://localhost:11434/v1' }, undefined);
    await none.facts.refresh();
    assert.deepEqual(none.facts.inputs(), { folder: false, project: false, keyMissing: false, host: 'localhost:11434' });

    const moved = setup({ baseUrl: 'https://api.openai.com/v1' }, false);
    await moved.f.keys.set('main', 'sk-openai', moved.f.settings.read());
    moved.f.settings.values['baseUrl'] = 'https://openrouter.ai/api/v1';
    await moved.facts.refresh();
    assert.deepEqual(moved.facts.inputs(), { folder: true, project: false, keyMissing: true, host: 'openrouter.ai' });
  });

  it('the demo model on its local test server wants no key; the same address with a real model does', async () => {
    const demo = setup({ baseUrl: 'http://127.0.0.1:8750/v1', model: DEMO_MODEL }, true);
    await demo.facts.refresh();
    assert.equal(demo.facts.inputs()?.keyMissing, false);
    const real = setup({ baseUrl: 'http://127.0.0.1:8750/v1', model: 'qwen-plus' }, true);
    await real.facts.refresh();
    assert.equal(real.facts.inputs()?.keyMissing, true);
  });

  it('reads run one at a time; a failed read is logged and the facts kept', async () => {
    const s = setup({ baseUrl: 'http://localhost:1234/v1' }, false);
    let inside = 0;
    let most = 0;
    const original = s.f.keys.forRequests.bind(s.f.keys);
    s.f.keys.forRequests = async (settings) => {
      most = Math.max(most, ++inside);
      await new Promise((r) => setTimeout(r, 5));
      inside--;
      return original(settings);
    };
    s.f.settings.values['baseUrl'] = 'https://api.deepseek.com';
    await Promise.all([s.facts.refresh(), s.facts.refresh(), s.facts.refresh()]);
    assert.equal(most, 1);
    assert.equal(s.folder.reads, 3);

    s.folder.project = true;
    s.folder.failing = true;
    await s.facts.refresh();
    assert.ok(s.f.log.lines.includes('warn: reading the setup state failed: the disk is gone'));
    assert.equal(s.facts.inputs()?.project, false, 'the last facts read');
    s.folder.failing = false;
    await s.facts.refresh();
    assert.equal(s.facts.inputs()?.project, true, 'a later read works again');
  });

  it('the first reply sets worldline.wrote; a failure to set it is logged', async () => {
    const s = setup({}, true);
    s.facts.wrote();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(s.contexts, [['worldline.wrote', true]]);
    const f = fakePorts();
    const failing = new SetupFacts({ novel: () => undefined, settings: f.settings, keys: f.keys, setContext: () => Promise.reject(new Error('no window')), log: f.log }, () => undefined);
    failing.wrote();
    await new Promise((r) => setImmediate(r));
    assert.ok(f.log.lines.includes('warn: setting worldline.wrote failed: no window'));
  });

  it('hostOf: the host of a URL, the text itself otherwise', () => {
    assert.equal(hostOf('https://API.example.com:8443/v1'), 'api.example.com:8443');
    assert.equal(hostOf('not a url'), 'not a url');
  });
});
