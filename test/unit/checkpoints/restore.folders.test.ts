// Restores meet folders and files where the checkpoint has something else: an empty folder named
// like a chapter is ours to clear; a chapter turns into a folder of chapters and back, both ways
// and undone exactly; anything that is not ours in the way (a file that is not manuscript, a folder
// holding one, a symlink, a FIFO) refuses the restore whole, naming it, with nothing written.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RestoreBlockedError, type RestoreBlocker } from '../../../src/checkpoints';
import { cleanupTmp, filesAt, manuscript, ok, openRepo, read, remove, storeGit, tmpDir, write } from './helpers';
import { filesOf, shape } from './workTree';

function mkdir(root: string, rel: string): void {
  fs.mkdirSync(path.join(root, ...rel.split('/')), { recursive: true });
}

function rmTree(root: string, rel: string): void {
  fs.rmSync(path.join(root, ...rel.split('/')), { recursive: true, force: true });
}

/** Asserts `p` rejects with a RestoreBlockedError and returns it. */
async function refused(p: Promise<unknown>): Promise<RestoreBlockedError> {
  let caught: unknown;
  await p.then(
    () => assert.fail('the restore went ahead'),
    (err: unknown) => (caught = err),
  );
  assert.ok(caught instanceof RestoreBlockedError, `expected a refused restore, got ${String(caught)}`);
  assert.equal(caught.kind, 'blocked');
  return caught;
}

const brief = (bs: readonly RestoreBlocker[]) => bs.map((b) => `${b.kind} ${b.path}${b.inside ? ` (${b.inside})` : ''} → ${b.chapter}`).sort();
const undoRefs = (root: string) => storeGit(root, ['for-each-ref', '--format=%(refname)', 'refs/worldline/undo']).split('\n').filter(Boolean);

describe('checkpoints: restores around folders and things in the way', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  it('an empty folder (or a tree of empty folders) named like a chapter is removed and the chapter comes back', async () => {
    const root = tmpDir();
    write(root, 'a.md', 'A\n');
    write(root, 'dir/b.md', 'B\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    remove(root, 'a.md');
    mkdir(root, 'a.md/e/f');
    remove(root, 'dir/b.md');
    mkdir(root, 'dir/b.md');
    const res = await repo.restore(c1.commit);
    assert.deepEqual(manuscript(root), { 'a.md': 'A\n', 'dir/b.md': 'B\n' });
    assert.deepEqual([...res.written].sort(), ['a.md', 'dir/b.md']);
    assert.deepEqual(res.skipped, []);
    assert.ok(fs.lstatSync(path.join(root, 'a.md')).isFile());
    // The undo gives the manuscript from before: neither chapter.
    await repo.undoLastRestore();
    assert.deepEqual(manuscript(root), {});
  });

  it('a folder holding a file that is not manuscript refuses the restore whole: named, nothing written, safety taken, no undo entry', async () => {
    const root = tmpDir();
    write(root, 'a.md', 'one\n');
    write(root, 'b.md', 'b1\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    write(root, 'b.md', 'b2, not checkpointed\n'); // the restore would overwrite this
    remove(root, 'a.md');
    write(root, 'a.md/notes.json', '{"mine":true}');
    const before = shape(root);

    const err = await refused(repo.restore(c1.commit));
    assert.deepEqual(brief(err.blockers), ['folder a.md (a.md/notes.json) → a.md']);
    assert.match(err.message, /"a\.md" is a folder .*"a\.md\/notes\.json"/);
    assert.match(err.message, /^Nothing was restored/);
    assert.deepEqual(shape(root), before, 'not one byte written');
    // The novelist's current prose is in the safety checkpoint all the same.
    assert.equal(filesAt(root, err.safety.commit)['b.md'], 'b2, not checkpointed\n');
    assert.equal(storeGit(root, ['rev-parse', err.safety.ref]).trim(), err.safety.commit);
    assert.deepEqual(undoRefs(root), []);
    assert.equal(await repo.undoLastRestore(), undefined, 'nothing to undo');

    // Out of the way, the same restore brings back every chapter.
    remove(root, 'a.md/notes.json');
    await repo.restore(c1.commit);
    assert.deepEqual(manuscript(root), { 'a.md': 'one\n', 'b.md': 'b1\n' });
  });

  it('a file that is not manuscript where the checkpoint has a folder of chapters refuses the restore', async () => {
    const root = tmpDir();
    write(root, 'part/one.md', 'one\n');
    write(root, 'part/two.md', 'two\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    rmTree(root, 'part');
    write(root, 'part', 'a plain file, not a chapter');
    const before = shape(root);
    const err = await refused(repo.restore(c1.commit));
    assert.deepEqual(brief(err.blockers), ['file part → part/one.md']);
    assert.match(err.message, /"part" \(where the checkpoint has "part\/one\.md"\) is a file that is not part of the manuscript/);
    assert.deepEqual(shape(root), before);
  });

  it('a chapter that became a folder of chapters and an untracked file: refused, and the chapters in the folder stay', async () => {
    const root = tmpDir();
    write(root, 'x.md', 'file\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    remove(root, 'x.md');
    write(root, 'x.md/inner.md', 'folder now\n');
    write(root, 'x.md/deep/todo', 'not manuscript\n');
    ok(await repo.checkpoint('t2', 's'));
    const before = shape(root);
    const err = await refused(repo.restore(c1.commit));
    assert.deepEqual(brief(err.blockers), ['folder x.md (x.md/deep/todo) → x.md']);
    assert.deepEqual(shape(root), before);
    assert.equal(read(root, 'x.md/inner.md'), 'folder now\n');
  });

  it('file ↔ folder both ways in one restore, and Undo brings back exactly the shape from before', async () => {
    const root = tmpDir();
    write(root, 'x.md', 'x as a chapter\n');
    write(root, 'y.md/in.md', 'y holds chapters\n');
    write(root, 'y.md/deep/z.md', 'deep\n');
    write(root, 'keep.json', '{}');
    const repo = await openRepo(root);
    const cA = ok(await repo.checkpoint('tA', 's'));
    const shapeA = shape(root);

    rmTree(root, 'x.md');
    write(root, 'x.md/in.md', 'x holds chapters now\n');
    write(root, 'x.md/deep/z.md', 'x deep\n');
    rmTree(root, 'y.md');
    write(root, 'y.md', 'y as a chapter\n');
    const cB = ok(await repo.checkpoint('tB', 's'));
    const shapeB = shape(root);

    const toA = await repo.restore(cA.commit);
    assert.deepEqual(shape(root), shapeA, 'A again, folders and all');
    assert.deepEqual([...toA.deleted].sort(), ['x.md/deep/z.md', 'x.md/in.md', 'y.md']);
    await repo.undoLastRestore();
    assert.deepEqual(shape(root), shapeB, 'undo: B exactly');

    await repo.restore(cA.commit);
    const toB = await repo.restore(cB.commit);
    assert.deepEqual(shape(root), shapeB);
    assert.deepEqual([...toB.written].sort(), ['x.md/deep/z.md', 'x.md/in.md', 'y.md']);
    await repo.undoLastRestore();
    assert.deepEqual(shape(root), shapeA, 'undo of the second restore: A exactly');
    await repo.undoLastRestore();
    assert.deepEqual(shape(root), shapeB, 'and the first: B');
    // The index follows: the next checkpoint is B's tree, with nothing changed.
    assert.deepEqual(ok(await repo.checkpoint('t3', 's')).changed, []);
  });

  it('an undo blocked by something put in the way keeps its place on the stack; chapters in the way are removed (they are in its safety checkpoint)', async () => {
    const root = tmpDir();
    write(root, 'a.md', 'a\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    write(root, 'b.md', 'b\n');
    ok(await repo.checkpoint('t2', 's'));
    const r = await repo.restore(c1.commit); // removes b.md
    assert.deepEqual(manuscript(root), { 'a.md': 'a\n' });

    write(root, 'b.md/keep.json', '{"mine":true}');
    write(root, 'b.md/draft.md', 'a chapter written since\n');
    const before = shape(root);
    const err = await refused(repo.undoLastRestore(r.undo));
    assert.deepEqual(brief(err.blockers), ['folder b.md (b.md/keep.json) → b.md']);
    assert.deepEqual(shape(root), before);
    assert.deepEqual(undoRefs(root), [r.undo]);

    remove(root, 'b.md/keep.json');
    const undone = await repo.undoLastRestore(r.undo);
    assert.ok(undone);
    assert.deepEqual(manuscript(root), { 'a.md': 'a\n', 'b.md': 'b\n' });
    assert.deepEqual(undone.deleted, ['b.md/draft.md']);
    assert.equal(filesAt(root, undone.safety.commit)['b.md/draft.md'], 'a chapter written since\n', 'the removed chapter is in the undo’s safety checkpoint');
    assert.deepEqual(undoRefs(root), []);
  });

  it('a symlink on the way and a FIFO named like a chapter refuse the restore without hanging; several blockers are all named', async function () {
    if (process.platform === 'win32') this.skip();
    const outside = tmpDir();
    write(outside, 'dir/c.md', 'outside\n');
    const root = tmpDir();
    for (const f of ['f.md', 'sub/c.md', 'n1.md', 'n2.md', 'n3.md']) write(root, f, `${f}\n`);
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    remove(root, 'f.md');
    execFileSync('mkfifo', [path.join(root, 'f.md')]);
    rmTree(root, 'sub');
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'sub'));
    for (const n of ['n1.md', 'n2.md', 'n3.md']) {
      remove(root, n);
      write(root, `${n}/x.bin`, 'not manuscript');
    }
    const before = shape(root);
    const err = await refused(repo.restore(c1.commit));
    assert.deepEqual(brief(err.blockers), [
      'folder n1.md (n1.md/x.bin) → n1.md',
      'folder n2.md (n2.md/x.bin) → n2.md',
      'folder n3.md (n3.md/x.bin) → n3.md',
      'link sub → sub/c.md',
      'special f.md → f.md',
    ]);
    assert.match(err.message, /and 2 more, listed in the log/);
    assert.deepEqual(shape(root), before);
    assert.equal(read(outside, 'dir/c.md'), 'outside\n');
  });

  it('narrowed globs still skip the checkpoint’s files that are no longer manuscript (not a blocker)', async () => {
    const root = tmpDir();
    write(root, 'notes.txt', 'notes\n');
    write(root, 'ch.md', 'ch\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    repo.setGlobs(['**/*.md']);
    remove(root, 'notes.txt');
    mkdir(root, 'notes.txt/mine'); // not manuscript any more: not ours to clear
    write(root, 'ch.md', 'ch2\n');
    const res = await repo.restore(c1.commit);
    assert.deepEqual(res.skipped, [{ path: 'notes.txt', reason: 'notManuscript' }]);
    assert.equal(read(root, 'ch.md'), 'ch\n');
    assert.ok(fs.statSync(path.join(root, 'notes.txt', 'mine')).isDirectory());
  });

  it('the restore checks before it writes: the whole outcome is unchanged files when blocked', async () => {
    // Many chapters to write and one blocker at the end of the sort order: none may be written.
    const root = tmpDir();
    for (let i = 0; i < 20; i++) write(root, `ch${String(i).padStart(2, '0')}.md`, `v1 ${i}\n`);
    write(root, 'zz.md', 'last\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    for (let i = 0; i < 20; i++) write(root, `ch${String(i).padStart(2, '0')}.md`, `v2 ${i}\n`);
    remove(root, 'zz.md');
    write(root, 'zz.md/mine.pdf', 'x');
    const before = filesOf(shape(root));
    await refused(repo.restore(c1.commit));
    assert.deepEqual(filesOf(shape(root)), before);
  });
});
