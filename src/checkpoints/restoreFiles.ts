// Makes the manuscript files equal to a checkpoint, one file at a time, touching nothing else:
//  - only paths that are manuscript under the current globs are written or deleted;
//  - never through a symlink (a file that is a symlink, or a folder on the way that is one);
//  - new content is first extracted by git into a staging folder inside the store, then renamed
//    into place, so a chapter is either the old or the new version, never half-written;
//  - folders left empty by a deleted chapter are removed (rmdir only removes empty folders).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { checkParents, isErrno, isSafeRelative, lstatOrNull, toAbsolute } from './safePaths';
import type { SkippedPath } from './walk';

export interface RestorePlan {
  /** Paths to (re)write from the target checkpoint. */
  writes: string[];
  /** Paths to delete: manuscript files absent from the target checkpoint. */
  deletes: string[];
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

/** Applies `plan`, recording progress in `out` as it goes (so a failure still reports what was done). */
export async function applyRestore(plan: RestorePlan, opts: ApplyOptions, out: RestoreOutcome): Promise<void> {
  const allowed = (p: string) => {
    if (isSafeRelative(p) && opts.isManuscript(p)) return true;
    out.skipped.push({ path: p, reason: 'notManuscript' });
    return false;
  };
  const deletes = [...plan.deletes].sort().filter(allowed);
  const writes = [...plan.writes].sort().filter(allowed);

  const emptied = new Set<string>();
  for (const rel of deletes) {
    const parents = await checkParents(opts.root, rel, false);
    if (parents === 'missing') continue; // already gone
    if (parents === 'blocked') {
      out.skipped.push({ path: rel, reason: 'blocked' });
      continue;
    }
    const abs = toAbsolute(opts.root, rel);
    const st = await lstatOrNull(abs);
    if (st === null) continue;
    if (!st.isFile()) {
      out.skipped.push({ path: rel, reason: st.isSymbolicLink() ? 'symlink' : 'notAFile' });
      continue;
    }
    await fsp.unlink(abs);
    out.deleted.push(rel);
    emptied.add(path.posix.dirname(rel));
  }
  await removeEmptyFolders(opts.root, emptied);

  if (writes.length === 0) return;
  const staging = await opts.extract(writes);
  try {
    for (const rel of writes) {
      if ((await checkParents(opts.root, rel, true)) === 'blocked') {
        out.skipped.push({ path: rel, reason: 'blocked' });
        continue;
      }
      const abs = toAbsolute(opts.root, rel);
      const st = await lstatOrNull(abs);
      if (st !== null && !st.isFile()) {
        out.skipped.push({ path: rel, reason: st.isSymbolicLink() ? 'symlink' : 'notAFile' });
        continue;
      }
      await moveInto(toAbsolute(staging, rel), abs);
      out.written.push(rel);
    }
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
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
