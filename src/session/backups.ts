// Session backups in `.worldline/backups/` (as SillyTavern keeps chat backups): a copy of a
// session file, named `<safe-title>[-<hash8>]_<sessionId>_<YYYYMMDD-HHMMSS-mmm>.jsonl` (UTC), the
// newest N kept per session. The copy is exactly the complete lines written so far, written to a
// temp file, fsynced and renamed, so a backup is never torn. When to copy is the library's call
// (once a session is quiet, and on close: never inside a turn).

import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fileTimestamp, parseFileTimestamp } from './clock';
import { errnoCode } from './errors';
import { tempPathFor } from '../common/atomic-write';
import { safeTitle } from './safe-name';

export interface BackupInfo {
  /** Absolute path of the backup file. */
  file: string;
  sessionId: string;
  /** The session's current title when it still exists, else the title recorded in the backup. */
  title: string;
  /** When the backup was taken (ms since the epoch). */
  createdAt: number;
  bytes: number;
}

export interface BackupSource {
  file: string;
  sessionId: string;
  title: string;
  /** Length of the prefix of complete lines to copy. */
  byteLength: number;
}

const BACKUP_NAME = /^(.*)_([A-Za-z0-9-]+)_(\d{8}-\d{6}-\d{3})\.jsonl$/;

export function backupFileName(title: string, sessionId: string, takenAt: number): string {
  return `${safeTitle(title)}_${sessionId}_${fileTimestamp(takenAt)}.jsonl`;
}

export function parseBackupFileName(name: string): { sessionId: string; createdAt: number } | undefined {
  const m = BACKUP_NAME.exec(name);
  if (!m) return undefined;
  const createdAt = parseFileTimestamp(m[3]);
  return createdAt === undefined ? undefined : { sessionId: m[2], createdAt };
}

/** Copies the session's complete lines into a new backup file; returns its path. */
export async function writeBackup(dir: string, source: BackupSource, takenAt: number): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const target = path.join(dir, backupFileName(source.title, source.sessionId, takenAt));
  const temp = tempPathFor(target);
  try {
    // A clone where the file system supports it, else a plain copy.
    await fsp.copyFile(source.file, temp, fsConstants.COPYFILE_FICLONE);
    const { size } = await fsp.stat(temp);
    // Lines appended after byteLength was read belong to the next backup.
    if (size > source.byteLength) await fsp.truncate(temp, source.byteLength);
    // Written out now, while the session is quiet, so the next turn's fsync does not pay for
    // the copy's dirty pages; and a backup that is renamed into place is on the disk.
    const handle = await fsp.open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(temp, target);
  } catch (e) {
    await fsp.unlink(temp).catch(() => undefined);
    throw e;
  }
  return target;
}

/** Backups in `dir` (for one session, or all), newest first. Titles are filled in by the caller. */
export async function listBackupFiles(dir: string, sessionId?: string): Promise<Omit<BackupInfo, 'title'>[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
  const found: Omit<BackupInfo, 'title'>[] = [];
  for (const name of names) {
    const parsed = parseBackupFileName(name);
    if (!parsed || (sessionId !== undefined && parsed.sessionId !== sessionId)) continue;
    const file = path.join(dir, name);
    try {
      const { size } = await fsp.stat(file);
      found.push({ file, sessionId: parsed.sessionId, createdAt: parsed.createdAt, bytes: size });
    } catch {
      // deleted meanwhile
    }
  }
  return found.sort((a, b) => b.createdAt - a.createdAt || (b.file < a.file ? -1 : b.file > a.file ? 1 : 0));
}

/** Deletes all but the newest `keep` backups of a session; returns the deleted paths. */
export async function pruneBackups(dir: string, sessionId: string, keep: number): Promise<string[]> {
  const backups = await listBackupFiles(dir, sessionId);
  const doomed = backups.slice(keep).map((b) => b.file);
  for (const file of doomed) await fsp.unlink(file).catch(() => undefined);
  return doomed;
}
