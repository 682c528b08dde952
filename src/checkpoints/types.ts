// Result types of the checkpoint store's public API.
import type { CheckpointErrorKind } from './errors';
import type { FileStatus } from './parse';
import type { SkippedPath } from './walk';

export interface CheckpointResult {
  commit: string;
  ref: string;
  /** Manuscript paths (POSIX, relative) changed since the previous checkpoint commit. */
  changed: string[];
}

export interface RestoreResult {
  /** The manuscript as it was just before the restore. */
  safety: CheckpointResult;
  written: string[];
  deleted: string[];
  /**
   * Paths of the target left alone: no longer manuscript under the current globs, or not a regular
   * file in the checkpoint. Anything in the way on disk refuses the restore instead (RestoreBlockedError).
   */
  skipped: SkippedPath[];
  /** The undo-stack ref of this restore (refs/worldline/undo/<stamp>); absent when it is not undoable. */
  undo?: string;
}

export interface ChangedFile {
  path: string;
  status: FileStatus;
}

export type Health = { ok: true } | { ok: false; problem: string; kind: CheckpointErrorKind };
