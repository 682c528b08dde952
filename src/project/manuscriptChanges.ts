// Which manuscript files changed, and since when: one feed for everyone who would otherwise walk
// and re-read the whole book (the checkpoint's dirty set, the word count). Fed by the agent's tool
// writes, the restores' written files, and the shell's file watcher and saves. A watcher can drop
// events (overflow, a folder moved outside VS Code), so `everything()` marks the whole book
// unknown; consumers then walk once, which is also the safety net at open and when idle.

import { bookPathOf } from './manuscript';

/** Relative POSIX paths of manuscript files (or `'all'` when the set is not known). */
export type ChangedPaths = readonly string[] | 'all';

export type ChangeListener = (paths: ChangedPaths) => void;

/** What reports changes (the Story and the shell hold only this side). */
export interface ChangeSink {
  /** The files (or folders) at `paths` changed: written, created, deleted or renamed. */
  changed(paths: readonly string[]): void;
  /** Anything may have changed. */
  everything(): void;
}

/**
 * The book-relative POSIX paths among `absolute` (files or folders an editor or a watcher saw
 * change) that may touch the manuscript: inside the book, and neither Worldline's own folder nor a
 * `.git` folder, whose churn is never manuscript and would only wake the consumers.
 */
export function reportablePaths(root: string, absolute: readonly string[]): string[] {
  const out: string[] = [];
  for (const abs of absolute) {
    const rel = bookPathOf(root, abs);
    if (rel === undefined || /^\.worldline(\/|$)/i.test(rel) || /(^|\/)\.git(\/|$)/i.test(rel)) continue;
    out.push(rel);
  }
  return out;
}

/** What consumers listen to (the checkpoint store, the word count). */
export interface ChangeFeed {
  /** Listens to every change; returns the function that stops listening. */
  listen(listener: ChangeListener): () => void;
}

/**
 * More paths than this and the set becomes 'all': past a few thousand (a branch switch in the
 * novelist's own repo), one walk of the book costs less than looking at each path.
 */
export const MAX_DIRTY_PATHS = 2000;

/** A consumer's own view of the paths changed since it last took them; starts as 'all' (nothing is known yet). */
export class DirtyPaths {
  private all = true;
  private paths = new Set<string>();

  constructor(private readonly max = MAX_DIRTY_PATHS) {}

  add(p: ChangedPaths): void {
    if (this.all) return;
    if (p === 'all') {
      this.all = true;
      this.paths = new Set();
      return;
    }
    for (const x of p) this.paths.add(x);
    if (this.paths.size > this.max) this.add('all');
  }

  /** The paths changed since the last `take()`, or 'all'; the set is empty afterwards. */
  take(): ChangedPaths {
    const out: ChangedPaths = this.all ? 'all' : [...this.paths];
    this.all = false;
    this.paths = new Set();
    return out;
  }

  /** Puts paths back (the work that took them failed): they are dirty again. */
  restore(p: ChangedPaths): void {
    this.add(p);
  }

  /** True when nothing changed since the last `take()`. */
  get clean(): boolean {
    return !this.all && this.paths.size === 0;
  }
}

export class ManuscriptChanges implements ChangeSink, ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  changed(paths: readonly string[]): void {
    if (paths.length === 0) return;
    for (const l of [...this.listeners]) l(paths);
  }

  everything(): void {
    for (const l of [...this.listeners]) l('all');
  }

  listen(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
