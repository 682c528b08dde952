// What the snapshot and restore steps share: the runner, the per-store state and staging.
// The state is per store and shared by every handle in the process (as the queue is), so two
// handles on one book never disagree about the last checkpoint.
import type { ManuscriptMatcher } from '../project/manuscript';
import type { GitRunner } from './gitRunner';
import type { SyncResult } from './stage';
import type { Head } from './store';

export interface SharedState {
  /** The last checkpoint (or the checkpoint last restored): the base of the next `changed` list. */
  head: Head | null;
  /** True when the index is known to hold exactly head.tree (then write-tree can be skipped). */
  indexClean: boolean;
  /** Commits made since the store was last packed (each leaves a few small loose files). */
  commitsSincePack: number;
}

const states = new Map<string, SharedState>();

export function sharedState(gitDir: string): SharedState {
  let s = states.get(gitDir);
  if (!s) {
    s = { head: null, indexClean: false, commitsSincePack: 0 };
    states.set(gitDir, s);
  }
  return s;
}

export function resetSharedState(gitDir: string, head: Head | null): void {
  states.set(gitDir, { head, indexClean: false, commitsSincePack: 0 });
}

export interface StoreContext {
  runner: GitRunner;
  root: string;
  gitDir: string;
  state: SharedState;
  matcher: ManuscriptMatcher;
  /** Brings the index in line with the manuscript on disk. */
  sync(): Promise<SyncResult>;
  log?: (m: string) => void;
}
