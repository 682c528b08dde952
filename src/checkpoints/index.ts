// Public surface of the checkpoint store (plain Node; never imports vscode).
export { ShadowRepo } from './shadowRepo';
export type { ShadowRepoOptions } from './shadowRepo';
export type { CheckpointResult, RestoreResult, ChangedFile, Health } from './types';
export { CheckpointError, RestoreBlockedError, isCheckpointProblem } from './errors';
export type { CheckpointErrorKind, CheckpointProblem, CheckpointUnavailable, RestoreBlocker } from './errors';
export { compileGlobs } from './globs';
export type { ManuscriptMatcher } from './globs';
export type { SkippedPath } from './walk';
export type { FileStatus } from './parse';
