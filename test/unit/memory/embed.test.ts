// Embedders: the local one (deterministic, normalised, names matter) and an OpenAI-compatible
// endpoint over real HTTP (the local model server).
import { strict as assert } from 'node:assert';
import { LOCAL_DIMS, hashEmbed, localEmbedder } from '../../../src/memory/embed';
import { openAIEmbedder } from '../../../src/memory/openaiEmbedder';
import { decodeVector, denseQuery, encodeVector, isSparse, score, type Vector } from '../../../src/memory/vector';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';

function cos(a: string, b: string): number {
  return score(denseQuery(hashEmbed(a)), hashEmbed(b));
}

function norm(v: Vector): number {
  const vals = isSparse(v) ? v.val : v;
  let s = 0;
  for (const x of vals) s += x * x;
  return Math.sqrt(s);
}

describe('memory/localEmbedder', () => {
  it('is deterministic, L2-normalised and sparse over 65,536 buckets', async () => {
    const e = localEmbedder();
    assert.equal(e.dims, LOCAL_DIMS);
    const r = await e.embed(['青梧把账本合上。', 'Lin Yan opened the door.', '']);
    assert.ok(r.ok);
    const [a, b, empty] = r.value as [Vector, Vector, Vector];
    assert.ok(isSparse(a) && isSparse(b) && isSparse(empty));
    assert.ok(Math.abs(norm(a) - 1) < 1e-5 && Math.abs(norm(b) - 1) < 1e-5);
    assert.equal(empty.idx.length, 0, 'empty text: a zero vector, no NaN');
    for (let i = 1; i < a.idx.length; i++) assert.ok((a.idx[i] as number) > (a.idx[i - 1] as number));
    assert.deepEqual(hashEmbed('青梧把账本合上。'), a);
    assert.ok(Math.abs(cos('青梧把账本合上。', '青梧把账本合上。') - 1) < 1e-5);
  });

  it('shared names score higher than shared filler; NFKC and case are folded', () => {
    assert.ok(cos('青梧去了渡口', '渡口边青梧在等船') > cos('青梧去了渡口', '林砚去了书院'));
    assert.ok(cos('Qingwu waited at the ferry', 'the ferry where QINGWU waited') > cos('Qingwu waited at the ferry', 'Lin Yan waited at the school'));
    assert.ok(Math.abs(cos('ＡＢＣ　青梧', 'abc 青梧') - 1) < 1e-5);
  });

  it('vectors survive the on-disk encoding exactly, dense and sparse', () => {
    const sparse = hashEmbed('沈舟收了三两银子');
    assert.deepEqual(decodeVector(encodeVector(sparse)), sparse);
    const dense = Float32Array.from([0.6, 0.8, 0]);
    assert.deepEqual(decodeVector(encodeVector(dense)), dense);
    assert.equal(decodeVector('abc'), undefined, 'not whole float32s');
    assert.equal(decodeVector({ dims: 4, idx: Buffer.from(Uint16Array.from([3, 1]).buffer).toString('base64'), val: Buffer.from(Float32Array.from([1, 1]).buffer).toString('base64') }), undefined, 'unsorted indices');
    assert.equal(decodeVector(42), undefined);
  });
});

describe('memory/openAIEmbedder', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ embeddingDims: 32, requireKey: 'sk-test' });
  });
  after(async () => server.close());

  it('embeds in batches, keeps order, normalises, learns the dimensions', async () => {
    const e = openAIEmbedder({ baseURL: server.url, apiKey: 'sk-test', model: 'test-embed', batchSize: 2 });
    assert.equal(e.dims, 0);
    assert.equal(e.id, 'api:test-embed');
    const before = server.requests.filter((r) => r.path.endsWith('/embeddings')).length;
    const r = await e.embed(['一', '二', '三', '四', '五']);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.equal(r.value.length, 5);
    assert.equal(server.requests.filter((x) => x.path.endsWith('/embeddings')).length - before, 3);
    assert.equal(e.dims, 32);
    for (const v of r.value) assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    const again = await e.embed(['三']);
    assert.ok(again.ok);
    assert.deepEqual(again.value[0], r.value[2]);
  });

  it('a failure is a value with an actionable message and no key', async () => {
    const e = openAIEmbedder({ baseURL: server.url, apiKey: 'sk-wrong-key', model: 'test-embed', maxRetries: 0 });
    const r = await e.embed(['一']);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.kind, 'embed');
    assert.match(r.error.message, /rejected the API key/);
    assert.ok(!r.error.message.includes('sk-wrong-key'));
  });
});
