// The session store's public surface (plain TypeScript, no vscode).
export * from './entries';
export { SessionError, isSessionError } from './errors';
export type { SessionErrorCode } from './errors';
export type { Clock, Timers } from './clock';
export { systemClock, systemTimers } from './clock';
export { Session } from './session';
export type { LoadReport, SessionChange, SessionListener, SessionHooks, SessionOpenOptions, Disposable } from './session';
export { SessionLibrary } from './library';
export type { SessionSummary, SessionLibraryOptions, LockOwner, OpenedSession } from './library';
export type { BackupInfo } from './backups';
export type { CorruptLine } from './parse';
export type { SessionLimits } from './limits';
export { DEFAULT_SESSION_LIMITS } from './limits';
