// How many stored rows contain each bucket of the local embedder, for weighing a query: a bigram
// that appears in every passage ("回来", "以后") says little, a name says a lot. Only the query is
// weighed (the stored vectors stay as they are), so rows never need re-embedding as the book grows.
// Dense vectors from an embedding model need none of this and are left alone.
import { isSparse, normalize, type SparseVector, type Vector } from './vector';

export class DocFreq {
  private counts: Uint32Array | undefined;
  private rows = 0;

  /** Counts one stored row's buckets. */
  add(v: Vector | undefined): void {
    if (v === undefined || !isSparse(v)) return;
    if (!this.counts || this.counts.length !== v.dims) {
      this.counts = new Uint32Array(v.dims);
      this.rows = 0;
    }
    const c = this.counts;
    for (let i = 0; i < v.idx.length; i++) c[v.idx[i] as number] = (c[v.idx[i] as number] as number) + 1;
    this.rows++;
  }

  get size(): number {
    return this.rows;
  }

  /** The query with each bucket weighed by ln(1 + N / (1 + df)), normalised. Dense: unchanged. */
  weigh(q: Vector): Vector {
    const c = this.counts;
    if (!isSparse(q) || !c || c.length !== q.dims || this.rows === 0) return q;
    const val = new Float32Array(q.val.length);
    for (let i = 0; i < q.idx.length; i++) val[i] = (q.val[i] as number) * Math.log(1 + this.rows / (1 + (c[q.idx[i] as number] as number)));
    const weighed: SparseVector = { dims: q.dims, idx: q.idx, val };
    return normalize(weighed);
  }
}
