// Where a restore puts the leaf and which prose it brings, decided from the Branch so the two always
// agree: the checkpoint restored is the last checkpoint on the path to the new leaf. The shell only
// carries it out (DESIGN, "Checkpoints" and "Saves and worldlines").

import type { CheckpointEntry } from '../session/entries';
import type { Branch } from './branch';

export interface Landing {
  /** Where the leaf goes. */
  leafId: string;
  /** The prose to restore: the last checkpoint on the path to `leafId`; none for a save made before any. */
  checkpoint?: CheckpointEntry;
}

/**
 * Restore Prose and Chat to a checkpoint: its prose, and the leaf at the end of that turn (after
 * its `state` and `save` entries), so the scene state is that turn's and a save made right there
 * is "you are here" again. Undefined when `checkpointId` is not a checkpoint of the session.
 */
export function proseAndChatLanding(branch: Branch, checkpointId: string): Landing | undefined {
  const checkpoint = branch.checkpointAt(checkpointId);
  if (checkpoint?.id !== checkpointId) return undefined;
  const end = branch.endAfter(checkpointId) ?? checkpoint;
  return { leafId: end.id, checkpoint };
}

/**
 * Load Save: the leaf goes to the save itself (a save is already past its turn's state, and a
 * later save or state edit is not what was saved), the prose to the last checkpoint before it.
 * Undefined when `saveEntryId` is not a save entry of the session.
 */
export function saveLanding(branch: Branch, saveEntryId: string): Landing | undefined {
  const save = branch.entry(saveEntryId);
  if (save?.type !== 'save') return undefined;
  const landing: Landing = { leafId: save.id };
  const checkpoint = branch.checkpointAt(save.id);
  if (checkpoint) landing.checkpoint = checkpoint;
  return landing;
}

/**
 * Prose follows the branch: after the leaf moved from `previousLeaf` to this branch's leaf, the
 * checkpoint to bring the manuscript to, or undefined when the prose of the two is the same.
 */
export function proseToFollow(branch: Branch, previousLeaf: string | null): CheckpointEntry | undefined {
  const now = branch.checkpoint;
  if (!now) return undefined;
  const before = branch.checkpointAt(previousLeaf);
  return before?.commit === now.commit ? undefined : now;
}
