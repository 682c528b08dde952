// The embeddings endpoint's own key (a third key role) and when a key is asked for. The embeddings
// key is bound to the embeddings endpoint and goes there only, never to the writing model or the
// scribe; where embeddings share an origin with the main or scribe endpoint that key serves them.
// Property: whatever the endpoints and stored keys, every key a request carries was set for the
// origin it goes to. Asking: once per origin, only where a key is wanted and none is set.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { keysToAsk } from '../../../src/model/keyPrompt';
import { EMBEDDINGS_SECRET_KEY, KeyStore, type KeySettings, type SecretStore } from '../../../src/model/keyStore';
import { bindKey, endpointOrigin, keyRolesFor, requestKeys, type Endpoints, type StoredKeys } from '../../../src/model/keys';

class MemorySecrets implements SecretStore {
  readonly values = new Map<string, string>();
  get(name: string): Promise<string | undefined> { return Promise.resolve(this.values.get(name)); }
  store(name: string, value: string): Promise<void> { this.values.set(name, value); return Promise.resolve(); }
  delete(name: string): Promise<void> { this.values.delete(name); return Promise.resolve(); }
}

const MAIN = 'https://api.deepseek.com';
const EMBED = 'https://dashscope.aliyuncs.com/compatible-mode/v1';
const LOCAL = 'http://localhost:11434/v1';
const at = (main: string, scribe = main, embeddings = main): KeySettings => ({ endpoints: { main, scribe, embeddings } });

describe('model/keys: the embeddings key', () => {
  it('is stored under its own secret, bound to the embeddings endpoint, and goes there only', async () => {
    const secrets = new MemorySecrets();
    const keys = new KeyStore(secrets);
    const settings = at(MAIN, MAIN, EMBED);
    await keys.set('main', 'sk-main', settings);
    assert.deepEqual(await keys.set('embeddings', 'sk-embed', settings), { ok: true, bound: { key: 'sk-embed', origin: 'https://dashscope.aliyuncs.com' } });
    assert.ok(secrets.values.get(EMBEDDINGS_SECRET_KEY)?.includes('dashscope'));
    const sent = await keys.forRequests(settings);
    assert.deepEqual({ ...sent }, { main: 'sk-main', scribe: 'sk-main', embeddings: 'sk-embed', withheld: [] });
    // Embeddings moved to the main endpoint: the main key serves them; the embeddings key goes nowhere.
    const moved = await keys.forRequests(at(MAIN));
    assert.equal(moved.embeddings, 'sk-main');
    assert.equal(moved.main, 'sk-main');
    // Moved to a third host: nothing is sent, and the withheld key is named.
    const third = await keys.forRequests(at(MAIN, MAIN, 'https://api.siliconflow.cn/v1'));
    assert.equal(third.embeddings, '');
    assert.deepEqual(third.withheld, [{ role: 'embeddings', setFor: 'https://dashscope.aliyuncs.com', endpoint: 'https://api.siliconflow.cn/v1' }]);
  });

  it('a bare string under the embeddings secret (never written by Worldline) is not used anywhere', async () => {
    const secrets = new MemorySecrets();
    secrets.values.set(EMBEDDINGS_SECRET_KEY, 'sk-bare');
    const keys = new KeyStore(secrets);
    assert.deepEqual(await keys.stored(at(MAIN, MAIN, EMBED)), {});
  });

  it('Set API Key offers the embeddings key only when an embeddings model runs on an endpoint of its own', () => {
    const e = (main: string, scribe: string, embeddings: string): Endpoints => ({ main, scribe, embeddings });
    assert.deepEqual(keyRolesFor(e(MAIN, MAIN, MAIN), true), ['main']);
    assert.deepEqual(keyRolesFor(e(MAIN, MAIN, EMBED), false), ['main'], 'the local embedder needs no key');
    assert.deepEqual(keyRolesFor(e(MAIN, MAIN, EMBED), true), ['main', 'embeddings']);
    assert.deepEqual(keyRolesFor(e(MAIN, LOCAL, EMBED), true), ['main', 'scribe', 'embeddings']);
    assert.deepEqual(keyRolesFor(e(MAIN, EMBED, `${EMBED}/`), true), ['main', 'scribe'], 'embeddings at the scribe\'s endpoint use the scribe key');
  });

  it('whatever the endpoints and keys, a request only carries a key set for its own origin, and the scribe and embeddings keys never reach the writing model', () => {
    const hosts = ['https://a.example', 'https://b.example/v1', 'http://a.example', 'http://localhost:1234/v1', 'not a url', 'https://A.EXAMPLE:443/x'];
    const host = fc.constantFrom(...hosts);
    const key = (tag: string): fc.Arbitrary<StoredKeys[keyof StoredKeys]> => fc.option(host.map((h) => bindKey(`sk-${tag}`, h)), { nil: undefined });
    fc.assert(fc.property(host, host, host, key('main'), key('scribe'), key('embeddings'), (main, scribe, embeddings, km, ks, ke) => {
      const stored: StoredKeys = {};
      if (km) stored.main = km;
      if (ks) stored.scribe = ks;
      if (ke) stored.embeddings = ke;
      const sent = requestKeys({ main, scribe, embeddings }, stored);
      const boundTo = (value: string): string | undefined => [km, ks, ke].find((k) => k?.key === value)?.origin;
      for (const [endpoint, value] of [[main, sent.main], [scribe, sent.scribe], [embeddings, sent.embeddings]] as const) {
        if (value !== '') assert.equal(boundTo(value), endpointOrigin(endpoint));
      }
      assert.ok(sent.main === '' || sent.main === 'sk-main');
    }), { numRuns: runs(500, 10_000) });
  });
});

describe('model/keyPrompt', () => {
  const needsKey = (endpoint: string): boolean => !endpoint.includes('localhost');
  const ask = (endpoints: Endpoints, stored: StoredKeys, asked: string[] = [], embeddingsInUse = true) =>
    keysToAsk({ endpoints, embeddingsInUse, stored, needsKey, asked: new Set(asked) });

  it('asks for the new host\'s key after the main endpoint moved, once per host', () => {
    const stored: StoredKeys = { main: bindKey('sk-old', 'https://api.openai.com/v1')! };
    assert.deepEqual(ask({ main: MAIN, scribe: MAIN, embeddings: MAIN }, stored), [{ role: 'main', origin: 'https://api.deepseek.com', endpoint: MAIN }]);
    assert.deepEqual(ask({ main: MAIN, scribe: MAIN, embeddings: MAIN }, stored, ['https://api.deepseek.com']), [], 'asked before');
    assert.deepEqual(ask({ main: 'https://api.openai.com/other', scribe: MAIN, embeddings: MAIN }, stored, [], false), [{ role: 'scribe', origin: 'https://api.deepseek.com', endpoint: MAIN }], 'the key is still at home; the scribe moved away');
  });

  it('never asks for a local server, an invalid address, or an endpoint that has its key', () => {
    assert.deepEqual(ask({ main: LOCAL, scribe: LOCAL, embeddings: LOCAL }, {}), []);
    assert.deepEqual(ask({ main: 'nonsense', scribe: 'nonsense', embeddings: 'nonsense' }, {}), []);
    assert.deepEqual(ask({ main: MAIN, scribe: MAIN, embeddings: MAIN }, { main: bindKey('k', MAIN)! }), []);
  });

  it('asks for the embeddings key only when an embeddings model is in use, and one question per origin', () => {
    const endpoints = { main: MAIN, scribe: EMBED, embeddings: `${EMBED}/` };
    assert.deepEqual(ask(endpoints, { main: bindKey('k', MAIN)! }).map((a) => a.role), ['scribe'], 'the scribe and embeddings share an origin: one question');
    assert.deepEqual(ask({ main: MAIN, scribe: MAIN, embeddings: EMBED }, { main: bindKey('k', MAIN)! }, [], false), []);
    assert.deepEqual(ask({ main: MAIN, scribe: MAIN, embeddings: EMBED }, { main: bindKey('k', MAIN)! }).map((a) => a.role), ['embeddings']);
  });
});
