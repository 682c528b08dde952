// Lists the manuscript: every regular file under the book folder that the project's manuscript
// matcher (src/project/manuscript.ts) accepts; the checkpoints track and the word count counts these. We walk in
// Node rather than letting git walk, because git would apply the novelist's .gitignore and stop at
// nested repositories. Decisions:
//  - nested git repositories: their files are manuscript like any others (their `.git` is skipped
//    and never read, written or renamed); they are reported so the shell can mention them;
//  - symlinks (to files or folders) are never followed or tracked; they are reported as skipped;
//  - FIFOs, sockets and unreadable folders are skipped and reported.
import { promises as fsp, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, messages } from './errors';
import { isReservedSegment, type ManuscriptMatcher } from '../project/manuscript';

export interface SkippedPath {
  path: string;
  reason: 'symlink' | 'special' | 'unreadable' | 'blocked' | 'notManuscript' | 'notAFile';
}

export interface WalkResult {
  files: string[];
  skipped: SkippedPath[];
  /** Folders (relative, POSIX) holding their own `.git`, other than the book folder itself. */
  nestedRepos: string[];
}

export const DEFAULT_MAX_FILES = 100_000;

/** Entries looked at between two yields to the event loop (a folder of 20,000 chapters is one readdir). */
const YIELD_EVERY = 1000;

/**
 * `start`: a folder (relative, POSIX) to walk instead of the whole book; the caller has checked
 * that the walk of the book would enter it. Its files are listed as from the book folder.
 */
export async function walkManuscript(root: string, matcher: ManuscriptMatcher, maxFiles = DEFAULT_MAX_FILES, start = ''): Promise<WalkResult> {
  const result: WalkResult = { files: [], skipped: [], nestedRepos: [] };

  async function visit(rel: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(rel === '' ? root : path.join(root, ...rel.split('/')), { withFileTypes: true });
    } catch (err) {
      if (rel === '') throw err;
      result.skipped.push({ path: rel, reason: 'unreadable' });
      return;
    }
    const subdirs: Promise<void>[] = [];
    let seen = 0;
    for (const e of entries) {
      // Matching is synchronous work: a big folder gives the event loop its turn now and then.
      if (++seen % YIELD_EVERY === 0) await yieldToLoop();
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.name.toLowerCase() === '.git') {
        if (rel !== '') result.nestedRepos.push(rel);
        continue;
      }
      if (isReservedSegment(e.name)) continue;
      let kind = direntKind(e);
      if (kind === 'unknown') kind = await lstatKind(path.join(root, ...child.split('/')));
      if (kind === 'dir') {
        if (matcher.mayContain(child)) subdirs.push(visit(child));
      } else if (kind === 'file') {
        if (matcher.matches(child)) {
          result.files.push(child);
          if (result.files.length > maxFiles) throw new CheckpointError('tooManyFiles', messages.tooManyFiles(maxFiles));
        }
      } else if (matcher.matches(child) || (kind === 'symlink' && matcher.mayContain(child))) {
        result.skipped.push({ path: child, reason: kind === 'symlink' ? 'symlink' : 'special' });
      }
    }
    await Promise.all(subdirs);
  }

  await visit(start);
  return result;
}

/** Lets timers and I/O callbacks run (setImmediate: after the poll phase, not a 1 ms timer). */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type Kind = 'file' | 'dir' | 'symlink' | 'special' | 'unknown';

function direntKind(e: Dirent): Kind {
  if (e.isSymbolicLink()) return 'symlink';
  if (e.isFile()) return 'file';
  if (e.isDirectory()) return 'dir';
  if (e.isFIFO() || e.isSocket() || e.isBlockDevice() || e.isCharacterDevice()) return 'special';
  return 'unknown';
}

async function lstatKind(p: string): Promise<Kind> {
  try {
    const st = await fsp.lstat(p);
    if (st.isSymbolicLink()) return 'symlink';
    if (st.isFile()) return 'file';
    if (st.isDirectory()) return 'dir';
    return 'special';
  } catch {
    return 'special';
  }
}
