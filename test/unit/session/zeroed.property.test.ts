// Zeroed blocks, as a power cut leaves them (data blocks that never reached the disk read back as
// zeros): aligned 512- and 4096-byte blocks and arbitrary ranges, anywhere in a real session
// file, swallowing newlines or not. Every entry whose own bytes were not zeroed must load, nothing
// that was not written may appear, and the file must stay appendable and read the same again.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { ChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { runs } from '../long-mode';
import { FakeClock, assistant, entryLines, removeTempDirs, tempDir, user } from './helpers';

const ID = 'beadfeed';

const textArb = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('雨夜，青梧推门而入。', '“你来晚了。”她说。\n窗外雷声滚滚。', 'nul \u0000 inside', '\u2028line\u2029sep'),
  fc.integer({ min: 200, max: 3000 }).map((n) => '长'.repeat(n)),
);

// Aligned blocks and arbitrary ranges, plus ranges that end exactly where a line starts (the zeros
// swallow a newline and leave the next entry whole) or start exactly at a newline.
type Zero =
  | { shape: 'block'; size: 512 | 4096; at: number }
  | { shape: 'range'; at: number; len: number }
  | { shape: 'toLine' | 'fromNewline'; line: number; len: number };
const zeroArb: fc.Arbitrary<Zero> = fc.oneof(
  fc.record({ shape: fc.constant('block' as const), size: fc.constantFrom(512 as const, 4096 as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ shape: fc.constant('range' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), len: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ shape: fc.constantFrom('toLine' as const, 'fromNewline' as const), line: fc.nat(), len: fc.integer({ min: 1, max: 600 }) }),
);

async function build(texts: string[], navs: number[]): Promise<string> {
  const file = path.join(tempDir('wl-zeroed-'), `${ID}.jsonl`);
  const s = await Session.create(file, { id: ID, title: '断电' }, { clock: new FakeClock() });
  const chain: ChainEntry[] = [];
  for (const [i, text] of texts.entries()) {
    chain.push(await s.append(i % 2 ? assistant(text) : user(text)));
    if (navs.includes(i)) await s.navigate(chain[Math.floor(i / 2)].id);
  }
  await s.close();
  return file;
}


function zeroRanges(size: number, zeros: Zero[], spans: { start: number; end: number }[]): [number, number][] {
  return zeros.map((z): [number, number] => {
    switch (z.shape) {
      case 'block': {
        const start = Math.floor((z.at * size) / z.size) * z.size;
        return [start, Math.min(size, start + z.size)];
      }
      case 'range': {
        const start = Math.floor(z.at * size);
        return [start, Math.min(size, start + z.len)];
      }
      default: {
        const span = spans[z.line % spans.length];
        return z.shape === 'toLine' ? [Math.max(0, span.start - z.len), span.start] : [span.end, Math.min(size, span.end + z.len)];
      }
    }
  });
}

describe('zeroed blocks (property test)', function () {
  this.timeout(600_000);
  afterEach(removeTempDirs);

  let tried = 0;
  it('every entry the zeros did not touch loads; nothing unwritten appears; appends work and read back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(textArb, { minLength: 1, maxLength: 24 }),
        fc.array(fc.nat({ max: 23 }), { maxLength: 3 }),
        fc.array(zeroArb, { minLength: 1, maxLength: 3 }),
        async (texts, navs, zeros) => {
          tried++;
          const file = await build(texts, navs);
          const full = fs.readFileSync(file);
          const spans = entryLines(full);
          const damaged = Buffer.from(full);
          const ranges = zeroRanges(full.length, zeros, spans);
          for (const [a, b] of ranges) damaged.fill(0, a, b);
          fs.writeFileSync(file, damaged);
          const touched = (s: { start: number; end: number }) => ranges.some(([a, b]) => a < s.end && s.start < b);
          const expected = spans.filter((s) => !touched(s)).map((s) => s.id);
          const written = new Set(spans.map((s) => s.id));

          const { session } = await Session.open(file, { clock: new FakeClock() });
          const loaded = session.entries().map((e) => e.id);
          assert.ok(loaded.every((id) => written.has(id)), 'only written entries load');
          const kept = new Set(loaded);
          assert.deepEqual(expected.filter((id) => !kept.has(id)), [], 'every untouched entry loads');
          assert.deepEqual(loaded.filter((id) => expected.includes(id)), expected, 'in file order');
          const added = await session.append(assistant('来电了'));
          await session.close();
          const again = await Session.open(file);
          assert.deepEqual(again.session.entries().map((e) => e.id), [...loaded, added.id]);
          await again.session.close();
        },
      ),
      { numRuns: runs(200, 2000) },
    );
    console.log(`      zeroed session blocks: ${tried} tried, 0 failed`);
  });
});

describe('zeroed blocks (cases)', () => {
  afterEach(removeTempDirs);

  async function threeEntries(): Promise<{ file: string; full: Buffer; spans: ReturnType<typeof entryLines> }> {
    const file = await build(['第一句', '第二句', '第三句'], []);
    const full = fs.readFileSync(file);
    return { file, full, spans: entryLines(full) };
  }

  it('a zero block that swallowed the newline between two entries: the intact one after it is recovered and the line reported', async () => {
    const { file, full, spans } = await threeEntries();
    const [, second, third] = spans;
    const damaged = Buffer.from(full);
    damaged.fill(0, second.end - 10, second.end + 1); // the end of entry 2 and its newline
    fs.writeFileSync(file, damaged);
    const { session, report } = await Session.open(file);
    assert.deepEqual(session.entries().map((e) => e.id), [spans[0].id, third.id]);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [3]);
    assert.match(report.corruptLines[0].error, /11 bytes of it are zeros.*power cut.*1 complete entry on it was recovered/);
    await session.close();
  });

  it('zeros in place of a newline only: both entries on the merged line are recovered', async () => {
    const { file, full, spans } = await threeEntries();
    const damaged = Buffer.from(full);
    damaged[spans[0].end] = 0;
    fs.writeFileSync(file, damaged);
    const { session, report } = await Session.open(file);
    assert.deepEqual(session.entries().map((e) => e.id), spans.map((s) => s.id));
    assert.match(report.corruptLines[0].error, /2 complete entries on it were recovered/);
    await session.close();
  });

  it('a zeroed tail after the last newline is set aside; a zeroed final newline keeps the last entry', async () => {
    const { file, full, spans } = await threeEntries();
    fs.writeFileSync(file, Buffer.concat([full, Buffer.alloc(4096)]));
    const first = await Session.open(file);
    assert.equal(first.report.tornTail?.bytes, 4096);
    assert.deepEqual(fs.readFileSync(file), full);
    await first.session.close();

    const damaged = Buffer.from(full);
    damaged[damaged.length - 1] = 0; // the last "\n"
    fs.writeFileSync(file, damaged);
    const { session, report } = await Session.open(file);
    assert.equal(report.tornTail, undefined);
    assert.deepEqual(session.entries().map((e) => e.id), spans.map((s) => s.id));
    const added = await session.append(user('继续'));
    await session.close();
    const again = await Session.open(file);
    assert.deepEqual(again.session.entries().map((e) => e.id), [...spans.map((s) => s.id), added.id]);
    await again.session.close();
  });

  it('a zeroed header that swallowed its newline: the first entry is recovered and the header rebuilt', async () => {
    const { file, full, spans } = await threeEntries();
    const damaged = Buffer.from(full);
    damaged.fill(0, 5, spans[0].start);
    fs.writeFileSync(file, damaged);
    const { session, report } = await Session.open(file);
    assert.deepEqual(session.entries().map((e) => e.id), spans.map((s) => s.id));
    assert.ok(report.warnings.some((w) => w.includes('recovered header')));
    assert.equal(session.header.id, ID);
    await session.close();
  });
});
