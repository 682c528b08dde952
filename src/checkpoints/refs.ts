// Ref names in the shadow repo. Every commit stays reachable through one of them, so
// `git gc --prune=now` can never lose a checkpoint:
//   refs/worldline/turns/<sessionId>/<turnId>   one per agent turn
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

export function turnRef(sessionId: string, turnId: string): string {
  checkId('session', sessionId);
  checkId('turn', turnId);
  return `${TURNS}/${sessionId}/${turnId}`;
}

/** Commit ids we accept from callers: hex object names only (never options, never rev syntax). */
export function checkCommitId(commit: string): void {
  if (!/^[0-9a-f]{7,64}$/i.test(commit)) throw new CheckpointError('badInput', messages.badCommit(commit));
}

/** Millisecond stamps that never repeat within a process, so safety refs sort by time. */
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
