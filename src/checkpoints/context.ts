// What the snapshot and restore steps share: the runner, the per-store state and staging.
// The state is per store and shared by every handle in the process (as the queue is), so two
// handles on one book never disagree about the last checkpoint, the index or what changed.
import { DirtyPaths } from '../project/manuscriptChanges';
import type { ManuscriptMatcher } from '../project/manuscript';
import type { GitRunner } from './gitRunner';
import type { IndexView } from './indexView';
import type { Head } from './store';

export interface SharedState {
  /** The last checkpoint (or the checkpoint last restored): the base of the next `changed` list. */
  head: Head | null;
  /** What the index holds, known exactly; undefined: not known (the next sync walks the whole book). */
  view: IndexView | undefined;
  /** Paths reported changed since the index last took them ('all' until the first full walk). */
  dirty: DirtyPaths;
  /** Commits made since the store was last packed (each leaves a few small loose files). */
  commitsSincePack: number;
}

const states = new Map<string, SharedState>();

function fresh(head: Head | null): SharedState {
  return { head, view: undefined, dirty: new DirtyPaths(), commitsSincePack: 0 };
}

export function sharedState(gitDir: string): SharedState {
  let s = states.get(gitDir);
  if (!s) {
    s = fresh(null);
    states.set(gitDir, s);
  }
  return s;
}

export function resetSharedState(gitDir: string, head: Head | null): void {
  states.set(gitDir, fresh(head));
}

export interface StoreContext {
  runner: GitRunner;
  root: string;
  gitDir: string;
  state: SharedState;
  matcher: ManuscriptMatcher;
  /** Brings the index in line with the manuscript on disk; the picture of it afterwards. */
  sync(): Promise<IndexView>;
  log?: (m: string) => void;
}
