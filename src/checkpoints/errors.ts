// Typed checkpoint errors. Every message is written for the novelist: it says what happened,
// that the manuscript is safe when it is, and what to do next.

export type CheckpointErrorKind =
  | 'gitMissing' // no usable git binary
  | 'corrupt' // the shadow repo is damaged
  | 'locked' // another git process holds a lock in the shadow repo
  | 'notFound' // a checkpoint commit that the store does not have
  | 'badInput' // an id, path or glob we refuse
  | 'tooManyFiles' // the manuscript globs match more files than we agree to track
  | 'closed' // the store was rebuilt while this handle was open
  | 'io' // a file could not be read or written
  | 'blocked' // a restore refused whole: something that is not ours stands where a chapter goes
  | 'lost' // the store does not hold the checkpoints a session recorded (lost, or replaced by another copy)
  | 'error'; // anything else git reported

/** A problem reported as a value (open, checkpoint) rather than thrown. */
export interface CheckpointProblem {
  kind: CheckpointErrorKind;
  message: string;
}

/** What `ShadowRepo.open` returns when checkpoints cannot run; writing still works. */
export interface CheckpointUnavailable extends CheckpointProblem {
  kind: 'gitMissing' | 'corrupt' | 'error';
}

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly kind: CheckpointErrorKind,
    message: string,
    /** Raw git output or errno text, for the log only. */
    readonly detail?: string,
  ) {
    super(message);
  }

  toProblem(): CheckpointProblem {
    return { kind: this.kind, message: this.message };
  }
}

export function isCheckpointProblem(x: unknown): x is CheckpointProblem {
  return typeof x === 'object' && x !== null && 'kind' in x && 'message' in x && !('commit' in x);
}

const STORE = '.worldline/checkpoints.git';

export const messages = {
  gitMissing: (binary: string) =>
    `Checkpoints are off: Git was not found (tried "${binary}"). Your writing is saved as usual. ` +
    `Install Git from https://git-scm.com/downloads (or set the path to git), then reload the window to turn checkpoints on.`,
  gitTooOld: (version: string) =>
    `Checkpoints are off: Git ${version} is too old (2.20 or newer is needed). Your writing is saved as usual. ` +
    `Update Git from https://git-scm.com/downloads, then reload the window.`,
  corrupt: (detail: string) =>
    `The checkpoint store (${STORE}) is damaged: ${detail}. Your manuscript files are fine. ` +
    `Run "Worldline: Rebuild Checkpoints" to start a new store from the current manuscript; the damaged one is kept aside, not deleted.`,
  missing: () =>
    `The checkpoint store (${STORE}) is missing. Your manuscript files are fine. ` +
    `Run "Worldline: Rebuild Checkpoints" to start a new store from the current manuscript.`,
  storeLost: (recorded: number) =>
    `The checkpoint store (${STORE}) was missing when this book was opened, so a new, empty one was started: ` +
    `${recorded === 1 ? 'the checkpoint recorded in this session is' : `the ${recorded} checkpoints recorded in this session are`} not in it and cannot be restored or compared. ` +
    `Your manuscript files are fine. If you still have the old store (a backup or a sync copy), close VS Code and put it back; ` +
    `otherwise run "Worldline: Rebuild Checkpoints" to start from the current manuscript.`,
  recordedMissing: (missing: number, recorded: number) =>
    `The checkpoint store (${STORE}) does not hold ${missing} of the ${recorded} checkpoint${recorded === 1 ? '' : 's'} recorded in this session ` +
    `(it may have been replaced by an older or another copy). Your manuscript files are fine. ` +
    `Run "Worldline: Rebuild Checkpoints" to start a new store from the current manuscript; the current one is kept aside, not deleted.`,
  locked: (lock: string) =>
    `Another Git process is using the checkpoint store (${lock}). If another window has this book open, ` +
    `wait a moment and try again; a lock older than a minute is cleared automatically.`,
  /** Names no commit: it may reach the novelist as it is (a failed rerun's notice). The error's detail, for the log, has git's words. */
  notFound: () =>
    `That checkpoint is no longer in the checkpoint store: it was lost with the store, or the store was rebuilt since. Your manuscript files are as they were.`,
  tooManyFiles: (max: number) =>
    `The "manuscript" patterns in worldline.yaml match more than ${max} files, so checkpoints are paused. ` +
    `Narrow the patterns (for example "chapters/**/*.md") and checkpoints resume on the next turn.`,
  closed: () => `The checkpoint store was rebuilt while this view was open. Reload the window to use the new store.`,
  storeNotAFolder: () => `it is a link or a file, not a folder, so Worldline will not use it`,
  /** For the log: a store config from elsewhere was replaced (see configCheck.ts). */
  configReplaced: (dropped: readonly string[], keptAs: string | undefined) =>
    `checkpoints: the store's config had settings Worldline never writes (${dropped.join(', ')}), which could make git run ` +
    `programs from the book folder; it now holds Worldline's own settings` +
    (keptAs ? `, and the old file is kept as ${keptAs}` : ''),
  badTurnId: (what: string, id: string) =>
    `Cannot name a checkpoint after ${what} "${id}": use letters, digits, "-", "_" or "." only.`,
  badPath: (p: string) => `"${p}" is not a manuscript path inside the book folder.`,
  badGlobs: (why: string) => `The "manuscript" patterns in worldline.yaml cannot be used: ${why}.`,
  badCommit: (c: string) => `"${c}" is not a checkpoint id.`,
  restoreStopped: (done: number, why: string) =>
    `Restore stopped after ${done} file(s): ${why}. The manuscript as it was before the restore is saved; ` +
    `"Undo Last Restore" brings it back.`,
  gitFailed: (what: string, detail: string) => `Checkpoint ${what} failed: ${detail}`,
};

// ---- restores refused whole (something in the way that is not ours) ----

/** Something a restore will not remove or write through, standing where a chapter of the checkpoint goes. */
export interface RestoreBlocker {
  /** What is in the way (POSIX, relative to the book folder). */
  path: string;
  /** The checkpoint's chapter that cannot be put back because of it. */
  chapter: string;
  /** folder: holds something not ours (`inside`); file: not a tracked chapter; link: a symlink; special: a FIFO, socket or device. */
  kind: 'folder' | 'file' | 'link' | 'special';
  inside?: string;
}

/** A restore (or undo) that changed nothing because of `blockers`; the safety checkpoint was still taken. */
export class RestoreBlockedError extends CheckpointError {
  constructor(
    readonly blockers: readonly RestoreBlocker[],
    readonly safety: { commit: string; ref: string },
  ) {
    super('blocked', restoreBlocked(blockers));
  }
}

function blockerText(b: RestoreBlocker): string {
  const where = b.path === b.chapter ? `"${b.path}"` : `"${b.path}" (where the checkpoint has "${b.chapter}")`;
  switch (b.kind) {
    case 'folder':
      return `${where} is a folder with something in it that is not part of the manuscript ("${b.inside ?? '?'}")`;
    case 'file':
      return `${where} is a file that is not part of the manuscript`;
    case 'link':
      return `${where} is a symbolic link, which a restore never writes through`;
    case 'special':
      return `${where} is not a regular file or folder`;
  }
}

function restoreBlocked(blockers: readonly RestoreBlocker[]): string {
  const shown = blockers.slice(0, 3).map(blockerText).join('; ');
  const more = blockers.length > 3 ? ` (and ${blockers.length - 3} more, listed in the log)` : '';
  return (
    `Nothing was restored, because something is in the way: ${shown}${more}. ` +
    `Move or rename ${blockers.length === 1 ? 'it' : 'them'}, then restore again. ` +
    `Your manuscript is as it was, and it is also saved in a safety checkpoint.`
  );
}
