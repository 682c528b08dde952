// The memory file under the same damage as the session tree: zeroed blocks (a power cut), a line
// of 40 MB, a file over the size limit. Every row the zeros did not touch loads; nothing is read
// into memory whole; an oversized file is refused with a message, never a crash.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { hashEmbed, localEmbedder } from '../../../src/memory/embed';
import { MemoryStore, type NewRow } from '../../../src/memory/store';
import { runs } from '../long-mode';
import { cleanup, tempDir } from './helpers';

function rowsOf(texts: string[]): NewRow[] {
  return texts.map((text, i) => ({ nodeId: `n${i}`, role: 'prose', text, vector: hashEmbed(text) }) as NewRow);
}

async function open(file: string, limits?: { maxLineBytes?: number; maxFileBytes?: number; maxRows?: number }) {
  return MemoryStore.open({ file, sessionId: 'sess1', embedder: localEmbedder(), ...(limits ? { limits } : {}) });
}

async function written(texts: string[]): Promise<string> {
  const file = path.join(tempDir('wl-memory-hostile-'), 'memory', 'sess1.jsonl');
  const r = await open(file);
  assert.ok(r.ok);
  assert.ok((await r.value.store.append(rowsOf(texts))).ok);
  await r.value.store.close();
  return file;
}

function spans(buf: Buffer): { key: string; start: number; end: number }[] {
  const out: { key: string; start: number; end: number }[] = [];
  let start = buf.indexOf(0x0a) + 1;
  while (start < buf.length) {
    const end = buf.indexOf(0x0a, start);
    const row = JSON.parse(buf.toString('utf8', start, end)) as { nodeId: string; text: string };
    out.push({ key: `${row.nodeId}|${row.text}`, start, end });
    start = end + 1;
  }
  return out;
}

const textArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.integer({ min: 50, max: 1500 }).map((n) => '雨'.repeat(n)),
);
const rangeArb = fc.oneof(
  fc.record({ kind: fc.constant('block' as const), size: fc.constantFrom(512, 4096), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('range' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), len: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ kind: fc.constant('toLine' as const), line: fc.nat(), len: fc.integer({ min: 1, max: 600 }) }),
);

describe('memory file under hostile damage', function () {
  this.timeout(600_000);
  afterEach(cleanup);

  let tried = 0;
  it('zeroed blocks: every row the zeros did not touch loads, nothing unwritten appears, it reads the same again', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(textArb, { minLength: 1, maxLength: 16 }), fc.array(rangeArb, { minLength: 1, maxLength: 3 }), async (texts, zeros) => {
        tried++;
        const file = await written(texts);
        const full = fs.readFileSync(file);
        const rows = spans(full);
        const damaged = Buffer.from(full);
        const ranges = zeros.map((z): [number, number] => {
          if (z.kind === 'block') {
            const start = Math.floor((z.at * full.length) / z.size) * z.size;
            return [start, Math.min(full.length, start + z.size)];
          }
          if (z.kind === 'range') {
            const start = Math.floor(z.at * full.length);
            return [start, Math.min(full.length, start + z.len)];
          }
          const at = rows[z.line % rows.length].start;
          return [Math.max(0, at - z.len), at];
        });
        for (const [a, b] of ranges) damaged.fill(0, a, b);
        fs.writeFileSync(file, damaged);
        const untouched = rows.filter((s) => !ranges.some(([a, b]) => a < s.end && s.start < b)).map((s) => s.key);
        const all = new Set(rows.map((s) => s.key));

        const r = await open(file);
        assert.ok(r.ok, r.ok ? '' : r.error.message);
        const loaded = r.value.store.rows().map((row) => `${row.nodeId}|${row.text}`);
        assert.ok(loaded.every((k) => all.has(k)), 'only written rows load');
        assert.deepEqual(untouched.filter((k) => !loaded.includes(k)), [], 'every untouched row loads');
        await r.value.store.close();
        const again = await open(file);
        assert.ok(again.ok);
        assert.deepEqual(again.value.store.rows().map((row) => `${row.nodeId}|${row.text}`), loaded);
        await again.value.store.close();
      }),
      { numRuns: runs(200, 2000) },
    );
    console.log(`      zeroed memory blocks: ${tried} tried, 0 failed`);
  });

  it('a zero block that swallowed a newline: the intact row after it is recovered and the line reported', async () => {
    const file = await written(['第一段', '第二段', '第三段']);
    const full = fs.readFileSync(file);
    const [, second] = spans(full);
    const damaged = Buffer.from(full);
    damaged.fill(0, second.end - 8, second.end + 1);
    fs.writeFileSync(file, damaged);
    const r = await open(file);
    assert.ok(r.ok);
    assert.deepEqual(r.value.store.rows().map((row) => row.text), ['第一段', '第三段']);
    assert.deepEqual(r.value.report.corruptLines.map((c) => c.line), [3]);
    assert.match(r.value.report.corruptLines[0].error, /zeros.*1 complete line on it recovered/);
    await r.value.store.close();
  });

  it('a 40 MB row line is skipped unread; the rows after it load', async () => {
    const file = await written(['甲', '乙']);
    const fd = fs.openSync(file, 'a');
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    fs.writeSync(fd, '{"type":"row","nodeId":"big","role":"prose","text":"');
    for (let i = 0; i < 40; i++) fs.writeSync(fd, chunk);
    fs.writeSync(fd, '"}\n');
    fs.closeSync(fd);
    const ok = await written(['丙']);
    fs.appendFileSync(file, fs.readFileSync(ok, 'utf8').split('\n')[1] + '\n');
    const before = process.memoryUsage();
    const r = await open(file, { maxLineBytes: 1024 * 1024 });
    const after = process.memoryUsage();
    assert.ok(r.ok);
    assert.ok(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers < 16 * 1024 * 1024);
    assert.deepEqual(r.value.store.rows().map((row) => row.text), ['甲', '乙', '丙']);
    assert.match(r.value.report.corruptLines[0].error, /over the 1\.0 MB limit for one row/);
    await r.value.store.close();
  });

  it('a memory file over the size limit is refused with a clear message and kept', async () => {
    const file = await written(['一', '二', '三', '四']);
    const before = fs.readFileSync(file);
    const r = await open(file, { maxFileBytes: 512 });
    assert.ok(!r.ok);
    assert.match(r.error.message, /too large to read .*memory recall is off.*kept untouched/);
    const rows = await open(file, { maxRows: 2 });
    assert.ok(!rows.ok && /more than 2 rows/.test(rows.error.message));
    assert.deepEqual(fs.readFileSync(file), before);
    // Writes keep to the limit, so the file opens again.
    const w = await open(file, { maxFileBytes: before.length + 10 });
    assert.ok(w.ok);
    const full = await w.value.store.append(rowsOf(['五五五五五五五五五五五五五五五五']).map((x) => ({ ...x, nodeId: 'n9' })));
    assert.ok(!full.ok && /full/.test(full.error.message));
    await w.value.store.close();
    assert.deepEqual(fs.readFileSync(file), before);
  });
});
