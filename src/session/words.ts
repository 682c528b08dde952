// What the novelist is told about sessions: the store's errors in plain words, the rows of Switch
// Session and Restore Session from Backup, and the default title of a new session. The words are
// English keys marked with `l10n.t` here (test/unit/l10n.test.ts checks each has a translation) and
// put into the novelist's language by the shell (the Prompter's pick translates the rows).
import * as path from 'node:path';
import type { Text } from '../common/text';
import type { PickItem } from '../protocol/prompter';
import type { BackupInfo } from './backups';
import { SessionError, type SessionErrorCode } from './errors';
import type { SessionSummary } from './library';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
// Names and dates: shown as they are.
const literal = (message: string): Text => ({ message, args: [], literal: true });

/**
 * The session store's errors, by code, for the novelist. The core's own messages are English with
 * details (paths, ids) for the log; these say what happened and what to do. Codes that only a
 * caller's mistake can raise have none (the message is shown as it is).
 */
const ERROR_WORDS: Partial<Record<SessionErrorCode, Text>> = {
  'read-only': l10n.t('This window is read-only: another VS Code window is writing this novel.'),
  'not-found': l10n.t('That session file no longer exists; it may have been moved or deleted.'),
  'newer-version': l10n.t('This session was written by a newer version of Worldline. Update the extension to open it.'),
  closed: l10n.t('The novel was closed; reopen the folder to continue.'),
  'invalid-backup': l10n.t('That file is not a Worldline session backup, or it no longer exists.'),
  'invalid-name': l10n.t('That name cannot be used: a session needs a title of at least one character.'),
  'too-large': l10n.t('This session file is too large to open safely. It is kept untouched; start a new session to write on (the Worldline log has the details).'),
  'not-a-file': l10n.t('A session file is not a regular file (a folder, pipe or device has its name), so it cannot be opened. Move it out of .worldline/sessions.'),
};

/** The words for a session store error; undefined for any other error (or a code without words). */
export function sessionErrorWords(err: unknown): Text | undefined {
  return err instanceof SessionError ? ERROR_WORDS[err.code] : undefined;
}

/** Switch Session: the sessions, most recently written first, the current one marked; each row's value is the session id. */
export function sessionRows(sessions: readonly SessionSummary[], currentId: string | undefined): PickItem<string>[] {
  return [...sessions].sort((a, b) => b.modified - a.modified).map((s) => {
    const when = new Date(s.modified).toLocaleString();
    const detail = s.tooLarge ? l10n.t('too large to open · last written {0}', when) : l10n.t('{0} entries · last written {1}', s.entries, when);
    return { label: literal(s.title), ...(s.id === currentId ? { description: l10n.t('current') } : {}), detail, value: s.id };
  });
}

/** Restore Session from Backup: one row per backup, in the order given (newest first); each row's value is the backup file. */
export function backupRows(backups: readonly BackupInfo[]): PickItem<string>[] {
  return backups.map((b) => ({ label: literal(b.title), description: literal(new Date(b.createdAt).toLocaleString()), detail: literal(path.basename(b.file)), value: b.file }));
}

/** A new session's title when the novelist gives none: in the project's language, with today's date. */
export function defaultSessionTitle(lang: 'zh' | 'en', now = new Date()): string {
  const date = now.toLocaleDateString();
  return lang === 'zh' ? `会话 ${date}` : `Session ${date}`;
}
