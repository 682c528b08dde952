// Compare Saves, minus the pickers and the diff editor: which prose the two saves stood at and
// which files differ, which file to show, and the scene state at a save as a YAML document.
// Plain TypeScript over the shadow repo (src/checkpoints) and the branch (src/story/branch.ts).
import { stringify } from 'yaml';
import { CheckpointError, type ChangedFile, type CheckpointErrorKind, type ShadowRepo } from '../checkpoints';
import type { CheckpointEntry } from '../session/entries';
import { branchOf, type BranchOptions, type BranchSource } from '../story/branch';
import { checkpointAtSave, type SaveTree } from './saves';

export type SaveComparison =
  /** One of the saves has no checkpoint, or the store is unavailable: there is no prose to compare. */
  | { kind: 'no-prose' }
  /** The manuscript is the same at both saves. */
  | { kind: 'same'; from: CheckpointEntry; to: CheckpointEntry }
  | { kind: 'changed'; from: CheckpointEntry; to: CheckpointEntry; changes: ChangedFile[] }
  /** A save's checkpoint is no longer in the store (it was lost or rebuilt since). */
  | { kind: 'lost' }
  /** The store could not be read (`error`: why; src/story/problemWords.ts words it). */
  | { kind: 'store'; error: CheckpointErrorKind };

/** The prose at save `fromSaveId` against the prose at save `toSaveId`. */
export async function compareSaves(
  tree: Pick<SaveTree, 'entries' | 'path'>,
  fromSaveId: string,
  toSaveId: string,
  repo: Pick<ShadowRepo, 'changedFiles'> | undefined,
): Promise<SaveComparison> {
  const from = checkpointAtSave(tree, fromSaveId);
  const to = checkpointAtSave(tree, toSaveId);
  if (!from || !to || !repo) return { kind: 'no-prose' };
  let changes: ChangedFile[];
  try {
    changes = await repo.changedFiles(from.commit, to.commit);
  } catch (err) {
    if (!(err instanceof CheckpointError)) throw err;
    return err.kind === 'notFound' ? { kind: 'lost' } : { kind: 'store', error: err.kind };
  }
  return changes.length === 0 ? { kind: 'same', from, to } : { kind: 'changed', from, to, changes };
}

/**
 * Which changed file to open: the one asked for (none when it did not change), the only one,
 * or `ask` the novelist among several.
 */
export function changeToShow(changes: readonly ChangedFile[], file?: string): ChangedFile | 'ask' | undefined {
  if (file) return changes.find((c) => c.path === file);
  if (changes.length === 1) return changes[0];
  return changes.length > 1 ? 'ask' : undefined;
}

/** The scene state at entry `entryId` (a save) as YAML, as its branch computes it; '' for an unknown entry. */
export function stateDocumentAt(session: BranchSource, options: BranchOptions, entryId: string): string {
  if (!session.get(entryId)) return '';
  return stringify(branchOf(session, options, entryId).state.state, { lineWidth: 0 });
}
