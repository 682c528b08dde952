// One checkpoint commit: stage the manuscript, write the tree, and either reuse the last commit
// (nothing changed) or make a new one on top of it; then point the given ref at it. With the index
// known in memory (indexView.ts), a checkpoint where nothing changed runs no git at all, and one
// where a chapter changed runs two processes (update-index, write-tree) plus two requests to
// long-lived ones (the commit object, one ref transaction for HEAD and the turn's ref).
import type { StoreContext } from './context';
import { AUTHOR_EMAIL, AUTHOR_NAME } from './gitEnv';
import type { RefUpdate } from './gitRunner';
import type { CheckpointResult } from './types';

/** What a snapshot found, before its ref is written. */
export interface Made {
  commit: string;
  /** True when nothing changed and the last checkpoint's commit was reused. */
  reused: boolean;
}

/** Decides whether the snapshot is kept (its ref written); a snapshot not kept leaves no ref. */
export type Keep = (made: Made) => boolean;

/**
 * `createOnly`: the ref must not exist yet (safety refs are never overwritten). With `keep`, the
 * ref is written only when it says so; undefined is returned otherwise. A commit made but not
 * kept is still HEAD (the base of the next checkpoint, which keeps it reachable as its parent).
 */
export async function snapshot(ctx: StoreContext, ref: string, message: string, createOnly: boolean): Promise<CheckpointResult>;
export async function snapshot(ctx: StoreContext, ref: string, message: string, createOnly: boolean, keep: Keep): Promise<CheckpointResult | undefined>;
export async function snapshot(ctx: StoreContext, ref: string, message: string, createOnly: boolean, keep?: Keep): Promise<CheckpointResult | undefined> {
  const { runner } = ctx;
  const view = await ctx.sync();
  const state = ctx.state;
  const head = state.head;
  let tree: string;
  if (head && view.clean) tree = head.tree;
  else {
    tree = view.stagedTree ?? (await runner.run(['write-tree'])).trim();
    view.stagedTree = tree;
  }
  const setRef = (commit: string): RefUpdate => (createOnly ? { ref, commit, create: true } : { ref, commit });
  if (head && tree === head.tree) {
    view.forgetPending(); // the differences were none after all (a mode git did not take)
    if (keep && !keep({ commit: head.commit, reused: true })) return undefined;
    await runner.updateRefs([setRef(head.commit)]);
    return { commit: head.commit, ref, changed: [] };
  }
  const changed = view.changedPaths();
  const commit = await runner.writeCommit(commitText(tree, head?.commit, message));
  // The commit exists from here on: it is the base of the next turn even if a ref update fails
  // (it then stays reachable as the parent of the next checkpoint).
  state.head = { commit, tree };
  view.committedAs(commit);
  view.stagedTree = tree;
  state.commitsSincePack++;
  const kept = !keep || keep({ commit, reused: false });
  const headRef: RefUpdate = { ref: 'HEAD', commit };
  try {
    await runner.updateRefs(kept ? [headRef, setRef(commit)] : [headRef]);
  } catch (err) {
    // The turn's ref failed (and the transaction with it): HEAD still moves, as it always did.
    if (kept) await runner.updateRefs([headRef]).catch(() => undefined);
    throw err;
  }
  return kept ? { commit, ref, changed } : undefined;
}

/** The commit object `git commit-tree` would write: our author, now, the local time zone. */
export function commitText(tree: string, parent: string | undefined, message: string, now = new Date()): string {
  const offset = -now.getTimezoneOffset();
  const abs = Math.abs(offset);
  const tz = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  const who = `${AUTHOR_NAME} <${AUTHOR_EMAIL}> ${Math.floor(now.getTime() / 1000)} ${tz}`;
  return `tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author ${who}\ncommitter ${who}\n\n${message}\n`;
}
