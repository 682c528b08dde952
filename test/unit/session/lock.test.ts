// The novel's write lock: one writing window, others read-only, dead owners taken over, atomic
// acquisition (in-process contenders and real concurrent processes).
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionError } from '../../../src/session/errors';
import { SessionLibrary } from '../../../src/session/library';
import { acquireLock, releaseLock } from '../../../src/session/lock';
import { FakeClock, removeTempDirs, tempDir, user } from './helpers';

const alive = () => true;
const LOCK_MODULE = path.resolve(__dirname, '../../../src/session/lock.js');

function lib(root: string, pid: number, isProcessAlive: (pid: number) => boolean = alive, host?: string): SessionLibrary {
  return new SessionLibrary(root, { pid, isProcessAlive, host, clock: new FakeClock(Date.now()) });
}

function lockFile(root: string): string {
  return path.join(root, '.worldline', 'lock');
}

function readLockJson(root: string): { pid: number; host: string; token: string; startedAt: string } {
  return JSON.parse(fs.readFileSync(lockFile(root), 'utf8'));
}

function isReadOnlyError(e: unknown): boolean {
  return e instanceof SessionError && e.code === 'read-only';
}

/** Runs `node -e code`: its first line of output, and its exit. */
function startNode(code: string): { firstLine: Promise<string>; exited: Promise<void> } {
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before answering: ${err}`)));
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child failed (${code}): ${err}`))));
  });
  return { firstLine, exited };
}

async function runNode(code: string): Promise<string> {
  const { firstLine, exited } = startNode(code);
  const line = await firstLine;
  await exited;
  return line;
}

describe('novel lock', function () {
  this.timeout(15000);
  afterEach(removeTempDirs);

  it('the first window writes; a second window opens read-only and is told who holds the lock', async () => {
    const root = tempDir();
    const first = lib(root, 1001);
    const s = await first.create('雨夜');
    await s.append(user('一'));
    assert.deepEqual(
      { pid: readLockJson(root).pid, self: (await first.lockOwner())?.thisWindow },
      { pid: 1001, self: true },
    );

    const second = lib(root, 2002);
    const { session } = await second.open(s.header.id);
    assert.equal(session.readOnly, true);
    assert.equal(session.path().length, 1);
    const owner = await second.lockOwner();
    assert.equal(owner?.pid, 1001);
    assert.equal(owner?.thisWindow, false);
    await assert.rejects(session.append(user('二')), (e: unknown) => isReadOnlyError(e) && /process 1001/.test((e as Error).message));
    await assert.rejects(session.navigate(null), isReadOnlyError);
    await assert.rejects(second.create('x'), isReadOnlyError);
    await assert.rejects(second.rename(s.header.id, 'x'), isReadOnlyError);
    assert.equal(await second.acquireLock(), false);

    await second.dispose();
    assert.equal(readLockJson(root).pid, 1001, 'a read-only window never removes the owner\'s lock');
    await first.dispose();
    assert.ok(!fs.existsSync(lockFile(root)), 'dispose releases the lock');
  });

  it('after the owner closes, the other window can take the lock and reopens writable', async () => {
    const root = tempDir();
    const first = lib(root, 1001);
    const id = (await first.create('t')).header.id;
    const second = lib(root, 2002);
    const ro = (await second.open(id)).session;
    assert.equal(ro.readOnly, true);
    await first.dispose();
    const rw = (await second.open(id)).session;
    assert.equal(rw.readOnly, false);
    assert.equal(ro.isClosed, true);
    await rw.append(user('接管'));
    assert.equal((await second.lockOwner())?.thisWindow, true);
    await second.dispose();
  });

  it('takes over a lock whose process is dead on this host', async () => {
    const root = tempDir();
    const crashed = lib(root, 1001);
    const crashedSession = await crashed.create('t'); // the library is not disposed: it "crashed"
    const id = crashedSession.header.id;
    const next = lib(root, 3003, (pid) => pid !== 1001);
    const { session } = await next.open(id);
    assert.equal(session.readOnly, false);
    assert.equal(readLockJson(root).pid, 3003);
    await next.dispose();
    await crashed.dispose(); // closes its file handle; the lock it names is no longer its own
    assert.equal(crashedSession.isClosed, true);
  });

  it('respects a lock from another computer even when that pid is dead here', async () => {
    const root = tempDir();
    const remote = lib(root, 1001, alive, 'other-machine');
    const id = (await remote.create('t')).header.id;
    const local = lib(root, 3003, () => false);
    const { session } = await local.open(id);
    assert.equal(session.readOnly, true);
    await assert.rejects(session.append(user('x')), (e: unknown) => isReadOnlyError(e) && /other-machine/.test((e as Error).message));
    await local.dispose();
    await remote.dispose();
  });

  it('a damaged lock file is respected while fresh and taken over once old', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    fs.writeFileSync(lockFile(root), '{"pid":');
    const library = lib(root, 4004);
    assert.equal(await library.acquireLock(), false);
    assert.equal(await library.lockOwner(), undefined);
    await assert.rejects(library.create('x'), (e: unknown) => isReadOnlyError(e) && /delete that file/.test((e as Error).message));
    const old = (Date.now() - 60_000) / 1000;
    fs.utimesSync(lockFile(root), old, old);
    assert.equal(await library.acquireLock(), true);
    assert.equal(readLockJson(root).pid, 4004);
    await library.dispose();
  });

  it('a lock naming this process but held by no live library here is stale (pid reuse)', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    fs.writeFileSync(lockFile(root), JSON.stringify({ pid: process.pid, host: os.hostname(), token: 'old', startedAt: '' }));
    const library = new SessionLibrary(root);
    assert.equal(await library.acquireLock(), true);
    // …but a second library in this same process does not steal a live one.
    const other = new SessionLibrary(root);
    assert.equal(await other.acquireLock(), false);
    await other.dispose();
    await library.dispose();
  });

  it('exactly one of many concurrent contenders in one process wins', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    const clock = new FakeClock(Date.now());
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => acquireLock(lockFile(root), { pid: 5000 + i, clock, isProcessAlive: alive })),
    );
    assert.equal(results.filter((r) => r.kind === 'owner').length, 1);
    const winner = results.find((r) => r.kind === 'owner');
    for (const r of results) if (r.kind === 'held') assert.equal(r.owner?.token, winner?.kind === 'owner' ? winner.info.token : '');
    if (winner?.kind === 'owner') await releaseLock(lockFile(root), winner.info.token);
  });

  it('a stale lock is taken over by exactly one of many contenders, round after round', async () => {
    // The race this guards: two contenders judge the same dead lock stale; one removes it and
    // creates its own; the other must not then remove that fresh lock.
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    const file = lockFile(root);
    const clock = new FakeClock(Date.now());
    const isAlive = (pid: number) => pid !== 999_999_999;
    for (let round = 0; round < 25; round++) {
      fs.writeFileSync(file, JSON.stringify({ pid: 999_999_999, host: os.hostname(), token: `dead${round}`, startedAt: '' }));
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => acquireLock(file, { pid: 6000 + i, clock, isProcessAlive: isAlive })),
      );
      const owners = results.filter((r) => r.kind === 'owner');
      assert.equal(owners.length, 1, `round ${round}`);
      const winner = owners[0];
      assert.equal(readLockJson(root).token, winner.kind === 'owner' ? winner.info.token : '');
      assert.deepEqual(fs.readdirSync(path.join(root, '.worldline')).sort(), ['lock'], 'no takeover or temp files left');
      fs.unlinkSync(file);
    }
  });

  it('a takeover left behind by a process that died in it is cleared once it is old', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    const file = lockFile(root);
    fs.writeFileSync(file, JSON.stringify({ pid: 999_999_999, host: os.hostname(), token: 'dead', startedAt: '' }));
    fs.writeFileSync(`${file}.takeover`, JSON.stringify({ pid: 999_999_998, host: os.hostname(), token: 'died', startedAt: '' }));
    const isAlive = (pid: number) => pid < 999_999_000;
    // Young: respected (someone may be mid-takeover), so this window stays read-only for now.
    const young = await acquireLock(file, { pid: 7001, clock: new FakeClock(Date.now()), isProcessAlive: isAlive });
    assert.equal(young.kind, 'held');
    // Old: cleared, and the dead lock is taken over.
    const later = new FakeClock(Date.now() + 60_000);
    const old = await acquireLock(file, { pid: 7002, clock: later, isProcessAlive: isAlive });
    assert.equal(old.kind, 'owner');
    assert.equal(fs.existsSync(`${file}.takeover`), false);
  });

  it('exactly one of several concurrent processes wins, and a stale lock is taken over by exactly one', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    const file = lockFile(root);
    // Each child waits for a common start time, contends, reports, and stays alive until every
    // child has answered, so none can mistake another for dead.
    const release = path.join(root, 'release');
    const child = (startAt: number) => `
      const fs = require('node:fs');
      const { acquireLock } = require(${JSON.stringify(LOCK_MODULE)});
      while (Date.now() < ${startAt}) {}
      acquireLock(${JSON.stringify(file)}, { pid: process.pid, clock: { now: Date.now }, isProcessAlive: (p) => { try { process.kill(p, 0); return true; } catch (e) { return e.code !== 'ESRCH'; } } })
        .then((r) => {
          console.log(r.kind);
          const wait = setInterval(() => { if (fs.existsSync(${JSON.stringify(release)})) { clearInterval(wait); process.exit(0); } }, 10);
        });`;
    for (const stale of [false, true]) {
      if (stale) fs.writeFileSync(file, JSON.stringify({ pid: 999_999_999, host: os.hostname(), token: 'dead', startedAt: '' }));
      const startAt = Date.now() + 400;
      const children = Array.from({ length: 4 }, () => startNode(child(startAt)));
      const outputs = await Promise.all(children.map((c) => c.firstLine));
      fs.writeFileSync(release, '');
      await Promise.all(children.map((c) => c.exited));
      fs.unlinkSync(release);
      assert.deepEqual(outputs.map((o) => o.trim()).sort(), ['held', 'held', 'held', 'owner'], `stale=${stale}`);
      fs.unlinkSync(file);
    }
  });

  it('takes over the lock of a real process that exited without releasing it', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    const out = await runNode(`
      const { acquireLock } = require(${JSON.stringify(LOCK_MODULE)});
      acquireLock(${JSON.stringify(lockFile(root))}, { pid: process.pid, clock: { now: Date.now }, isProcessAlive: () => true })
        .then((r) => { console.log(r.kind + ' ' + process.pid); process.exit(0); });`);
    const [kind, pid] = out.trim().split(' ');
    assert.equal(kind, 'owner');
    assert.equal(readLockJson(root).pid, Number(pid));
    const library = new SessionLibrary(root); // real pid, real liveness check
    assert.equal(await library.acquireLock(), true);
    assert.equal(readLockJson(root).pid, process.pid);
    await library.dispose();
  });
});
