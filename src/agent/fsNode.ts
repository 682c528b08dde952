// The file system the agent's tools write through. The shell implements `ManuscriptFs` with VS Code
// APIs (so open editors update and edits stay undoable); `NodeManuscriptFs` is the plain-Node
// version for unit tests and headless use.
import { promises as fsp, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { inspectConfined, readConfined, writeConfined, type ConfineOptions, type Inspection } from './confinedFile';
import { isReservedSegment } from './manuscript';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

/**
 * Every `rel` given to these methods is a POSIX path relative to the novel folder that has already
 * passed `resolveManuscriptPath` ("" means the folder itself, for `realpath` and `lstat`).
 */
export interface ManuscriptFs {
  /**
   * The file's text (UTF-8), or undefined when it does not exist. Throws a `ConfinementError` for
   * a link on the way, a file that is not a regular file or has more than one hard link.
   */
  readText(rel: string): Promise<string | undefined>;
  /** Creates or replaces the file, creating parent folders; never through a link (same refusals). */
  writeText(rel: string, text: string): Promise<void>;
  /**
   * Candidate files under the root as POSIX relative paths; skips reserved folders and never
   * descends into a linked folder. May be unfiltered: links and other non-folders are included so
   * the caller can say how many it hides.
   */
  list(): Promise<string[]>;
  /** Absolute real path after resolving every link, or undefined when it cannot be resolved. */
  realpath(rel: string): Promise<string | undefined>;
  /** What is at `rel` itself (a link is reported as 'symlink'), or undefined when nothing is. */
  lstat(rel: string): Promise<EntryKind | undefined>;
}

/** Bound on `list()` so a huge folder (a mistaken root such as $HOME) cannot stall a turn. */
const MAX_LISTED = 20_000;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}

export class NodeManuscriptFs implements ManuscriptFs {
  readonly root: string;

  /** `confine` is for tests: a hook between checks and writes, or the 'path' strategy forced. */
  constructor(root: string, private readonly confine: ConfineOptions = {}) {
    this.root = path.resolve(root);
  }

  /** Maps a validated relative path to an absolute one; refuses anything else as a programming error. */
  private abs(rel: string): string {
    if (rel === '') return this.root;
    const segs = rel.split('/');
    if (rel.startsWith('/') || segs.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) {
      throw new Error(`NodeManuscriptFs: "${rel}" is not a validated relative path`);
    }
    return path.join(this.root, ...segs);
  }

  // confinedFile.ts validates `rel` the same way and checks every step on the disk.
  readText(rel: string): Promise<string | undefined> {
    return readConfined(this.root, rel, this.confine);
  }

  // Through a temp file and a rename, all checked by handle (see confinedFile.ts).
  writeText(rel: string, text: string): Promise<void> {
    return writeConfined(this.root, rel, text, this.confine);
  }

  /** The checks of a read without reading, for writers that are not ours (VS Code's edits). */
  inspect(rel: string, createFolders = false): Promise<Inspection> {
    return inspectConfined(this.root, rel, { ...this.confine, createFolders });
  }

  async list(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dirRel: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await fsp.readdir(this.abs(dirRel), { withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for (const e of entries) {
        if (out.length >= MAX_LISTED) return;
        const rel = dirRel === '' ? e.name : `${dirRel}/${e.name}`;
        if (e.isDirectory()) {
          if (!isReservedSegment(e.name)) await walk(rel);
        } else {
          // Files, links (never followed, so no link cycles) and FIFOs alike: the tools refuse
          // all but plain files and count what they hide.
          out.push(rel);
        }
      }
    };
    await walk('');
    return out;
  }

  async realpath(rel: string): Promise<string | undefined> {
    try {
      return await fsp.realpath(this.abs(rel));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async lstat(rel: string): Promise<EntryKind | undefined> {
    try {
      const s = await fsp.lstat(this.abs(rel));
      if (s.isSymbolicLink()) return 'symlink';
      if (s.isDirectory()) return 'directory';
      if (s.isFile()) return 'file';
      return 'other';
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }
}
