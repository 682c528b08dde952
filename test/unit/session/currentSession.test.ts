// Which session a window is on: restore never creates files, opening closes the previous session,
// one listener per session, one tree event per change, read-only windows remember nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CurrentSession, type CurrentSessionEvents } from '../../../src/session/currentSession';
import { SessionLibrary, type LockOwner } from '../../../src/session/library';
import type { LoadReport, Session } from '../../../src/session/session';
import { FakeClock, assistant, removeTempDirs, tempDir, user } from './helpers';

class Recorder implements CurrentSessionEvents {
  readonly sessions: string[] = [];
  readonly trees: string[] = [];
  readonly loads: LoadReport[] = [];
  readonly readOnlyOwners: (LockOwner | undefined)[] = [];
  readonly warnings: string[] = [];
  sessionChanged(s: Session): void { this.sessions.push(s.header.id); }
  treeChanged(s: Session): void { this.trees.push(s.header.id); }
  loaded(_s: Session, report: LoadReport): void { this.loads.push(report); }
  readOnly(owner: LockOwner | undefined): void { this.readOnlyOwners.push(owner); }
  info(): void {}
  warn(m: string): void { this.warnings.push(m); }
}

function library(root: string, pid = 1234, limits?: { maxFileBytes: number }): SessionLibrary {
  return new SessionLibrary(root, { clock: new FakeClock(), pid, isProcessAlive: () => true, ...(limits ? { limits } : {}) });
}

const libs: SessionLibrary[] = [];
function lib(root: string, pid?: number, limits?: { maxFileBytes: number }): SessionLibrary {
  const l = library(root, pid, limits);
  libs.push(l);
  return l;
}

function touch(file: string, msAgo: number): void {
  const t = new Date(Date.now() - msAgo);
  fs.utimesSync(file, t, t);
}

describe('current session', () => {
  afterEach(async () => {
    for (const l of libs.splice(0)) await l.dispose();
    removeTempDirs();
  });

  it('restoring a novel without sessions creates nothing', async () => {
    const root = tempDir();
    const events = new Recorder();
    const current = new CurrentSession(lib(root), events);
    assert.equal(await current.restore(), undefined);
    assert.equal(current.session, undefined);
    assert.ok(!fs.existsSync(path.join(root, '.worldline')), 'no folder, no file');
    assert.deepEqual(events.sessions, []);
  });

  it('restores the remembered session, else the newest that is not too large', async () => {
    const root = tempDir();
    const maker = library(root);
    const old = await maker.create('old');
    const big = await maker.create('big');
    for (let i = 0; i < 30; i++) await big.append(user(`第${i}回，${'很长的一句话'.repeat(10)}`));
    const mid = await maker.create('mid');
    await maker.setCurrent(old.header.id);
    await maker.dispose();
    touch(old.file, 30_000);
    touch(mid.file, 20_000);
    touch(big.file, 10_000); // the newest, but over the limit below

    const firstLib = library(root, 1234, { maxFileBytes: 2048 });
    const remembered = new CurrentSession(firstLib, new Recorder());
    assert.equal((await remembered.restore())?.header.id, old.header.id, 'the remembered one');
    await remembered.close();
    await firstLib.dispose();

    fs.rmSync(path.join(root, '.worldline', 'current-session.json'), { force: true });
    const libs2 = lib(root, 1234, { maxFileBytes: 2048 });
    await libs2.setCurrent(big.header.id); // remembered, but too large to open
    const newest = new CurrentSession(libs2, new Recorder());
    assert.equal((await newest.restore())?.header.id, mid.header.id, 'the newest that can open');
    assert.equal(await libs2.current(), mid.header.id, 'and it is remembered now');
  });

  it('opening another session closes the previous one and makes the new one current', async () => {
    const root = tempDir();
    const l = lib(root);
    const events = new Recorder();
    const current = new CurrentSession(l, events);
    const a = await current.create('a');
    const b = await current.create('b');
    assert.equal(a.isClosed, true);
    assert.equal(current.session, b);
    assert.equal(await l.current(), b.header.id);
    const a2 = await current.open(a.header.id);
    assert.equal(b.isClosed, true);
    assert.equal(await l.current(), a.header.id);
    assert.deepEqual(events.sessions, [a.header.id, b.header.id, a2.header.id]);
    assert.equal(events.loads.length, 1);
  });

  it('one listener per session, however often it is opened: one tree event per change', async () => {
    const root = tempDir();
    const events = new Recorder();
    const current = new CurrentSession(lib(root), events);
    const s = await current.create('s');
    await current.open(s.header.id);
    await current.open(s.header.id);
    const u = await s.append(user('一'));
    const r = await s.append(assistant('甲'));
    assert.equal(events.trees.length, 2, 'one tree event per append');
    await s.navigate(u.id);
    assert.equal(events.trees.length, 3, 'one per navigation');
    await s.appendSide({ type: 'hide', targetId: u.id, hidden: true });
    assert.equal(events.trees.length, 4, 'one per side entry');
    assert.notEqual(r.id, u.id);
  });

  it('a read-only window warns once and does not remember its session as current', async () => {
    const root = tempDir();
    const owner = lib(root, 1234);
    const a = await owner.create('a');
    const b = await owner.create('b');
    await owner.setCurrent(a.header.id);
    const events = new Recorder();
    const viewer = new CurrentSession(lib(root, 999), events);
    const opened = await viewer.open(b.header.id);
    assert.equal(opened.readOnly, true);
    await viewer.open(a.header.id);
    assert.equal(events.readOnlyOwners.length, 1, 'warned once');
    assert.equal(events.readOnlyOwners[0]?.pid, 1234);
    assert.equal(JSON.parse(fs.readFileSync(path.join(root, '.worldline', 'current-session.json'), 'utf8')).sessionId, a.header.id, 'the file is the owner\'s');
  });

  it('ensure opens the remembered session, or creates one only when there is none', async () => {
    const root = tempDir();
    const firstLib = library(root);
    const first = new CurrentSession(firstLib, new Recorder());
    const made = await first.ensure('第一个会话');
    assert.equal(made.title, '第一个会话');
    assert.equal(await first.ensure('another'), made, 'the current one');
    await first.close();
    assert.equal(made.isClosed, true);
    await firstLib.dispose();
    const again = new CurrentSession(lib(root), new Recorder());
    assert.equal((await again.ensure('another')).header.id, made.header.id, 'restored, not created');
  });
});
