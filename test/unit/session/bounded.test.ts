// Files no session should be: a 40 MB line, a file over the size limit, too many entries, a FIFO
// with a session's name. Each opens within bounded memory and time, or is refused with a message
// that says why and what to do; none is ever read into memory whole.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionError } from '../../../src/session/errors';
import { SessionLibrary } from '../../../src/session/library';
import { Session } from '../../../src/session/session';
import { SidecarError, readSidecar, sidecarPath, updateSidecar } from '../../../src/worldline/sidecar';
import { FakeClock, assistant, removeTempDirs, tempDir, user } from './helpers';

const ID = 'b16f11e5';
const BIG = 40 * 1024 * 1024;

async function sessionWith(n: number, dir = tempDir('wl-bounded-')): Promise<{ file: string; ids: string[] }> {
  const file = path.join(dir, `${ID}.jsonl`);
  const s = await Session.create(file, { id: ID, title: '巨' }, { clock: new FakeClock() });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await s.append(i % 2 ? assistant(`回复${i}`) : user(`指令${i}`))).id);
  await s.close();
  return { file, ids };
}

/** Appends `bytes` of one JSON-looking line (no newline inside), written in chunks. */
function appendHugeLine(file: string, bytes: number, newline: boolean): void {
  const fd = fs.openSync(file, 'a');
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  fs.writeSync(fd, '{"id":"huge","parentId":null,"type":"user","ts":"t","text":"');
  for (let left = bytes; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(left, chunk.length));
  if (newline) fs.writeSync(fd, '"}\n');
  fs.closeSync(fd);
}

/** Runs `work`, sampling JS heap + buffer memory; returns the peak growth in MB and the time taken. */
async function measure<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; ms: number }> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const base = used();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, used())), 2);
  const started = Date.now();
  try {
    const value = await work();
    peak = Math.max(peak, used());
    return { value, peakMb: (peak - base) / (1024 * 1024), ms: Date.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe('bounded loading', function () {
  this.timeout(60000);
  afterEach(removeTempDirs);

  it('a 40 MB last line without newline is set aside without ever being held whole', async () => {
    const { file, ids } = await sessionWith(3);
    const intact = fs.readFileSync(file);
    appendHugeLine(file, BIG, false);
    // With the default 16 MB line limit the reader holds at most that much of the line, never all 40 MB.
    const { value, peakMb, ms } = await measure(() => Session.open(file, { clock: new FakeClock() }));
    const { session, report } = value;
    assert.ok(peakMb < 28, `peak memory growth ${peakMb.toFixed(1)} MB`);
    assert.ok(ms < 10000, `took ${ms} ms`);
    console.log(`      40 MB torn line: peak growth ${peakMb.toFixed(1)} MB, ${ms} ms`);
    assert.deepEqual(session.path().map((e) => e.id), ids);
    assert.ok((report.tornTail?.bytes ?? 0) > BIG);
    assert.equal(fs.statSync(report.tornTail?.movedTo ?? '').size, report.tornTail?.bytes);
    assert.deepEqual(fs.readFileSync(file), intact);
    await session.append(user('继续'));
    await session.close();
  });

  it('a 40 MB line in the middle is reported as damaged and skipped unread; the entries after it load', async () => {
    const { file, ids } = await sessionWith(2);
    appendHugeLine(file, BIG, true);
    const tail = JSON.stringify({ id: 'after', parentId: ids[1], type: 'user', ts: 't', text: '之后' });
    fs.appendFileSync(file, `${tail}\n`);
    // A lower line limit shows the bound: memory grows by about the limit, not by the line.
    const { value, peakMb, ms } = await measure(() => Session.open(file, { readOnly: true, limits: { maxLineBytes: 1024 * 1024 } }));
    assert.ok(peakMb < 8, `peak memory growth ${peakMb.toFixed(1)} MB`);
    console.log(`      40 MB middle line, 1 MB line limit: peak growth ${peakMb.toFixed(1)} MB, ${ms} ms`);
    const { session, report } = value;
    assert.deepEqual(report.corruptLines.map((c) => c.line), [4]);
    assert.match(report.corruptLines[0].error, /it is 40 MB long, over the 1\.0 MB limit for one entry, so it was skipped without being read/);
    assert.deepEqual(session.path().map((e) => e.id), [...ids, 'after']);
    await session.close();
    const defaults = await Session.open(file, { readOnly: true });
    assert.match(defaults.report.corruptLines[0].error, /over the 16 MB limit/);
    assert.deepEqual(defaults.session.path().map((e) => e.id), [...ids, 'after']);
    await defaults.session.close();
  });

  it('a million damaged lines: the first 1,000 are listed, the rest counted, memory stays bounded', async () => {
    const { file, ids } = await sessionWith(2);
    fs.appendFileSync(file, 'x\n'.repeat(1_000_000));
    const { value, peakMb, ms } = await measure(() => Session.open(file, { readOnly: true }));
    const { session, report } = value;
    console.log(`      1,000,000 damaged lines: peak growth ${peakMb.toFixed(1)} MB, ${ms} ms`);
    assert.ok(peakMb < 64, `peak memory growth ${peakMb.toFixed(1)} MB`);
    assert.equal(report.corruptLines.length, 1001);
    assert.deepEqual(report.corruptLines[1000], { line: 1004, error: '999000 more damaged lines (lines 1004–1000003) were skipped too' });
    assert.ok(report.warnings.some((w) => w.startsWith('1000000 damaged lines were skipped')));
    assert.deepEqual(session.path().map((e) => e.id), ids);
    await session.close();
  });

  it('a file over the size limit is refused with a clear error and left untouched', async () => {
    const { file } = await sessionWith(40);
    const before = fs.readFileSync(file);
    const untouched = () => assert.deepEqual(fs.readFileSync(file), before);
    await assert.rejects(Session.open(file, { limits: { maxFileBytes: 1024 } }), (e: unknown) => {
      assert.ok(e instanceof SessionError && e.code === 'too-large');
      assert.match(e.message, /too large to open \(\d+ KB, over the 1 KB limit\)/);
      assert.match(e.message, /kept untouched.*Start a new session/);
      return true;
    });
    untouched();
    await assert.rejects(Session.open(file, { limits: { maxEntries: 10 } }), (e: unknown) => e instanceof SessionError && e.code === 'too-large' && /more than 10 entries/.test(e.message));
    untouched();
    fs.appendFileSync(file, '\n'.repeat(100));
    const grown = fs.readFileSync(file);
    await assert.rejects(Session.open(file, { limits: { maxLines: 100 } }), (e: unknown) => e instanceof SessionError && e.code === 'too-large' && /more than 100 lines/.test(e.message));
    assert.deepEqual(fs.readFileSync(file), grown);
  });

  it('the library lists an oversized session by its header and refuses to open it', async () => {
    const root = tempDir('wl-bounded-lib-');
    const made = new SessionLibrary(root, { clock: new FakeClock() });
    const s = await made.create('长篇');
    for (let i = 0; i < 30; i++) await s.append(user(`第${i}回`));
    await made.dispose();
    const lib = new SessionLibrary(root, { clock: new FakeClock(), limits: { maxFileBytes: 2048 } });
    const [summary] = await lib.list();
    assert.deepEqual([summary.id, summary.title, summary.tooLarge], [s.header.id, '长篇', true]);
    await assert.rejects(lib.open(s.header.id), (e: unknown) => e instanceof SessionError && e.code === 'too-large');
    await lib.dispose();
  });

  it('writes stay within the limits, so the file always opens again', async () => {
    const { file } = await sessionWith(2);
    const { session } = await Session.open(file, { limits: { maxLineBytes: 2048, maxFileBytes: 4096 } });
    const before = fs.readFileSync(file);
    await assert.rejects(session.append(user('长'.repeat(1000))), (e: unknown) => e instanceof SessionError && e.code === 'invalid-entry' && /over the 2 KB limit/.test(e.message));
    assert.deepEqual(fs.readFileSync(file), before);
    let refused: unknown;
    for (let i = 0; i < 100 && !refused; i++) await session.append(user(`短句${i}`)).catch((e: unknown) => (refused = e));
    assert.ok(refused instanceof SessionError && refused.code === 'too-large' && /Start a new session/.test(refused.message));
    assert.ok(fs.statSync(file).size <= 4096);
    await session.close();
    const again = await Session.open(file, { limits: { maxLineBytes: 2048, maxFileBytes: 4096 } });
    assert.deepEqual(again.report.corruptLines, []);
    await again.session.close();
  });

  it('a FIFO with a session name is refused at once instead of hanging the open', async function () {
    if (process.platform === 'win32') this.skip();
    const root = tempDir('wl-bounded-fifo-');
    const lib = new SessionLibrary(root, { clock: new FakeClock() });
    fs.mkdirSync(lib.sessionsDir, { recursive: true });
    const fifo = path.join(lib.sessionsDir, `${ID}.jsonl`);
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    await assert.rejects(Session.open(fifo), (e: unknown) => e instanceof SessionError && e.code === 'not-a-file');
    assert.deepEqual((await lib.list()).map((x) => [x.id, x.entries]), [[ID, 0]]);
    await assert.rejects(lib.open(ID), (e: unknown) => e instanceof SessionError && e.code === 'not-a-file');
    assert.ok(Date.now() - started < 2000);
    await lib.dispose();
  });

  it('bookkeeping files (lock, current session, worldline sidecar) that are FIFOs or huge never hang or fill memory', async function () {
    if (process.platform === 'win32') this.skip();
    const root = tempDir('wl-bounded-books-');
    fs.mkdirSync(path.join(root, '.worldline'), { recursive: true });
    execFileSync('mkfifo', [path.join(root, '.worldline', 'lock')]);
    execFileSync('mkfifo', [path.join(root, '.worldline', 'current-session.json')]);
    const started = Date.now();
    const lib = new SessionLibrary(root, { clock: new FakeClock(Date.now()) });
    assert.equal(await lib.acquireLock(), false, 'an unreadable lock is respected until it is old');
    assert.equal(await lib.lockOwner(), undefined);
    assert.equal(await lib.current(), undefined);
    await lib.dispose();

    const sidecar = sidecarPath(root);
    execFileSync('mkfifo', [sidecar]);
    assert.equal((await readSidecar(sidecar)).status, 'unreadable');
    fs.unlinkSync(sidecar);
    fs.writeFileSync(sidecar, Buffer.alloc(17 * 1024 * 1024, 0x20));
    const huge = await readSidecar(sidecar);
    assert.equal(huge.status, 'unreadable');
    assert.match(huge.problem ?? '', /over the 16 MB limit.*left untouched/);
    await assert.rejects(updateSidecar(sidecar, 's1', (c) => c), SidecarError);
    assert.equal(fs.statSync(sidecar).size, 17 * 1024 * 1024);
    assert.ok(Date.now() - started < 5000);
  });
});
