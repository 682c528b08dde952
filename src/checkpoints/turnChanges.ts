// What Show Turn Changes and Compare with Current Prose show: which checkpoint, what it is compared
// with (the checkpoint before it on the path, or the files as they are now), the files that
// differ, and which one to open without asking. The shell asks when none is chosen and opens the diff.
import type { Session } from '../session/session';
import type { CheckpointEntry } from '../session/entries';
import type { ShadowRepo } from './shadowRepo';
import type { ChangedFile } from './types';

/** 'previous': this turn's changes; 'working': the checkpoint against the manuscript now. */
export type ChangesAgainst = 'previous' | 'working';

/** A side of the diff: a checkpoint's commit, 'empty' (the file did not exist there), or 'working' (the file on disk). */
export type DiffSide = string;

export type TurnChanges =
  /** No such checkpoint on the session, or checkpoints are off. */
  | { kind: 'none' }
  | {
      kind: 'changes';
      against: ChangesAgainst;
      target: CheckpointEntry;
      /** The checkpoint before `target` on its path ('previous' only; undefined for the first). */
      previous: CheckpointEntry | undefined;
      /** Empty: nothing differs. */
      changes: ChangedFile[];
      /** The file to show without asking: the one named, else the only one changed. */
      pick: ChangedFile | undefined;
    };

/**
 * The changes at checkpoint entry `checkpointEntryId` (undefined: the last checkpoint on the
 * current path). Without a checkpoint before it, a turn's changes are the files it recorded, all added.
 */
export async function turnChanges(
  session: Pick<Session, 'get' | 'lastOnPath'>,
  repo: Pick<ShadowRepo, 'changedFiles'> | undefined,
  checkpointEntryId: string | undefined,
  against: ChangesAgainst,
  file?: string,
): Promise<TurnChanges> {
  const target = checkpointEntry(session, checkpointEntryId);
  if (!target || !repo) return { kind: 'none' };
  const previous = against === 'working' ? undefined : session.lastOnPath('checkpoint', target.parentId);
  const changes = against === 'working'
    ? await repo.changedFiles(target.commit)
    : previous ? await repo.changedFiles(previous.commit, target.commit) : target.changed.map((p) => ({ path: p, status: 'A' as const }));
  const pick = file ? changes.find((c) => c.path === file) : changes.length === 1 ? changes[0] : undefined;
  return { kind: 'changes', against, target, previous, changes, pick };
}

/** The two sides of the diff of `file`: left is the older. */
export function diffSides(found: Extract<TurnChanges, { kind: 'changes' }>, file: ChangedFile): { left: DiffSide; right: DiffSide } {
  if (found.against === 'working') return { left: found.target.commit, right: file.status === 'D' ? 'empty' : 'working' };
  return { left: found.previous?.commit ?? 'empty', right: found.target.commit };
}

function checkpointEntry(session: Pick<Session, 'get' | 'lastOnPath'>, entryId: string | undefined): CheckpointEntry | undefined {
  if (!entryId) return session.lastOnPath('checkpoint');
  const entry = session.get(entryId);
  return entry?.type === 'checkpoint' ? entry : undefined;
}
