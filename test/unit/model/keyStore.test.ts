// The key store over an in-memory secret store: a legacy bare key is bound once to where it was
// being sent, a key goes only to the endpoint it was set for, an empty key deletes, and a key for
// an endpoint that is no http(s) URL is refused and nothing is stored.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { KeyStore, SCRIBE_SECRET_KEY, SECRET_KEY, type KeySettings, type SecretStore } from '../../../src/model/keyStore';
import { encodeStoredKey } from '../../../src/model/keys';

class MemorySecrets implements SecretStore {
  readonly values = new Map<string, string>();
  writes = 0;
  get(name: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(name));
  }
  store(name: string, value: string): Promise<void> {
    this.writes++;
    this.values.set(name, value);
    return Promise.resolve();
  }
  delete(name: string): Promise<void> {
    this.values.delete(name);
    return Promise.resolve();
  }
}

const at = (main: string, scribe = main, embeddings = main): KeySettings => ({ endpoints: { main, scribe, embeddings } });
const OPENAI = 'https://api.openai.com/v1';
const LOCAL = 'http://localhost:8080/v1';

describe('KeyStore', () => {
  it('binds a legacy bare key to the endpoint it was being sent to, and rewrites it once', async () => {
    const secrets = new MemorySecrets();
    secrets.values.set(SECRET_KEY, 'sk-old');
    const keys = new KeyStore(secrets);
    assert.deepEqual(await keys.stored(at(OPENAI)), { main: { key: 'sk-old', origin: 'https://api.openai.com' } });
    assert.equal(secrets.values.get(SECRET_KEY), encodeStoredKey({ key: 'sk-old', origin: 'https://api.openai.com' }));
    assert.equal(secrets.writes, 1);
    // Bound now: moving the endpoint later does not move the key with it.
    const moved = await keys.forRequests(at('https://evil.example/v1'));
    assert.equal(moved.main, '');
    assert.deepEqual(moved.withheld, [{ role: 'main', setFor: 'https://api.openai.com', endpoint: 'https://evil.example/v1' }]);
    assert.equal(secrets.writes, 1, 'a bound key is not written again');
  });

  it('binds a legacy scribe key only when the scribe had an endpoint of its own', async () => {
    const shared = new MemorySecrets();
    shared.values.set(SCRIBE_SECRET_KEY, 'sk-scribe');
    assert.deepEqual(await new KeyStore(shared).stored(at(OPENAI)), {});
    assert.equal(shared.values.get(SCRIBE_SECRET_KEY), 'sk-scribe', 'left as it was: there was nowhere it was being sent');

    const own = new MemorySecrets();
    own.values.set(SCRIBE_SECRET_KEY, 'sk-scribe');
    assert.deepEqual(await new KeyStore(own).stored(at(OPENAI, LOCAL)), { scribe: { key: 'sk-scribe', origin: 'http://localhost:8080' } });
  });

  it('sends a key set for one endpoint to that endpoint only', async () => {
    const keys = new KeyStore(new MemorySecrets());
    assert.deepEqual(await keys.set('main', '  sk-main  ', at(OPENAI)), { ok: true, bound: { key: 'sk-main', origin: 'https://api.openai.com' } });
    assert.deepEqual(await keys.set('scribe', 'sk-scribe', at(OPENAI, LOCAL)), { ok: true, bound: { key: 'sk-scribe', origin: 'http://localhost:8080' } });
    const both = await keys.forRequests(at(OPENAI, LOCAL, LOCAL));
    assert.deepEqual({ ...both }, { main: 'sk-main', scribe: 'sk-scribe', embeddings: 'sk-scribe', withheld: [] });
    // Same origin, other path: still the endpoint the key was set for.
    assert.equal((await keys.forRequests(at('https://API.openai.com:443/other'))).main, 'sk-main');
    // The scribe on the main endpoint gets the main key, never the scribe key at the main endpoint.
    const shared = await keys.forRequests(at(OPENAI));
    assert.equal(shared.scribe, 'sk-main');
  });

  it('deletes the key when it is set to nothing', async () => {
    const secrets = new MemorySecrets();
    const keys = new KeyStore(secrets);
    await keys.set('main', 'sk-main', at(OPENAI));
    assert.ok(secrets.values.has(SECRET_KEY));
    assert.deepEqual(await keys.set('main', '   ', at(OPENAI)), { ok: true });
    assert.equal(secrets.values.has(SECRET_KEY), false);
    assert.deepEqual(await keys.stored(at(OPENAI)), {});
  });

  it('refuses a key for an endpoint that is no http(s) URL, and stores nothing', async () => {
    for (const endpoint of ['file:///etc/passwd', 'ftp://example.com', 'not a url', '']) {
      const secrets = new MemorySecrets();
      const result = await new KeyStore(secrets).set('main', 'sk-x', at(endpoint));
      assert.deepEqual(result, { ok: false, endpoint });
      assert.equal(secrets.values.size, 0, endpoint);
    }
  });

  it('whatever the endpoints, a key reaches only a request whose endpoint has its origin', async () => {
    const host = fc.constantFrom('a.example', 'b.example', 'localhost:8080', 'A.example:443');
    const url = fc.tuple(fc.constantFrom('https://', 'http://', 'ftp://'), host, fc.constantFrom('', '/v1', '/v1/')).map(([s, h, p]) => `${s}${h}${p}`);
    await fc.assert(fc.asyncProperty(url, url, url, url, url, async (setMain, setScribe, main, scribe, embeddings) => {
      const keys = new KeyStore(new MemorySecrets());
      const boundMain = await keys.set('main', 'MAIN', at(setMain));
      const boundScribe = await keys.set('scribe', 'SCRIBE', at(setMain, setScribe));
      const sent = await keys.forRequests(at(main, scribe, embeddings));
      const origin = (u: string) => (u.startsWith('http') ? new URL(u).origin : undefined);
      const allowed = (key: string, endpoint: string): boolean => {
        if (key === 'MAIN') return boundMain.ok && boundMain.bound?.origin === origin(endpoint);
        if (key === 'SCRIBE') return boundScribe.ok && boundScribe.bound?.origin === origin(endpoint);
        return key === '';
      };
      assert.ok(allowed(sent.main, main) && sent.main !== 'SCRIBE', `main: ${sent.main}`);
      assert.ok(allowed(sent.scribe, scribe), `scribe: ${sent.scribe}`);
      assert.ok(allowed(sent.embeddings, embeddings), `embeddings: ${sent.embeddings}`);
    }), { numRuns: runs(200, 2000) });
  });
});
