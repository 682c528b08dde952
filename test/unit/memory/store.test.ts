// The memory file: round trip, idempotent rows, a torn last line, corrupt lines, a missing final
// newline, read-only windows, and a change of embedder.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../../../src/memory/embed';
import { hashEmbed, localEmbedder } from '../../../src/memory/embed';
import { MemoryStore, memoryFileFor, type NewRow } from '../../../src/memory/store';
import { ok } from '../../../src/memory/types';
import { normalize } from '../../../src/memory/vector';
import { openStore, cleanup, tempDir } from './helpers';

function rows(n: number, prefix = 'n'): NewRow[] {
  return Array.from({ length: n }, (_, i) => {
    const text = `第${i}段：青梧在雨里等了${i}个时辰，林砚始终没有来。`;
    return { nodeId: `${prefix}${i}`, role: 'prose', text, vector: hashEmbed(text) } as NewRow;
  });
}

/** A dense 4-dimensional embedder standing in for a remote model. */
const fourDims: Embedder = {
  id: 'fake-dense-4',
  dims: 4,
  embed: (texts) => Promise.resolve(ok(texts.map((t) => normalize(Float32Array.from([t.length, 1, 2, 3]))))),
};

function fileOf(dir: string): string {
  return path.join(dir, 'memory', 'sess1.jsonl');
}

async function reopen(dir: string, embedder: Embedder = localEmbedder(), readOnly = false) {
  const r = await MemoryStore.open({ file: fileOf(dir), sessionId: 'sess1', embedder, readOnly });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
}

describe('memory/MemoryStore', () => {
  afterEach(cleanup);

  it('creates the file on the first row; rows and vectors survive reopening', async () => {
    const dir = tempDir();
    assert.equal(memoryFileFor('/novel', 'abc'), path.join('/novel', '.worldline', 'memory', 'abc.jsonl'));
    const s = await openStore(dir);
    assert.equal(fs.existsSync(fileOf(dir)), false, 'no file until there is a row');
    const added = await s.append(rows(5));
    assert.deepEqual(added, ok(5));
    assert.deepEqual(await s.flush(), ok(undefined));
    await s.close();
    const lines = fs.readFileSync(fileOf(dir), 'utf8').split('\n');
    assert.equal(lines.length, 7, 'header + 5 rows + final newline');
    const header = JSON.parse(lines[0] as string) as { type: string; embedder: string; dims: number; sessionId: string };
    assert.deepEqual([header.type, header.embedder, header.dims, header.sessionId], ['memory', 'local-ngram-v1', 65536, 'sess1']);
    const { store, report } = await reopen(dir);
    assert.deepEqual(report.warnings, []);
    assert.equal(store.rows().length, 5);
    assert.deepEqual(store.rows()[3]?.vector, rows(5)[3]?.vector);
    assert.equal(store.rows()[3]?.seq, 3);
    assert.equal(store.docFreq.size, 5);
    await store.close();
  });

  it('the same text of the same node is stored once', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(3));
    assert.deepEqual(await s.append(rows(3)), ok(0));
    assert.deepEqual(await s.append(rows(3, 'other')), ok(3), 'the same text on another node is another row');
    assert.ok(s.has('n1', rows(3)[1]?.text as string));
    await s.close();
  });

  it('a torn last line is set aside, every complete row is kept, and writing goes on', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(4));
    await s.close();
    const whole = fs.readFileSync(fileOf(dir));
    fs.appendFileSync(fileOf(dir), '{"type":"row","nodeId":"n9","role":"prose","text":"半行');
    const { store, report } = await reopen(dir);
    assert.equal(store.rows().length, 4);
    assert.ok(report.tornTail?.movedTo && fs.existsSync(report.tornTail.movedTo));
    assert.equal(fs.readFileSync(report.tornTail.movedTo, 'utf8'), '{"type":"row","nodeId":"n9","role":"prose","text":"半行');
    assert.deepEqual(fs.readFileSync(fileOf(dir)), whole, 'cut back to the last complete line');
    assert.match(report.warnings.join('\n'), /incomplete/);
    assert.deepEqual(await store.append(rows(6).slice(4)), ok(2));
    await store.close();
    const again = await reopen(dir);
    assert.equal(again.store.rows().length, 6);
    assert.deepEqual(again.report.warnings, []);
    await again.store.close();
  });

  it('a read-only open leaves a torn file as it is', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(2));
    await s.close();
    fs.appendFileSync(fileOf(dir), '{"type":"ro');
    const before = fs.readFileSync(fileOf(dir));
    const { store, report } = await reopen(dir, localEmbedder(), true);
    assert.equal(store.rows().length, 2);
    assert.equal(report.tornTail?.movedTo, undefined);
    assert.deepEqual(fs.readFileSync(fileOf(dir)), before);
    const refused = await store.append(rows(3));
    assert.equal(refused.ok ? '' : refused.error.kind, 'read-only');
    await store.close();
  });

  it('corrupt lines are reported by number, skipped, and left in the file', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(3));
    await s.close();
    const lines = fs.readFileSync(fileOf(dir), 'utf8').split('\n');
    lines.splice(2, 0, 'garbage {', '{"type":"row","nodeId":"x","role":"prose","text":"t","vector":"@@"}', '{"type":"mystery"}');
    fs.writeFileSync(fileOf(dir), lines.join('\n'));
    const { store, report } = await reopen(dir);
    assert.equal(store.rows().length, 3);
    assert.deepEqual(
      report.corruptLines.map((c) => c.line),
      [3, 4, 5],
    );
    assert.match(report.corruptLines[1]?.error ?? '', /vector is damaged/);
    assert.deepEqual(await store.append(rows(4).slice(3)), ok(1));
    await store.close();
    assert.ok(fs.readFileSync(fileOf(dir), 'utf8').includes('garbage {'));
  });

  it('a complete last line without its newline is kept; the next row starts on a new line', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(2));
    await s.close();
    const text = fs.readFileSync(fileOf(dir), 'utf8');
    fs.writeFileSync(fileOf(dir), text.slice(0, -1));
    const { store, report } = await reopen(dir);
    assert.equal(store.rows().length, 2);
    assert.equal(report.tornTail, undefined);
    await store.append(rows(3).slice(2));
    await store.close();
    const again = await reopen(dir);
    assert.equal(again.store.rows().length, 3);
    assert.deepEqual(again.report.corruptLines, []);
    await again.store.close();
  });

  it('another embedder: rows wait as text, appends are refused until re-embedded, then the file is rewritten', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(3));
    await s.close();
    const { store, report } = await reopen(dir, fourDims);
    assert.deepEqual(report.embedderChanged, { from: 'local-ngram-v1', to: 'fake-dense-4' });
    assert.ok(store.needsReembed);
    assert.ok(store.rows().every((r) => r.vector === undefined));
    const refused = await store.append([{ nodeId: 'z', role: 'prose', text: '新的一段文字，足够长。', vector: Float32Array.from([1, 0, 0, 0]) }]);
    assert.equal(refused.ok ? '' : refused.error.kind, 'embedder-mismatch');
    assert.deepEqual(await store.reembed(fourDims), ok(3));
    assert.ok(store.rows().every((r) => r.vector instanceof Float32Array && r.vector.length === 4));
    assert.deepEqual(await store.append([{ nodeId: 'z', role: 'prose', text: '新的一段文字，足够长。', vector: Float32Array.from([1, 0, 0, 0]) }]), ok(1));
    await store.close();
    const header = JSON.parse(fs.readFileSync(fileOf(dir), 'utf8').split('\n')[0] as string) as { embedder: string; dims: number };
    assert.deepEqual([header.embedder, header.dims], ['fake-dense-4', 4]);
    const again = await reopen(dir, fourDims);
    assert.equal(again.report.embedderChanged, undefined);
    assert.equal(again.store.rows().length, 4);
    await again.store.close();
  });

  it('re-embedding a damaged file keeps a copy of it first', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(2));
    await s.close();
    fs.appendFileSync(fileOf(dir), 'garbage\n');
    const { store } = await reopen(dir, fourDims);
    assert.deepEqual(await store.reembed(fourDims), ok(2));
    await store.close();
    const copies = fs.readdirSync(path.join(dir, 'memory')).filter((f) => f.includes('.damaged-'));
    assert.equal(copies.length, 1);
    assert.ok(fs.readFileSync(path.join(dir, 'memory', copies[0] as string), 'utf8').includes('garbage'));
    assert.ok(!fs.readFileSync(fileOf(dir), 'utf8').includes('garbage'));
  });

  it('a lost header: rows are kept as text and re-embedded; a newer format is refused', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.append(rows(2));
    await s.close();
    const lines = fs.readFileSync(fileOf(dir), 'utf8').split('\n');
    fs.writeFileSync(fileOf(dir), lines.slice(1).join('\n'));
    const { store, report } = await reopen(dir);
    assert.equal(report.embedderChanged?.from, 'unknown');
    assert.deepEqual(await store.reembed(localEmbedder()), ok(2));
    await store.close();
    assert.equal((await reopen(dir)).report.embedderChanged, undefined);

    const newer = tempDir();
    fs.mkdirSync(path.join(newer, 'memory'));
    fs.writeFileSync(fileOf(newer), '{"type":"memory","version":9}\n');
    const r = await MemoryStore.open({ file: fileOf(newer), sessionId: 'sess1', embedder: localEmbedder() });
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error.message, /newer Worldline/);
  });
});
