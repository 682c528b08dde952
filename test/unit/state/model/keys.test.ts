// The key rule: a key goes only to the endpoint (origin) it was set for, whatever the settings say.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  bindKey, decodeStoredKey, encodeStoredKey, endpointOrigin, requestKeys, sameEndpoint, scribeHasOwnEndpoint,
  type BoundKey, type Endpoints, type StoredKeys,
} from '../../../../src/model/keys';
import { runs } from '../../long-mode';

const MAIN = 'sk-main-1111';
const SCRIBE = 'sk-scribe-2222';
const bound = (key: string, endpoint: string): BoundKey => {
  const b = bindKey(key, endpoint);
  assert.ok(b, endpoint);
  return b;
};

describe('endpointOrigin', () => {
  it('treats spellings of one endpoint as one', () => {
    for (const [a, b] of [
      ['https://api.x.com/v1/', 'https://API.x.com/v1'],
      ['https://api.x.com/v1', 'HTTPS://api.x.com:443/v1'],
      ['http://localhost:80/v1', 'http://LOCALHOST/other/path'],
      ['  https://api.x.com/v1  ', 'https://user:pw@api.x.com/v1?x=1#y'],
      ['http://[::1]:8080/v1', 'http://[0:0:0:0:0:0:0:1]:8080'],
    ]) assert.ok(sameEndpoint(a!, b!), `${a} = ${b}`);
  });

  it('tells different hosts, schemes and ports apart', () => {
    for (const [a, b] of [
      ['https://api.x.com/v1', 'http://api.x.com/v1'],
      ['https://api.x.com/v1', 'https://api.x.com:8443/v1'],
      ['https://api.x.com/v1', 'https://api.x.com.evil.com/v1'],
      ['https://api.x.com/v1', 'https://api.x.com@evil.com/v1'],
      ['https://api.x.com/v1', 'https://evil.com\\@api.x.com/v1'],
      ['https://api.x.com/v1', 'https://evil.com/api.x.com/v1'],
      ['https://api.x.com/v1', 'https://x.com/v1'],
    ]) assert.ok(!sameEndpoint(a!, b!), `${a} ≠ ${b}`);
  });

  it('has no origin for what is no http(s) endpoint, and such never equals anything', () => {
    for (const url of ['', 'api.x.com/v1', 'ftp://api.x.com', 'file:///etc/passwd', 'javascript:alert(1)', 'https://', 'data:text/plain,x', 'not a url']) {
      assert.equal(endpointOrigin(url), undefined, url);
      assert.ok(!sameEndpoint(url, url), url);
      assert.equal(bindKey(MAIN, url), undefined, url);
    }
  });
});

describe('requestKeys', () => {
  const ends = (main: string, scribe = main, embeddings = main): Endpoints => ({ main, scribe, embeddings });

  it('gives the main key to the writing model, the scribe and embeddings on the main endpoint', () => {
    const e = ends('https://api.x.com/v1', 'https://API.x.com/v1/');
    const keys = requestKeys(e, { main: bound(MAIN, e.main) });
    assert.deepEqual(keys, { main: MAIN, scribe: MAIN, embeddings: MAIN, withheld: [] });
  });

  it('a scribe on its own endpoint gets its own key, and without one none (never the main key)', () => {
    const e = ends('https://api.x.com/v1', 'http://localhost:11434/v1', 'http://localhost:11434/v1');
    assert.deepEqual(requestKeys(e, { main: bound(MAIN, e.main), scribe: bound(SCRIBE, e.scribe) }), { main: MAIN, scribe: SCRIBE, embeddings: SCRIBE, withheld: [] });
    assert.deepEqual(requestKeys(e, { main: bound(MAIN, e.main) }), { main: MAIN, scribe: '', embeddings: '', withheld: [] });
  });

  it('the scribe key never goes to the main endpoint: a scribe moved back to it uses the main key', () => {
    const keys: StoredKeys = { main: bound(MAIN, 'https://api.x.com/v1'), scribe: bound(SCRIBE, 'https://cheap.y.com/v1') };
    const r = requestKeys(ends('https://api.x.com/v1'), keys);
    assert.deepEqual(r, { main: MAIN, scribe: MAIN, embeddings: MAIN, withheld: [] });
  });

  it('withholds a key when its endpoint setting changed to another host, and says so', () => {
    const keys: StoredKeys = { main: bound(MAIN, 'https://api.x.com/v1'), scribe: bound(SCRIBE, 'https://cheap.y.com/v1') };
    const r = requestKeys(ends('http://evil.com/v1', 'https://evil2.com/v1'), keys);
    assert.equal(r.main, '');
    assert.equal(r.scribe, '');
    assert.equal(r.embeddings, '');
    assert.deepEqual(r.withheld, [
      { role: 'main', setFor: 'https://api.x.com', endpoint: 'http://evil.com/v1' },
      { role: 'scribe', setFor: 'https://cheap.y.com', endpoint: 'https://evil2.com/v1' },
    ]);
    // https → http on the same host is another endpoint too: the key is not sent in the clear.
    assert.equal(requestKeys(ends('http://api.x.com/v1'), keys).main, '');
  });

  it('embeddings on a third host get no key', () => {
    const e = ends('https://api.x.com/v1', 'https://api.x.com/v1', 'https://embed.z.com/v1');
    assert.equal(requestKeys(e, { main: bound(MAIN, e.main) }).embeddings, '');
  });

  it('asks which key only when the scribe has an endpoint of its own', () => {
    assert.ok(!scribeHasOwnEndpoint({ main: 'https://api.x.com/v1', scribe: 'https://API.x.com/v1/' }));
    assert.ok(scribeHasOwnEndpoint({ main: 'https://api.x.com/v1', scribe: 'http://localhost:1234/v1' }));
  });
});

describe('stored keys', () => {
  it('round-trips a bound key', () => {
    const b = bound(MAIN, 'https://API.x.com:443/v1/');
    assert.deepEqual(decodeStoredKey(encodeStoredKey(b), undefined), { bound: { key: MAIN, origin: 'https://api.x.com' }, legacy: false });
  });

  it('binds a bare key of an older version to where it was being sent, or drops it', () => {
    assert.deepEqual(decodeStoredKey(' sk-old ', 'https://api.x.com/v1'), { bound: { key: 'sk-old', origin: 'https://api.x.com' }, legacy: true });
    assert.deepEqual(decodeStoredKey('sk-old', undefined), { legacy: true });
    assert.deepEqual(decodeStoredKey('{not json', 'https://api.x.com/v1'), { bound: { key: '{not json', origin: 'https://api.x.com' }, legacy: true });
    assert.deepEqual(decodeStoredKey(undefined, 'https://api.x.com/v1'), { legacy: false });
    assert.deepEqual(decodeStoredKey('   ', 'https://api.x.com/v1'), { legacy: false });
  });

  it('refuses a stored origin that is no endpoint', () => {
    assert.deepEqual(decodeStoredKey(JSON.stringify({ v: 1, origin: 'javascript:x', key: 'k' }), 'https://api.x.com'), { legacy: false });
  });
});

// Hostile endpoints: few hosts (so collisions happen), spellings that must or must not collide.
const host = fc.constantFrom('api.x.com', 'API.X.com', 'api.x.com.', 'x.com', 'evil.com', 'api.x.com.evil.com', 'localhost', '127.0.0.1', '[::1]', 'xn--fsq.com', '例子.com');
const url = fc.oneof(
  fc.record({
    scheme: fc.constantFrom('https', 'http', 'HTTPS', 'ftp', 'javascript', ''),
    userinfo: fc.constantFrom('', 'u@', 'api.x.com@', 'u:p@'),
    host,
    port: fc.constantFrom('', ':443', ':80', ':8080', ':0443', ':'),
    path: fc.constantFrom('', '/', '/v1', '/v1/', '//v1', '/v1?x=1', '#frag', '\\@evil.com', '/../v1'),
  }).map(({ scheme, userinfo, host: h, port, path }) => `${scheme ? `${scheme}://` : ''}${userinfo}${h}${port}${path}`),
  fc.webUrl(),
  fc.string({ maxLength: 30 }),
);

describe('the key rule over hostile endpoints', () => {
  it('a key reaches only the origin it was set for; the writing model never gets the scribe key', () => {
    fc.assert(fc.property(url, url, url, url, url, fc.boolean(), fc.boolean(), (setMain, setScribe, main, scribe, embeddings, hasMain, hasScribe) => {
      const keys: StoredKeys = {};
      const bm = bindKey(MAIN, setMain);
      const bs = bindKey(SCRIBE, setScribe);
      if (hasMain && bm) keys.main = bm;
      if (hasScribe && bs) keys.scribe = bs;
      const r = requestKeys({ main, scribe, embeddings }, keys);
      const setFor: Record<string, string | undefined> = { [MAIN]: keys.main?.origin, [SCRIBE]: keys.scribe?.origin };
      for (const [endpoint, key] of [[main, r.main], [scribe, r.scribe], [embeddings, r.embeddings]] as const) {
        if (key === '') continue;
        assert.ok(key === MAIN || key === SCRIBE);
        assert.equal(setFor[key], endpointOrigin(endpoint), `${key} went to ${endpoint}`);
      }
      assert.notEqual(r.main, SCRIBE);
      if (sameEndpoint(scribe, main)) assert.notEqual(r.scribe, SCRIBE, 'the scribe key to the main endpoint');
      // Liveness: keys set for the endpoints in use are sent there.
      if (keys.main && keys.main.origin === endpointOrigin(main)) assert.equal(r.main, MAIN);
      if (keys.scribe && keys.scribe.origin === endpointOrigin(scribe) && !sameEndpoint(scribe, main)) assert.equal(r.scribe, SCRIBE);
      // A key is withheld exactly when it exists for its role and its endpoint moved away.
      assert.equal(r.withheld.some((w) => w.role === 'main'), keys.main !== undefined && r.main === '');
    }), { numRuns: runs(3000, 100_000) });
  });

  it('the client appending a path never moves a request to another origin', () => {
    fc.assert(fc.property(url, fc.constantFrom('/chat/completions', '/embeddings', '/models'), (base, suffix) => {
      const origin = endpointOrigin(base);
      if (origin === undefined) return;
      // As the OpenAI client builds request URLs (base + path, one slash dropped), and as the
      // model list does (trailing slashes stripped).
      const b = base.trim();
      assert.equal(endpointOrigin(b + (b.endsWith('/') ? suffix.slice(1) : suffix)), origin, base);
      assert.equal(endpointOrigin(`${b.replace(/\/+$/, '')}${suffix}`), origin, base);
    }), { numRuns: runs(3000, 100_000) });
  });

  it('spellings of one origin are one endpoint', () => {
    fc.assert(fc.property(fc.constantFrom('api.x.com', 'localhost', '127.0.0.1'), fc.constantFrom('/v1', '/v1/', '', '/'), fc.constantFrom('/v1', '/v1/', '', '/'), fc.boolean(), (h, p1, p2, explicitPort) => {
      const upper = h.toUpperCase();
      assert.ok(sameEndpoint(`https://${h}${p1}`, `HTTPS://${upper}${explicitPort ? ':443' : ''}${p2}`));
      assert.ok(!sameEndpoint(`https://${h}${p1}`, `http://${h}${p2}`));
    }), { numRuns: runs(200, 2000) });
  });
});
