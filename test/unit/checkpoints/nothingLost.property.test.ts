// Property "nothing lost": random sequences of writes, deletes, renames, file ↔ folder changes,
// empty folders named like chapters, non-manuscript files and symlinks in the way, checkpoints,
// restores and undos. After every restore (or undo) either the manuscript equals its target
// exactly, or the restore was refused, naming exactly what is in the way, and not one thing in the
// work tree changed. Refusals are checked against a model, so a restore that refuses too much
// fails as surely as one that leaves a chapter out. Every version that was checkpointed, or that
// was on disk just before a restore or undo, stays in the store; files that are not manuscript,
// and what the symlinks point at, are never touched.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as fc from 'fast-check';
import { RestoreBlockedError } from '../../../src/checkpoints';
import { LONG_MODE, runs } from '../long-mode';
import { cleanupTmp, manuscript, ok, openRepo, read, storeGit, tmpDir, treeId, write, type Version } from './helpers';
import { filesOf, shape, type Shape } from './workTree';

// Chapter paths that collide as file and folder: x.md vs x.md/…, dir/b.md vs dir/b.md/z.md.
const CHAPTERS = ['a.md', 'dir/b.md', 'dir/sub/c.txt', '第一卷/第一章.md', 'with space.md', 'x.md', 'x.md/inner.md', 'x.md/deep/y.md', 'dir/b.md/z.md'];
// Not manuscript: a file where a folder of chapters goes ("dir"), files inside folders named like chapters, harmless ones.
const FOREIGN = ['dir', 'x.md/notes', 'dir/b.md/keep.json', 'a.md/todo', '第一卷/第一章.md/图.png', 'notes.json', 'dir/sub/todo'];
// Symlinks named like a chapter, or standing where a folder of chapters goes.
const LINKS = ['with space.md', 'dir/sub', 'x.md/deep'];

type Edit =
  | { kind: 'write'; p: number }
  | { kind: 'delete'; p: number }
  | { kind: 'rename'; p: number; q: number }
  | { kind: 'emptyDir'; p: number; nested: boolean }
  | { kind: 'foreign'; f: number }
  | { kind: 'link'; l: number }
  | { kind: 'clear' };

interface Step {
  edits: Edit[];
  action: 'checkpoint' | 'restore' | 'undo' | 'none';
  pick: number;
}

const chapter = fc.nat(CHAPTERS.length - 1);
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('write' as const), p: chapter }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), p: chapter }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('rename' as const), p: chapter, q: chapter }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('emptyDir' as const), p: chapter, nested: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('foreign' as const), f: fc.nat(FOREIGN.length - 1) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('link' as const), l: fc.nat(LINKS.length - 1) }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 },
);
const stepArb: fc.Arbitrary<Step> = fc.record({
  edits: fc.array(editArb, { maxLength: 3 }),
  action: fc.oneof(
    { arbitrary: fc.constant('checkpoint' as const), weight: 3 },
    { arbitrary: fc.constant('restore' as const), weight: 4 },
    { arbitrary: fc.constant('undo' as const), weight: 2 },
    { arbitrary: fc.constant('none' as const), weight: 1 },
  ),
  pick: fc.nat(20),
});

const abs = (root: string, rel: string) => path.join(root, ...rel.split('/'));
const lst = (p: string) => {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined; // ENOENT, or ENOTDIR under a file
  }
};
const isChapterName = (rel: string) => /\.(md|txt)$/.test(rel);

// ---- the novelist's hands (plain fs; anything they cannot do where they are is not done) ----

/** Makes the folders above `rel`; a chapter in the way becomes a folder (file → folder). False when something else is in the way. */
function makeParents(root: string, rel: string): boolean {
  const segs = rel.split('/');
  for (let i = 1; i < segs.length; i++) {
    const up = abs(root, segs.slice(0, i).join('/'));
    const st = lst(up);
    if (st === undefined) fs.mkdirSync(up);
    else if (st.isFile() && isChapterName(segs.slice(0, i).join('/'))) {
      fs.unlinkSync(up);
      fs.mkdirSync(up);
    } else if (!st.isDirectory()) return false;
  }
  return true;
}

/** True when every folder above `rel` is a real folder (the novelist's hands never go through a link). */
function reachable(root: string, rel: string): boolean {
  const segs = rel.split('/');
  for (let i = 1; i < segs.length; i++) if (!lst(abs(root, segs.slice(0, i).join('/')))?.isDirectory()) return false;
  return true;
}

/** Writes a chapter; a folder in its place is deleted with everything in it (folder → file). */
function writeChapter(root: string, rel: string, text: string): boolean {
  if (!makeParents(root, rel)) return false;
  const st = lst(abs(root, rel));
  if (st?.isSymbolicLink()) return false;
  if (st?.isDirectory()) fs.rmSync(abs(root, rel), { recursive: true });
  fs.writeFileSync(abs(root, rel), text);
  return true;
}

function applyEdit(root: string, outside: string, e: Edit, text: () => string): void {
  switch (e.kind) {
    case 'write':
      writeChapter(root, CHAPTERS[e.p], text());
      return;
    case 'delete': // leaves its folders behind, possibly empty
      if (reachable(root, CHAPTERS[e.p]) && lst(abs(root, CHAPTERS[e.p]))?.isFile()) fs.unlinkSync(abs(root, CHAPTERS[e.p]));
      return;
    case 'rename': {
      const from = abs(root, CHAPTERS[e.p]);
      if (e.p === e.q || !reachable(root, CHAPTERS[e.p]) || !lst(from)?.isFile()) return;
      const body = fs.readFileSync(from, 'utf8');
      fs.unlinkSync(from);
      if (!writeChapter(root, CHAPTERS[e.q], body)) writeChapter(root, CHAPTERS[e.p], body);
      return;
    }
    case 'emptyDir': {
      const rel = CHAPTERS[e.p];
      if (lst(abs(root, rel)) !== undefined || !makeParents(root, rel)) return;
      fs.mkdirSync(abs(root, rel));
      if (e.nested) fs.mkdirSync(abs(root, `${rel}/empty`));
      return;
    }
    case 'foreign': // replaces whatever is there (a chapter, a folder of them)
      if (makeParents(root, FOREIGN[e.f])) {
        fs.rmSync(abs(root, FOREIGN[e.f]), { recursive: true, force: true });
        fs.writeFileSync(abs(root, FOREIGN[e.f]), `not manuscript ${text()}`);
      }
      return;
    case 'link': {
      const rel = LINKS[e.l];
      if (!makeParents(root, rel)) return;
      fs.rmSync(abs(root, rel), { recursive: true, force: true });
      fs.symlinkSync(rel.endsWith('.md') ? path.join(outside, 'file.md') : path.join(outside, 'dir'), abs(root, rel));
      return;
    }
    case 'clear':
      for (const rel of [...FOREIGN, ...LINKS]) {
        const st = reachable(root, rel) ? lst(abs(root, rel)) : undefined;
        if (st && !st.isDirectory()) fs.unlinkSync(abs(root, rel));
      }
      return;
  }
}

// ---- the model of a restore's refusal ----

/** What must refuse a restore from the manuscript `current` to `target`: things in the way that are not ours. */
function expectedBlockers(root: string, target: Version, current: Version): Set<string> {
  const deleting = new Set(Object.keys(current).filter((p) => !(p in target)));
  const foreignInside = (rel: string): boolean =>
    fs.readdirSync(abs(root, rel)).some((name) => {
      const child = `${rel}/${name}`;
      const st = fs.lstatSync(abs(root, child));
      return st.isDirectory() ? foreignInside(child) : !(st.isFile() && deleting.has(child));
    });
  const out = new Set<string>();
  for (const w of Object.keys(target)) {
    if (current[w] === target[w]) continue;
    const segs = w.split('/');
    let reachable = true;
    for (let i = 1; i < segs.length && reachable; i++) {
      const up = segs.slice(0, i).join('/');
      const st = lst(abs(root, up));
      if (st === undefined) break;
      if (st.isDirectory()) continue;
      if (!(st.isFile() && deleting.has(up))) out.add(up);
      reachable = false;
    }
    if (!reachable) continue;
    const st = lst(abs(root, w));
    if (st === undefined || st.isFile()) continue;
    if (!st.isDirectory() || foreignInside(w)) out.add(w);
  }
  return out;
}

/** Everything in the work tree that is not manuscript and not a folder: a restore never touches it. */
function notOurs(s: Shape): Shape {
  return Object.fromEntries(Object.entries(filesOf(s)).filter(([p, v]) => !(v.startsWith('file:') && isChapterName(p))));
}

/** Every manuscript version the store can give back, as tree ids: one per commit a ref names. */
function recoverable(root: string): Set<string> {
  const commits = [...new Set(storeGit(root, ['for-each-ref', '--format=%(objectname)', 'refs/worldline']).split('\n').filter(Boolean))];
  return new Set(storeGit(root, ['rev-parse', ...commits.map((c) => `${c}^{tree}`)]).split('\n').filter(Boolean));
}

const treeOf = (root: string, commit: string) => storeGit(root, ['rev-parse', `${commit}^{tree}`]).trim();

describe('checkpoints: property "nothing lost"', function () {
  this.timeout(LONG_MODE ? 0 : 120_000);
  afterEach(cleanupTmp);

  it('random edits, file ↔ folder changes, things in the way, checkpoints, restores and undos: every version comes back or the restore is refused whole', async () => {
    const stats = { sequences: 0, restores: 0, restoresRefused: 0, undos: 0, undosRefused: 0, versionsChecked: 0, versionsLost: 0 };
    let counter = 0;
    const text = () => `v${++counter}\n`;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
        stats.sequences++;
        const root = tmpDir('wl-prop-');
        const outside = tmpDir('wl-prop-out-');
        write(outside, 'file.md', 'outside\n');
        write(outside, 'dir/c.txt', 'outside c\n');
        write(outside, 'dir/y.md', 'outside y\n');
        const outsideShape = shape(outside);
        write(root, 'keep.json', '{"never":"touched"}');
        for (const rel of ['a.md', 'dir/b.md', 'with space.md', 'x.md']) write(root, rel, `start ${rel}\n`);
        const repo = await openRepo(root);
        const expected: Version[] = [manuscript(root)];
        const checkpoints: { commit: string; version: Version }[] = [{ commit: ok(await repo.checkpoint('t0', 'prop')).commit, version: manuscript(root) }];
        // What each undoable restore started from; `fresh`: nothing has moved since the top one.
        const undoStack: { version: Version; files: Shape }[] = [];
        let fresh = false;
        let turn = 0;
        const lands = (what: string, want: Version) => {
          stats.versionsChecked++;
          const now = manuscript(root);
          try {
            assert.deepEqual(now, want, `${what} lands exactly`);
          } catch (err) {
            stats.versionsLost++;
            throw err;
          }
        };
        const refusedRight = (err: unknown, want: Set<string>, shapeBefore: Shape, before: Version) => {
          if (!(err instanceof RestoreBlockedError)) throw err;
          assert.deepEqual(new Set(err.blockers.map((b) => b.path)), want, 'refused for exactly what is in the way');
          for (const b of err.blockers.slice(0, 3)) assert.ok(err.message.includes(`"${b.path}"`), `the message names ${b.path}`);
          assert.deepEqual(shape(root), shapeBefore, 'a refused restore changes nothing');
          assert.equal(treeOf(root, err.safety.commit), treeId(before), 'the safety checkpoint holds the manuscript as it was');
        };
        try {
          for (const step of steps) {
            for (const e of step.edits) {
              const was = shape(root);
              applyEdit(root, outside, e, text);
              if (fresh && JSON.stringify(shape(root)) !== JSON.stringify(was)) fresh = false;
            }
            const before = manuscript(root);
            const shapeBefore = shape(root);
            if (step.action === 'checkpoint') {
              const r = ok(await repo.checkpoint(`t${++turn}`, 'prop'));
              checkpoints.push({ commit: r.commit, version: before });
              expected.push(before);
            } else if (step.action === 'restore') {
              const target = checkpoints[step.pick % checkpoints.length];
              const want = expectedBlockers(root, target.version, before);
              expected.push(before); // the safety checkpoint is taken either way
              stats.restores++;
              let r;
              try {
                r = await repo.restore(target.commit);
              } catch (err) {
                stats.restoresRefused++;
                refusedRight(err, want, shapeBefore, before);
                continue;
              }
              assert.deepEqual([...want], [], 'the restore went ahead although something was in the way');
              lands('restore', target.version);
              assert.deepEqual(notOurs(shape(root)), notOurs(shapeBefore), 'files that are not manuscript are never touched');
              assert.ok(r.undo);
              undoStack.push({ version: before, files: filesOf(shapeBefore) });
              fresh = true;
            } else if (step.action === 'undo') {
              const top = undoStack.at(-1);
              if (top === undefined) {
                assert.equal(await repo.undoLastRestore(), undefined);
                assert.deepEqual(shape(root), shapeBefore);
                continue;
              }
              const want = expectedBlockers(root, top.version, before);
              expected.push(before);
              stats.undos++;
              let r;
              try {
                r = await repo.undoLastRestore();
              } catch (err) {
                stats.undosRefused++;
                refusedRight(err, want, shapeBefore, before);
                continue;
              }
              assert.ok(r, 'there was a restore to undo');
              assert.deepEqual([...want], [], 'the undo went ahead although something was in the way');
              lands('undo', top.version);
              assert.deepEqual(notOurs(shape(root)), notOurs(shapeBefore), 'files that are not manuscript are never touched');
              // Straight after its restore, an undo gives back every file exactly as it was.
              if (fresh) assert.deepEqual(filesOf(shape(root)), top.files, 'undo is exact');
              undoStack.pop();
              fresh = false;
            }
          }
          const have = recoverable(root);
          for (const v of expected) {
            stats.versionsChecked++;
            if (!have.has(treeId(v))) {
              stats.versionsLost++;
              assert.fail(`lost version ${JSON.stringify(v)}`);
            }
          }
          assert.equal(read(root, 'keep.json'), '{"never":"touched"}');
          assert.deepEqual(shape(outside), outsideShape, 'nothing outside the book is touched');
        } finally {
          cleanupTmp();
        }
      }),
      { numRuns: runs(25, 1000) },
    );
    if (LONG_MODE) console.log(`    nothing lost: ${JSON.stringify(stats)}`);
    // The sequences must meet both outcomes, or the property proves little.
    assert.ok(stats.restores - stats.restoresRefused > 0 && stats.restoresRefused > 0, JSON.stringify(stats));
  });
});
