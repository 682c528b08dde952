// Ref names in the shadow repo. Every commit stays reachable through one of them, so
// `git gc --prune=now` can never lose a checkpoint:
//   refs/worldline/turns/<sessionId>/<turnId>.<stamp>   one per recorded checkpoint (a regenerated
//                                               turn gets a second one; none is ever overwritten)
//   refs/worldline/turns/<sessionId>/<turnId>   the same, written by versions before the stamp
//   refs/worldline/safety/<stamp>               taken before every restore (and undo)
//   refs/worldline/undo/<stamp>                 the restores that can still be undone (a stack)
//   refs/worldline/baseline/<stamp>             the first checkpoint of a rebuilt store
import { CheckpointError, messages } from './errors';

export const TURNS = 'refs/worldline/turns';
export const SAFETY = 'refs/worldline/safety';
export const UNDO = 'refs/worldline/undo';
export const BASELINE = 'refs/worldline/baseline';

const ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** Session and turn ids become one ref name component each; anything git might refuse is rejected. */
export function checkId(what: 'session' | 'turn', id: string): void {
  if (!ID.test(id) || id.includes('..') || id.endsWith('.') || id.endsWith('.lock')) {
    throw new CheckpointError('badInput', messages.badTurnId(what, id));
  }
}

/**
 * The ref of one checkpoint. The stamp (digits only, unique per store) makes it unique even when a
 * turn is checkpointed again (Regenerate reuses the turn id), and the name still splits back into
 * turn id and stamp at the last ".".
 */
export function turnRef(sessionId: string, turnId: string, stamp: string): string {
  checkId('session', sessionId);
  checkId('turn', turnId);
  if (!/^\d+$/.test(stamp)) throw new CheckpointError('badInput', messages.badTurnId('turn', `${turnId}.${stamp}`));
  return `${TURNS}/${sessionId}/${turnId}.${stamp}`;
}

/** Commit ids we accept from callers: hex object names only (never options, never rev syntax). */
export function checkCommitId(commit: string): void {
  if (!/^[0-9a-f]{7,64}$/i.test(commit)) throw new CheckpointError('badInput', messages.badCommit(commit));
}

/**
 * Millisecond stamps that never repeat within a process for one store (every handle on the store
 * shares one, see queue.ts), so safety refs sort by time and turn refs never collide.
 */
export class Stamps {
  private last = 0;
  next(): string {
    this.last = Math.max(Date.now(), this.last + 1);
    return String(this.last);
  }
}

export function zeroOid(sample: string): string {
  return '0'.repeat(sample.length === 64 ? 64 : 40);
}
