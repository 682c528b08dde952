// `.worldline/worldlines.json` on disk: read (never fails the caller), atomic write, and a
// serialized read-modify-write. See sidecar-data.ts for the shape and the pure updates.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fileTimestamp } from '../session/clock';
import { formatBytes, readBoundedFile } from '../session/jsonl-lines';
import { AtomicWriteIo, nodeAtomicIo, writeFileAtomic } from '../common/atomic-write';
import { WorldlineSidecar, WorldlinesFile, emptyWorldlinesFile, sidecarFor, withSidecar } from './sidecar-data';
import { parseSidecar, serializeSidecar } from './sidecar-parse';

export * from './sidecar-data';

export const SIDECAR_FILE = 'worldlines.json';

/** `<novel>/.worldline/worldlines.json` */
export function sidecarPath(novelRoot: string): string {
  return path.join(novelRoot, '.worldline', SIDECAR_FILE);
}

export type SidecarStatus = 'ok' | 'missing' | 'damaged' | 'newer-version' | 'unreadable';

export interface SidecarRead {
  /** What could be used; empty when nothing could. */
  data: WorldlinesFile;
  status: SidecarStatus;
  /** For the log and a warning: what was wrong and what happens next. Absent when all is well. */
  problem?: string;
}

export class SidecarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SidecarError';
  }
}

function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** Renames and deletes of saves take kilobytes; anything near this is not ours to read whole. */
const MAX_SIDECAR_BYTES = 16 * 1024 * 1024;

async function readRaw(file: string): Promise<{ read: SidecarRead; bytes?: Buffer }> {
  let bytes: Buffer;
  try {
    const got = await readBoundedFile(file, MAX_SIDECAR_BYTES);
    if (got.kind === 'missing') return { read: { data: emptyWorldlinesFile(), status: 'missing' } };
    if (got.kind !== 'ok') {
      const why = got.kind === 'too-large' ? `it is ${formatBytes(got.size)}, over the ${formatBytes(MAX_SIDECAR_BYTES)} limit` : 'it is not a regular file';
      return {
        read: {
          data: emptyWorldlinesFile(),
          status: 'unreadable',
          problem:
            `Worldline renames and deleted saves could not be read from ${file} (${why}). ` +
            'They are shown as if there were none, and the file is left untouched; move it away to start afresh.',
        },
      };
    }
    bytes = got.bytes;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { read: { data: emptyWorldlinesFile(), status: 'missing' } };
    return {
      read: {
        data: emptyWorldlinesFile(),
        status: 'unreadable',
        problem:
          `Worldline renames and deleted saves could not be read from ${file} (${(e as Error).message}). ` +
          'They are shown as if there were none; check the file\'s permissions.',
      },
    };
  }
  const parsed = parseSidecar(bytes.toString('utf8'));
  if (parsed.status === 'ok') return { read: { data: parsed.data, status: 'ok' }, bytes };
  const next =
    parsed.status === 'newer-version'
      ? 'Renames and deletes are shown as if there were none, and this file is left untouched.'
      : 'What could be read is used. The next rename or delete keeps a copy of the damaged file beside it.';
  return {
    read: { data: parsed.data, status: parsed.status, problem: `${file} has a problem: ${parsed.problems.slice(0, 5).join(' ')} ${next}` },
    bytes,
  };
}

/** Reads the sidecar. Never throws: a missing file is empty, a damaged one is reported and read as far as it goes. */
export async function readSidecar(file: string): Promise<SidecarRead> {
  return (await readRaw(file)).read;
}

/** Replaces the whole sidecar atomically (temp file, fsync, rename). Creates `.worldline/` if needed. */
export async function writeSidecar(file: string, data: WorldlinesFile, io: AtomicWriteIo = nodeAtomicIo): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, serializeSidecar(data), io);
}

export interface UpdateSidecarOptions {
  io?: AtomicWriteIo;
  /** For the name of a damaged file's copy. */
  now?: () => number;
}

// Read-modify-write must not interleave within this window (two quick renames would lose one).
// Other windows open the novel read-only (the session library's lock), so in-process is enough.
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(file: string, op: () => Promise<T>): Promise<T> {
  const key = path.resolve(file);
  const run = (queues.get(key) ?? Promise.resolve()).then(op, op);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

async function keepCopy(file: string, bytes: Buffer, now: number): Promise<string> {
  const base = path.join(path.dirname(file), `worldlines.damaged-${fileTimestamp(now)}`);
  for (let n = 0; ; n++) {
    const copy = n === 0 ? `${base}.json` : `${base}-${n}.json`;
    try {
      await fsp.writeFile(copy, bytes, { flag: 'wx' });
      return copy;
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST' || n >= 100) throw e;
    }
  }
}

/**
 * Changes one session's sidecar: read, apply `change`, write atomically. A damaged file is copied
 * to `worldlines.damaged-<UTC time>.json` first, so nothing the novelist had is destroyed. A file
 * from a newer version, or one that cannot be read, is never overwritten: that throws SidecarError.
 */
export function updateSidecar(
  file: string,
  sessionId: string,
  change: (current: WorldlineSidecar) => WorldlineSidecar,
  options: UpdateSidecarOptions = {},
): Promise<{ sidecar: WorldlineSidecar; problem?: string }> {
  return serialized(file, async () => {
    const { read, bytes } = await readRaw(file);
    if (read.status === 'newer-version' || read.status === 'unreadable') {
      throw new SidecarError(`The change was not saved. ${read.problem ?? ''}`.trim());
    }
    let problem = read.problem;
    if (read.status === 'damaged' && bytes) {
      const copy = await keepCopy(file, bytes, (options.now ?? Date.now)());
      problem = `${read.problem} A copy of the damaged file was kept as ${path.basename(copy)}.`;
    }
    const sidecar = change(sidecarFor(read.data, sessionId));
    await writeSidecar(file, withSidecar(read.data, sessionId, sidecar), options.io);
    return problem === undefined ? { sidecar } : { sidecar, problem };
  });
}
