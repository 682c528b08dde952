// One checkpoint commit: stage the manuscript, write the tree, and either reuse the last commit
// (nothing changed) or make a new one on top of it; then point the given ref at it.
import type { StoreContext } from './context';
import { parseNames } from './parse';
import { zeroOid } from './refs';
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
  const sync = await ctx.sync();
  const state = ctx.state;
  const head = state.head;
  const tree = !sync.staged && state.indexClean && head ? head.tree : (await runner.run(['write-tree'])).trim();
  const setRef = (commit: string) => runner.run(['update-ref', '-m', message, ref, commit, ...(createOnly ? [zeroOid(commit)] : [])]);
  if (head && tree === head.tree) {
    state.indexClean = true;
    if (keep && !keep({ commit: head.commit, reused: true })) return undefined;
    await setRef(head.commit);
    return { commit: head.commit, ref, changed: [] };
  }
  // The changed list needs only the two trees, so it runs beside commit-tree; the two ref
  // updates take separate lock files and run side by side too.
  const [names, commitOut] = await Promise.all([
    head ? runner.run(['diff-tree', '-r', '-z', '--no-renames', '--name-only', head.tree, tree]) : runner.run(['ls-tree', '-r', '-z', '--name-only', tree]),
    runner.run(['commit-tree', tree, ...(head ? ['-p', head.commit] : []), '-m', message]),
  ]);
  const commit = commitOut.trim();
  // The commit exists from here on: it is the base of the next turn even if a ref update fails
  // (it then stays reachable as the parent of the next checkpoint).
  state.head = { commit, tree };
  state.indexClean = true;
  state.commitsSincePack++;
  const kept = !keep || keep({ commit, reused: false });
  await Promise.all([runner.run(['update-ref', '--no-deref', '-m', message, 'HEAD', commit]), kept ? setRef(commit) : undefined]);
  return kept ? { commit, ref, changed: parseNames(names) } : undefined;
}
