import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, isCheckpointProblem } from '../../../src/checkpoints';
import { cleanupTmp, filesAt, fingerprint, manuscript, ok, openRepo, read, remove, storeGit, tmpDir, write } from './helpers';

describe('checkpoints: checkpoint, restore, undo', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  function book(): string {
    const root = tmpDir();
    write(root, 'worldline.yaml', 'title: t\n');
    write(root, 'chapters/01.md', '第一章\n雨夜。\n');
    write(root, 'chapters/02.md', '第二章\n');
    write(root, 'notes.txt', 'notes\n');
    write(root, 'cover.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    write(root, '.worldline/sessions/s1.jsonl', '{"type":"session"}\n');
    return root;
  }

  it('the first checkpoint records every manuscript file and nothing else', async () => {
    const root = book();
    const repo = await openRepo(root);
    assert.equal(repo.created, true);
    const r = ok(await repo.checkpoint('t1', 's1'));
    assert.match(r.ref, /^refs\/worldline\/turns\/s1\/t1\.\d+$/);
    assert.deepEqual([...r.changed].sort(), ['chapters/01.md', 'chapters/02.md', 'notes.txt']);
    assert.deepEqual(Object.keys(filesAt(root, r.commit)).sort(), ['chapters/01.md', 'chapters/02.md', 'notes.txt']);
  });

  it('later checkpoints list only what changed; no change reuses the commit but still writes the ref', async () => {
    const root = book();
    const repo = await openRepo(root);
    const r1 = ok(await repo.checkpoint('t1', 's1'));
    write(root, 'chapters/02.md', '第二章\n她推开门。\n');
    const r2 = ok(await repo.checkpoint('t2', 's1'));
    assert.notEqual(r2.commit, r1.commit);
    assert.deepEqual(r2.changed, ['chapters/02.md']);
    const r3 = ok(await repo.checkpoint('t3', 's1'));
    assert.equal(r3.commit, r2.commit);
    assert.deepEqual(r3.changed, []);
    assert.equal(storeGit(root, ['rev-parse', r3.ref]).trim(), r2.commit);
    assert.notEqual(r3.ref, r2.ref);
    // a touched but identical file is not a change
    const f = path.join(root, 'chapters', '01.md');
    fs.utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const r4 = ok(await repo.checkpoint('t4', 's1'));
    assert.equal(r4.commit, r2.commit);
    remove(root, 'chapters/01.md');
    write(root, 'chapters/03.md', 'new\n');
    const r5 = ok(await repo.checkpoint('t5', 's1'));
    assert.deepEqual([...r5.changed].sort(), ['chapters/01.md', 'chapters/03.md']);
  });

  it('restore brings the manuscript back, removes later chapters, and never touches other files', async () => {
    const root = book();
    const repo = await openRepo(root);
    const r1 = ok(await repo.checkpoint('t1', 's1'));
    const before = manuscript(root);
    write(root, 'chapters/01.md', '改写过的第一章\n');
    write(root, 'chapters/part2/03.md', '后来的一章\n');
    remove(root, 'chapters/02.md');
    write(root, 'notes.json', '{"x":1}');
    ok(await repo.checkpoint('t2', 's1'));
    write(root, 'chapters/01.md', '还没存的修改\n'); // edited after the last checkpoint
    const others = [...fingerprint(root)].filter(([p]) => !/\.(md|txt)$/.test(p));

    const res = await repo.restore(r1.commit);
    assert.deepEqual(manuscript(root), before);
    assert.deepEqual(res.written.sort(), ['chapters/01.md', 'chapters/02.md']);
    assert.deepEqual(res.deleted, ['chapters/part2/03.md']);
    assert.ok(!fs.existsSync(path.join(root, 'chapters', 'part2')), 'the folder emptied by the restore is gone');
    for (const [p, h] of others) assert.equal(fingerprint(root).get(p), h, `${p} untouched`);
    assert.equal(read(root, '.worldline/sessions/s1.jsonl'), '{"type":"session"}\n');
    // the safety checkpoint holds the unsaved edit
    assert.match(res.safety.ref, /^refs\/worldline\/safety\/\d+$/);
    assert.equal(filesAt(root, res.safety.commit)['chapters/01.md'], '还没存的修改\n');
    // the next turn is measured against the restored checkpoint
    const r3 = ok(await repo.checkpoint('t3', 's1'));
    assert.equal(r3.commit, r1.commit);
    assert.deepEqual(r3.changed, []);
  });

  it('undo last restore returns to the manuscript from just before the restore, as a stack', async () => {
    const root = book();
    const repo = await openRepo(root);
    const a = ok(await repo.checkpoint('t1', 's1'));
    write(root, 'chapters/01.md', 'B\n');
    const b = ok(await repo.checkpoint('t2', 's1'));
    write(root, 'chapters/01.md', 'C (unsaved)\n');
    const vC = manuscript(root);
    await repo.restore(a.commit);
    write(root, 'chapters/new.md', 'written after the first restore\n');
    const vD = manuscript(root);
    await repo.restore(b.commit);
    assert.equal(read(root, 'chapters/01.md'), 'B\n');
    assert.equal(read(root, 'chapters/new.md'), undefined);

    const u1 = await repo.undoLastRestore();
    assert.ok(u1);
    assert.deepEqual(manuscript(root), vD);
    const u2 = await repo.undoLastRestore();
    assert.ok(u2);
    assert.deepEqual(manuscript(root), vC);
    assert.equal(await repo.undoLastRestore(), undefined);
  });

  it('a turn checkpointed again (Regenerate) gets a ref of its own; the first variant keeps its ref and commit', async () => {
    const root = book();
    const repo = await openRepo(root);
    const before = ok(await repo.checkpoint('before-1', 's1'));
    write(root, 'chapters/02.md', 'first variant\n');
    const v1 = ok(await repo.checkpoint('u1', 's1'));
    await repo.restore(before.commit, { undoable: false });
    write(root, 'chapters/02.md', 'second variant\n');
    const v2 = ok(await repo.checkpoint('u1', 's1'));
    assert.notEqual(v2.ref, v1.ref);
    assert.equal(storeGit(root, ['rev-parse', v1.ref]).trim(), v1.commit);
    assert.equal(storeGit(root, ['rev-parse', v2.ref]).trim(), v2.commit);
    assert.equal(filesAt(root, v1.ref)['chapters/02.md'], 'first variant\n');
    assert.equal(filesAt(root, v2.ref)['chapters/02.md'], 'second variant\n');
    assert.equal(storeGit(root, ['for-each-ref', 'refs/worldline/turns/s1']).trim().split('\n').length, 3);
  });

  it('checkpointIfChanged writes a ref only when the manuscript moved since the given checkpoint (or the last one)', async () => {
    const root = book();
    const repo = await openRepo(root);
    const turnRefs = () => storeGit(root, ['for-each-ref', '--format=%(refname)', 'refs/worldline/turns']).split('\n').filter(Boolean);
    const first = await repo.checkpointIfChanged('before-a', 's1', undefined);
    assert.ok(first && !isCheckpointProblem(first), 'the first checkpoint of a new store is recorded');
    assert.equal(await repo.checkpointIfChanged('before-b', 's1', first.commit), null);
    assert.equal(await repo.checkpointIfChanged('before-c', 's1', undefined), null, 'nothing changed since the last checkpoint');
    assert.deepEqual(turnRefs(), [first.ref]);
    write(root, 'chapters/01.md', 'edited by hand\n');
    const moved = await repo.checkpointIfChanged('before-d', 's1', first.commit);
    assert.ok(moved && !isCheckpointProblem(moved));
    assert.deepEqual(moved.changed, ['chapters/01.md']);
    // the manuscript equals the last checkpoint, but the branch's own last checkpoint is another one
    const other = await repo.checkpointIfChanged('before-e', 's1', first.commit);
    assert.ok(other && !isCheckpointProblem(other) && other.commit === moved.commit);
    assert.deepEqual(turnRefs().sort(), [first.ref, moved.ref, other.ref].sort());
  });

  it('discard drops the ref of a checkpoint that was not recorded, but never the only ref of a commit', async () => {
    const root = book();
    const repo = await openRepo(root);
    const a = ok(await repo.checkpoint('t1', 's1'));
    const again = ok(await repo.checkpoint('t2', 's1')); // the same commit, a second ref
    assert.equal(again.commit, a.commit);
    assert.equal(await repo.discard(again), true);
    assert.equal(storeGit(root, ['for-each-ref', '--format=%(refname)', 'refs/worldline/turns']).trim(), a.ref);
    write(root, 'chapters/01.md', 'new\n');
    const b = ok(await repo.checkpoint('t3', 's1'));
    assert.equal(await repo.discard(b), false, 'the only ref of b stays');
    assert.equal(storeGit(root, ['rev-parse', b.ref]).trim(), b.commit);
  });

  it('a restore that is not undoable leaves the undo stack alone; undo with an expected restore never undoes another one', async () => {
    const root = book();
    const repo = await openRepo(root);
    const a = ok(await repo.checkpoint('t1', 's1'));
    write(root, 'chapters/01.md', 'B\n');
    const b = ok(await repo.checkpoint('t2', 's1'));
    write(root, 'chapters/01.md', 'C, not checkpointed\n');
    const vC = manuscript(root);
    const first = await repo.restore(a.commit);
    assert.match(first.undo ?? '', /^refs\/worldline\/undo\/\d+$/);
    write(root, 'chapters/01.md', 'A, then edited\n');
    const reset = await repo.restore(b.commit, { undoable: false });
    assert.equal(reset.undo, undefined);
    assert.equal(read(root, 'chapters/01.md'), 'B\n');
    assert.equal(filesAt(root, reset.safety.ref)['chapters/01.md'], 'A, then edited\n', 'the reset still keeps a safety checkpoint');
    assert.equal(storeGit(root, ['for-each-ref', 'refs/worldline/undo']).trim().split('\n').length, 1);
    assert.equal(await repo.undoLastRestore('refs/worldline/undo/1'), undefined, 'not the newest restore: nothing happens');
    assert.equal(read(root, 'chapters/01.md'), 'B\n');
    const undone = await repo.undoLastRestore(first.undo);
    assert.ok(undone);
    assert.deepEqual(manuscript(root), vC, 'Undo returns to before the last undoable restore');
    assert.equal(await repo.undoLastRestore(), undefined);
  });

  it('changedFiles between checkpoints and against the working copy; readAt', async () => {
    const root = book();
    const repo = await openRepo(root);
    const r1 = ok(await repo.checkpoint('t1', 's1'));
    write(root, 'chapters/01.md', 'changed\n');
    remove(root, 'notes.txt');
    write(root, 'chapters/04.md', 'four\n');
    const r2 = ok(await repo.checkpoint('t2', 's1'));
    assert.deepEqual(await repo.changedFiles(r1.commit, r2.commit), [
      { path: 'chapters/01.md', status: 'M' },
      { path: 'chapters/04.md', status: 'A' },
      { path: 'notes.txt', status: 'D' },
    ]);
    write(root, 'chapters/02.md', 'working copy\n');
    write(root, 'chapters/05.md', 'five\n');
    assert.deepEqual(await repo.changedFiles(r2.commit), [
      { path: 'chapters/02.md', status: 'M' },
      { path: 'chapters/05.md', status: 'A' },
    ]);
    assert.equal(await repo.readAt(r1.commit, 'chapters/01.md'), '第一章\n雨夜。\n');
    assert.deepEqual((await repo.filesAt(r2.commit)).sort(), ['chapters/01.md', 'chapters/02.md', 'chapters/04.md']);
    assert.equal(await repo.readAt(r2.commit, 'notes.txt'), undefined);
    assert.equal(await repo.readAt(r2.commit, 'chapters'), undefined);
    await assert.rejects(repo.readAt('0123456789abcdef0123456789abcdef01234567', 'a.md'), (e: unknown) => e instanceof CheckpointError && e.kind === 'notFound');
    await assert.rejects(repo.readAt(r1.commit, '../etc/passwd'), (e: unknown) => e instanceof CheckpointError && e.kind === 'badInput');
    await assert.rejects(repo.restore('--help'), (e: unknown) => e instanceof CheckpointError && e.kind === 'badInput');
    // the working-copy diff did not create a commit
    const r3 = ok(await repo.checkpoint('t3', 's1'));
    assert.deepEqual(r3.changed.sort(), ['chapters/02.md', 'chapters/05.md']);
  });

  it('a bad turn id or too many files returns a problem instead of throwing (the turn goes on)', async () => {
    const repo = await openRepo(book());
    const r = await repo.checkpoint('../../x', 's1');
    assert.ok(isCheckpointProblem(r));
    assert.equal(r.kind, 'badInput');
    const small = await openRepo(book(), { maxFiles: 2 });
    const big = await small.checkpoint('t1', 's1');
    assert.ok(isCheckpointProblem(big) && big.kind === 'tooManyFiles' && /Narrow the patterns/.test(big.message));
  });

  it('bytes go in and come out unchanged: CRLF, BOM, non-UTF-8, despite a .gitattributes asking for conversion', async () => {
    const root = book();
    write(root, '.gitattributes', '* text eol=crlf\n*.md filter=lfs diff=lfs merge=lfs\n');
    const crlf = Buffer.from('line one\r\nline two\n\rmixed\r\n', 'utf8');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('带BOM\n')]);
    const gbk = Buffer.from([0xb5, 0xda, 0xd2, 0xbb, 0xd5, 0xc2, 0x0a]); // "第一章" in GBK
    write(root, 'a.md', crlf);
    write(root, 'b.md', bom);
    write(root, 'c.txt', gbk);
    const repo = await openRepo(root);
    const r1 = ok(await repo.checkpoint('t1', 's1'));
    for (const f of ['a.md', 'b.md', 'c.txt']) write(root, f, 'overwritten\n');
    await repo.restore(r1.commit);
    assert.deepEqual(fs.readFileSync(path.join(root, 'a.md')), crlf);
    assert.deepEqual(fs.readFileSync(path.join(root, 'b.md')), bom);
    assert.deepEqual(fs.readFileSync(path.join(root, 'c.txt')), gbk);
    assert.equal((await repo.readAt(r1.commit, 'b.md'))?.charCodeAt(0), 0xfeff);
  });

  it('a chapter that became a folder (and back) is restored', async () => {
    const root = book();
    const repo = await openRepo(root);
    write(root, 'x.md', 'file\n');
    const r1 = ok(await repo.checkpoint('t1', 's1'));
    remove(root, 'x.md');
    write(root, 'x.md/inner.md', 'folder now\n');
    const r2 = ok(await repo.checkpoint('t2', 's1'));
    assert.deepEqual(r2.changed.sort(), ['x.md', 'x.md/inner.md']);
    await repo.restore(r1.commit);
    assert.equal(read(root, 'x.md'), 'file\n');
    await repo.restore(r2.commit);
    assert.equal(read(root, 'x.md/inner.md'), 'folder now\n');
  });

  it('narrowed globs: files no longer manuscript are untracked, and a restore leaves them alone', async () => {
    const root = book();
    const repo = await openRepo(root);
    const r1 = ok(await repo.checkpoint('t1', 's1'));
    repo.setGlobs(['chapters/**/*.md']);
    write(root, 'notes.txt', 'edited notes, no longer manuscript\n');
    const r2 = ok(await repo.checkpoint('t2', 's1'));
    assert.deepEqual(r2.changed, ['notes.txt']);
    assert.equal(filesAt(root, r2.commit)['notes.txt'], undefined);
    const res = await repo.restore(r1.commit);
    assert.equal(read(root, 'notes.txt'), 'edited notes, no longer manuscript\n');
    assert.deepEqual(res.skipped, [{ path: 'notes.txt', reason: 'notManuscript' }]);
  });

  it('operations on one store run one at a time, even when fired together', async () => {
    const root = book();
    const repo = await openRepo(root);
    const other = await openRepo(root); // a second handle shares the queue
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        write(root, `chapters/p${i}.md`, `para ${i}\n`);
        return (i % 2 ? other : repo).checkpoint(`t${i}`, 's1');
      }),
    );
    for (const r of results) ok(r);
    const last = ok(results[5]);
    assert.equal(Object.keys(filesAt(root, last.commit)).filter((p) => p.startsWith('chapters/p')).length, 6);
    assert.equal(storeGit(root, ['for-each-ref', 'refs/worldline/turns/s1']).trim().split('\n').length, 6);
  });

  it('packing (maintain, and automatically every N commits) keeps every checkpoint readable', async () => {
    const root = book();
    const repo = await openRepo(root, { maintainEvery: 3 });
    const commits: string[] = [];
    for (let i = 0; i < 7; i++) {
      write(root, 'chapters/01.md', `v${i}\n`);
      commits.push(ok(await repo.checkpoint(`t${i}`, 's1')).commit);
    }
    await repo.maintain();
    const store = path.join(root, '.worldline', 'checkpoints.git');
    assert.ok(fs.readdirSync(path.join(store, 'objects', 'pack')).some((f) => f.endsWith('.pack')));
    assert.ok(fs.existsSync(path.join(store, 'packed-refs')));
    for (const [i, c] of commits.entries()) assert.equal(await repo.readAt(c, 'chapters/01.md'), `v${i}\n`);
    assert.deepEqual(await repo.health(), { ok: true });
  });

  it('every checkpoint survives git gc --prune=now', async () => {
    const root = book();
    const repo = await openRepo(root);
    const commits: { commit: string; text: string }[] = [];
    for (let i = 0; i < 5; i++) {
      write(root, 'chapters/01.md', `version ${i}\n`);
      commits.push({ commit: ok(await repo.checkpoint(`t${i}`, 's1')).commit, text: `version ${i}\n` });
    }
    await repo.restore(commits[1].commit);
    storeGit(root, ['reflog', 'expire', '--expire=now', '--all']);
    storeGit(root, ['gc', '--prune=now', '--quiet']);
    for (const c of commits) assert.equal(await repo.readAt(c.commit, 'chapters/01.md'), c.text);
    assert.deepEqual(await repo.health(), { ok: true });
  });
});
