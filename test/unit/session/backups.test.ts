// Session backups: safe names, copies once quiet and on close (never inside a turn), retention, restore.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { backupFileName, parseBackupFileName } from '../../../src/session/backups';
import { SessionError } from '../../../src/session/errors';
import { SessionLibrary, SessionLibraryOptions } from '../../../src/session/library';
import { safeTitle } from '../../../src/session/safe-name';
import { Session } from '../../../src/session/session';
import { IdleRunner } from '../../../src/session/idleRunner';
import { FakeClock, FakeTimers, assistant, eventually, removeTempDirs, tempDir, user } from './helpers';

function setup(options: SessionLibraryOptions = {}) {
  const root = tempDir();
  const clock = new FakeClock();
  const timers = new FakeTimers(clock);
  const warnings: string[] = [];
  const lib = new SessionLibrary(root, { clock, timers, pid: 1, isProcessAlive: () => true, onWarning: (w) => warnings.push(w), ...options });
  return { root, clock, timers, lib, warnings };
}

function backupNames(lib: SessionLibrary): string[] {
  return fs.existsSync(lib.backupsDir) ? fs.readdirSync(lib.backupsDir).filter((n) => !n.startsWith('.')).sort() : [];
}

function entryCount(file: string): number {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length - 1;
}

describe('session backups', function () {
  this.timeout(10000);
  afterEach(removeTempDirs);

  describe('file names', () => {
    it('are safe for any title: portable characters, capped length, a hash when the title is not ASCII', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 0, max: 4102444800000 }), (title, at) => {
          const name = backupFileName(title, '0123456789abcdef', at);
          assert.match(name, /^[A-Za-z0-9-]+_0123456789abcdef_\d{8}-\d{6}-\d{3}\.jsonl$/);
          assert.ok(name.length <= 100, name);
          assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(name));
          assert.deepEqual(parseBackupFileName(name), { sessionId: '0123456789abcdef', createdAt: at });
          if (/[^\x20-\x7e]/.test(title)) assert.match(safeTitle(title), /-[0-9a-f]{8}$/);
        }),
        { numRuns: 500 },
      );
    });

    it('keep ASCII titles readable and tell apart CJK titles', () => {
      assert.equal(safeTitle('The Long Night: part 2/3?'), 'The-Long-Night-part-2-3');
      assert.equal(safeTitle('...'), 'session');
      assert.equal(safeTitle('CON'), 'CON');
      assert.match(safeTitle('雨夜'), /^session-[0-9a-f]{8}$/);
      assert.notEqual(safeTitle('雨夜'), safeTitle('晴天'));
      assert.match(safeTitle('第3章 Rain'), /^3-Rain-[0-9a-f]{8}$/);
    });
  });

  describe('idle runner', () => {
    it('runs once triggers have stopped for the idle time, at most once per interval, never overlapping', async () => {
      const clock = new FakeClock(0);
      const timers = new FakeTimers(clock);
      const runs: number[] = [];
      let ended = 0;
      let release: () => void = () => undefined;
      const r = new IdleRunner({
        idleMs: 5000,
        minIntervalMs: 10_000,
        clock,
        timers,
        run: async () => {
          runs.push(clock.t);
          await new Promise<void>((done) => (release = done));
          ended++;
        },
        onError: () => undefined,
      });
      r.trigger();
      timers.advance(4000);
      r.trigger(); // a write inside the wait: the wait starts again
      timers.advance(4000);
      assert.deepEqual(runs, [], 'not while writes keep coming');
      timers.advance(1000);
      assert.deepEqual(runs, [9000], 'five quiet seconds after the last trigger');
      r.trigger();
      timers.advance(30_000); // the first run is still going: nothing new may start
      assert.deepEqual(runs, [9000]);
      release();
      await eventually(() => runs.length === 2);
      assert.deepEqual(runs, [9000, 39_000], 'the trigger during the run, once the run ended');
      release();
      await eventually(() => ended === 2);
      await new Promise((done) => setImmediate(done)); // the run's bookkeeping after it ended
      r.trigger();
      timers.advance(5000);
      assert.equal(runs.length, 2, 'quiet, but the interval since the last start has not passed');
      timers.advance(5000);
      assert.equal(runs.length, 3);
      release();
      r.trigger();
      const done = r.flush(); // close: runs it now, without waiting to be quiet
      await eventually(() => runs.length === 4);
      release();
      await done;
      assert.equal(timers.count, 0);
    });
  });

  it('copies a new session at once, then a session only once no write has come for 10 s, never inside a run of writes', async () => {
    const { lib, timers } = setup();
    const s = await lib.create('Rain');
    await eventually(() => backupNames(lib).length === 1); // the new session's header
    assert.match(backupNames(lib)[0], new RegExp(`^Rain_${s.header.id}_20250301-120000-000\\.jsonl$`));
    for (let i = 0; i < 6; i++) {
      timers.advance(3000); // a turn: writes a few seconds apart
      await s.append(i % 2 ? assistant(`甲${i}`) : user(`一${i}`));
    }
    assert.equal(backupNames(lib).length, 1, 'no copy while the turn writes');
    timers.advance(9000);
    assert.equal(backupNames(lib).length, 1);
    timers.advance(1000);
    await eventually(() => backupNames(lib).length === 2);
    const newest = path.join(lib.backupsDir, backupNames(lib)[1]);
    assert.equal(entryCount(newest), 6, 'the copy holds every write before the quiet');
    timers.advance(60_000);
    assert.equal(backupNames(lib).length, 2, 'no writes, no copies');
    await lib.dispose();
  });

  it('writes a pending copy when the session closes, and on dispose', async () => {
    const { lib, timers } = setup();
    const s = await lib.create('Rain');
    await eventually(() => backupNames(lib).length === 1);
    timers.advance(500);
    await s.append(user('最后一句'));
    await s.close();
    await eventually(() => backupNames(lib).length === 2);
    assert.equal(entryCount(path.join(lib.backupsDir, backupNames(lib)[1])), 1);
    const { session } = await lib.open(s.header.id);
    timers.advance(500);
    await session.append(user('再一句'));
    await lib.dispose();
    const names = backupNames(lib);
    assert.equal(names.length, 3);
    assert.equal(entryCount(path.join(lib.backupsDir, names[2])), 2);
  });

  it('copies, once quiet, a session opened with writes its newest backup lacks; not one it already has', async () => {
    const { lib, timers, root } = setup();
    const s = await lib.create('Rain');
    await s.append(user('一'));
    timers.advance(10_000);
    await eventually(() => backupNames(lib).length === 2);
    await lib.dispose();
    // A crash after more writes, before their copy.
    const later = new FakeClock(Date.UTC(2025, 2, 2));
    const laterTimers = new FakeTimers(later);
    const fresh = new SessionLibrary(root, { clock: later, timers: laterTimers, pid: 1, isProcessAlive: () => true });
    const { session } = await Session.open(s.file);
    await session.append(assistant('甲'));
    await session.close();
    await fresh.open(s.header.id);
    assert.equal(backupNames(fresh).length, 2, 'not at once: the novelist may be about to write');
    laterTimers.advance(10_000);
    await eventually(() => backupNames(fresh).length === 3);
    assert.equal(entryCount(path.join(fresh.backupsDir, backupNames(fresh)[2])), 2);
    await fresh.dispose();
    const again = new SessionLibrary(root, { clock: later, timers: laterTimers, pid: 1, isProcessAlive: () => true });
    await again.open(s.header.id);
    laterTimers.advance(10_000);
    await again.dispose();
    assert.equal(backupNames(again).length, 3, 'the newest backup already holds every line');
  });

  it('keeps the newest 50 per session, without one session evicting another', async () => {
    const { lib, timers } = setup();
    const busy = await lib.create('雨夜');
    const quiet = await lib.create('晴天');
    await eventually(() => backupNames(lib).length === 2);
    for (let i = 0; i < 55; i++) {
      await busy.append(user(`第${i}句`));
      timers.advance(10_000);
      await eventually(() => {
        const mine = backupNames(lib).filter((n) => n.includes(busy.header.id));
        return mine.length === Math.min(50, i + 2) && entryCount(path.join(lib.backupsDir, mine[mine.length - 1])) === i + 1;
      });
    }
    const mine = (await lib.backups(busy.header.id));
    assert.equal(mine.length, 50);
    assert.equal((await lib.backups(quiet.header.id)).length, 1);
    assert.equal(entryCount(mine[0].file), 55, 'newest first, and the newest survived');
    assert.equal(entryCount(mine[49].file), 6, 'the oldest five copies were deleted');
    assert.ok(mine.every((b) => b.title === '雨夜' && b.sessionId === busy.header.id && b.bytes > 0));
    assert.ok(mine[0].createdAt > mine[1].createdAt);
    await lib.dispose();
  });

  it('restores a backup as a new session, ids and leaf kept, nothing overwritten', async () => {
    const { lib, timers, clock } = setup();
    const s = await lib.create('雨夜');
    const u = await s.append(user('一'));
    const a = await s.append(assistant('甲'));
    await s.appendSide({ type: 'edit', targetId: a.id, text: '甲（改）' });
    await lib.rename(s.header.id, '雨夜·终稿');
    await s.navigate(u.id);
    timers.advance(10_000);
    await eventually(async () => (await lib.backups(s.header.id)).length === 2);
    const [latest] = await lib.backups(s.header.id);
    assert.equal(latest.title, '雨夜·终稿');
    const originalBytes = fs.readFileSync(s.file);

    clock.t = new Date(2025, 5, 7, 8, 9).getTime();
    const restored = await lib.restoreBackup(latest.file);
    assert.notEqual(restored.header.id, s.header.id);
    assert.equal(restored.title, '雨夜·终稿 (restored 2025-06-07 08:09)');
    assert.equal(restored.leafId, u.id);
    assert.deepEqual(restored.path(a.id).map((e) => e.id), [u.id, a.id]);
    assert.equal(restored.textOf(a.id), '甲（改）');
    assert.equal(restored.readOnly, false);
    await restored.append(user('接着写'));
    assert.deepEqual(fs.readFileSync(s.file), originalBytes);
    assert.equal((await lib.list()).length, 2);
    const reopened = await Session.open(restored.file, { readOnly: true });
    assert.deepEqual(reopened.report.warnings, []);
    assert.equal(reopened.session.title, restored.title);
    await reopened.session.close();

    const junk = path.join(lib.backupsDir, 'junk.jsonl');
    fs.writeFileSync(junk, 'hello\nworld\n');
    await assert.rejects(lib.restoreBackup(junk), (e: unknown) => e instanceof SessionError && e.code === 'invalid-backup');
    await assert.rejects(lib.restoreBackup(path.join(lib.backupsDir, 'gone.jsonl')), (e: unknown) => e instanceof SessionError && e.code === 'invalid-backup');
    await lib.dispose();
  });

  it('a failing backup is reported as a warning and never fails the write', async () => {
    const { lib, root, warnings } = setup();
    fs.mkdirSync(path.join(root, '.worldline'), { recursive: true });
    fs.writeFileSync(path.join(root, '.worldline', 'backups'), 'not a folder');
    const s = await lib.create('t');
    await s.append(user('一'));
    await eventually(() => warnings.length > 0);
    assert.match(warnings[0], /backup of session .* could not be written/);
    await lib.dispose();
  });
});
