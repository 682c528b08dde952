// The on-disk encoding of vectors: what is written reads back bit for bit, and a string that is
// not clean base64 decodes exactly as Buffer.from decodes it (the fast path changes nothing).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { decodeVector, encodeVector, type SparseVector } from '../../../src/memory/vector';
import { runs } from '../long-mode';

/** The decoding before the fast path, for comparison. */
function slowFloats(text: string): Float32Array | undefined {
  const raw = Buffer.from(text, 'base64');
  if (raw.length % 4 !== 0) return undefined;
  const out = new Float32Array(raw.length / 4);
  Buffer.from(out.buffer).set(raw);
  return out.length > 0 && out.every(Number.isFinite) ? out : undefined;
}

describe('memory/vector encoding', () => {
  it('dense and sparse vectors read back exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 40 }), fc.uniqueArray(fc.integer({ min: 0, max: 65535 }), { minLength: 1, maxLength: 40 }), (floats, buckets) => {
        const dense = Float32Array.from(floats);
        assert.deepEqual(decodeVector(encodeVector(dense)), dense);
        const idx = Uint32Array.from(buckets).sort();
        const sparse: SparseVector = { dims: 65536, idx, val: Float32Array.from(idx, (_, i) => floats[i % floats.length] as number) };
        assert.deepEqual(decodeVector(JSON.parse(JSON.stringify(encodeVector(sparse)))), sparse);
      }),
      { numRuns: runs(200, 5000) },
    );
  });

  it('a string that is not clean base64 decodes as Buffer.from decodes it', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AQIDBAUGBwgJ+/=@ \n-_'.split('')), maxLength: 40 }), (text) => {
        assert.deepEqual(decodeVector(text), slowFloats(text));
      }),
      { numRuns: runs(500, 10000) },
    );
    assert.equal(decodeVector('@@'), undefined);
    assert.deepEqual(decodeVector({ dims: 4, idx: 'AQA=', val: 'AACAPw==' }), { dims: 4, idx: Uint32Array.from([1]), val: Float32Array.from([1]) });
    assert.equal(decodeVector({ dims: 4, idx: 'BQA=', val: 'AACAPw==' }), undefined, 'bucket 5 of 4');
  });
});
