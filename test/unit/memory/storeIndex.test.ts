// The store's posting lists over its rows: recall through them is the scan's recall before and
// after reopening (segments sealed), a format-1 file written by earlier versions opens as it is,
// re-embedding goes in batches and a failure in the middle changes nothing, and a file that would
// not fit in memory is refused with a message and kept.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../../../src/memory/embed';
import { hashEmbed, localEmbedder } from '../../../src/memory/embed';
import { recall, recallForTurn } from '../../../src/memory/recall';
import { MemoryStore, REEMBED_BATCH, type NewRow } from '../../../src/memory/store';
import { fail, ok, type MemoryRow } from '../../../src/memory/types';
import { isSparse, normalize } from '../../../src/memory/vector';
import { cleanup, rng, tempDir } from './helpers';

const NAMES = ['青梧', '林砚', '沈舟', '顾雪宁', '白露', '秋棠', '江晚', '陆离'];
const FILLER = ['雨越下越大。', '街上已经没有行人了。', '茶已经凉了。', '过了好一会儿，才有人开口说话。', '窗纸上映出一个模糊的影子。'];

function passages(n: number, seed = 7): NewRow[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    let text = `${NAMES[Math.floor(r() * NAMES.length)]}对${NAMES[Math.floor(r() * NAMES.length)]}说：`;
    while (text.length < 60) text += FILLER[Math.floor(r() * FILLER.length)] as string;
    return { nodeId: `n${Math.floor(i / 2)}`, role: 'prose', text, vector: hashEmbed(text) } as NewRow;
  });
}

function fileOf(dir: string): string {
  return path.join(dir, 'memory', 'sess1.jsonl');
}

async function open(dir: string, extra: Partial<Parameters<typeof MemoryStore.open>[0]> = {}) {
  const r = await MemoryStore.open({ file: fileOf(dir), sessionId: 'sess1', embedder: localEmbedder(), segmentRows: 8, ...extra });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
}

/** Plain rows with their vectors copied out: what the scan read before there was an index. */
function plain(rows: readonly MemoryRow[]): MemoryRow[] {
  return rows.map((r) => ({ seq: r.seq, nodeId: r.nodeId, role: r.role, text: r.text, vector: r.vector }));
}

const picks = (hits: { row: MemoryRow; score: number }[]) => hits.map((h) => [h.row.seq, h.score]);

describe('memory/MemoryStore index', () => {
  afterEach(cleanup);

  it('recall through the store index is the scan over the same rows, before and after reopening', async () => {
    const dir = tempDir();
    const rows = passages(70);
    const { store } = await open(dir);
    assert.deepEqual(await store.append(rows.slice(0, 30)), ok(30));
    assert.deepEqual(await store.append(rows.slice(30)), ok(40));
    const branchIds = new Set(rows.filter((_, i) => i % 3 !== 1).map((r) => r.nodeId));
    const check = (s: MemoryStore): void => {
      assert.equal(s.index.size, 70);
      for (const q of [...NAMES, '青梧和林砚在渡口', '茶已经凉了']) {
        const query = hashEmbed(q);
        const byIndex = recall({ rows: s.rows(), query, docFreq: s.docFreq, index: s.index, branchIds, k: 5 });
        const byScan = recall({ rows: plain(s.rows()), query, docFreq: s.docFreq, branchIds, k: 5 });
        assert.ok(byIndex.length > 0, q);
        assert.deepEqual(picks(byIndex), picks(byScan), q);
      }
    };
    check(store);
    await store.close();
    const again = await open(dir);
    assert.deepEqual(plain(again.store.rows()), plain(rows.map((r, seq) => ({ seq, ...r }))), 'every row and vector reads back');
    check(again.store);
    await again.store.close();
  });

  it('recallForTurn and the store agree without embedding when nothing on the branch has a vector', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    const rows = passages(20);
    await store.append(rows);
    let calls = 0;
    const counting: Embedder = { ...localEmbedder(), embed: (t, s) => (calls++, localEmbedder().embed(t, s)) };
    const none = await recallForTurn({ memory: store, embedder: counting }, { instruction: '写青梧', branchIds: new Set(['elsewhere']), lang: 'zh' });
    assert.deepEqual(none, ok({ hits: [], block: '' }));
    assert.equal(calls, 0);
    const some = await recallForTurn({ memory: store, embedder: counting }, { instruction: rows[3]?.text as string, branchIds: new Set(['n1', 'n2', 'n3']), lang: 'zh' });
    assert.ok(some.ok && some.value.hits.length > 0 && some.value.hits.every((h) => ['n1', 'n2', 'n3'].includes(h.row.nodeId)));
    await store.close();
  });

  it('a format-1 file as earlier versions wrote it opens unchanged', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'memory'));
    const lines = [
      '{"type":"memory","version":1,"sessionId":"sess1","embedder":"local-ngram-v1","dims":65536,"createdAt":"2025-01-01T00:00:00.000Z"}',
      '{"type":"row","nodeId":"e1","role":"prose","text":"青梧在渡口","vector":{"dims":65536,"idx":"AQAsAQ==","val":"mpkZP83MTD8="}}',
      '{"type":"row","nodeId":"e2","role":"user","text":"dense","vector":"AACAPw=="}',
    ];
    fs.writeFileSync(fileOf(dir), `${lines.join('\n')}\n`);
    const before = fs.readFileSync(fileOf(dir));
    const { store, report } = await open(dir);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [3], 'a dense vector in a sparse file is damage, as before');
    assert.equal(store.rows().length, 1);
    const v = store.rows()[0]?.vector;
    assert.ok(v && isSparse(v));
    assert.deepEqual([Array.from(v.idx), Array.from(v.val)], [[1, 300], [Math.fround(0.6), Math.fround(0.8)]]);
    await store.close();
    assert.deepEqual(fs.readFileSync(fileOf(dir)), before);
  });

  it('re-embedding goes in batches, rewrites every row (in many writes), and the file opens again', async () => {
    const dir = tempDir();
    const n = REEMBED_BATCH * 2 + 17;
    const { store } = await open(dir);
    await store.append(passages(n));
    await store.close();
    const sizes: number[] = [];
    // 512 floats a row: the new file is over a megabyte, written in several chunks.
    const vectorOf = (t: string) => normalize(Float32Array.from({ length: 512 }, (_, i) => ((t.charCodeAt(i % t.length) * (i + 1)) % 97) + 1));
    const dense: Embedder = {
      id: 'fake-dense-512',
      dims: 512,
      embed: (texts) => {
        sizes.push(texts.length);
        return Promise.resolve(ok(texts.map(vectorOf)));
      },
    };
    const other = await open(dir, { embedder: dense });
    assert.ok(other.store.needsReembed);
    assert.deepEqual(await other.store.reembed(dense), ok(n));
    assert.deepEqual(sizes, [REEMBED_BATCH, REEMBED_BATCH, 17]);
    await other.store.close();
    const again = await open(dir, { embedder: dense });
    assert.equal(again.report.embedderChanged, undefined);
    assert.ok(fs.statSync(fileOf(dir)).size > 1024 * 1024);
    assert.equal(again.store.rows().length, n);
    again.store.rows().forEach((r) => assert.deepEqual(r.vector, vectorOf(r.text)));
    await again.store.close();
  });

  it('a re-embed that fails halfway changes nothing: same file, no temp file, rows still waiting', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    await store.append(passages(REEMBED_BATCH + 5));
    await store.close();
    const before = fs.readFileSync(fileOf(dir));
    let calls = 0;
    const flaky: Embedder = {
      id: 'fake-dense-4',
      dims: 4,
      embed: (texts) => Promise.resolve(++calls === 2 ? fail('embed', 'the embedding service is down') : ok(texts.map(() => normalize(Float32Array.from([1, 1, 1, 1]))))),
    };
    const other = await open(dir, { embedder: flaky });
    const r = await other.store.reembed(flaky);
    assert.deepEqual(r, fail('embed', 'the embedding service is down'));
    assert.ok(other.store.needsReembed);
    assert.ok(other.store.rows().every((row) => row.vector === undefined));
    assert.deepEqual(fs.readFileSync(fileOf(dir)), before);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'memory')), ['sess1.jsonl']);
    await other.store.close();
  });

  it('a rewrite that would pass the file limit is refused and the file kept', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    await store.append(passages(40));
    await store.close();
    const before = fs.readFileSync(fileOf(dir));
    const big: Embedder = { id: 'fake-dense-big', dims: 4096, embed: (texts) => Promise.resolve(ok(texts.map(() => normalize(new Float32Array(4096).fill(1))))) };
    const other = await open(dir, { embedder: big, limits: { maxFileBytes: before.length * 2 } });
    const r = await other.store.reembed(big);
    assert.ok(!r.ok && /size limit/.test(r.error.message), r.ok ? '' : r.error.message);
    assert.deepEqual(fs.readFileSync(fileOf(dir)), before);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'memory')), ['sess1.jsonl']);
    await other.store.close();
  });

  it('a file that would not fit in memory is refused with what to do, and kept', async () => {
    const dir = tempDir();
    const { store } = await open(dir);
    await store.append(passages(10));
    await store.close();
    const before = fs.readFileSync(fileOf(dir));
    const r = await MemoryStore.open({ file: fileOf(dir), sessionId: 'sess1', embedder: localEmbedder(), limits: { maxMemoryBytes: 1000 } });
    assert.ok(!r.ok);
    assert.match(r.error.message, /too large to read .*of memory.*memory recall is off.*kept untouched/);
    assert.deepEqual(fs.readFileSync(fileOf(dir)), before);
  });

  it('rows of many segments: appends after a reopen go on in the open segment', async () => {
    const dir = tempDir();
    const rows = passages(45, 11);
    const { store } = await open(dir);
    await store.append(rows.slice(0, 20));
    await store.close();
    const again = await open(dir);
    for (let i = 20; i < 45; i += 5) assert.deepEqual(await again.store.append(rows.slice(i, i + 5)), ok(5));
    const all = new Set(rows.map((r) => r.nodeId));
    for (const q of NAMES) {
      const query = hashEmbed(q);
      assert.deepEqual(
        picks(recall({ rows: again.store.rows(), query, docFreq: again.store.docFreq, index: again.store.index, branchIds: all })),
        picks(recall({ rows: plain(again.store.rows()), query, docFreq: again.store.docFreq, branchIds: all })),
      );
    }
    await again.store.close();
  });
});
