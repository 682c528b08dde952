// Restore as a whole: safety checkpoint, the plan (a diff from the safety commit, which is the
// manuscript now, to the target), a check of the plan against the disk (refused whole when
// something not ours is in the way), the file work, then the index and HEAD follow the target.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { StoreContext } from './context';
import { CheckpointError, messages, RestoreBlockedError } from './errors';
import { parseRawDiff } from './parse';
import { SAFETY, UNDO, zeroOid } from './refs';
import { applyRestore, checkRestore, type RestoreOutcome } from './restoreFiles';
import { snapshot } from './snapshot';
import type { Head } from './store';
import type { RestoreResult } from './types';

/**
 * `recordUndo`: push the safety commit on the undo stack (not for an undo itself). Throws
 * RestoreBlockedError, with nothing written, when something that is not ours stands where a
 * chapter goes; the safety checkpoint is taken either way.
 */
export async function restoreTo(ctx: StoreContext, target: Head, stamp: string, recordUndo: boolean): Promise<RestoreResult> {
  const { runner } = ctx;
  const safety = await snapshot(ctx, `${SAFETY}/${stamp}`, `Safety checkpoint before restoring ${target.commit.slice(0, 10)}`, true);
  const rawDiff = await runner.run(['diff-tree', '-r', '-z', '--no-renames', safety.commit, target.commit]);
  const out: RestoreOutcome = { written: [], deleted: [], skipped: [] };
  const writes: string[] = [];
  const deletes: string[] = [];
  const added = new Set<string>();
  for (const d of parseRawDiff(rawDiff)) {
    if (d.status === 'D') deletes.push(d.path);
    else if (d.newMode === '100644' || d.newMode === '100755') {
      writes.push(d.path);
      if (d.status === 'A') added.add(d.path);
    } else out.skipped.push({ path: d.path, reason: 'notAFile' });
  }
  const opts = { root: ctx.root, isManuscript: (p: string) => ctx.matcher.matches(p), extract: (paths: string[]) => extract(ctx, target.commit, paths, stamp) };
  const plan = await checkRestore({ writes, deletes, added }, opts, out);
  if (plan.blockers.length > 0) {
    for (const b of plan.blockers) ctx.log?.(`restore refused: ${b.path} is in the way (${b.kind}${b.inside ? `: ${b.inside}` : ''}) of ${b.chapter}`);
    throw new RestoreBlockedError(plan.blockers, { commit: safety.commit, ref: safety.ref });
  }
  // Only a restore that goes ahead is put on the undo stack.
  const undo = recordUndo ? `${UNDO}/${stamp}` : undefined;
  if (undo) await runner.run(['update-ref', undo, safety.commit, zeroOid(safety.commit)]);
  try {
    await applyRestore(plan, opts, out);
  } catch (err) {
    await afterRestore(ctx, out, target, false).catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    throw new CheckpointError('io', messages.restoreStopped(out.written.length + out.deleted.length, why), why);
  }
  await afterRestore(ctx, out, target, true);
  for (const s of out.skipped) ctx.log?.(`restore: left alone (${s.reason}): ${s.path}`);
  return { safety, ...out, ...(undo ? { undo } : {}) };
}

/** Records the restored files in the index and makes the target the base of the next turn. */
async function afterRestore(ctx: StoreContext, out: RestoreOutcome, target: Head, complete: boolean): Promise<void> {
  const { runner, state } = ctx;
  state.indexClean = false;
  const updateIndex = async () => {
    // Deleted paths may be folders now (a chapter replaced by a folder of the same name).
    if (out.deleted.length > 0) await runner.runForPaths(['update-index', '--force-remove'], out.deleted);
    if (out.written.length > 0) await runner.runForPaths(['update-index', '--add', '--replace'], out.written);
  };
  await Promise.all([updateIndex(), runner.run(['update-ref', '--no-deref', '-m', `Restore ${target.commit.slice(0, 10)}`, 'HEAD', target.commit])]);
  state.head = target;
  // The index held the safety tree and received exactly the diff to the target: it is the target now.
  state.indexClean = complete && out.skipped.length === 0;
}

/** git writes the target's versions of `paths` into a staging folder inside the store. */
async function extract(ctx: StoreContext, commit: string, paths: string[], stamp: string): Promise<string> {
  const index = path.join(ctx.gitDir, `worldline-restore-${stamp}.index`);
  const staging = path.join(ctx.gitDir, `worldline-restore-${stamp}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await ctx.runner.run(['read-tree', commit], env);
    await ctx.runner.runForPaths(['checkout-index', '-f', `--prefix=${staging.split(path.sep).join('/')}/`], paths, env);
  } finally {
    await fsp.rm(index, { force: true });
  }
  return staging;
}
