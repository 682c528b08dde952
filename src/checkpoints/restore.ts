// Restore as a whole: safety checkpoint, the plan (a diff from the safety commit, which is the
// manuscript now, to the target), a check of the plan against the disk (refused whole when
// something not ours is in the way), the file work, then the index and HEAD follow the target.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { StoreContext } from './context';
import { CheckpointError, messages, RestoreBlockedError } from './errors';
import type { IndexEntry } from './indexView';
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
  /** The target's side of every difference: what HEAD's tree holds there once HEAD is the target. */
  const targetSide = new Map<string, IndexEntry | null>();
  for (const d of parseRawDiff(rawDiff)) {
    targetSide.set(d.path, d.status === 'D' ? null : { mode: d.newMode, oid: d.newOid });
    if (d.status === 'D') deletes.push(d.path);
    else if (d.newMode === '100644' || d.newMode === '100755') {
      writes.push(d.path);
      if (d.status === 'A') added.add(d.path);
    } else out.skipped.push({ path: d.path, reason: 'notAFile' });
  }
  const opts = { root: ctx.root, isManuscript: (p: string) => ctx.matcher.matches(p), extract: (paths: string[]) => extract(ctx, targetSide, paths, stamp) };
  const plan = await checkRestore({ writes, deletes, added }, opts, out);
  if (plan.blockers.length > 0) {
    for (const b of plan.blockers) ctx.log?.(`restore refused: ${b.path} is in the way (${b.kind}${b.inside ? `: ${b.inside}` : ''}) of ${b.chapter}`);
    throw new RestoreBlockedError(plan.blockers, { commit: safety.commit, ref: safety.ref });
  }
  // Only a restore that goes ahead is put on the undo stack.
  const undo = recordUndo ? `${UNDO}/${stamp}` : undefined;
  if (undo) await runner.updateRefs([{ ref: undo, commit: safety.commit, create: true }]);
  try {
    await applyRestore(plan, opts, out);
  } catch (err) {
    await afterRestore(ctx, out, target, targetSide, false).catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    throw new CheckpointError('io', messages.restoreStopped(out.written.length + out.deleted.length, why), why);
  }
  await afterRestore(ctx, out, target, targetSide, true);
  for (const s of out.skipped) ctx.log?.(`restore: left alone (${s.reason}): ${s.path}`);
  return { safety, ...out, ...(undo ? { undo } : {}) };
}

/**
 * Records the restored files in the index and makes the target the base of the next turn. The
 * written files are the target's blobs byte for byte, so their entries are the target's (no
 * hashing); the picture of the index follows exactly, or is dropped when the restore stopped
 * half-way (the next sync then walks the book).
 */
async function afterRestore(ctx: StoreContext, out: RestoreOutcome, target: Head, targetSide: ReadonlyMap<string, IndexEntry | null>, complete: boolean): Promise<void> {
  const { runner, state } = ctx;
  const view = state.view;
  state.view = undefined; // until the index is known again
  const zero = zeroOid(target.commit);
  const written = out.written.map((p) => [p, targetSide.get(p)] as const).filter((w): w is readonly [string, IndexEntry] => w[1] !== null && w[1] !== undefined);
  // Deleted paths may be folders now (a chapter replaced by a folder of the same name): removed first.
  const input = [...out.deleted.map((p) => `0 ${zero}\t${p}\0`), ...written.map(([p, e]) => `${e.mode} ${e.oid}\t${p}\0`)].join('');
  await Promise.all([
    input !== '' ? runner.runInput(['update-index', '-z', '--index-info'], input) : undefined,
    runner.updateRefs([{ ref: 'HEAD', commit: target.commit }]),
  ]);
  state.head = target;
  if (!view || !complete || written.length !== out.written.length) return;
  for (const p of out.deleted) view.stage(p, null);
  for (const [p, e] of written) view.stage(p, e);
  view.moveHead(target.commit, targetSide);
  state.view = view;
}

/**
 * The target's versions of `paths`, read from the store by one long-lived `cat-file --batch` and
 * written into a staging folder inside the store (the caller renames them into place). The store
 * disables every attribute (info/attributes), so a chapter's bytes are its blob's bytes.
 */
async function extract(ctx: StoreContext, targetSide: ReadonlyMap<string, IndexEntry | null>, paths: string[], stamp: string): Promise<string> {
  const staging = path.join(ctx.gitDir, `worldline-restore-${stamp}`);
  const entries = paths.map((p) => [p, targetSide.get(p)] as const);
  const blobs = await ctx.runner.readBlobs(entries.map(([p, e]) => {
    if (!e) throw new CheckpointError('error', messages.gitFailed('restore', `no version of ${p} in the checkpoint`));
    return e.oid;
  }));
  const made = new Set<string>();
  try {
    for (const [i, [rel, e]] of entries.entries()) {
      const file = path.join(staging, ...rel.split('/'));
      const dir = path.dirname(file);
      if (!made.has(dir)) {
        await fsp.mkdir(dir, { recursive: true });
        made.add(dir);
      }
      await fsp.writeFile(file, blobs[i] as Buffer, { flag: 'wx', mode: e?.mode === '100755' ? 0o777 : 0o666 });
    }
  } catch (err) {
    await fsp.rm(staging, { recursive: true, force: true });
    throw err;
  }
  return staging;
}
