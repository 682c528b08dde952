// The settings watch's decisions over a scripted Prompter and an in-memory key store: a new host
// without a key is asked about once per window, in words that say whether an old key stayed home;
// the button sets that role's key; only endpoint settings start a check, one check at a time; hosts
// asked about elsewhere, local servers and hosts with a key are not asked; refused custom headers
// are warned about once each, by name and never by value.
import { strict as assert } from 'node:assert';
import { EndpointWatch, ENDPOINT_SETTINGS, keyQuestionWords, refusalWords } from '../../../src/model/endpointWatch';
import type { HeaderRefusal } from '../../../src/model/requestOptions';
import { chinese, english, fakePorts, notes, settle, zh } from './flowFakes';

const A = 'https://api.deepseek.com';
const B = 'https://api.moonshot.cn/v1';

function watchOver(values: Record<string, unknown>, say = english) {
  const f = fakePorts([], values, say);
  return { f, watch: new EndpointWatch(f) };
}

/** A settings change VS Code reports: which settings it affects (a section affects its children). */
const change = (...names: string[]) => (setting: string): boolean => names.some((n) => n === setting || n.startsWith(`${setting}.`) || setting.startsWith(`${n}.`));

describe('model/endpointWatch: the key question and the header warnings', () => {
  it('asks once for a new host\'s key, saying the old key stays home; the button sets the main key', async () => {
    const { f, watch } = watchOver({ baseUrl: A });
    await f.keys.set('main', 'sk-a', f.settings.read());
    f.settings.values['baseUrl'] = B;
    f.prompter.click = () => 'Set API Key';
    watch.changed(change('worldline.baseUrl'));
    const asks = await watch.settled();
    assert.deepEqual(asks, [{ role: 'main', origin: 'https://api.moonshot.cn', endpoint: B }]);
    await settle();
    assert.deepEqual(notes(f.prompter), [{
      level: 'info',
      text: 'The writing model now goes to https://api.moonshot.cn, and no API key is set for it. Keys stay with the host they were set for, so the old key is not sent there.',
      buttons: ['Set API Key'],
    }]);
    assert.deepEqual(f.commands.ran, [{ command: 'worldline.setApiKey', args: [undefined, 'main'] }]);
    assert.ok(f.log.lines.includes('info: api key: none set for https://api.moonshot.cn (main); asking'));

    // Back and forth: asked once in this window.
    f.settings.values['baseUrl'] = A;
    watch.changed(change('worldline.baseUrl'));
    f.settings.values['baseUrl'] = B;
    watch.changed(change('worldline.baseUrl'));
    assert.deepEqual(await watch.settled(), []);
    await settle();
    assert.equal(notes(f.prompter).length, 1);
  });

  it('without any key the words say only that none is set; dismissed, nothing runs', async () => {
    const { f, watch } = watchOver({ baseUrl: B });
    watch.changed(change('worldline'));
    await watch.settled();
    await settle();
    assert.deepEqual(notes(f.prompter).map((n) => n.text), ['The writing model now goes to https://api.moonshot.cn, and no API key is set for it.']);
    assert.deepEqual(f.commands.ran, []);
  });

  it('only endpoint settings start a check, and two quick changes ask once', async () => {
    const { f, watch } = watchOver({ baseUrl: B });
    watch.changed(change('worldline.temperature', 'worldline.model'));
    await watch.settled();
    await settle();
    assert.deepEqual(notes(f.prompter), []);
    for (const s of ENDPOINT_SETTINGS) assert.ok(s.startsWith('worldline.'), s);

    watch.changed(change('worldline.provider'));
    watch.changed(change('worldline.baseUrl'));
    await watch.settled();
    await settle();
    assert.equal(notes(f.prompter).length, 1);
  });

  it('not asked: a host marked as asked elsewhere, a local server, a host with its key', async () => {
    const marked = watchOver({ baseUrl: B });
    marked.watch.markAsked('https://api.moonshot.cn');
    marked.watch.changed(change('worldline.baseUrl'));
    assert.deepEqual(await marked.watch.settled(), []);

    const local = watchOver({ baseUrl: 'http://localhost:11434/v1' });
    local.watch.changed(change('worldline.baseUrl'));
    assert.deepEqual(await local.watch.settled(), []);
    const pinned = watchOver({ baseUrl: 'http://192.168.1.5:9000/v1', provider: 'lmstudio' });
    pinned.watch.changed(change('worldline.provider'));
    assert.deepEqual(await pinned.watch.settled(), [], 'a local provider named in the settings wants no key');

    const keyed = watchOver({ baseUrl: B });
    await keyed.f.keys.set('main', 'sk-b', keyed.f.settings.read());
    keyed.watch.changed(change('worldline.baseUrl'));
    assert.deepEqual(await keyed.watch.settled(), []);
    await settle();
    assert.equal(notes(marked.f.prompter).length + notes(local.f.prompter).length + notes(pinned.f.prompter).length + notes(keyed.f.prompter).length, 0);
  });

  it('a scribe and an embeddings model on hosts of their own are asked about by role', async () => {
    const { f, watch } = watchOver({ baseUrl: A, 'scribe.baseUrl': B, 'memory.embeddingModel': 'bge-m3', 'memory.embeddingBaseUrl': 'https://api.siliconflow.cn/v1' });
    await f.keys.set('main', 'sk-a', f.settings.read());
    f.prompter.click = () => 'Set API Key';
    watch.changed(change('worldline.scribe.baseUrl'));
    assert.deepEqual((await watch.settled()).map((a) => a.role), ['scribe', 'embeddings']);
    await settle();
    assert.deepEqual(notes(f.prompter).map((n) => n.text), [
      'The scribe now goes to https://api.moonshot.cn, and no API key is set for it.',
      'The embeddings model now goes to https://api.siliconflow.cn, and no API key is set for it.',
    ]);
    assert.deepEqual(f.commands.ran.map((r) => r.args), [[undefined, 'scribe'], [undefined, 'embeddings']]);
  });

  it('a key store that fails is logged, and the watch goes on', async () => {
    const { f, watch } = watchOver({ baseUrl: B });
    f.secrets.failing = true;
    watch.changed(change('worldline.baseUrl'));
    assert.deepEqual(await watch.settled(), []);
    assert.ok(f.log.lines.includes('warn: checking the endpoint keys failed: the keychain is locked'));
    f.secrets.failing = false;
    watch.changed(change('worldline.baseUrl'));
    assert.equal((await watch.settled()).length, 1);
  });

  it('each refused custom header is warned about once, by name, with the reason in the novelist\'s language', async () => {
    const { f, watch } = watchOver({ customHeaders: { Authorization: 'Bearer sk-leak', 'X-Tenant': 'novel', 'Content-Length': '5', 'bad name': 'x', 'X-Empty': '' } }, chinese);
    watch.warnRefusedHeaders();
    watch.warnRefusedHeaders();
    watch.changed(change('worldline.customHeaders'));
    await settle();
    const template = zh('worldline.customHeaders: "{0}" is not sent: {1}');
    const expected = ([['authorization', 'credentials'], ['content-length', 'framing'], ['"bad name"', 'badName'], ['x-empty', 'badValue']] as [string, HeaderRefusal][])
      .map(([name, why]) => template.replace('{0}', name).replace('{1}', chinese(refusalWords(why))));
    assert.deepEqual(f.prompter.notified.map((n) => chinese(n.words)), expected);
    assert.ok(notes(f.prompter).every((n) => n.level === 'warning'));
    assert.ok(!JSON.stringify(notes(f.prompter)).includes('sk-leak') && !f.log.lines.join('\n').includes('sk-leak'), 'values are never shown');
    assert.ok(f.log.lines.includes('warn: worldline.customHeaders: authorization is not sent (credentials)'));

    // A new refusal later is warned about; the old ones are not repeated.
    f.settings.values['customHeaders'] = { Authorization: 'x', Host: 'h' };
    watch.changed(change('worldline.customHeaders'));
    await settle();
    assert.equal(notes(f.prompter).length, 5);
    assert.ok(chinese(f.prompter.notified[4]!.words).includes('“host”'));
  });

  it('the question\'s words for each role', () => {
    const ask = { origin: 'https://h', endpoint: 'https://h/v1' };
    assert.equal(keyQuestionWords({ ...ask, role: 'scribe' }, true).message, 'The scribe now goes to {0}, and no API key is set for it.');
    assert.notEqual(keyQuestionWords({ ...ask, role: 'main' }, true).message, keyQuestionWords({ ...ask, role: 'main' }, false).message);
  });
});
