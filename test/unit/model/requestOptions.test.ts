// What a request carries besides its body. Custom headers: credentials and framing headers never
// pass, in any spelling; names are tokens, values one line; a header goes only to the main
// endpoint's origin — checked over real HTTP for the clients the story and memory make (summary,
// embeddings). Timeouts: the streaming and the longer side defaults, clamped; the output cap.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { embedderFor, summaryModelFor } from '../../../src/memory/sideModels';
import {
  customHeaders, DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_SIDE_REQUEST_TIMEOUT_S, maxOutputTokens, requestOptions, timeoutSeconds,
} from '../../../src/model/requestOptions';
import type { WorldlineSettings } from '../../../src/model/settings';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';

const FORBIDDEN = ['authorization', 'proxy-authorization', 'cookie', 'api-key', 'x-api-key', 'host', 'content-length', 'content-type', 'transfer-encoding', 'connection'];

/** Random upper/lower case of a name: "AuThorization". */
const anyCase = (name: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((ups) => [...name].map((ch, i) => (ups[i] ? ch.toUpperCase() : ch)).join(''));

describe('model/requestOptions', () => {
  it('keeps ordinary headers (names lower-cased, values trimmed) and says which were refused and why, without values', () => {
    const r = customHeaders({
      'X-Tenant': '  novel-7 ', Authorization: 'Bearer sk-smuggled', 'api-key': 'sk-azure', Host: 'evil.example',
      'bad name': 'x', 'X-Split': 'a\r\nX-Injected: 1', 'X-Number': 42, 'X-Empty': '   ',
    });
    assert.deepEqual(r.headers, { 'x-tenant': 'novel-7' });
    assert.deepEqual(r.refused, [
      { name: 'authorization', why: 'credentials' },
      { name: 'api-key', why: 'credentials' },
      { name: 'host', why: 'framing' },
      { name: '"bad name"', why: 'badName' },
      { name: 'x-split', why: 'badValue' },
      { name: 'x-number', why: 'badValue' },
      { name: 'x-empty', why: 'badValue' },
    ]);
    assert.ok(!JSON.stringify(r.refused).includes('sk-'), 'no value is echoed');
    assert.deepEqual(customHeaders(undefined), { headers: {}, refused: [] });
    assert.deepEqual(customHeaders(['a']), { headers: {}, refused: [] });
  });

  it('a header named __proto__ stays a plain header and reaches no prototype', () => {
    const r = customHeaders(JSON.parse('{"__proto__": "x"}'));
    assert.equal(Object.getPrototypeOf(r.headers), Object.prototype);
    assert.deepEqual(Object.keys(r.headers), ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  it('never lets a credential or framing header through, in any case, nor a value with a line break', () => {
    const forbidden = fc.constantFrom(...FORBIDDEN).chain(anyCase);
    const name = fc.oneof(forbidden, fc.string({ minLength: 0, maxLength: 12 }), fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/));
    const value = fc.oneof(fc.string(), fc.constant('ok'), fc.string().map((s) => `${s}\n${s}`), fc.integer());
    fc.assert(fc.property(fc.array(fc.tuple(name, value), { maxLength: 8 }), (pairs) => {
      const raw: Record<string, unknown> = {};
      for (const [n, v] of pairs) Object.defineProperty(raw, n, { value: v, enumerable: true, configurable: true, writable: true });
      const { headers, refused } = customHeaders(raw);
      for (const [n, v] of Object.entries(headers)) {
        assert.ok(!FORBIDDEN.includes(n), n);
        assert.match(n, /^[!#$%&'*+.^_`|~0-9a-z-]+$/);
        assert.ok(!/[\r\n\0]/.test(v) && v.trim() === v && v !== '');
      }
      assert.equal(Object.keys(headers).length + refused.length <= pairs.length, true);
    }), { numRuns: runs(300, 5000) });
  });

  it('sends the custom headers to the main endpoint\'s origin only; the streaming and the longer side timeouts', () => {
    const settings = { baseUrl: 'https://gw.example/v1', customHeaders: { 'x-tenant': 'a' } };
    assert.deepEqual(requestOptions(settings, 'https://GW.example:443/other', 'side'), { timeoutMs: DEFAULT_SIDE_REQUEST_TIMEOUT_S * 1000, headers: { 'x-tenant': 'a' } });
    assert.deepEqual(requestOptions(settings, 'https://api.openai.com/v1', 'side'), { timeoutMs: DEFAULT_SIDE_REQUEST_TIMEOUT_S * 1000 });
    assert.deepEqual(requestOptions(settings, 'http://gw.example/v1', 'stream'), { timeoutMs: DEFAULT_REQUEST_TIMEOUT_S * 1000 }, 'another scheme is another origin');
    assert.deepEqual(requestOptions({ baseUrl: 'https://gw.example/v1', requestTimeoutSeconds: 1, sideRequestTimeoutSeconds: 99_999 }, 'https://gw.example/v1', 'stream'), { timeoutMs: 5000 });
    assert.equal(requestOptions({ baseUrl: 'x', sideRequestTimeoutSeconds: 99_999 }, 'x', 'side').timeoutMs, 3_600_000);
    assert.ok(DEFAULT_SIDE_REQUEST_TIMEOUT_S > DEFAULT_REQUEST_TIMEOUT_S);
    assert.equal(timeoutSeconds('90', 60), 60);
    assert.equal(timeoutSeconds(Number.NaN, 60), 60);
    assert.equal(timeoutSeconds(90.4, 60), 90);
    assert.equal(maxOutputTokens(0), undefined);
    assert.equal(maxOutputTokens(-5), undefined);
    assert.equal(maxOutputTokens('4096'), undefined);
    assert.equal(maxOutputTokens(4096.7), 4096);
  });

  describe('over HTTP, through the clients memory makes', () => {
    let main: ModelServer;
    let other: ModelServer;
    beforeEach(async () => {
      main = await startModelServer();
      other = await startModelServer();
      main.setDefault({ text: 'a summary' });
      other.setDefault({ text: 'a summary' });
    });
    afterEach(async () => {
      await main.close();
      await other.close();
    });

    const settingsWith = (scribe: string, embeddings: string): WorldlineSettings => ({
      baseUrl: main.url, model: 'test-model', scribeBaseUrl: scribe, scribeModel: 'test-scribe', maxToolSteps: 4, temperature: 0.5,
      memory: { everyTurns: 30, keepTurns: 6, recallCount: 6, embeddingModel: 'test-embed', embeddingBaseUrl: embeddings },
      endpoints: { main: main.url, scribe, embeddings }, proseFollowsBranch: 'never',
      customHeaders: { 'x-tenant': 'novel-7' }, sideRequestTimeoutSeconds: 30,
    });

    it('a summariser and an embedder on the main origin carry the header; on another origin they do not', async () => {
      const same = settingsWith(main.url, main.url);
      await summaryModelFor(same, { scribe: '' }).client.complete({ messages: [{ role: 'user', content: 'x' }] });
      const embedded = await embedderFor(same, { embeddings: '' }).embed(['雨夜']);
      assert.ok(embedded.ok);
      assert.deepEqual(main.requests.map((r) => [r.path, r.headers['x-tenant']]), [['/v1/chat/completions', 'novel-7'], ['/v1/embeddings', 'novel-7']]);

      const elsewhere = settingsWith(other.url, other.url);
      await summaryModelFor(elsewhere, { scribe: '' }).client.complete({ messages: [{ role: 'user', content: 'x' }] });
      assert.ok((await embedderFor(elsewhere, { embeddings: '' }).embed(['雨夜'])).ok);
      assert.equal(other.requests.length, 2);
      assert.ok(other.requests.every((r) => r.headers['x-tenant'] === undefined), 'the header stayed with its host');
    });
  });
});
