// Typed errors for the session store. `code` lets callers branch; `message` is written for the
// novelist (it says what happened and what to do), because the shell shows it as is.

export type SessionErrorCode =
  | 'read-only' // another window owns the novel's lock
  | 'not-found' // the session file does not exist
  | 'unknown-entry' // an id that is not in this session
  | 'invalid-entry' // an entry that would not load again, so it is not written
  | 'newer-version' // a file written by a newer Worldline
  | 'closed' // the session was closed
  | 'no-turn' // regenerate asked for where there is no instruction
  | 'invalid-name' // an unusable session id or title
  | 'invalid-backup' // a backup file that cannot be restored
  | 'too-large' // a file over the size limits (see limits.ts): refused whole, kept untouched
  | 'not-a-file'; // a session path that is a folder, FIFO, device or socket

export class SessionError extends Error {
  override readonly name = 'SessionError';
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isSessionError(e: unknown, code?: SessionErrorCode): e is SessionError {
  return e instanceof SessionError && (code === undefined || e.code === code);
}

/** The errno code of a Node fs error, if any. */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = (e as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
