// One checkpoint commit: stage the manuscript, write the tree, and either reuse the last commit
// (nothing changed) or make a new one on top of it; then point the given ref at it.
import type { StoreContext } from './context';
import { parseNames } from './parse';
import { zeroOid } from './refs';
import type { CheckpointResult } from './types';

/** `createOnly`: the ref must not exist yet (safety refs are never overwritten). */
export async function snapshot(ctx: StoreContext, ref: string, message: string, createOnly: boolean): Promise<CheckpointResult> {
  const { runner } = ctx;
  const sync = await ctx.sync();
  const state = ctx.state;
  const head = state.head;
  const tree = !sync.staged && state.indexClean && head ? head.tree : (await runner.run(['write-tree'])).trim();
  const setRef = (commit: string) => runner.run(['update-ref', '-m', message, ref, commit, ...(createOnly ? [zeroOid(commit)] : [])]);
  if (head && tree === head.tree) {
    await setRef(head.commit);
    state.indexClean = true;
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
  await Promise.all([runner.run(['update-ref', '--no-deref', '-m', message, 'HEAD', commit]), setRef(commit)]);
  return { commit, ref, changed: parseNames(names) };
}
