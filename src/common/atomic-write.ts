// Durable writes shared by sessions, backups, sidecars and the memory store. Whole-file atomic
// replace: write a temp file beside the target, fsync it, rename it over the target, fsync the
// folder. A crash at any point leaves either the old file or the new one. The file operations come
// in through `AtomicWriteIo` so tests can fail any step.

import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

export interface AtomicWriteIo {
  /** Creates `file` (must not exist), writes all of `data`, fsyncs and closes it. */
  writeNewDurably(file: string, data: string | Buffer): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  /** Makes the rename durable; best effort where folders cannot be fsynced (Windows). */
  syncDir(dir: string): Promise<void>;
}

export const nodeAtomicIo: AtomicWriteIo = {
  writeNewDurably: (file, data) => writeNewFileDurably(file, data),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (file) => fsp.unlink(file),
  syncDir: (dir) => syncDirectory(dir),
};

/** Creates `file` exclusively (EEXIST if it exists), writes all of `data`, fsyncs and closes it. */
export async function writeNewFileDurably(file: string, data: string | Buffer): Promise<void> {
  const handle = await fsp.open(file, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a new directory entry durable. Not possible on Windows; harmless to skip there. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // EISDIR/EPERM on some platforms: the file's own fsync is the best available.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Temp name beside the target, dot-first so folder listings skip it; random so writers never share one. */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

export async function writeFileAtomic(file: string, data: string | Buffer, io: AtomicWriteIo = nodeAtomicIo): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await io.writeNewDurably(temp, data);
    await io.rename(temp, file);
  } catch (e) {
    await io.unlink(temp).catch(() => undefined);
    throw e;
  }
  await io.syncDir(path.dirname(file));
}
