// Makes the manuscript files equal to a checkpoint, touching nothing else:
//  - only paths that are manuscript under the current globs are written or deleted;
//  - first a check of the whole plan against the disk (`checkRestore`), which reads only: anything
//    in the way that is not ours (a file that is not a tracked chapter, a symlink, a FIFO, a folder
//    holding such things) refuses the restore whole, before a byte is written. So the restore
//    either brings back every chapter or changes nothing; it never leaves one out;
//  - never through a symlink (a file that is a symlink, or a folder on the way that is one);
//  - new content is first extracted by git into a staging folder inside the store, then renamed
//    into place, so a chapter is either the old or the new version, never half-written;
//  - order: chapters absent from the target are deleted, then the folders they leave empty and the
//    empty folders standing where a chapter goes are removed, then chapters are written. So a
//    chapter `a.md` can become a folder `a.md/…` and back, in one restore.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { RestoreBlocker } from './errors';
import { checkParents, isErrno, isSafeRelative, lstatOrNull, toAbsolute } from './safePaths';
import type { SkippedPath } from './walk';

export interface RestorePlan {
  /** Paths to (re)write from the target checkpoint. */
  writes: string[];
  /** Paths to delete: manuscript files absent from the target checkpoint. */
  deletes: string[];
  /** Of the writes, those the manuscript now lacks (the others are tracked files, overwritten). */
  added: ReadonlySet<string>;
}

/** A plan checked against the disk: what `applyRestore` does, or why the restore is refused. */
export interface CheckedPlan {
  writes: string[];
  deletes: string[];
  /** Folders standing where a chapter goes, holding nothing but folders and chapters being deleted. */
  clear: string[];
  blockers: RestoreBlocker[];
}

export interface RestoreOutcome {
  written: string[];
  deleted: string[];
  skipped: SkippedPath[];
}

export interface ApplyOptions {
  root: string;
  isManuscript: (rel: string) => boolean;
  /** Extracts the given paths of the target into a staging folder and returns that folder. */
  extract: (paths: string[]) => Promise<string>;
}

/** Reads only. Paths that are not manuscript under the current globs go to `out.skipped`. */
export async function checkRestore(plan: RestorePlan, opts: ApplyOptions, out: RestoreOutcome): Promise<CheckedPlan> {
  const allowed = (p: string) => {
    if (isSafeRelative(p) && opts.isManuscript(p)) return true;
    out.skipped.push({ path: p, reason: 'notManuscript' });
    return false;
  };
  const deletes = [...plan.deletes].sort().filter(allowed);
  const writes = [...plan.writes].sort().filter(allowed);
  const deleting = new Set(deletes);
  const checked: CheckedPlan = { writes, deletes, clear: [], blockers: [] };
  const seen = new Set<string>();
  const block = (b: RestoreBlocker) => {
    if (seen.has(b.path)) return;
    seen.add(b.path);
    checked.blockers.push(b);
  };

  for (const rel of writes) {
    const segs = rel.split('/');
    let parentsOk = true;
    // Every folder on the way must be a real folder, absent (it will be made), or a chapter that
    // this restore deletes (the chapter became a folder).
    for (let i = 1; i < segs.length; i++) {
      const up = segs.slice(0, i).join('/');
      const st = await lstatOrNull(toAbsolute(opts.root, up));
      if (st === null) break;
      if (st.isDirectory()) continue;
      if (!(st.isFile() && deleting.has(up))) block({ path: up, chapter: rel, kind: kindOf(st) });
      parentsOk = false;
      break;
    }
    if (!parentsOk) continue;
    const st = await lstatOrNull(toAbsolute(opts.root, rel));
    if (st === null) continue;
    if (st.isFile()) {
      // A file the safety checkpoint did not track (it appeared since, or was never manuscript).
      if (plan.added.has(rel)) block({ path: rel, chapter: rel, kind: 'file' });
      continue;
    }
    if (!st.isDirectory()) {
      block({ path: rel, chapter: rel, kind: kindOf(st) });
      continue;
    }
    const foreign = await firstForeign(opts.root, rel, deleting);
    if (foreign === undefined) checked.clear.push(rel);
    else block({ path: rel, chapter: rel, kind: 'folder', inside: foreign });
  }
  return checked;
}

/** Applies a checked plan with no blockers, recording progress in `out` (a failure still reports what was done). */
export async function applyRestore(plan: CheckedPlan, opts: ApplyOptions, out: RestoreOutcome): Promise<void> {
  if (plan.blockers.length > 0) throw new Error('applyRestore: the plan is blocked');
  // Extract first: if git fails here, the manuscript has not been touched.
  const staging = plan.writes.length > 0 ? await opts.extract(plan.writes) : undefined;
  try {
    const emptied = new Set<string>();
    for (const rel of plan.deletes) {
      const parents = await checkParents(opts.root, rel, false);
      if (parents !== 'ok') continue; // gone already, or under something that is not ours
      const abs = toAbsolute(opts.root, rel);
      const st = await lstatOrNull(abs);
      // Only a regular file is a chapter of ours; a link or folder that took its place since the
      // safety checkpoint is not manuscript and stays.
      if (st === null || !st.isFile()) continue;
      await fsp.unlink(abs);
      out.deleted.push(rel);
      emptied.add(path.posix.dirname(rel));
    }
    await removeEmptyFolders(opts.root, emptied);
    for (const dir of plan.clear) await removeEmptyTree(toAbsolute(opts.root, dir));

    if (staging === undefined) return;
    for (const rel of plan.writes) {
      if ((await checkParents(opts.root, rel, true)) === 'blocked') throw new Error(`"${rel}": a folder on the way is not a real folder any more`);
      const abs = toAbsolute(opts.root, rel);
      const st = await lstatOrNull(abs);
      if (st !== null && !st.isFile()) throw new Error(`"${rel}" is not a file any more`);
      await moveInto(toAbsolute(staging, rel), abs);
      out.written.push(rel);
    }
  } finally {
    if (staging !== undefined) await fsp.rm(staging, { recursive: true, force: true });
  }
}

function kindOf(st: { isSymbolicLink(): boolean; isFile(): boolean; isDirectory(): boolean }): RestoreBlocker['kind'] {
  if (st.isSymbolicLink()) return 'link';
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'folder';
  return 'special';
}

/**
 * The first entry under folder `rel` that is not ours to remove (anything but a folder or a
 * chapter this restore deletes), or undefined when the folder is ours to clear.
 */
async function firstForeign(root: string, rel: string, deleting: ReadonlySet<string>): Promise<string | undefined> {
  const names = (await fsp.readdir(toAbsolute(root, rel))).sort();
  for (const name of names) {
    const child = `${rel}/${name}`;
    const st = await lstatOrNull(toAbsolute(root, child));
    if (st === null) continue;
    if (st.isDirectory()) {
      const inner = await firstForeign(root, child, deleting);
      if (inner !== undefined) return inner;
    } else if (!(st.isFile() && deleting.has(child))) {
      return child;
    }
  }
  return undefined;
}

/** Removes a folder that holds only (empty) folders; rmdir never removes a file, so anything that appeared since stops it. */
async function removeEmptyTree(abs: string): Promise<void> {
  const st = await lstatOrNull(abs);
  if (st === null || !st.isDirectory()) return;
  for (const name of await fsp.readdir(abs)) {
    const child = path.join(abs, name);
    const cst = await lstatOrNull(child);
    if (cst?.isDirectory()) await removeEmptyTree(child);
  }
  await fsp.rmdir(abs);
}

async function moveInto(src: string, dst: string): Promise<void> {
  try {
    await fsp.rename(src, dst);
  } catch (err) {
    if (!isErrno(err, 'EXDEV')) throw err;
    // .worldline on another volume: copy next to the target, then rename (still atomic for the reader).
    const tmp = `${dst}.worldline-restore`;
    await fsp.copyFile(src, tmp);
    await fsp.rename(tmp, dst);
  }
}

async function removeEmptyFolders(root: string, dirs: Set<string>): Promise<void> {
  const all = new Set<string>();
  for (const d of dirs) for (let x = d; x !== '.' && x !== ''; x = path.posix.dirname(x)) all.add(x);
  // Deepest first, so a folder is tried only after its emptied subfolders are gone.
  for (const d of [...all].sort((a, b) => b.split('/').length - a.split('/').length)) {
    const abs = toAbsolute(root, d);
    const st = await lstatOrNull(abs);
    if (st === null || !st.isDirectory()) continue;
    await fsp.rmdir(abs).catch(() => undefined); // fails when not empty: then it stays
  }
}
