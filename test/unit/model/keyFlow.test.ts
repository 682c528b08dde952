// Set API Key over a scripted Prompter and an in-memory secret store: one endpoint asks no role,
// a scribe or embeddings model on its own endpoint is offered (labelled, with its endpoint), each
// role's key is bound to its own endpoint, Escape at either question stores nothing, an empty key
// removes, and an endpoint that is no http(s) address refuses the key in words.
import { strict as assert } from 'node:assert';
import { isKeyRole, setApiKey } from '../../../src/model/keyFlow';
import { SCRIBE_SECRET_KEY, SECRET_KEY, EMBEDDINGS_SECRET_KEY } from '../../../src/model/keyStore';
import { askAt, asked, english, fakePorts, notes, pickAt, settle, shown } from './flowFakes';

const MAIN = 'https://api.deepseek.com';
const SCRIBE = 'https://api.openai.com/v1';
const EMBED = 'https://api.siliconflow.cn/v1';

describe('model/keyFlow: Set API Key', () => {
  it('one endpoint: no role asked; the key is asked hidden and bound to the endpoint', async () => {
    const p = fakePorts([{ type: ' sk-main ' }], { baseUrl: MAIN });
    assert.equal(await setApiKey(p), true);
    assert.deepEqual(asked(p.prompter), ['ask Set API Key']);
    const box = askAt(p.prompter, 0);
    assert.equal(box.password, true);
    assert.equal(box.ignoreFocusOut, true);
    assert.equal(english(box.prompt!), `The key for ${MAIN}. It is kept in VS Code's secret storage, never in settings or logs, and is sent to this endpoint only.`);
    assert.deepEqual(await p.keys.stored(p.settings.read()), { main: { key: 'sk-main', origin: MAIN } });
  });

  it('a scribe and an embeddings model on endpoints of their own: which key, then that one\'s', async () => {
    const values = { baseUrl: MAIN, 'scribe.baseUrl': SCRIBE, 'memory.embeddingModel': 'bge-m3', 'memory.embeddingBaseUrl': EMBED };
    const p = fakePorts([{ pick: 'The scribe and summaries' }, { type: 'sk-scribe' }], values);
    assert.equal(await setApiKey(p), true);
    const roles = pickAt(p.prompter, 0);
    assert.deepEqual(shown(roles), [['The writing model', MAIN], ['The scribe and summaries', SCRIBE], ['The embeddings model (memory)', EMBED]]);
    assert.equal(english(roles.pick.placeHolder!), 'Another endpoint is in use besides the writing model\'s: which key?');
    assert.equal(english(askAt(p.prompter, 1).title), 'Set API Key for the Scribe');
    assert.match(english(askAt(p.prompter, 1).prompt!), new RegExp(`^The key for ${SCRIBE}\\.`));
    assert.ok(p.secrets.values.has(SCRIBE_SECRET_KEY));
    assert.ok(!p.secrets.values.has(SECRET_KEY));

    const e = fakePorts([{ pick: 'The embeddings model (memory)' }, { type: 'sk-embed' }], values);
    assert.equal(await setApiKey(e), true);
    assert.equal(english(askAt(e.prompter, 1).title), 'Set API Key for the Embeddings Model');
    assert.equal((await e.keys.forRequests(e.settings.read())).embeddings, 'sk-embed');
    assert.ok(e.secrets.values.has(EMBEDDINGS_SECRET_KEY));

    // Without an embeddings model the embeddings key is not offered.
    const two = fakePorts([{ pick: 'The writing model' }, { type: 'sk-m' }], { baseUrl: MAIN, 'scribe.baseUrl': SCRIBE, 'memory.embeddingBaseUrl': EMBED });
    assert.equal(await setApiKey(two), true);
    assert.deepEqual(shown(pickAt(two.prompter, 0)).map(([l]) => l), ['The writing model', 'The scribe and summaries']);
    assert.equal(english(askAt(two.prompter, 1).title), 'Set API Key');
  });

  it('Escape at the role or the key stores nothing', async () => {
    const values = { baseUrl: MAIN, 'scribe.baseUrl': SCRIBE };
    const atRole = fakePorts([{ escape: 'pick' }], values);
    assert.equal(await setApiKey(atRole), false);
    const atKey = fakePorts([{ escape: 'ask' }], values);
    assert.equal(await setApiKey(atKey, undefined, 'scribe'), false);
    assert.equal(atRole.secrets.values.size + atKey.secrets.values.size, 0);
  });

  it('a key and a role given: no questions; an empty key removes', async () => {
    const p = fakePorts([], { baseUrl: MAIN, 'scribe.baseUrl': SCRIBE });
    assert.equal(await setApiKey(p, 'sk-s', 'scribe'), true);
    assert.equal((await p.keys.forRequests(p.settings.read())).scribe, 'sk-s');
    assert.equal(await setApiKey(p, '', 'scribe'), true);
    assert.equal(p.secrets.values.size, 0);
    assert.deepEqual(p.prompter.asked, []);
  });

  it('an endpoint that is no http(s) address: the key is refused, in words', async () => {
    const p = fakePorts([], { baseUrl: 'file:///tmp/model' });
    assert.equal(await setApiKey(p, 'sk-x'), false);
    await settle();
    assert.deepEqual(notes(p.prompter), [{ level: 'error', text: 'The key was not stored: file:///tmp/model is not an http(s) address, so there is no endpoint to bind it to. Fix the setting first.', buttons: [] }]);
    assert.equal(p.secrets.values.size, 0);
  });

  it('isKeyRole accepts the three roles only', () => {
    for (const r of ['main', 'scribe', 'embeddings']) assert.ok(isKeyRole(r));
    for (const r of ['Main', '', undefined, 1, {}, 'key']) assert.ok(!isKeyRole(r));
  });
});
