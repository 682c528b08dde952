// The store staging from the change feed: what runs git and what does not, the safety nets (the
// walk at open, when idle, on 'all'), and the long-lived git processes (started again after they
// die, stopped on close). The property test (dirtySet.property.test.ts) checks the results
// against a full walk; these check the costs and the edges.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isCheckpointProblem, type ShadowRepo } from '../../../src/checkpoints';
import { GitRunner } from '../../../src/checkpoints/gitRunner';
import { storePaths } from '../../../src/checkpoints/store';
import { ManuscriptChanges } from '../../../src/project/manuscriptChanges';
import { cleanupTmp, filesAt, ok, openRepo, remove, storeGit, tmpDir, write } from './helpers';

describe('checkpoints: the dirty set', function () {
  this.timeout(30_000);
  const opened: ShadowRepo[] = [];
  afterEach(() => {
    while (opened.length) opened.pop()?.close();
    cleanupTmp();
  });

  /** A book of `n` chapters whose store stages from a feed; `spawned` lists the git processes started since the last `take()`. */
  async function fedBook(n = 5, extra: Parameters<typeof openRepo>[1] = {}) {
    const root = tmpDir('wl-dirty-');
    for (let i = 1; i <= n; i++) write(root, `chapters/${String(i).padStart(2, '0')}.md`, `第${i}章\n`);
    const changes = new ManuscriptChanges();
    const started: string[] = [];
    const repo = await openRepo(root, { changes, idleWalkMs: 0, onSpawn: (args) => started.push(args.join(' ')), ...extra });
    opened.push(repo);
    return { root, changes, repo, take: () => started.splice(0) };
  }

  it('a turn stages only the files reported changed: two git processes, no walk; the changed list is those files', async () => {
    const { root, changes, repo, take } = await fedBook();
    const first = ok(await repo.checkpoint('t1', 's'));
    assert.equal(first.changed.length, 5);
    assert.ok(take().some((c) => c.startsWith('ls-files') && c.includes('-m')), 'the first checkpoint walks the book');
    write(root, 'chapters/02.md', '第二章，改过\n');
    changes.changed(['chapters/02.md']);
    const second = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual(second.changed, ['chapters/02.md']);
    const processes = take().filter((c) => !/^(hash-object|update-ref|cat-file) .*--stdin|--batch/.test(c));
    assert.deepEqual(processes, ['update-index -z --index-info', 'write-tree'], 'no walk, no ls-files, no diff-tree, no commit-tree');
    assert.equal(filesAt(root, second.commit)['chapters/02.md'], '第二章，改过\n');
  });

  it('with nothing reported changed, the check before an instruction runs no git at all', async () => {
    const { root, changes, repo, take } = await fedBook();
    const first = ok(await repo.checkpoint('t1', 's'));
    take();
    assert.equal(await repo.checkpointIfChanged('before-1', 's', first.commit), null);
    assert.deepEqual(take(), [], 'not one git process');
    // The watcher's echo of a write already checkpointed: git reads the file once (a long-lived
    // process, already running), finds it unchanged, and nothing else runs.
    write(root, 'chapters/01.md', '第一章，改过\n');
    changes.changed(['chapters/01.md']);
    const second = ok(await repo.checkpoint('t2', 's'));
    take();
    changes.changed(['chapters/01.md']);
    assert.equal(await repo.checkpointIfChanged('before-2', 's', second.commit), null);
    assert.deepEqual(take(), [], 'the echo costs no process start');
  });

  it('a change the feed never heard of is missed, and the walk when idle (or at open) brings it in', async () => {
    const { root, changes, repo } = await fedBook(3, { idleWalkMs: 150 });
    const first = ok(await repo.checkpoint('t1', 's'));
    write(root, 'chapters/03.md', 'edited by another program, its event lost\n');
    assert.equal(await repo.checkpointIfChanged('before-1', 's', first.commit), null, 'not reported: not seen yet');
    await new Promise((r) => setTimeout(r, 600)); // the store is idle: its walk runs
    const found = await repo.checkpointIfChanged('before-2', 's', first.commit);
    assert.ok(found && !isCheckpointProblem(found), 'the idle walk found it');
    assert.deepEqual(found.changed, ['chapters/03.md']);
    // prepare() is the same walk, on demand: a deleted file nobody reported is dropped.
    remove(root, 'chapters/02.md');
    const prepared = await repo.prepare();
    assert.deepEqual(prepared, { files: 2, changed: 1 });
    assert.deepEqual(ok(await repo.checkpoint('t2', 's')).changed, ['chapters/02.md']);
    // 'all' from the feed (a watcher overflow) walks the book at the next checkpoint.
    write(root, 'chapters/01.md', 'also unreported\n');
    changes.everything();
    assert.deepEqual(ok(await repo.checkpoint('t3', 's')).changed, ['chapters/01.md']);
  });

  it('the first checkpoint of a book runs at prepare(): the checkpoint after it only commits', async () => {
    const { repo, take } = await fedBook(30);
    take();
    assert.deepEqual(await repo.prepare(), { files: 30, changed: 30 });
    const walk = take();
    assert.ok(walk.some((c) => c.startsWith('update-index -z --add')) && walk.includes('write-tree'), walk.join('\n'));
    const first = ok(await repo.checkpoint('t1', 's'));
    assert.equal(first.changed.length, 30, 'the first checkpoint still records every file as new');
    assert.deepEqual(take().filter((c) => !/--stdin|--batch/.test(c)), [], 'no walk, no update-index, no write-tree: the tree was written at prepare');
  });

  it('paths are taken as the walk names them; what is not manuscript, or outside, is left alone', async () => {
    const { root, changes, repo } = await fedBook(2);
    ok(await repo.checkpoint('t1', 's'));
    write(root, 'chapters/new.md', 'new\n');
    write(root, 'notes.json', '{}');
    write(root, 'nested/.git/HEAD', 'ref: refs/heads/main\n');
    write(root, 'nested/ch.md', 'inside a nested repo\n');
    changes.changed(['./chapters/new.md', 'chapters//01.md', '../outside.md', '/etc/passwd.md', 'notes.json', '.worldline/x.md', 'nested/.git/HEAD', 'nested']);
    const r = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual(r.changed, ['chapters/new.md', 'nested/ch.md']);
    // A folder renamed: the watcher tells of the two folders only.
    fs.renameSync(path.join(root, 'chapters'), path.join(root, 'part one'));
    changes.changed(['chapters', 'part one']);
    const moved = ok(await repo.checkpoint('t3', 's'));
    assert.deepEqual(Object.keys(filesAt(root, moved.commit)).sort(), ['nested/ch.md', 'part one/01.md', 'part one/02.md', 'part one/new.md']);
  });

  it('a file swapped for a symlink, and a folder swapped for a link to one outside, are taken out, never followed', async () => {
    const { root, changes, repo } = await fedBook(2);
    const outside = tmpDir('wl-dirty-out-');
    write(outside, 'secret.md', 'outside\n');
    write(outside, 'dir/o.md', 'outside too\n');
    write(root, 'part/a.md', 'a\n');
    changes.changed(['part/a.md']);
    ok(await repo.checkpoint('t1', 's'));
    remove(root, 'chapters/01.md');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'chapters', '01.md'));
    fs.rmSync(path.join(root, 'part'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'part'));
    changes.changed(['chapters/01.md', 'part', 'part/o.md']);
    const r = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual([...r.changed].sort(), ['chapters/01.md', 'part/a.md']);
    assert.deepEqual(Object.keys(filesAt(root, r.commit)), ['chapters/02.md']);
  });

  it('more files than allowed is refused from the dirty set too', async () => {
    const { root, changes, repo } = await fedBook(3, { maxFiles: 4 });
    ok(await repo.checkpoint('t1', 's'));
    write(root, 'chapters/04.md', '4\n');
    write(root, 'chapters/05.md', '5\n');
    changes.changed(['chapters/04.md', 'chapters/05.md']);
    const r = await repo.checkpoint('t2', 's');
    assert.ok(isCheckpointProblem(r) && r.kind === 'tooManyFiles', JSON.stringify(r));
  });

  it('a damaged index is rebuilt and the checkpoint still holds the reported change', async () => {
    const { root, changes, repo } = await fedBook(3);
    ok(await repo.checkpoint('t1', 's'));
    fs.writeFileSync(path.join(root, '.worldline', 'checkpoints.git', 'index'), 'DIRC garbage');
    write(root, 'chapters/02.md', 'after the damage\n');
    changes.changed(['chapters/02.md']);
    const r = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual(r.changed, ['chapters/02.md']);
    assert.equal(filesAt(root, r.commit)['chapters/02.md'], 'after the damage\n');
    assert.ok(fs.readdirSync(path.join(root, '.worldline', 'checkpoints.git')).some((f) => f.startsWith('index.corrupt-')), 'the damaged index is kept aside');
  });

  it('a restore keeps the index known: the next checkpoint of the restored state runs no git', async () => {
    const { root, changes, repo, take } = await fedBook(3);
    const a = ok(await repo.checkpoint('t1', 's'));
    write(root, 'chapters/01.md', 'later\n');
    remove(root, 'chapters/03.md');
    changes.changed(['chapters/01.md', 'chapters/03.md']);
    ok(await repo.checkpoint('t2', 's'));
    const restored = await repo.restore(a.commit);
    assert.deepEqual([...restored.written].sort(), ['chapters/01.md', 'chapters/03.md']);
    changes.changed([...restored.written, ...restored.deleted]); // as the Story reports them
    take();
    const again = ok(await repo.checkpoint('t3', 's'));
    assert.equal(again.commit, a.commit);
    assert.deepEqual(take().filter((c) => !/--stdin|--batch/.test(c)), []);
  });

  it('a long-lived git process that dies (a failed ref transaction ends it) is started again; close() stops them all', async function () {
    if (process.platform === 'win32') this.skip(); // lists child processes with ps
    const root = tmpDir('wl-pipe-');
    write(root, 'a.md', 'a\n');
    const repo = await openRepo(root);
    opened.push(repo);
    const c = ok(await repo.checkpoint('t1', 's')).commit;
    const runner = new GitRunner(storePaths(root));
    await runner.updateRefs([{ ref: 'refs/worldline/test/x', commit: c, create: true }]);
    await assert.rejects(runner.updateRefs([{ ref: 'refs/worldline/test/x', commit: c, create: true }]), /already exists/);
    await runner.updateRefs([{ ref: 'refs/worldline/test/y', commit: c, create: true }]);
    assert.equal(storeGit(root, ['rev-parse', 'refs/worldline/test/y']).trim(), c);
    const blobs = await runner.hashFiles(['a.md']);
    assert.deepEqual(await runner.readBlobs(blobs), [Buffer.from('a\n')]);
    // This store's processes (other tests' stores may still have theirs, until they idle out).
    const listing = () => execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(root) && /git .*(update-ref|hash-object|cat-file)/.test(l));
    const children = () => listing().map((l) => l.trim().replace(/^\d+\s+/, ''));
    assert.ok(children().length >= 3, children().join('\n'));
    // Killed between two requests (by a tool, or the system): the next request starts it again.
    const hasher = listing().find((l) => / hash-object -w /.test(l));
    assert.ok(hasher);
    process.kill(Number(hasher.trim().split(/\s+/)[0]), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await runner.hashFiles(['a.md']), blobs);
    runner.close();
    repo.close();
    for (let i = 0; i < 50 && children().length > 0; i++) await new Promise((r) => setTimeout(r, 40));
    assert.deepEqual(children(), []);
  });
});
