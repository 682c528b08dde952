// Path checks for every file we write or delete in the book folder. A manuscript path is POSIX,
// relative, inside the folder, and never reached through a symlink: a link pointing outside the
// book must never be followed for writing, so each folder on the way is checked with lstat.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/** Syntactic check: relative POSIX path with no "", ".", ".." segment and nothing that escapes. */
export function isSafeRelative(rel: string): boolean {
  if (rel === '' || rel.includes('\0') || rel.startsWith('/')) return false;
  if (process.platform === 'win32' && (rel.includes('\\') || rel.includes(':'))) return false;
  return rel.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

export function toAbsolute(root: string, rel: string): string {
  return path.join(root, ...rel.split('/'));
}

export type ParentState = 'ok' | 'missing' | 'blocked';

/**
 * Walks the folders above `rel` from the book root down. 'blocked': one of them is a symlink or
 * not a folder (never write through it). 'missing': one does not exist (with `create`, it is made).
 */
export async function checkParents(root: string, rel: string, create: boolean): Promise<ParentState> {
  const segs = rel.split('/');
  let cur = root;
  for (let i = 0; i < segs.length - 1; i++) {
    cur = path.join(cur, segs[i]);
    const st = await lstatOrNull(cur);
    if (st === null) {
      if (!create) return 'missing';
      await fsp.mkdir(cur);
      continue;
    }
    if (st.isSymbolicLink() || !st.isDirectory()) return 'blocked';
  }
  return 'ok';
}

export async function lstatOrNull(p: string) {
  try {
    return await fsp.lstat(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return null;
    throw err;
  }
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
