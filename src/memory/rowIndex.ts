// The stored rows' vectors, held as posting lists (for each bucket, the rows that have it and
// their values), so a query scores only the rows that share an n-gram with it instead of every row.
//
// Exact, not approximate: a row's score is the very double the full scan computes. The scan adds
// q[b] * v[b] over the row's buckets in increasing order, where every term outside the query is
// zero; here the query's buckets are walked in increasing order and each posting adds the same
// float32 × float32 product (exact in a double) to its row. Same terms, same order, same sum, so
// the top k, its order and its ties are those of the scan.
//
// Layout: rows come in segments of SEGMENT_ROWS. A full segment is sealed into typed arrays: bucket
// offsets, row numbers within the segment (uint16) and values (float32), plus each row's bucket
// numbers (uint16, so that a row's vector can be read back in well under a millisecond): 8 bytes a
// bucket and no objects per row (each row holding its own typed arrays took more). The open segment
// (the newest rows) keeps its rows' buckets in row order as well and rebuilds its lists when rows
// were added (`settle`, called after a load or an append). Loading therefore never holds more than
// one segment twice, and a query walks one segment's slice of the score array at a time, which
// stays in cache. Rows that do not fit (dense vectors, other dims) are kept whole and scored one by
// one, as the scan does.
import { isSparse, score, withDenseQuery, type SparseVector, type Vector } from './vector';

/** What recall needs of an index over `rows()`: row i of the index is row i of the list. */
export interface RecallIndex {
  readonly size: number;
  hasVector(row: number): boolean;
  /** Every row's cosine with `query` (0 for rows without a vector), by row. Reused by the next call. */
  scores(query: Vector): Float64Array;
}

const NONE = 0;
const PACKED = 1;
const WHOLE = 2;

/**
 * Rows per segment (a row number within one fits a uint16): about a million postings of the local
 * embedder, sealed in ~15 ms (16,384 rows took ~110 ms, a stall in the middle of a load; queries
 * cost the same either way).
 */
export const SEGMENT_ROWS = 4096;
/** Larger sparse vectors are kept whole: every segment holds an offset per bucket. */
const MAX_PACKED_DIMS = 0x10000;

interface Segment {
  /** Bucket b's postings are [off[b], off[b + 1]). */
  readonly off: Uint32Array;
  /** Row numbers from the segment's first row. */
  readonly rows: Uint16Array;
  readonly vals: Float32Array;
  /** The segment's first row. */
  readonly base: number;
}

interface SealedSegment extends Segment {
  /** The segment's local row i has buckets buckets[start[i], start[i + 1]). */
  readonly start: Uint32Array;
  readonly buckets: Uint16Array;
}

const EMPTY: Segment = { off: new Uint32Array(1), rows: new Uint16Array(0), vals: new Float32Array(0), base: 0 };

export interface RowIndexOptions {
  /** Rows per segment (tests use a handful); at most 65,536. Default SEGMENT_ROWS. */
  segmentRows?: number;
}

export class RowIndex implements RecallIndex {
  private readonly segmentRows: number;
  private n = 0;
  /** Of the packed rows; set by the first one. */
  private dims = 0;
  private kind = new Uint8Array(1024);
  private readonly whole = new Map<number, Vector>();
  private readonly sealed: SealedSegment[] = [];

  // The open segment, rows [base, n): buckets and values in row order, local row i at [start[i], start[i + 1]).
  private base = 0;
  private readonly start: Uint32Array;
  private idx = new Uint16Array(4096);
  private val = new Float32Array(4096);
  private used = 0;
  /** Posting lists of the open segment, current while `openBuilt === n`. */
  private open: Segment = EMPTY;
  private openBuilt = 0;

  private acc = new Float64Array(0);

  constructor(options: RowIndexOptions = {}) {
    this.segmentRows = Math.max(1, Math.min(0x10000, Math.floor(options.segmentRows ?? SEGMENT_ROWS)));
    this.start = new Uint32Array(this.segmentRows + 1);
  }

  get size(): number {
    return this.n;
  }

  /** Adds the next row (row number `size`); undefined: a row without a vector. */
  add(v: Vector | undefined): void {
    const r = this.n;
    if (r === this.kind.length) {
      const k = new Uint8Array(r * 2);
      k.set(this.kind);
      this.kind = k;
    }
    this.n = r + 1;
    const local = r - this.base;
    if (v !== undefined && this.packable(v)) {
      const m = v.idx.length;
      this.reserve(this.used + m);
      this.idx.set(v.idx, this.used);
      this.val.set(v.val, this.used);
      this.used += m;
      this.kind[r] = PACKED;
      if (this.dims === 0) this.dims = v.dims;
    } else if (v !== undefined) {
      this.kind[r] = WHOLE;
      this.whole.set(r, v);
    } else {
      this.kind[r] = NONE;
    }
    this.start[local + 1] = this.used;
    if (local + 1 === this.segmentRows) this.seal();
  }

  hasVector(row: number): boolean {
    return row < this.n && this.kind[row] !== NONE;
  }

  /** Row r's vector as the scan reads it (a fresh copy; up to ~0.1 ms for a sealed row). Recall reads the lists instead. */
  vectorOf(row: number): Vector | undefined {
    if (row >= this.n) return undefined;
    const k = this.kind[row];
    if (k === WHOLE) return this.whole.get(row);
    if (k === NONE) return undefined;
    if (row >= this.base) {
      const a = this.start[row - this.base] as number;
      const b = this.start[row - this.base + 1] as number;
      return { dims: this.dims, idx: Uint32Array.from(this.idx.subarray(a, b)), val: this.val.slice(a, b) };
    }
    const s = Math.floor(row / this.segmentRows);
    const seg = this.sealed[s] as SealedSegment;
    const local = row - s * this.segmentRows;
    const idx = Uint32Array.from(seg.buckets.subarray(seg.start[local], seg.start[local + 1]));
    const val = new Float32Array(idx.length);
    for (let i = 0; i < idx.length; i++) {
      const b = idx[i] as number;
      val[i] = seg.vals[find(seg.rows, seg.off[b] as number, seg.off[b + 1] as number, local)] as number;
    }
    return { dims: this.dims, idx, val };
  }

  /** Brings the open segment's lists up to date: after a load or an append, so a query has nothing left to do. */
  settle(): void {
    if (this.openBuilt === this.n) return;
    this.open = this.build();
    this.openBuilt = this.n;
  }

  scores(query: Vector): Float64Array {
    this.settle();
    const n = this.n;
    if (this.acc.length < n) this.acc = new Float64Array(Math.max(n, this.acc.length * 2));
    const acc = this.acc;
    acc.fill(0, 0, n);
    const qDims = isSparse(query) ? query.dims : query.length;
    if (this.dims > 0 && qDims === this.dims) {
      if (isSparse(query) && increasing(query)) this.accumulate(query.idx, query.val, acc);
      else withDenseQuery(query, (dense) => this.accumulate(...nonZero(dense), acc));
    }
    if (this.whole.size > 0) {
      withDenseQuery(query, (dense) => {
        for (const [r, v] of this.whole) acc[r] = score(dense, v);
      });
    }
    return acc;
  }

  // ---------------------------------------------------------------- internals

  /** Term at a time, the query's buckets in increasing order (see the note at the top: exactness). */
  private accumulate(qi: ArrayLike<number>, qv: ArrayLike<number>, acc: Float64Array): void {
    const dims = this.dims;
    for (let s = 0; s <= this.sealed.length; s++) {
      const seg = s < this.sealed.length ? (this.sealed[s] as Segment) : this.open;
      if (seg.rows.length === 0) continue;
      const { off, rows, vals, base } = seg;
      for (let j = 0; j < qi.length; j++) {
        const b = qi[j] as number;
        const w = qv[j] as number;
        if (b >= dims || w === 0) continue; // a zero term leaves every sum as it is
        for (let p = off[b] as number, end = off[b + 1] as number; p < end; p++) {
          const r = base + (rows[p] as number);
          acc[r] = (acc[r] as number) + w * (vals[p] as number);
        }
      }
    }
  }

  /** A sparse vector of the index's dims whose buckets are in order and in range (a malformed one is kept whole: the scan's function scores it). */
  private packable(v: Vector): v is SparseVector {
    if (!isSparse(v) || v.dims > MAX_PACKED_DIMS || (this.dims !== 0 && v.dims !== this.dims) || v.idx.length !== v.val.length) return false;
    const last = v.idx.length - 1;
    return increasing(v) && (last < 0 || (v.idx[last] as number) < v.dims);
  }

  /** Seals the open segment: its lists are built once; of its row-order copy only the bucket numbers stay. */
  private seal(): void {
    this.sealed.push({ ...this.build(), start: this.start.slice(), buckets: this.idx.slice(0, this.used) });
    this.base = this.n;
    this.used = 0;
    this.start[0] = 0;
    this.open = EMPTY;
    this.openBuilt = this.n;
  }

  /** The open segment's posting lists, by counting: each bucket's rows in order. */
  private build(): Segment {
    if (this.used === 0 || this.dims === 0) return EMPTY;
    const dims = this.dims;
    const off = new Uint32Array(dims + 1);
    const { idx, val, start, base, used } = this;
    for (let i = 0; i < used; i++) off[(idx[i] as number) + 1]++;
    for (let b = 0; b < dims; b++) off[b + 1] = (off[b + 1] as number) + (off[b] as number);
    const rows = new Uint16Array(used);
    const vals = new Float32Array(used);
    const fill = off.slice(0, dims);
    for (let local = 0, count = this.n - base; local < count; local++) {
      for (let i = start[local] as number, end = start[local + 1] as number; i < end; i++) {
        const b = idx[i] as number;
        const p = fill[b] as number;
        rows[p] = local;
        vals[p] = val[i] as number;
        fill[b] = p + 1;
      }
    }
    return { off, rows, vals, base };
  }

  private reserve(total: number): void {
    if (total <= this.idx.length) return;
    const cap = Math.max(total, Math.ceil(this.idx.length * 1.5));
    const idx = new Uint16Array(cap);
    idx.set(this.idx.subarray(0, this.used));
    const val = new Float32Array(cap);
    val.set(this.val.subarray(0, this.used));
    this.idx = idx;
    this.val = val;
  }
}

/** Position of `row` in rows[from, to) (sorted), or -1. */
function find(rows: Uint16Array, from: number, to: number, row: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as number) < row) lo = mid + 1;
    else hi = mid;
  }
  return lo < to && rows[lo] === row ? lo : -1;
}

function increasing(q: SparseVector): boolean {
  const idx = q.idx;
  for (let i = 1; i < idx.length; i++) if ((idx[i] as number) <= (idx[i - 1] as number)) return false;
  return idx.length === q.val.length;
}

/** The non-zero buckets of a dense query, in increasing order. */
function nonZero(dense: Float32Array): [number[], number[]] {
  const idx: number[] = [];
  const val: number[] = [];
  for (let b = 0; b < dense.length; b++) {
    const x = dense[b] as number;
    if (x !== 0) {
      idx.push(b);
      val.push(x);
    }
  }
  return [idx, val];
}
