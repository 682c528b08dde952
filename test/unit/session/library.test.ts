// Several sessions per novel: create, list, open, rename, current.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionError } from '../../../src/session/errors';
import { SessionLibrary } from '../../../src/session/library';
import { FakeClock, assistant, removeTempDirs, tempDir, user } from './helpers';

function library(root: string, clock = new FakeClock()): SessionLibrary {
  return new SessionLibrary(root, { clock, pid: 1234, isProcessAlive: () => true });
}

function hasCode(code: string) {
  return (e: unknown) => e instanceof SessionError && e.code === code;
}

describe('session library', () => {
  afterEach(removeTempDirs);

  it('lists nothing, and creates nothing, in a novel without sessions', async () => {
    const root = tempDir();
    const lib = library(root);
    assert.deepEqual(await lib.list(), []);
    assert.equal(await lib.current(), undefined);
    assert.deepEqual(await lib.backups(), []);
    assert.ok(!fs.existsSync(path.join(root, '.worldline')));
    await lib.dispose();
  });

  it('creates sessions as .worldline/sessions/<id>.jsonl and lists them, most recent first', async () => {
    const root = tempDir();
    const clock = new FakeClock();
    const lib = library(root, clock);
    const a = await lib.create('  第一卷  ');
    await a.append(user('一'));
    await a.append(assistant('甲'));
    clock.t += 60_000;
    const b = await lib.create('Volume Two');
    assert.match(a.header.id, /^[0-9a-f]{16}$/);
    assert.equal(a.file, path.join(root, '.worldline', 'sessions', `${a.header.id}.jsonl`));
    assert.equal(a.title, '第一卷');
    const old = (Date.now() - 3600_000) / 1000;
    fs.utimesSync(a.file, old, old);
    const list = await lib.list();
    assert.deepEqual(
      list.map(({ id, title, entries }) => ({ id, title, entries })),
      [
        { id: b.header.id, title: 'Volume Two', entries: 0 },
        { id: a.header.id, title: '第一卷', entries: 2 },
      ],
    );
    assert.equal(list[1].createdAt, new Date(Date.UTC(2025, 2, 1, 12)).toISOString());
    assert.ok(list[0].modified > list[1].modified);
    await assert.rejects(lib.create('  \n '), hasCode('invalid-name'));
    await lib.dispose();
  });

  it('lists closed sessions from the file (title labels included) and skips side files', async () => {
    const root = tempDir();
    const lib = library(root);
    const s = await lib.create('旧名');
    const id = s.header.id;
    await s.append(user('一'));
    await s.appendSide({ type: 'label', targetId: id, label: '新名' });
    await s.appendSide({ type: 'label', targetId: s.leafId as string, label: 'not the title' });
    await s.close();
    fs.writeFileSync(path.join(lib.sessionsDir, `${id}.torn-20250301-000000-000.jsonl`), '{"x');
    const fresh = library(root);
    assert.deepEqual((await fresh.list()).map((x) => [x.id, x.title, x.entries]), [[id, '新名', 3]]);
    await fresh.dispose();
    await lib.dispose();
  });

  it('open returns the same session while it is open, and a fresh one after close', async () => {
    const root = tempDir();
    const lib = library(root);
    const s = await lib.create('t');
    const again = await lib.open(s.header.id);
    assert.equal(again.session, s);
    await s.close();
    const reopened = await lib.open(s.header.id);
    assert.notEqual(reopened.session, s);
    assert.deepEqual(reopened.report, { warnings: [], corruptLines: [] });
    const [x, y] = await Promise.all([lib.open(s.header.id), lib.open(s.header.id)]);
    assert.equal(x.session, y.session);
    await assert.rejects(lib.open('../../etc/passwd'), hasCode('invalid-name'));
    await assert.rejects(lib.open('0000000000000000'), hasCode('not-found'));
    await lib.dispose();
  });

  it('renames open and closed sessions by a title label', async () => {
    const root = tempDir();
    const lib = library(root);
    const open = await lib.create('A');
    const closed = await lib.create('B');
    await closed.close();
    const seen: string[] = [];
    open.onDidChange(() => seen.push(open.title));
    await lib.rename(open.header.id, '甲卷');
    await lib.rename(closed.header.id, 'B: the return');
    assert.deepEqual(seen, ['甲卷']);
    const titles = new Map((await lib.list()).map((x) => [x.id, x.title]));
    assert.equal(titles.get(open.header.id), '甲卷');
    assert.equal(titles.get(closed.header.id), 'B: the return');
    await assert.rejects(lib.rename(open.header.id, ''), hasCode('invalid-name'));
    await lib.dispose();
  });

  it('remembers the current session in a small JSON file, written atomically', async () => {
    const root = tempDir();
    const lib = library(root);
    const s = await lib.create('t');
    assert.equal(await lib.current(), undefined);
    await lib.setCurrent(s.header.id);
    assert.equal(await lib.current(), s.header.id);
    const file = path.join(root, '.worldline', 'current-session.json');
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { sessionId: s.header.id });
    assert.deepEqual(fs.readdirSync(path.join(root, '.worldline')).filter((n) => n.endsWith('.tmp')), []);
    const other = library(root);
    assert.equal(await other.current(), s.header.id);
    fs.writeFileSync(file, '{broken');
    assert.equal(await other.current(), undefined);
    await lib.setCurrent(s.header.id);
    fs.unlinkSync(s.file);
    assert.equal(await other.current(), undefined, 'a deleted session is not current');
    await other.dispose();
    await lib.dispose();
  });

  it('a read-only window remembers its current session in memory only', async () => {
    const root = tempDir();
    const owner = library(root);
    const a = await owner.create('a');
    const b = await owner.create('b');
    await owner.setCurrent(a.header.id);
    const viewer = new SessionLibrary(root, { pid: 999, isProcessAlive: () => true });
    await viewer.setCurrent(b.header.id);
    assert.equal(await viewer.current(), b.header.id);
    assert.equal(await owner.current(), a.header.id);
    await viewer.dispose();
    await owner.dispose();
  });

  it('dispose closes open sessions and refuses further use', async () => {
    const root = tempDir();
    const lib = library(root);
    const s = await lib.create('t');
    await lib.dispose();
    assert.equal(s.isClosed, true);
    await assert.rejects(lib.open(s.header.id), hasCode('closed'));
  });
});
