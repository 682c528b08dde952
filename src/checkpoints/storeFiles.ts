// Writing and setting aside the few files we own inside the store. A file is replaced by renaming
// a new one over it, never written in place: a planted hard link or symbolic link (to a file
// outside the book) would otherwise carry our write to wherever it points. Nothing is deleted.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isErrno } from './safePaths';

/** Replaces `file` with `text` (a new file renamed into place; a link there is replaced, not followed). */
export async function replaceFile(file: string, text: string): Promise<void> {
  const tmp = `${file}.worldline-${process.pid}-${Date.now().toString(36)}.tmp`;
  await fsp.writeFile(tmp, text, { flag: 'wx' });
  try {
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}

/** The stamp in names of files set aside: 20250131T235959. */
export function stampOf(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
}

/**
 * Renames `file` (a file, folder or link: the entry itself, never what a link points to) to
 * `<file>.<label>-<stamp>` beside it and returns the new path; undefined when there was nothing.
 */
export async function setAside(file: string, label: string, now: Date): Promise<string | undefined> {
  for (let n = 0; n < 1000; n++) {
    const target = `${file}.${label}-${stampOf(now)}${n ? `-${n}` : ''}`;
    if (await exists(target)) continue;
    try {
      await fsp.rename(file, target);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return undefined;
      throw err;
    }
    return target;
  }
  throw new Error(`no free name beside ${path.basename(file)}`);
}

/** lstat, or undefined when nothing is there. */
export async function lstatOrNone(p: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fsp.lstat(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return undefined;
    throw err;
  }
}

async function exists(p: string): Promise<boolean> {
  return (await lstatOrNone(p)) !== undefined;
}
