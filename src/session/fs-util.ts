// Small durable-write helpers shared by the library, backups and restore.

import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

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

/** A temp name beside `file`, starting with "." so listings of the folder skip it. */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Writes a whole file atomically: temp file, fsync, rename over the target. */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  const temp = tempPathFor(file);
  try {
    const handle = await fsp.open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(temp, file);
  } catch (e) {
    await fsp.unlink(temp).catch(() => undefined);
    throw e;
  }
  await syncDirectory(path.dirname(file));
}
