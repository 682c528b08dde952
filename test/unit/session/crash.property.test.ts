// Property tests for crash safety: a session file cut at any byte offset, or with garbage lines
// inserted anywhere, loads every complete entry and stays appendable.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { ChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { FakeClock, assistant, entryLines, removeTempDirs, tempDir, tool, user } from './helpers';

type Op =
  | { kind: 'user' | 'assistant' | 'tool'; text: string }
  | { kind: 'edit' | 'hide' | 'label' | 'navigate'; pick: number };

const textArb = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('雨夜，青梧推门而入。', '“你来晚了。”她说。\n窗外雷声滚滚。', 'emoji 🌧️ and \\ "quotes"', '\u2028line\u2029sep'),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const), text: textArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('edit' as const, 'hide' as const, 'label' as const, 'navigate' as const), pick: fc.nat() }) },
);

/** Builds a session from random operations; returns the file and the entry ids in file order. */
async function build(ops: Op[]): Promise<{ file: string; headerBytes: number }> {
  const dir = tempDir('wl-crash-');
  const file = path.join(dir, 'cafe0001.jsonl');
  const s = await Session.create(file, { id: 'cafe0001', title: '断章' }, { clock: new FakeClock() });
  const headerBytes = fs.statSync(file).size;
  const chain: ChainEntry[] = [];
  for (const op of ops) {
    if ('text' in op) {
      if (op.kind === 'user') chain.push(await s.append(user(op.text)));
      else if (op.kind === 'assistant') chain.push(await s.append(assistant(op.text)));
      else chain.push(await s.append(tool('c1', op.text)));
    } else if (chain.length > 0) {
      const target = chain[op.pick % chain.length].id;
      if (op.kind === 'edit') await s.appendSide({ type: 'edit', targetId: target, text: `改${op.pick}` });
      else if (op.kind === 'hide') await s.appendSide({ type: 'hide', targetId: target, hidden: op.pick % 2 === 0 });
      else if (op.kind === 'label') await s.appendSide({ type: 'label', targetId: target, label: `标${op.pick}` });
      else await s.navigate(op.pick % 5 === 0 ? null : target);
    }
  }
  await s.close();
  return { file, headerBytes };
}


describe('crash safety (property tests)', function () {
  this.timeout(20000);
  afterEach(removeTempDirs);

  it('cut at any byte offset: every complete entry survives, the tail is set aside, appends work', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), fc.double({ min: 0, max: 1, noNaN: true }), async (ops, where) => {
        const { file, headerBytes } = await build(ops);
        const full = fs.readFileSync(file);
        // From "header without its newline" to the whole file.
        const cut = headerBytes - 1 + Math.floor(where * (full.length - headerBytes + 1));
        fs.truncateSync(file, cut);
        const lines = entryLines(full);
        const survivors = lines.filter((l) => l.end <= cut).map((l) => l.id);
        const torn = lines.find((l) => l.start < cut && cut < l.end);

        const { session, report } = await Session.open(file, { clock: new FakeClock() });
        assert.deepEqual(report.corruptLines, []);
        assert.deepEqual(session.entries().map((e) => e.id), survivors);
        if (torn) {
          assert.equal(report.tornTail?.bytes, cut - torn.start);
          assert.deepEqual(fs.readFileSync(report.tornTail?.movedTo ?? ''), full.subarray(torn.start, cut));
        } else {
          assert.equal(report.tornTail, undefined);
        }
        const leafBefore = session.leafId;
        const added = await session.append(user('after the crash'));
        assert.equal(added.parentId, leafBefore);
        await session.close();

        const again = await Session.open(file);
        assert.deepEqual(again.report.corruptLines, []);
        assert.equal(again.report.tornTail, undefined);
        assert.deepEqual(again.session.entries().map((e) => e.id), [...survivors, added.id]);
        assert.equal(again.session.leafId, added.id);
        await again.session.close();
      }),
      { numRuns: 150 },
    );
  });

  it('garbage lines anywhere after the header: each is reported by line number, the rest loads, appends work', async () => {
    const garbageArb = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 60 }).map((s) => Buffer.from(s, 'utf8')),
        fc.uint8Array({ minLength: 1, maxLength: 60 }).map((a) => Buffer.from(a)),
        fc.constantFrom('{}', '[]', 'null', '{"type":"user"}', '{"id":"x","parentId":null,"type":"leaf"}').map((s) => Buffer.from(s)),
      )
      .map((b) => Buffer.from(b.filter((byte) => byte !== 0x0a)))
      .filter((b) => b.toString('utf8').trim().length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 10 }),
        fc.array(fc.tuple(fc.nat(), garbageArb), { minLength: 1, maxLength: 5 }),
        async (ops, garbage) => {
          const { file } = await build(ops);
          const full = fs.readFileSync(file);
          const lines = entryLines(full);
          const header = full.subarray(0, full.indexOf(0x0a) + 1);
          // Insert each garbage line before entry line k (k = lines.length: at the end).
          const out: Buffer[] = [header];
          const expectedCorrupt: number[] = [];
          const inserts = garbage.map(([k, g]) => [k % (lines.length + 1), g] as const).sort((a, b) => a[0] - b[0]);
          let lineNo = 1;
          let g = 0;
          for (let i = 0; i <= lines.length; i++) {
            while (g < inserts.length && inserts[g][0] === i) {
              out.push(inserts[g][1], Buffer.from('\n'));
              expectedCorrupt.push(++lineNo);
              g++;
            }
            if (i < lines.length) {
              out.push(full.subarray(lines[i].start, lines[i].end + 1));
              lineNo++;
            }
          }
          fs.writeFileSync(file, Buffer.concat(out));

          const { session, report } = await Session.open(file);
          assert.deepEqual(report.corruptLines.map((c) => c.line), expectedCorrupt);
          assert.equal(report.tornTail, undefined);
          assert.deepEqual(session.entries().map((e) => e.id), lines.map((l) => l.id));
          const added = await session.append(assistant('续'));
          await session.close();
          const again = await Session.open(file);
          assert.deepEqual(again.report.corruptLines.map((c) => c.line), expectedCorrupt);
          assert.deepEqual(again.session.entries().map((e) => e.id), [...lines.map((l) => l.id), added.id]);
          await again.session.close();
        },
      ),
      { numRuns: 120 },
    );
  });
});
