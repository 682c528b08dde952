// Property "the dirty set is a full walk": two copies of one book get the same random sequence of
// writes, deletes, renames of files and folders, file ↔ folder changes, symlinks, executable
// bits, nested repos, files that are not manuscript and glob changes. One store hears of every
// change through the feed, as the watcher and the tools would report it (and some noise); the
// other has no feed and walks the whole book at every checkpoint. Every checkpoint, pre-send
// check and restore must come out the same in both: the same tree, the same changed list, the
// same files written and deleted, the same refusals. And the first store must really have
// staged from the dirty set (it walked the book only at the start and after glob changes).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as fc from 'fast-check';
import { RestoreBlockedError, type CheckpointResult, type ShadowRepo } from '../../../src/checkpoints';
import { ManuscriptChanges } from '../../../src/project/manuscriptChanges';
import { LONG_MODE, runs } from '../long-mode';
import { cleanupTmp, ok, openRepo, storeGit, tmpDir } from './helpers';
import { shape } from './workTree';

const CHAPTERS = ['a.md', 'dir/b.md', 'dir/sub/c.txt', '第一卷/第一章.md', 'with space.md', 'x.md', 'x.md/inner.md', 'dir/b.md/z.md', 'nested/ch.md', 'deep/er/d.md', '.hidden/h.md'];
const FOLDERS = ['dir', 'dir/sub', '第一卷', 'x.md', 'deep', 'deep/er', 'nested', 'moved', 'deep/moved'];
const FOREIGN = ['notes.json', 'dir/todo', 'x.md/notes', 'nested/.git/HEAD', 'worldline.yaml'];
const GLOBS = [['**/*.md', '**/*.txt'], ['**/*.md'], ['dir/**', '第一卷/**'], ['**/*.md', '**/*.txt', '!dir/**'], ['**/*.md', '.hidden/**']];
const NOISE = ['', '.', '..', '../outside.md', '/abs.md', './a.md', 'dir//b.md', 'dir/./sub/c.txt', '.git/HEAD', '.worldline/index', 'missing/none.md'];

type Edit =
  | { kind: 'write'; p: number }
  | { kind: 'delete'; p: number }
  | { kind: 'rename'; p: number; q: number }
  | { kind: 'moveDir'; d: number; e: number }
  | { kind: 'rmDir'; d: number }
  | { kind: 'link'; p: number; toDir: boolean }
  | { kind: 'exec'; p: number }
  | { kind: 'foreign'; f: number }
  | { kind: 'globs'; g: number }
  | { kind: 'noise'; n: number }
  | { kind: 'echo'; p: number };

type Action = 'checkpoint' | 'beforeSend' | 'restore' | 'none';

/**
 * How a watcher reports an edit: every path touched; only the files (not the folders made or
 * turned from files on the way, a folder move as the files it held); or the folders the changed
 * paths are in (a watcher that coalesces).
 */
type Report = 'exact' | 'leaves' | 'parents';

interface Step {
  edits: { edit: Edit; report: Report }[];
  action: Action;
  pick: number;
}

const ch = fc.nat(CHAPTERS.length - 1);
const dir = fc.nat(FOLDERS.length - 1);
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('write' as const), p: ch }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), p: ch }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('rename' as const), p: ch, q: ch }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('moveDir' as const), d: dir, e: dir }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('rmDir' as const), d: dir }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('link' as const), p: ch, toDir: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('exec' as const), p: ch }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('foreign' as const), f: fc.nat(FOREIGN.length - 1) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('globs' as const), g: fc.nat(GLOBS.length - 1) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('noise' as const), n: fc.nat(NOISE.length - 1) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('echo' as const), p: ch }), weight: 1 },
);
const reportArb: fc.Arbitrary<Report> = fc.oneof(
  { arbitrary: fc.constant('exact' as const), weight: 3 },
  { arbitrary: fc.constant('leaves' as const), weight: 1 },
  { arbitrary: fc.constant('parents' as const), weight: 1 },
);
const stepArb: fc.Arbitrary<Step> = fc.record({
  edits: fc.array(fc.record({ edit: editArb, report: reportArb }), { maxLength: 4 }),
  action: fc.oneof(
    { arbitrary: fc.constant('checkpoint' as const), weight: 4 },
    { arbitrary: fc.constant('beforeSend' as const), weight: 2 },
    { arbitrary: fc.constant('restore' as const), weight: 2 },
    { arbitrary: fc.constant('none' as const), weight: 1 },
  ),
  pick: fc.nat(20),
});

const abs = (root: string, rel: string) => path.join(root, ...rel.split('/'));
const lst = (p: string) => {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
};

/** One copy of the book: its folder, store, and what a watcher would report of each edit. */
interface Copy {
  root: string;
  outside: string;
  repo: ShadowRepo;
  /** The feed (only the dirty-set copy listens to it). */
  changes: ManuscriptChanges;
  walks: number;
  checkpoints: CheckpointResult[];
}

/** Makes the folders above `rel` (a file in the way becomes a folder); the paths that changed, or undefined when a link is in the way. */
function makeParents(root: string, rel: string): string[] | undefined {
  const changed: string[] = [];
  const segs = rel.split('/');
  for (let i = 1; i < segs.length; i++) {
    const up = segs.slice(0, i).join('/');
    const st = lst(abs(root, up));
    if (st === undefined) {
      fs.mkdirSync(abs(root, up));
      changed.push(up);
    } else if (st.isFile()) {
      fs.unlinkSync(abs(root, up));
      fs.mkdirSync(abs(root, up));
      changed.push(up);
    } else if (!st.isDirectory()) return undefined;
  }
  return changed;
}

/** Every file below `rel` (relative to the book), for a folder move reported file by file. */
function filesBelow(root: string, rel: string): string[] {
  const st = lst(abs(root, rel));
  if (!st?.isDirectory()) return st ? [rel] : [];
  return fs.readdirSync(abs(root, rel)).flatMap((name) => filesBelow(root, `${rel}/${name}`));
}

/** What a watcher reports of an edit, in the way `report` says. */
function reported(copy: Copy, e: Edit, text: string, report: Report): string[] {
  if (report === 'leaves' && e.kind === 'moveDir') {
    const before = filesBelow(copy.root, FOLDERS[e.d] as string);
    const made = apply(copy, e, text);
    if (made.length === 0) return [];
    const [from, to] = made as [string, string];
    return [...before, ...before.map((p) => `${to}${p.slice(from.length)}`)];
  }
  const paths = apply(copy, e, text);
  if (report === 'exact') return paths;
  if (report === 'leaves') return paths.slice(-Math.min(paths.length, e.kind === 'rename' ? 2 : 1));
  return paths.map((p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : p));
}

/** Applies one edit to a copy; returns the paths a watcher would report (folders made on the way first). */
function apply(copy: Copy, e: Edit, text: string): string[] {
  const { root } = copy;
  switch (e.kind) {
    case 'write': {
      const rel = CHAPTERS[e.p] as string;
      const made = makeParents(root, rel);
      if (!made) return [];
      const st = lst(abs(root, rel));
      if (st && !st.isFile()) fs.rmSync(abs(root, rel), { recursive: true, force: true });
      fs.writeFileSync(abs(root, rel), text);
      return [...made, rel];
    }
    case 'delete': {
      const rel = CHAPTERS[e.p] as string;
      if (!lst(abs(root, rel))?.isFile()) return [];
      fs.unlinkSync(abs(root, rel));
      return [rel];
    }
    case 'rename': {
      const from = CHAPTERS[e.p] as string;
      const to = CHAPTERS[e.q] as string;
      if (from === to || !lst(abs(root, from))?.isFile() || lst(abs(root, to)) !== undefined || to.startsWith(`${from}/`)) return [];
      const made = makeParents(root, to);
      if (!made || !lst(abs(root, from))?.isFile()) return made ?? [];
      fs.renameSync(abs(root, from), abs(root, to));
      return [...made, from, to];
    }
    case 'moveDir': {
      const from = FOLDERS[e.d] as string;
      const to = FOLDERS[e.e] as string;
      if (from === to || to.startsWith(`${from}/`) || !lst(abs(root, from))?.isDirectory() || lst(abs(root, to)) !== undefined) return [];
      if (!lst(path.dirname(abs(root, to)))?.isDirectory()) return [];
      fs.renameSync(abs(root, from), abs(root, to));
      return [from, to]; // a watcher reports the folders, not what they hold
    }
    case 'rmDir': {
      const rel = FOLDERS[e.d] as string;
      if (!lst(abs(root, rel))?.isDirectory()) return [];
      fs.rmSync(abs(root, rel), { recursive: true });
      return [rel];
    }
    case 'link': {
      const rel = CHAPTERS[e.p] as string;
      const made = makeParents(root, rel);
      if (!made) return [];
      fs.rmSync(abs(root, rel), { recursive: true, force: true });
      const target = path.join(copy.outside, e.toDir ? 'dir' : 'file.md');
      // Relative, so both copies hold the same link.
      fs.symlinkSync(path.relative(path.dirname(abs(root, rel)), target), abs(root, rel));
      return [...made, rel];
    }
    case 'exec': {
      const rel = CHAPTERS[e.p] as string;
      const st = lst(abs(root, rel));
      if (!st?.isFile()) return [];
      fs.chmodSync(abs(root, rel), st.mode & 0o100 ? 0o644 : 0o755);
      return [rel];
    }
    case 'foreign': {
      const rel = FOREIGN[e.f] as string;
      const made = makeParents(root, rel);
      if (!made) return [];
      fs.rmSync(abs(root, rel), { recursive: true, force: true });
      fs.writeFileSync(abs(root, rel), `not manuscript: ${text}`);
      return [...made, rel];
    }
    case 'noise':
      return [NOISE[e.n] as string];
    case 'echo':
      return [CHAPTERS[e.p] as string];
    case 'globs':
      return [];
  }
}

async function copyOf(base: string, name: string, withFeed: boolean): Promise<Copy> {
  const root = path.join(base, name, 'book');
  const outside = path.join(base, name, 'out');
  fs.mkdirSync(path.join(outside, 'dir'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'file.md'), 'outside\n');
  fs.writeFileSync(path.join(outside, 'dir', 'o.md'), 'outside too\n');
  fs.mkdirSync(root, { recursive: true });
  for (const rel of ['a.md', 'dir/b.md', 'deep/er/d.md', '第一卷/第一章.md']) {
    fs.mkdirSync(path.dirname(abs(root, rel)), { recursive: true });
    fs.writeFileSync(abs(root, rel), `start ${rel}\n`);
  }
  const changes = new ManuscriptChanges();
  const copy: Copy = { root, outside, changes, walks: 0, checkpoints: [], repo: undefined as unknown as ShadowRepo };
  copy.repo = await openRepo(root, {
    globs: GLOBS[0],
    idleWalkMs: 0,
    ...(withFeed ? { changes } : {}),
    onSpawn: (args) => {
      if (args[0] === 'ls-files' && args.includes('-m')) copy.walks++;
    },
  });
  return copy;
}

const treeOf = (root: string, commit: string) => storeGit(root, ['rev-parse', `${commit}^{tree}`]).trim();

describe('checkpoints: property "the dirty set is a full walk"', function () {
  this.timeout(LONG_MODE ? 0 : 180_000);
  afterEach(cleanupTmp);

  it('random writes, deletes, renames, folder moves, links, modes and glob changes: the same checkpoints, pre-send checks and restores as a full walk', async () => {
    const stats = { sequences: 0, checkpoints: 0, changedFiles: 0, restores: 0, refused: 0, globChanges: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
        stats.sequences++;
        const base = tmpDir('wl-dirty-prop-');
        const fed = await copyOf(base, 'fed', true);
        const walked = await copyOf(base, 'walked', false);
        const both = [fed, walked];
        let counter = 0;
        let globChanges = 0;
        let globs = 0;
        try {
          for (const c of both) c.checkpoints.push(ok(await c.repo.checkpoint('t0', 'p')));
          for (const [n, step] of steps.entries()) {
            for (const { edit: e, report } of step.edits) {
              const text = `v${++counter}\n`;
              if (e.kind === 'globs') {
                if (e.g !== globs) globChanges++;
                globs = e.g;
                for (const c of both) c.repo.setGlobs(GLOBS[e.g] as string[]);
                continue;
              }
              const paths = reported(fed, e, text, report);
              apply(walked, e, text);
              fed.changes.changed(paths);
            }
            assert.deepEqual(shape(fed.root), shape(walked.root), 'the two copies hold the same files');
            if (step.action === 'checkpoint') {
              const [a, b] = [ok(await fed.repo.checkpoint(`t${n + 1}`, 'p')), ok(await walked.repo.checkpoint(`t${n + 1}`, 'p'))];
              assert.equal(treeOf(fed.root, a.commit), treeOf(walked.root, b.commit), 'the same tree');
              assert.deepEqual([...a.changed].sort(), [...b.changed].sort(), 'the same changed list');
              stats.checkpoints++;
              stats.changedFiles += a.changed.length;
              fed.checkpoints.push(a);
              walked.checkpoints.push(b);
            } else if (step.action === 'beforeSend') {
              const [a, b] = [
                await fed.repo.checkpointIfChanged(`b${n + 1}`, 'p', fed.checkpoints.at(-1)?.commit),
                await walked.repo.checkpointIfChanged(`b${n + 1}`, 'p', walked.checkpoints.at(-1)?.commit),
              ];
              assert.equal(a === null, b === null, 'both see the same hand edits (or none)');
              if (a !== null && b !== null) {
                const [ra, rb] = [ok(a), ok(b)];
                assert.equal(treeOf(fed.root, ra.commit), treeOf(walked.root, rb.commit));
                fed.checkpoints.push(ra);
                walked.checkpoints.push(rb);
              }
            } else if (step.action === 'restore') {
              const i = step.pick % fed.checkpoints.length;
              const outcome = async (c: Copy) => {
                try {
                  const r = await c.repo.restore((c.checkpoints[i] as CheckpointResult).commit);
                  return { written: [...r.written].sort(), deleted: [...r.deleted].sort(), skipped: r.skipped.map((s) => s.path).sort() };
                } catch (err) {
                  if (!(err instanceof RestoreBlockedError)) throw err;
                  return { blocked: err.blockers.map((x) => x.path).sort() };
                }
              };
              const [a, b] = [await outcome(fed), await outcome(walked)];
              assert.deepEqual(a, b, 'the same restore');
              stats.restores++;
              if ('blocked' in a) stats.refused++;
              // The restore's own writes are what the Story reports to the feed.
              if (!('blocked' in a)) fed.changes.changed([...a.written, ...a.deleted]);
              assert.deepEqual(shape(fed.root), shape(walked.root));
            }
          }
          // The last word: one more checkpoint each, and the fed store walked only when it had to.
          const [a, b] = [ok(await fed.repo.checkpoint('end', 'p')), ok(await walked.repo.checkpoint('end', 'p'))];
          assert.equal(treeOf(fed.root, a.commit), treeOf(walked.root, b.commit));
          assert.ok(fed.walks <= 1 + globChanges, `the fed store walked the book ${fed.walks} times for ${globChanges} glob change(s)`);
          stats.globChanges += globChanges;
        } finally {
          for (const c of both) c.repo.close();
          cleanupTmp();
        }
      }),
      { numRuns: runs(20, 500) },
    );
    if (LONG_MODE) console.log(`    dirty set: ${JSON.stringify(stats)}`);
    assert.ok(stats.checkpoints > 0 && stats.changedFiles > 0 && stats.restores > 0, JSON.stringify(stats));
  });
});
