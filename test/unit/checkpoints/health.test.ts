// Missing git, damaged stores, stale locks, and rebuilding without touching the manuscript.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, ShadowRepo, isCheckpointProblem } from '../../../src/checkpoints';
import { cleanupTmp, DEFAULT_GLOBS, fingerprint, ok, openRepo, read, storeGit, tmpDir, write } from './helpers';

function storeDir(root: string): string {
  return path.join(root, '.worldline', 'checkpoints.git');
}

function objectPath(root: string, oid: string): string {
  return path.join(storeDir(root), 'objects', oid.slice(0, 2), oid.slice(2));
}

describe('checkpoints: health, damage and rebuild', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  function book(): string {
    const root = tmpDir();
    write(root, 'chapters/01.md', 'one\n');
    write(root, 'chapters/02.md', 'two\n');
    write(root, 'image.png', 'png');
    return root;
  }

  it('git missing: open says so clearly, no store is created, the manuscript is untouched', async () => {
    const root = book();
    const before = fingerprint(root);
    const r = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS, gitBinary: '/nonexistent/bin/git' });
    assert.ok(!(r instanceof ShadowRepo));
    assert.equal(r.kind, 'gitMissing');
    assert.match(r.message, /Git was not found/);
    assert.match(r.message, /writing is saved as usual/);
    assert.ok(!fs.existsSync(path.join(root, '.worldline')));
    assert.deepEqual(fingerprint(root), before);
    await assert.rejects(ShadowRepo.rebuild(root, { globs: DEFAULT_GLOBS, gitBinary: '/nonexistent/bin/git' }), (e: unknown) => e instanceof CheckpointError && e.kind === 'gitMissing');
  });

  it('a damaged HEAD commit is detected on open; rebuild moves the store aside and starts fresh from the manuscript', async () => {
    const root = book();
    let repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    fs.writeFileSync(objectPath(root, c1.commit), ''); // an empty object file, as after a crash
    const before = fingerprint(root);

    const r = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS });
    assert.ok(!(r instanceof ShadowRepo));
    assert.equal(r.kind, 'corrupt');
    assert.match(r.message, /Rebuild Checkpoints/);
    assert.match(r.message, /manuscript files are fine/);

    const rebuilt = await ShadowRepo.rebuild(root, { globs: DEFAULT_GLOBS });
    assert.ok(rebuilt.movedAside && /checkpoints\.broken-\d{8}T\d{6}Z?\.git$/.test(rebuilt.movedAside), rebuilt.movedAside);
    assert.ok(fs.existsSync(path.join(rebuilt.movedAside, 'objects')), 'the broken store is kept');
    assert.deepEqual(fingerprint(root), before, 'the manuscript was not touched');
    assert.deepEqual(await rebuilt.health(), { ok: true });
    assert.equal(storeGit(root, ['for-each-ref', '--format=%(refname)', 'refs/worldline/baseline']).split('\n').filter(Boolean).length, 1);
    write(root, 'chapters/01.md', 'one, later\n');
    const c2 = ok(await rebuilt.checkpoint('t2', 's'));
    assert.deepEqual(c2.changed, ['chapters/01.md']);
    // the old handle refuses to write into the new store
    const stale = await repo.checkpoint('t3', 's');
    assert.ok(isCheckpointProblem(stale) && stale.kind === 'closed');
    repo = rebuilt;
    await assert.rejects(repo.restore(c1.commit), (e: unknown) => e instanceof CheckpointError && e.kind === 'notFound' && /rebuilt/.test(e.message));
  });

  it('a missing object deeper in history is found by health()', async () => {
    const root = book();
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    write(root, 'chapters/02.md', 'two, edited\n');
    ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual(await repo.health(), { ok: true });
    const blob = storeGit(root, ['rev-parse', `${c1.ref}:chapters/02.md`]).trim();
    fs.renameSync(objectPath(root, blob), path.join(root, 'moved-away'));
    const h = await repo.health();
    assert.equal(h.ok, false);
    assert.ok(!h.ok && /missing blob/.test(h.problem) && /Rebuild Checkpoints/.test(h.problem), JSON.stringify(h));
  });

  it('a garbage HEAD and a deleted store are detected', async () => {
    const root = book();
    const repo = await openRepo(root);
    ok(await repo.checkpoint('t1', 's'));
    fs.writeFileSync(path.join(storeDir(root), 'HEAD'), 'garbage\n');
    const r = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS });
    assert.ok(!(r instanceof ShadowRepo) && r.kind === 'corrupt');
    fs.rmSync(storeDir(root), { recursive: true });
    const h = await repo.health();
    assert.ok(!h.ok && /missing/.test(h.problem));
    const c = await repo.checkpoint('t2', 's');
    assert.ok(isCheckpointProblem(c) && /missing/.test(c.message));
    assert.ok(!fs.existsSync(storeDir(root)), 'a handle never recreates a store behind the novelist\'s back');
  });

  it('a store deleted while the book was closed: the new store reports the session\'s checkpoints as lost, until a rebuild', async () => {
    const root = book();
    const old = await openRepo(root);
    const c1 = ok(await old.checkpoint('t1', 's'));
    write(root, 'chapters/02.md', 'two, edited\n');
    const c2 = ok(await old.checkpoint('t2', 's'));
    fs.rmSync(storeDir(root), { recursive: true });

    const repo = await openRepo(root);
    assert.equal(repo.created, true, 'open starts a new store');
    assert.deepEqual(await repo.health(), { ok: true }, 'nothing recorded: nothing is missing');
    const h = await repo.health([c1.commit, c2.commit, c2.commit]);
    assert.equal(h.ok, false);
    assert.ok(!h.ok && /was missing/.test(h.problem) && /the 2 checkpoints recorded/.test(h.problem) && /Rebuild Checkpoints/.test(h.problem), JSON.stringify(h));
    // the next start (the new store exists now) still tells
    const later = await openRepo(root);
    assert.equal(later.created, false);
    const c3 = ok(await later.checkpoint('t3', 's'));
    const h2 = await later.health([c1.commit, c2.commit, c3.commit]);
    assert.ok(!h2.ok && /does not hold 2 of the 3 checkpoints/.test(h2.problem), JSON.stringify(h2));
    assert.deepEqual(await later.health([c3.commit]), { ok: true });
    // after a rebuild the older checkpoints are expected to be gone (they are in the store kept aside)
    const rebuilt = await ShadowRepo.rebuild(root, { globs: DEFAULT_GLOBS });
    assert.deepEqual(await rebuilt.health([c1.commit, c2.commit, c3.commit]), { ok: true });
    assert.deepEqual(await (await openRepo(root)).health([c1.commit, c2.commit]), { ok: true });
  });

  it('a damaged index is kept aside and rebuilt; the checkpoint still succeeds', async () => {
    const root = book();
    const logs: string[] = [];
    const repo = await openRepo(root, { log: (m) => logs.push(m) });
    const c1 = ok(await repo.checkpoint('t1', 's'));
    fs.writeFileSync(path.join(storeDir(root), 'index'), 'not an index at all');
    write(root, 'chapters/02.md', 'two, edited\n');
    const c2 = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual(c2.changed, ['chapters/02.md']);
    assert.notEqual(c2.commit, c1.commit);
    assert.ok(fs.readdirSync(storeDir(root)).some((f) => f.startsWith('index.corrupt-')));
    assert.ok(logs.some((l) => /index was damaged/.test(l)));
  });

  it('a stale index.lock is moved aside; a fresh one reports "locked" without blocking the turn', async () => {
    const root = book();
    const repo = await openRepo(root, { staleLockMs: 60_000 });
    ok(await repo.checkpoint('t1', 's'));
    const lock = path.join(storeDir(root), 'index.lock');
    fs.writeFileSync(lock, '');
    write(root, 'chapters/01.md', 'edited\n');
    const busy = await repo.checkpoint('t2', 's');
    assert.ok(isCheckpointProblem(busy) && busy.kind === 'locked', JSON.stringify(busy));
    assert.match(busy.message, /try again/);
    const old = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(lock, old, old);
    const c3 = ok(await repo.checkpoint('t3', 's'));
    assert.deepEqual(c3.changed, ['chapters/01.md']);
    assert.ok(fs.readdirSync(storeDir(root)).some((f) => f.startsWith('index.lock.stale-')));
    assert.equal(read(root, 'chapters/01.md'), 'edited\n');
  });

  it('opening a book whose store is gone creates a new one and says so', async () => {
    const root = book();
    const first = await openRepo(root);
    assert.equal(first.created, true);
    const again = await openRepo(root);
    assert.equal(again.created, false);
  });
});
