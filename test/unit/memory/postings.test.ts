// Recall by posting lists picks exactly what the full scan picks: the same rows, the same scores
// (bit for bit), the same order, ties broken the same way. Checked against today's scan (recall
// without an index) and against a reference written the other way round (score every row, sort,
// take greedily), over random corpora built row by row with queries in between, segments sealed
// at random sizes, rows without vectors, dense rows and rows of other dims mixed in.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { DocFreq } from '../../../src/memory/docFreq';
import { hashEmbed } from '../../../src/memory/embed';
import { recall, type RecallInput } from '../../../src/memory/recall';
import { RowIndex } from '../../../src/memory/rowIndex';
import type { MemoryRow } from '../../../src/memory/types';
import { isSparse, normalize, type Vector } from '../../../src/memory/vector';
import { runs } from '../long-mode';

// Few words, so texts repeat (ties, identical texts on other nodes) and share buckets.
const WORDS = ['青梧', '林砚', '渡口', '银镯', '雨夜', '灯笼', '铁匣', '客栈', '说道', '回来', '以后', '的', '了', 'the', 'rain', 'ferry', 'lamp', 'and'];

const textArb = fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 60 }), fc.constantFrom('', '，', ' ')).map(([words, sep]) => words.join(sep));

/** What kind of vector a row gets: the local embedder's, none, a dense one, or a sparse one of other dims. */
const kindArb = fc.constantFrom('local', 'local', 'local', 'local', 'none', 'dense', 'otherDims');
type Kind = 'local' | 'none' | 'dense' | 'otherDims';

/** A deterministic vector per text and kind, so identical texts have identical vectors (as with any embedder). */
function vectorFor(text: string, kind: Kind): Vector | undefined {
  if (kind === 'none') return undefined;
  const local = hashEmbed(text);
  if (kind === 'local' || !isSparse(local)) return local;
  if (kind === 'dense') return normalize(Float32Array.from({ length: 8 }, (_, i) => ((local.idx[i % Math.max(1, local.idx.length)] ?? 1) % 7) + 1));
  return { dims: 1024, idx: Uint32Array.from(new Set(Array.from(local.idx, (b) => b % 1024))).sort(), val: new Float32Array(new Set(Array.from(local.idx, (b) => b % 1024)).size).fill(0.5) };
}

const rowArb = fc.record({ text: textArb, node: fc.integer({ min: 0, max: 11 }), role: fc.constantFrom<MemoryRow['role']>('user', 'assistant', 'prose'), kind: kindArb });

const queryArb = fc.record({
  text: textArb,
  weighed: fc.boolean(),
  form: fc.constantFrom('sparse', 'sparse', 'dense', 'shuffled'),
  k: fc.integer({ min: 1, max: 8 }),
  branch: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 12 }),
  exclude: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
  visible: fc.array(textArb, { maxLength: 2 }),
  minScore: fc.constantFrom(undefined, 0, 0.2, -1),
  notCurrent: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
});

type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

/** The query as recall gets it: the embedder's sparse vector, spread dense, or with its buckets out of order. */
function queryVector(q: Query): Vector {
  const v = hashEmbed(q.text);
  if (!isSparse(v) || q.form === 'sparse') return v;
  if (q.form === 'dense') {
    const d = new Float32Array(v.dims);
    v.idx.forEach((b, i) => (d[b] = v.val[i] as number));
    return d;
  }
  return { dims: v.dims, idx: Uint32Array.from(v.idx).reverse(), val: Float32Array.from(v.val).reverse() };
}

function inputFor(rows: MemoryRow[], q: Query, docFreq: DocFreq): RecallInput {
  const notCurrent = new Set(q.notCurrent.map((n) => `n${n}`));
  return {
    rows,
    query: queryVector(q),
    ...(q.weighed ? { docFreq } : {}),
    branchIds: new Set(q.branch.map((n) => `n${n}`)),
    k: q.k,
    excludeNodeIds: new Set(q.exclude.map((n) => `n${n}`)),
    excludeTexts: q.visible,
    ...(q.minScore === undefined ? {} : { minScore: q.minScore }),
    isCurrent: (row) => !notCurrent.has(row.nodeId),
  };
}

/** The cosine written out plainly: the query spread dense (a later bucket wins), the row's values in its own order. */
function plainCosine(query: Vector, row: Vector): number {
  const qDims = isSparse(query) ? query.dims : query.length;
  const dense = new Float32Array(qDims);
  if (isSparse(query)) query.idx.forEach((b, i) => (dense[b] = query.val[i] as number));
  else dense.set(query);
  let s = 0;
  if (isSparse(row)) {
    if (row.dims !== qDims) return 0;
    row.idx.forEach((b, i) => (s += (dense[b] as number) * (row.val[i] as number)));
  } else {
    if (row.length !== qDims) return 0;
    row.forEach((x, i) => (s += (dense[i] as number) * x));
  }
  return s;
}

/** The reference: score every admissible row, sort (best first, earlier row first on a tie), take k with distinct texts. */
function reference(input: RecallInput): { seq: number; score: number }[] {
  const query = input.docFreq ? input.docFreq.weigh(input.query) : input.query;
  const floor = input.minScore ?? 0;
  const scored: { row: MemoryRow; score: number }[] = [];
  for (const row of input.rows) {
    if (row.vector === undefined || !input.branchIds.has(row.nodeId) || input.excludeNodeIds?.has(row.nodeId)) continue;
    if (input.isCurrent && !input.isCurrent(row)) continue;
    if ((input.excludeTexts ?? []).some((t) => t.includes(row.text))) continue;
    const score = plainCosine(query, row.vector);
    if (score > floor) scored.push({ row, score });
  }
  scored.sort((a, b) => b.score - a.score || a.row.seq - b.row.seq);
  const out: { seq: number; score: number }[] = [];
  const texts = new Set<string>();
  for (const h of scored) {
    if (out.length === (input.k ?? 6)) break;
    if (texts.has(h.row.text)) continue;
    texts.add(h.row.text);
    out.push({ seq: h.row.seq, score: h.score });
  }
  return out;
}

const picks = (hits: { row: MemoryRow; score: number }[]) => hits.map((h) => ({ seq: h.row.seq, score: h.score }));

describe('memory/recall by posting lists', () => {
  it('picks exactly what the full scan picks, and what the reference picks (random corpora, appends between queries)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(rowArb, { minLength: 1, maxLength: 25 }), { minLength: 1, maxLength: 4 }),
        fc.array(queryArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 9 }),
        (batches, queries, segmentRows) => {
          const index = new RowIndex({ segmentRows });
          const docFreq = new DocFreq();
          const rows: MemoryRow[] = [];
          for (const batch of batches) {
            for (const r of batch) {
              const vector = vectorFor(r.text, r.kind as Kind);
              rows.push({ seq: rows.length, nodeId: `n${r.node}`, role: r.role, text: r.text, vector });
              index.add(vector);
              docFreq.add(vector);
            }
            if (rows.length % 2 === 0) index.settle(); // settled or not: a query settles first
            for (const q of queries) {
              const input = inputFor(rows, q, docFreq);
              const byPostings = picks(recall({ ...input, index }));
              assert.deepEqual(byPostings, picks(recall(input)), 'posting lists vs the scan');
              assert.deepEqual(byPostings, reference(input), 'posting lists vs the reference');
            }
          }
          rows.forEach((r, i) => assert.deepEqual(index.vectorOf(i), r.vector, `row ${i} reads back as it went in`));
        },
      ),
      { numRuns: runs(150, 3000) },
    );
  });

  it('a tie keeps the earlier row, and a text is returned once, at its best row', () => {
    const index = new RowIndex({ segmentRows: 2 });
    const texts = ['青梧在渡口', '林砚在客栈', '青梧在渡口', '青梧在渡口等船', '林砚在客栈'];
    const rows: MemoryRow[] = texts.map((text, seq) => ({ seq, nodeId: `n${seq}`, role: 'prose', text, vector: hashEmbed(text) }));
    for (const r of rows) index.add(r.vector);
    const branchIds = new Set(rows.map((r) => r.nodeId));
    const hits = recall({ rows, query: hashEmbed('青梧在渡口'), branchIds, k: 3, index });
    // Rows 0 and 2 tie (the same text): row 0 is kept, row 2 is its duplicate; 林砚 shares no bigram.
    assert.deepEqual(
      hits.map((h) => h.row.seq),
      [0, 3],
    );
    assert.deepEqual(picks(hits), picks(recall({ rows, query: hashEmbed('青梧在渡口'), branchIds, k: 3 })));
  });

  it('scores only rows that share a bucket with the query; the rest score 0', () => {
    const index = new RowIndex({ segmentRows: 3 });
    const texts = ['青梧', '林砚', '沈舟', '顾雪宁', '青梧和林砚'];
    for (const t of texts) index.add(hashEmbed(t));
    index.add(undefined);
    const scores = index.scores(hashEmbed('青梧'));
    assert.ok((scores[0] as number) > 0.99);
    assert.deepEqual(Array.from(scores.subarray(1, 4)), [0, 0, 0]);
    assert.ok((scores[4] as number) > 0 && (scores[4] as number) < 1);
    assert.equal(index.hasVector(5), false);
    assert.equal(index.vectorOf(5), undefined);
  });
});
