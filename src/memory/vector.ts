// Vectors come in two forms. Dense: a Float32Array, what embedding models return. Sparse: sorted
// bucket indices with weights, what the local embedder returns — it hashes n-grams into 65,536
// buckets so two different n-grams almost never share one (a dense hashed vector of a few hundred
// dimensions mixes every passage's n-grams together and a name is lost in the noise). Both are
// L2-normalised, so cosine is a dot product. On disk both are little-endian binary in base64.
import { endianness } from 'node:os';

export interface SparseVector {
  readonly dims: number;
  /** Strictly increasing bucket numbers. */
  readonly idx: Uint32Array;
  readonly val: Float32Array;
}

export type Vector = Float32Array | SparseVector;

export function isSparse(v: Vector): v is SparseVector {
  return !(v instanceof Float32Array);
}

export function dimsOf(v: Vector): number {
  return isSparse(v) ? v.dims : v.length;
}

function normalizeValues(val: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < val.length; i++) sum += (val[i] as number) * (val[i] as number);
  if (sum === 0 || !Number.isFinite(sum)) return val;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < val.length; i++) val[i] = (val[i] as number) * inv;
  return val;
}

export function normalize<V extends Vector>(v: V): V {
  normalizeValues(isSparse(v) ? v.val : (v as Float32Array));
  return v;
}

/** A sparse vector from bucket → weight pairs (any order). */
export function sparseFrom(dims: number, weights: ReadonlyMap<number, number>): SparseVector {
  const idx = Uint32Array.from(weights.keys()).sort();
  const val = new Float32Array(idx.length);
  for (let i = 0; i < idx.length; i++) val[i] = weights.get(idx[i] as number) as number;
  return { dims, idx, val };
}

/**
 * The query in the form a scan reads fastest: dense. A scan then costs one multiply per stored
 * value, whichever form the rows are in.
 */
export function denseQuery(q: Vector): Float32Array {
  if (!isSparse(q)) return q;
  const d = new Float32Array(q.dims);
  for (let i = 0; i < q.idx.length; i++) d[q.idx[i] as number] = q.val[i] as number;
  return d;
}

let scratch: Float32Array | undefined;

/**
 * Runs a synchronous scan with the query in dense form. A sparse query is spread into one reused
 * buffer and cleared afterwards: allocating and zeroing 65,536 floats per recall would cost more
 * than scanning a thousand rows.
 */
export function withDenseQuery<T>(q: Vector, scan: (dense: Float32Array) => T): T {
  if (!isSparse(q)) return scan(q);
  if (!scratch || scratch.length !== q.dims) scratch = new Float32Array(q.dims);
  const d = scratch;
  scratch = undefined; // a nested call (none today) would get its own buffer
  for (let i = 0; i < q.idx.length; i++) d[q.idx[i] as number] = q.val[i] as number;
  try {
    return scan(d);
  } finally {
    for (let i = 0; i < q.idx.length; i++) d[q.idx[i] as number] = 0;
    scratch = d;
  }
}

/** Cosine of a dense query and a row vector. Another embedder's row (other dims) scores 0. */
export function score(q: Float32Array, row: Vector): number {
  let s = 0;
  if (isSparse(row)) {
    if (row.dims !== q.length) return 0;
    const { idx, val } = row;
    for (let i = 0; i < idx.length; i++) s += (q[idx[i] as number] as number) * (val[i] as number);
    return s;
  }
  if (row.length !== q.length) return 0;
  for (let i = 0; i < row.length; i++) s += (q[i] as number) * (row[i] as number);
  return s;
}

// ---------------------------------------------------------------------------------------------
// On disk

const LITTLE_ENDIAN = endianness() === 'LE';

/** Dense: base64 of float32s. Sparse: {dims, idx: base64 of uint16s (or uint32s past 65,536), val}. */
export type EncodedVector = string | { dims: number; idx: string; val: string };

export function encodeVector(v: Vector): EncodedVector {
  if (!isSparse(v)) return toBase64(v);
  const idx = v.dims <= 0x10000 ? Uint16Array.from(v.idx) : v.idx;
  return { dims: v.dims, idx: toBase64(idx), val: toBase64(v.val) };
}

/** The vector, or undefined when the encoding is damaged. */
export function decodeVector(e: unknown): Vector | undefined {
  if (typeof e === 'string') {
    const v = fromBase64(e, 4, (n) => new Float32Array(n));
    return v && v.length > 0 && allFinite(v) ? v : undefined;
  }
  if (typeof e !== 'object' || e === null) return undefined;
  const o = e as Record<string, unknown>;
  const dims = o['dims'];
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0 || typeof o['idx'] !== 'string' || typeof o['val'] !== 'string') return undefined;
  const narrow = dims <= 0x10000;
  const rawIdx = narrow ? fromBase64(o['idx'], 2, (n) => new Uint16Array(n)) : fromBase64(o['idx'], 4, (n) => new Uint32Array(n));
  const val = fromBase64(o['val'], 4, (n) => new Float32Array(n));
  if (!rawIdx || !val || rawIdx.length !== val.length || !allFinite(val)) return undefined;
  const idx = rawIdx instanceof Uint32Array ? rawIdx : Uint32Array.from(rawIdx);
  for (let i = 0; i < idx.length; i++) if ((idx[i] as number) >= dims || (i > 0 && (idx[i] as number) <= (idx[i - 1] as number))) return undefined;
  return { dims, idx, val };
}

type Typed = Float32Array | Uint16Array | Uint32Array;

function toBase64(a: Typed): string {
  const buf = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return (LITTLE_ENDIAN ? buf : swapped(buf, a.BYTES_PER_ELEMENT)).toString('base64');
}

function allFinite(a: Float32Array): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i] as number)) return false;
  return true;
}

function fromBase64<T extends Typed>(text: string, width: number, make: (n: number) => T): T | undefined {
  // Well-formed base64 (what we write) decodes straight into the array: no second copy. Anything
  // else takes the lenient path below, which gives what Buffer.from gives.
  const n = Buffer.byteLength(text, 'base64');
  if (n % width === 0) {
    const out = make(n / width);
    const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    if (bytes.write(text, 'base64') === n) {
      if (!LITTLE_ENDIAN) {
        if (width === 2) bytes.swap16();
        else bytes.swap32();
      }
      return out;
    }
  }
  const raw = Buffer.from(text, 'base64');
  if (raw.length % width !== 0) return undefined;
  const bytes = LITTLE_ENDIAN ? raw : swapped(raw, width);
  const out = make(bytes.length / width);
  Buffer.from(out.buffer).set(bytes); // a copy: the decoded bytes may not be aligned
  return out;
}

function swapped(buf: Buffer, width: number): Buffer {
  const copy = Buffer.from(buf);
  if (width === 2) copy.swap16();
  else copy.swap32();
  return copy;
}
