// Size limits for reading and writing session files, so that no file, however large or damaged,
// can exhaust memory: a real entry (a full scene state plus a long reply) is well under 1 MB, and a
// long novel's session is tens of MB. The writer keeps to the same limits, so nothing is written
// that the next open would refuse.

/** What bounds reading any of our JSONL files (sessions, memory). */
export interface LineFileLimits {
  /** One line, i.e. one entry or row. A longer line is skipped without being read whole. */
  maxLineBytes: number;
  /** The whole file. A larger file is refused with a message saying what to do. */
  maxFileBytes: number;
  /** Lines in the file, damaged ones included: bounds the time a file of tiny lines takes. */
  maxLines: number;
}

export interface SessionLimits extends LineFileLimits {
  /** Entries (chain and side) in one session. */
  maxEntries: number;
}

export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = Object.freeze({
  maxLineBytes: 16 * 1024 * 1024,
  maxFileBytes: 256 * 1024 * 1024,
  maxEntries: 2_000_000,
  maxLines: 4_000_000,
});

/** Past this share of a limit, opening warns that a new session should be started soon. */
export const NEAR_LIMIT = 0.8;

export function sessionLimits(overrides: Partial<SessionLimits> | undefined): SessionLimits {
  return { ...DEFAULT_SESSION_LIMITS, ...overrides };
}
