// Choose Provider over a scripted Prompter and the real model server: the questions in order (preset,
// base URL for a custom endpoint, key, model), what each answer writes, Escape at every step, the
// base URL's validation, a local server without a key, a key set for another host that is not
// used, the model list (suggestion, demo model, current, empty), the Ollama warning and the offer
// to test the connection.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpointOrigin } from '../../../src/model/keys';
import { checkBaseUrl, PRESETS, type BaseUrlProblem } from '../../../src/model/presets';
import { baseUrlProblemWords, chooseProvider, presetItems } from '../../../src/model/providerFlow';
import type { PickItem } from '../../../src/protocol/prompter';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { runs } from '../long-mode';
import { askAt, asked, chinese, english, fakePorts, FailingPrompter, notes, pickAt, settle, shown, zh } from './flowFakes';

const OLLAMA_WARNING = 'Ollama runs models with a 4,096-token context unless OLLAMA_CONTEXT_LENGTH is raised, and cuts longer prompts without a word: raise it (Ollama\'s docs, "Context length") before writing.';

describe('model/providerFlow: Choose Provider', () => {
  let server: ModelServer;
  beforeEach(async () => { server = await startModelServer({ models: ['test-model', 'worldline-demo', 'zeta'] }); });
  afterEach(async () => { await server.close(); });
  const models = (): { authorization?: string }[] => server.requests.filter((r) => r.path === '/v1/models');
  const origin = (): string => endpointOrigin(server.url)!;

  it('asks preset, base URL, key and model in that order, and writes each answer', async () => {
    const p = fakePorts([
      { pick: 'Other OpenAI-compatible endpoint…' },
      { type: `  ${server.url}  ` },
      { type: 'sk-new' },
      { pick: 'zeta' },
    ], { baseUrl: 'https://api.deepseek.com', model: 'old-model' });
    p.prompter.click = (n) => (n.buttons.includes('Test Connection') ? 'Test Connection' : undefined);
    const result = await chooseProvider(p, undefined);
    assert.deepEqual(result, { preset: 'custom', baseUrl: server.url, provider: 'auto', model: 'zeta', keyReady: true });
    assert.deepEqual(asked(p.prompter), ['pick Choose Provider', 'ask Choose Provider', 'ask Set API Key', 'pick Select Model']);
    const urlAsk = askAt(p.prompter, 1);
    assert.equal(urlAsk.value, 'https://api.deepseek.com', 'the base URL box starts from the current one');
    assert.equal(urlAsk.ignoreFocusOut, true);
    const keyAsk = askAt(p.prompter, 2);
    assert.equal(keyAsk.password, true);
    assert.equal(keyAsk.ignoreFocusOut, true);
    assert.match(english(keyAsk.prompt!), new RegExp(`^The key for ${server.url}\\. `));
    assert.equal(english(keyAsk.placeHolder!), 'Press Escape to set it later with Set API Key');
    assert.deepEqual(p.settings.writes, [
      { name: 'provider', value: 'auto', scope: 'novel' },
      { name: 'baseUrl', value: server.url, scope: 'novel' },
      { name: 'model', value: 'zeta', scope: 'novel' },
    ]);
    assert.equal((await p.keys.forRequests(p.settings.read())).main, 'sk-new');
    assert.deepEqual(models().map((r) => r.authorization), ['Bearer sk-new'], 'the list is read with the new key');
    assert.deepEqual(p.marked, [origin()], 'the settings watch is told not to ask again');
    assert.ok(p.log.lines.includes(`info: provider: custom at ${origin()}`));
    await settle();
    assert.deepEqual(notes(p.prompter), [{ level: 'info', text: `The writing model is zeta at ${origin()}.`, buttons: ['Test Connection'] }]);
    assert.deepEqual(p.commands.ran, [{ command: 'worldline.testConnection', args: [] }]);
    assert.equal(p.prompter.left, 0);
  });

  it('lists every preset with its region, "local, no key" and "current", in the novelist\'s language', () => {
    const p = fakePorts([], { baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1/', provider: 'qwen' }, chinese);
    const items = presetItems(p);
    assert.equal(items.length, PRESETS.length);
    const byId = new Map(items.map((i) => [i.value.id, i]));
    const words = (i: PickItem<unknown> | undefined, part: 'label' | 'description' | 'detail'): string | undefined => (i?.[part] ? chinese(i[part]!) : undefined);
    assert.equal(words(byId.get('deepseek'), 'label'), 'DeepSeek');
    assert.equal(words(byId.get('deepseek'), 'description'), undefined);
    assert.equal(words(byId.get('deepseek'), 'detail'), 'https://api.deepseek.com');
    assert.equal(words(byId.get('qwen'), 'description'), zh('China'));
    assert.equal(words(byId.get('qwen-intl'), 'description'), `${zh('International')} · ${zh('current')}`);
    assert.equal(words(byId.get('ollama'), 'description'), zh('local, no key'));
    assert.equal(words(byId.get('custom'), 'label'), zh('Other OpenAI-compatible endpoint…'));
    assert.equal(words(byId.get('custom'), 'detail'), zh('vLLM, llama.cpp, a gateway…: you type its base URL'));
    assert.deepEqual(items.filter((i) => i.description && chinese(i.description).includes(zh('current'))).map((i) => i.value.id), ['qwen-intl'], 'one preset is current');
  });

  it('Escape at the preset, the base URL or the key question', async () => {
    const atPreset = fakePorts([{ escape: 'pick' }]);
    assert.equal(await chooseProvider(atPreset), undefined);
    assert.deepEqual(atPreset.settings.writes, []);
    assert.deepEqual(atPreset.marked, []);

    const atUrl = fakePorts([{ pick: 'Other OpenAI-compatible endpoint…' }, { escape: 'ask' }]);
    assert.equal(await chooseProvider(atUrl), undefined);
    assert.deepEqual(atUrl.settings.writes, []);

    // Escape at the key: the endpoint is set, the key is not, and the model is still chosen.
    const atKey = fakePorts([{ escape: 'ask' }, { pick: 'test-model' }]);
    assert.deepEqual(await chooseProvider(atKey, { preset: 'custom', baseUrl: server.url }), { preset: 'custom', baseUrl: server.url, provider: 'auto', model: 'test-model', keyReady: false });
    assert.deepEqual(await atKey.keys.stored(atKey.settings.read()), {});
    assert.deepEqual(models().map((r) => r.authorization), [undefined]);
    await settle();
    assert.deepEqual(notes(atKey.prompter), [], 'given a preset, no offer to test');
  });

  it('Escape at the model pick or the model name leaves the model as it was', async () => {
    const atPick = fakePorts([{ escape: 'pick' }], { model: 'kept' });
    noModel(await chooseProvider(atPick, { preset: 'custom', baseUrl: server.url, key: 'sk-1' }));
    assert.equal(atPick.settings.values['model'], 'kept');

    const atName = fakePorts([{ pick: 'Enter a model name…' }, { escape: 'ask' }]);
    noModel(await chooseProvider(atName, { preset: 'custom', baseUrl: server.url, key: 'sk-1' }));
    const blank = fakePorts([{ pick: 'Enter a model name…' }, { type: '   ' }]);
    noModel(await chooseProvider(blank, { preset: 'custom', baseUrl: server.url, key: 'sk-1' }));
    assert.deepEqual(blank.settings.writes.map((w) => w.name), ['provider', 'baseUrl']);

    // Interactive, no model: the offer says so.
    const offered = fakePorts([{ pick: 'Other OpenAI-compatible endpoint…' }, { type: server.url }, { type: 'sk-1' }, { escape: 'pick' }]);
    const r = await chooseProvider(offered);
    assert.equal(r?.model, undefined);
    await settle();
    assert.equal(notes(offered.prompter)[0]?.text, `The writing model is — at ${origin()}.`);
    assert.deepEqual(offered.commands.ran, [], 'the offer was not taken');

    function noModel(result: Awaited<ReturnType<typeof chooseProvider>>): void {
      assert.deepEqual(result, { preset: 'custom', baseUrl: server.url, provider: 'auto', keyReady: true });
    }
  });

  it('validates a typed base URL and refuses a bad one given as an argument', async () => {
    const p = fakePorts([{ pick: 'Other OpenAI-compatible endpoint…' }, { escape: 'ask' }]);
    await chooseProvider(p);
    const validate = askAt(p.prompter, 1).validate!;
    const cases: [string, BaseUrlProblem | undefined][] = [
      ['', 'empty'], ['   ', 'empty'], ['localhost:8000', 'notHttp'], ['not a url', 'notUrl'], ['ftp://host/v1', 'notHttp'],
      ['https://user:pw@host/v1', 'hasCredentials'], ['https://host/v1?x=1', 'hasQuery'], ['https://host/v1#top', 'hasQuery'],
      ['http://localhost:8000/v1', undefined], [' https://host/v1 ', undefined],
    ];
    for (const [text, problem] of cases) {
      assert.deepEqual(validate(text), problem === undefined ? undefined : baseUrlProblemWords(problem), text);
    }
    for (const problem of ['empty', 'notUrl', 'notHttp', 'hasCredentials', 'hasQuery'] as const) assert.ok(zh(baseUrlProblemWords(problem).message));

    const given = fakePorts();
    assert.equal(await chooseProvider(given, { preset: 'custom', baseUrl: 'https://me:secret@host/v1' }), undefined);
    await settle();
    assert.deepEqual(notes(given.prompter), [{ level: 'error', text: english(baseUrlProblemWords('hasCredentials')), buttons: [] }]);
    assert.deepEqual(given.settings.writes, []);
  });

  it('any base URL given: either written as an http(s) endpoint with no credentials or query, or refused in translated words', async () => {
    const piece = fc.constantFrom('http://', 'https://', 'ftp://', 'h', '127.0.0.1', ':', '/', '@', 'u:p@', '?', '#', 'v1', ' ', '%', '[::1]', '\\', '\n', '例');
    const typed = fc.oneof(fc.string(), fc.array(piece, { maxLength: 8 }).map((a) => a.join('')));
    await fc.assert(fc.asyncProperty(typed, async (text) => {
      const p = fakePorts();
      // A key of '' and a model given: no question, nothing on the network.
      const result = await chooseProvider(p, { preset: 'custom', baseUrl: text, key: '', model: 'm' });
      await settle();
      const checked = checkBaseUrl(text);
      if (result === undefined) {
        assert.ok(!checked.ok);
        assert.deepEqual(p.settings.writes, []);
        assert.deepEqual(notes(p.prompter), [{ level: 'error', text: english(baseUrlProblemWords(checked.problem)), buttons: [] }]);
        assert.ok(zh(baseUrlProblemWords(checked.problem).message));
      } else {
        assert.ok(checked.ok);
        const url = new URL(result.baseUrl);
        assert.ok(['http:', 'https:'].includes(url.protocol) && url.username === '' && url.password === '' && url.search === '' && url.hash === '', result.baseUrl);
        assert.equal(p.settings.values['baseUrl'], result.baseUrl);
        assert.equal(result.baseUrl, result.baseUrl.trim());
      }
    }), { numRuns: runs(200, 5000) });
  });

  it('a local server: no key asked, none sent, and Ollama\'s context warning', async () => {
    const p = fakePorts([{ pick: 'test-model' }]);
    const result = await chooseProvider(p, { preset: 'ollama', baseUrl: server.url });
    assert.deepEqual(result, { preset: 'ollama', baseUrl: server.url, provider: 'ollama', model: 'test-model', keyReady: true });
    assert.deepEqual(asked(p.prompter), ['pick Select Model']);
    assert.equal(p.settings.values['provider'], 'ollama');
    assert.deepEqual(models().map((r) => r.authorization), [undefined]);
    await settle();
    assert.deepEqual(notes(p.prompter), [{ level: 'warning', text: OLLAMA_WARNING, buttons: [] }]);

    const lm = fakePorts();
    assert.equal((await chooseProvider(lm, { preset: 'lmstudio', baseUrl: server.url, model: 'm' }))?.keyReady, true);
    await settle();
    assert.deepEqual(notes(lm.prompter), [], 'LM Studio: no warning');
  });

  it('a key already set for the endpoint is not asked again, and is used for the list; a key given replaces it', async () => {
    const p = fakePorts([{ pick: 'test-model' }], { baseUrl: server.url });
    await p.keys.set('main', 'sk-there', p.settings.read());
    assert.equal((await chooseProvider(p, { preset: 'custom', baseUrl: server.url }))?.keyReady, true);
    assert.deepEqual(asked(p.prompter), ['pick Select Model']);
    assert.equal(models().at(-1)?.authorization, 'Bearer sk-there');

    assert.equal((await chooseProvider(p, { preset: 'custom', baseUrl: server.url, key: 'sk-other', model: 'm' }))?.keyReady, true);
    assert.equal((await p.keys.forRequests(p.settings.read())).main, 'sk-other');
    // '' sets none: nothing is removed or stored.
    assert.equal((await chooseProvider(p, { preset: 'custom', baseUrl: server.url, key: '', model: 'm' }))?.keyReady, true);
    assert.equal((await p.keys.forRequests(p.settings.read())).main, 'sk-other');
  });

  it('a key set for another host is withheld: asked for the new one, the list read without it', async () => {
    const guarded = await startModelServer({ requireKey: 'sk-right', models: ['only-with-key'] });
    try {
      const p = fakePorts([{ escape: 'ask' }, { pick: 'Enter a model name…' }, { type: '  typed-model ' }], { baseUrl: server.url, model: 'was' });
      await p.keys.set('main', 'sk-elsewhere', p.settings.read());
      const result = await chooseProvider(p, { preset: 'custom', baseUrl: guarded.url });
      assert.deepEqual(result, { preset: 'custom', baseUrl: guarded.url, provider: 'auto', model: 'typed-model', keyReady: false });
      assert.deepEqual(guarded.requests.map((r) => r.authorization), [undefined], 'the other host\'s key went nowhere');
      const pick = pickAt(p.prompter, 1);
      assert.deepEqual(pick.labels, ['Enter a model name…'], 'a custom endpoint suggests nothing');
      assert.match(pick.pick.placeHolder!.message, /^The endpoint listed no models/);
      assert.equal(askAt(p.prompter, 2).value, 'was', 'the name box starts from the current model');

      // Now with the right key: the list is read with it.
      const q = fakePorts([{ type: 'sk-right' }, { pick: 'only-with-key' }]);
      assert.equal((await chooseProvider(q, { preset: 'custom', baseUrl: guarded.url }))?.model, 'only-with-key');
    } finally {
      await guarded.close();
    }
  });

  it('the model list: the preset\'s suggestion first and marked, the demo model and the current one labelled', async () => {
    const listing = await startModelServer({ models: ['zz-current', 'deepseek-chat', 'worldline-demo', 'aa'] });
    const empty = await startModelServer({ models: [] });
    try {
      const p = fakePorts([{ pick: 'deepseek-chat' }], { model: 'zz-current' });
      await chooseProvider(p, { preset: 'deepseek', baseUrl: listing.url, key: 'sk-1' });
      assert.deepEqual(shown(pickAt(p.prompter, 0)), [
        ['deepseek-chat', 'suggested'], ['aa', undefined], ['worldline-demo', 'demo model (scripted, offline)'], ['zz-current', 'current'], ['Enter a model name…', undefined],
      ]);
      assert.equal(english(pickAt(p.prompter, 0).pick.placeHolder!), 'The model that writes the story');

      // Nothing listed: the suggestion alone, and the name box starts from it.
      const q = fakePorts([{ pick: 'Enter a model name…' }, { type: 'deepseek-reasoner' }]);
      assert.equal((await chooseProvider(q, { preset: 'deepseek', baseUrl: empty.url, key: 'sk-1' }))?.model, 'deepseek-reasoner');
      assert.deepEqual(pickAt(q.prompter, 0).labels, ['deepseek-chat', 'Enter a model name…']);
      assert.equal(askAt(q.prompter, 1).value, 'deepseek-chat');
    } finally {
      await listing.close();
      await empty.close();
    }
  });

  it('an endpoint that does not answer /models still gets a model typed in', async () => {
    const dead = http.createServer((_req, res) => { res.writeHead(500); res.end(); });
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
    try {
      const p = fakePorts([{ pick: 'Enter a model name…' }, { type: 'm1' }]);
      assert.equal((await chooseProvider(p, { preset: 'custom', baseUrl: url, key: 'k' }))?.model, 'm1');
    } finally {
      await new Promise((r) => dead.close(r));
    }
  });

  it('a failing offer is logged, not thrown', async () => {
    // The preset is picked (so the test is offered); the model is given, so nothing goes to DeepSeek.
    const p = fakePorts();
    p.prompter = new FailingPrompter([{ pick: 'DeepSeek' }, { type: 'sk-ds' }]);
    const result = await chooseProvider(p, { model: 'deepseek-chat' });
    assert.equal(result?.model, 'deepseek-chat');
    await settle();
    assert.ok(p.log.lines.some((l) => l === 'warn: the test offer failed: the window is gone'), p.log.lines.join('\n'));
  });
});
