// Public surface of the checkpoint store (plain Node; never imports vscode).
export { ShadowRepo } from './shadowRepo';
export type { ShadowRepoOptions } from './shadowRepo';
export type { CheckpointResult, RestoreResult, ChangedFile, Health } from './types';
export { CheckpointError, RestoreBlockedError, isCheckpointProblem } from './errors';
export type { CheckpointErrorKind, CheckpointProblem, CheckpointUnavailable, RestoreBlocker } from './errors';
export type { ManuscriptMatcher, ManuscriptSpec } from '../project/manuscript';
export { walkManuscript } from './walk';
export type { SkippedPath, WalkResult } from './walk';
export type { FileStatus } from './parse';
