// Brings the index in line with the manuscript from the paths reported changed, without walking
// the book: each path is looked at with lstat and decided by the same rules as the walk (walk.ts),
// so the index ends up exactly as a full walk would leave it for those paths. Then only what
// differs from the index (known in memory, indexView.ts) is staged, in one `update-index
// --index-info`. The content is hashed and stored by git itself (one long-lived `hash-object`),
// so the object ids we record are git's own, never a guess. A reported path that is a folder is
// walked; one that is gone, a symlink, not a file, below a symlinked folder, or no longer
// manuscript is taken out of the index (with everything the index holds below it).
import { promises as fsp, type BigIntStats } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, messages } from './errors';
import type { GitRunner } from './gitRunner';
import type { IndexEntry, IndexView } from './indexView';
import { isReservedSegment, type ManuscriptMatcher } from '../project/manuscript';
import { isSafeRelative, toAbsolute } from './safePaths';
import { zeroOid } from './refs';
import { walkManuscript, yieldToLoop, type SkippedPath } from './walk';

export interface DirtySyncOptions {
  runner: GitRunner;
  matcher: ManuscriptMatcher;
  view: IndexView;
  maxFiles: number;
  /** False when the store does not trust the executable bit (core.filemode): modes are kept. */
  fileMode: boolean;
  /**
   * The file system ignores letter case (Windows, macOS): a reported "Chapters/01.md" may be the
   * file the walk lists as "chapters/01.md". Default: by platform.
   */
  caseFold?: boolean;
}

export interface DirtySyncResult {
  /** Paths staged (added, changed or removed in the index). */
  staged: string[];
  skipped: SkippedPath[];
  /** Files that changed while git read them: staged as read, and to be looked at again. */
  unsettled: string[];
}

interface Plan {
  /** Regular manuscript files to hash, with their lstat before hashing. */
  files: Map<string, BigIntStats>;
  /** Index paths to take out. */
  gone: Set<string>;
  skipped: SkippedPath[];
}

/** A reported path as the walk would name it: relative, POSIX, inside the book; undefined otherwise. */
export function normalizeReported(p: string): string | undefined {
  if (typeof p !== 'string' || p === '' || p.includes('\0')) return undefined;
  let q = path.posix.normalize(p.startsWith('./') ? p.slice(2) : p);
  while (q.endsWith('/')) q = q.slice(0, -1);
  if (q === '.' || q === '..' || q.startsWith('../') || q.startsWith('/')) return undefined;
  return isSafeRelative(q) ? q : undefined;
}

/** The walk skips an entry by this name (a nested repo's .git, the reserved folders). */
function skippedName(name: string): boolean {
  return name.toLowerCase() === '.git' || isReservedSegment(name);
}

export async function syncDirty(opts: DirtySyncOptions, reported: readonly string[]): Promise<DirtySyncResult> {
  const plan = await planFor(opts, reported);
  let oids: string[];
  const files = [...plan.files.keys()];
  try {
    oids = await opts.runner.hashFiles(files);
  } catch (err) {
    // A file vanished (or became something else) between lstat and git's read: look again, once.
    const again = await planFor(opts, reported);
    const retry = [...again.files.keys()];
    if (retry.length === files.length && retry.every((f, i) => f === files[i])) throw err;
    return stagePlan(opts, again, await opts.runner.hashFiles(retry));
  }
  return stagePlan(opts, plan, oids);
}

async function stagePlan(opts: DirtySyncOptions, plan: Plan, oids: string[]): Promise<DirtySyncResult> {
  const { view } = opts;
  const changes: [string, IndexEntry | null][] = [];
  const unsettled: string[] = [];
  let i = 0;
  for (const [rel, before] of plan.files) {
    const oid = oids[i++] as string;
    const after = await lstatBig(toAbsolute(opts.runner.paths.root, rel));
    if (!after || !after.isFile()) {
      // It stopped being a plain file while git read it (a link swapped in): not staged; looked at again.
      unsettled.push(rel);
      continue;
    }
    if (!sameFile(before, after)) unsettled.push(rel);
    const entry: IndexEntry = { mode: modeOf(after, view.entry(rel), opts.fileMode), oid };
    const now = view.entry(rel);
    if (!now || now.mode !== entry.mode || now.oid !== entry.oid) changes.push([rel, entry]);
  }
  for (const rel of plan.gone) if (!plan.files.has(rel) && view.entry(rel) !== undefined) changes.push([rel, null]);
  if (changes.length === 0) return { staged: [], skipped: plan.skipped, unsettled };
  const predicted = view.size + changes.reduce((n, [p, e]) => n + (e ? (view.entry(p) ? 0 : 1) : -1), 0);
  if (predicted > opts.maxFiles) throw new CheckpointError('tooManyFiles', messages.tooManyFiles(opts.maxFiles));

  const zero = zeroOid(oids[0] ?? view.commit ?? '');
  // Removals first; an added path also replaces whatever stood in its way (a file where its folder goes).
  const input = [
    ...changes.filter(([, e]) => e === null).map(([p]) => `0 ${zero}\t${p}\0`),
    ...changes.filter(([, e]) => e !== null).map(([p, e]) => `${(e as IndexEntry).mode} ${(e as IndexEntry).oid}\t${p}\0`),
  ].join('');
  await opts.runner.runInput(['update-index', '-z', '--index-info'], input);
  for (const [p, e] of changes) view.stage(p, e);
  return { staged: changes.map(([p]) => p), skipped: plan.skipped, unsettled };
}

async function planFor(opts: DirtySyncOptions, reported: readonly string[]): Promise<Plan> {
  const { runner, matcher, view } = opts;
  const root = runner.paths.root;
  const plan: Plan = { files: new Map(), gone: new Set(), skipped: [] };
  const folders = new Map<string, boolean>();
  const goneSelf = (rel: string) => {
    if (view.entry(rel) !== undefined) plan.gone.add(rel);
  };
  const goneUnder = (rel: string) => {
    for (const p of view.under(rel)) plan.gone.add(p);
  };
  /** True when the walk of the book would enter every folder above `rel` (real folders, walked). */
  const parentsWalked = async (rel: string): Promise<boolean> => {
    const segs = rel.split('/');
    for (let i = 1; i < segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      let ok = folders.get(dir);
      if (ok === undefined) {
        const st = await lstatBig(toAbsolute(root, dir));
        ok = st !== undefined && st.isDirectory() && !skippedName(segs[i - 1] as string) && matcher.mayContain(dir);
        folders.set(dir, ok);
      }
      if (!ok) return false;
    }
    return true;
  };

  const caseFold = opts.caseFold ?? (process.platform === 'win32' || process.platform === 'darwin');
  const realRoot = caseFold ? await fsp.realpath(root).catch(() => root) : root;
  const queue = [...new Set(reported)];
  let seen = 0;
  for (let q = 0; q < queue.length; q++) {
    if (++seen % 500 === 0) await yieldToLoop();
    const rel = normalizeReported(queue[q] as string);
    if (rel === undefined) continue;
    if (caseFold) {
      // The name as it is on disk (the tools pass the model's spelling): anything else is not a file of the walk.
      const real = await onDiskName(realRoot, rel);
      if (real !== undefined && real !== rel) {
        goneSelf(rel);
        queue.push(real);
        continue;
      }
    }
    if (!(await parentsWalked(rel))) {
      goneSelf(rel);
      goneUnder(rel);
      continue;
    }
    // A folder on the way that the index still holds as a file: it is not one any more.
    for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) goneSelf(rel.slice(0, i));
    const st = await lstatBig(toAbsolute(root, rel));
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (st === undefined) {
      goneSelf(rel);
      goneUnder(rel);
    } else if (st.isFile()) {
      if (!skippedName(name) && matcher.matches(rel)) plan.files.set(rel, st);
      else goneSelf(rel);
      goneUnder(rel);
    } else if (st.isDirectory()) {
      goneSelf(rel);
      if (skippedName(name) || !matcher.mayContain(rel)) {
        goneUnder(rel);
        continue;
      }
      const walked = await walkManuscript(root, matcher, opts.maxFiles, rel);
      plan.skipped.push(...walked.skipped);
      const found = new Set(walked.files);
      for (const f of walked.files) {
        const fst = await lstatBig(toAbsolute(root, f));
        if (fst?.isFile()) plan.files.set(f, fst);
      }
      for (const p of view.under(rel)) if (!found.has(p)) plan.gone.add(p);
    } else {
      goneSelf(rel);
      goneUnder(rel);
      if (matcher.matches(rel) || (st.isSymbolicLink() && matcher.mayContain(rel))) plan.skipped.push({ path: rel, reason: st.isSymbolicLink() ? 'symlink' : 'special' });
    }
  }
  for (const f of plan.files.keys()) plan.gone.delete(f);
  return plan;
}

/** `rel` as the file system spells it (native realpath), when it exists there and no link is on the way. */
async function onDiskName(realRoot: string, rel: string): Promise<string | undefined> {
  try {
    const real = path.relative(realRoot, await fsp.realpath(toAbsolute(realRoot, rel)));
    if (real === '' || real.startsWith('..') || path.isAbsolute(real)) return undefined;
    const posix = real.split(path.sep).join('/');
    // Only a difference of letter case (or of Unicode normalisation, as on macOS) is a spelling;
    // anything else is a link on the way, which lstat decides on.
    const fold = (x: string) => x.normalize('NFC').toLowerCase();
    return fold(posix) === fold(rel) ? posix : undefined;
  } catch {
    return undefined;
  }
}

/** The mode git gives a regular file: the executable bit when the store trusts it, else what the index had. */
function modeOf(st: BigIntStats, was: IndexEntry | undefined, fileMode: boolean): string {
  if (!fileMode || process.platform === 'win32') return was?.mode === '100755' ? '100755' : '100644';
  return (st.mode & 0o100n) !== 0n ? '100755' : '100644';
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.mode === b.mode;
}

async function lstatBig(p: string): Promise<BigIntStats | undefined> {
  try {
    return await fsp.lstat(p, { bigint: true });
  } catch {
    return undefined;
  }
}
