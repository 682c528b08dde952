// The novel's write lock (`.worldline/lock`): at most one VS Code window writes a novel's sessions,
// so two windows never interleave lines in one file. The lock file holds {pid, host, token,
// startedAt}. It is created atomically and complete: written to a temp file, then hard-linked
// into place (link fails if the lock exists); where hard links are not supported, an O_EXCL create.
// A lock is stale, and taken over, when its process is dead on this host, or when it names this
// process but no live library here holds it (pid reuse after a reboot). A lock from another host
// cannot be checked and is respected. Removing a stale lock happens under a second, short-lived
// lock (`lock.takeover`): without it, one contender could remove the fresh lock another had just
// created after both judged the same old lock stale, and two windows would both write.

import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import { writeNewFileDurably } from '../common/atomic-write';
import { Clock } from './clock';
import { errnoCode } from './errors';
import { readSmallFile } from './jsonl-lines';

export interface LockInfo {
  pid: number;
  host: string;
  token: string;
  startedAt: string;
}

export type LockResult =
  | { kind: 'owner'; info: LockInfo }
  /** `owner` is undefined when the lock file exists but cannot be read. */
  | { kind: 'held'; owner: LockInfo | undefined };

export interface LockOptions {
  pid: number;
  host?: string;
  clock: Clock;
  isProcessAlive: (pid: number) => boolean;
}

/** A damaged lock younger than this may be mid-write by its owner (O_EXCL fallback): respect it. */
const DAMAGED_LOCK_GRACE_MS = 5000;
const MAX_ATTEMPTS = 40;
/** A takeover takes milliseconds; a takeover lock this old was left by a process that died in it. */
const ABANDONED_TAKEOVER_MS = 10_000;
const TAKEOVER_BUSY_WAIT_MS = 15;

/** Tokens of locks held by live libraries in this process. */
const liveTokens = new Set<string>();

export function defaultIsProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return errnoCode(e) !== 'ESRCH';
  }
}

export async function acquireLock(lockFile: string, options: LockOptions): Promise<LockResult> {
  const info: LockInfo = {
    pid: options.pid,
    host: options.host ?? os.hostname(),
    token: randomBytes(12).toString('hex'),
    startedAt: new Date(options.clock.now()).toISOString(),
  };
  const text = `${JSON.stringify(info)}\n`;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await createExclusive(lockFile, text, info.token)) {
      liveTokens.add(info.token);
      return { kind: 'owner', info };
    }
    const current = await readLockText(lockFile);
    if (current === undefined) continue; // released meanwhile: try again
    const owner = parseLock(current);
    if (!(await isStale(lockFile, owner, info, options))) return { kind: 'held', owner };
    if (!(await removeStaleLock(lockFile, current, info, text, options))) await sleep(TAKEOVER_BUSY_WAIT_MS);
  }
  return { kind: 'held', owner: parseLock((await readLockText(lockFile)) ?? '') };
}

/** Removes the lock if it is still ours. */
export async function releaseLock(lockFile: string, token: string): Promise<void> {
  liveTokens.delete(token);
  const current = parseLock((await readLockText(lockFile)) ?? '');
  if (current?.token !== token) return;
  await unlinkIfPresent(lockFile);
}

export async function readLock(lockFile: string): Promise<LockInfo | undefined> {
  return parseLock((await readLockText(lockFile)) ?? '');
}

async function createExclusive(lockFile: string, text: string, token: string): Promise<boolean> {
  const temp = `${lockFile}.${token}.tmp`;
  await fsp.writeFile(temp, text, { flag: 'wx' });
  try {
    await fsp.link(temp, lockFile);
    return true;
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS' || code === 'EXDEV') {
      return createWithExcl(lockFile, text);
    }
    throw e;
  } finally {
    await fsp.unlink(temp).catch(() => undefined);
  }
}

/** Fallback for file systems without hard links (FAT, some network shares). */
async function createWithExcl(lockFile: string, text: string): Promise<boolean> {
  try {
    await writeNewFileDurably(lockFile, text);
    return true;
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return false;
    throw e;
  }
}

async function readLockText(lockFile: string): Promise<string | undefined> {
  try {
    // Bounded and non-blocking: a lock file in a folder from elsewhere may be huge or a FIFO.
    return await readSmallFile(lockFile, 64 * 1024);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return undefined;
    const o = v as Record<string, unknown>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string' || typeof o.token !== 'string') return undefined;
    return { pid: o.pid, host: o.host, token: o.token, startedAt: typeof o.startedAt === 'string' ? o.startedAt : '' };
  } catch {
    return undefined;
  }
}

async function isStale(lockFile: string, owner: LockInfo | undefined, me: LockInfo, options: LockOptions): Promise<boolean> {
  if (!owner) {
    try {
      const { mtimeMs } = await fsp.stat(lockFile);
      return options.clock.now() - mtimeMs > DAMAGED_LOCK_GRACE_MS;
    } catch {
      return false; // gone: the next attempt creates it
    }
  }
  if (owner.host !== me.host) return false;
  if (owner.pid === me.pid) return !liveTokens.has(owner.token);
  return !options.isProcessAlive(owner.pid);
}

/**
 * Removes the stale lock judged from `staleText`, holding the takeover lock so that no other
 * contender removes a lock in between. Under it the lock file can only change by our hand: a
 * fresh lock is only created where none exists, and the stale owner is dead. Returns false when
 * another contender holds the takeover lock (the caller waits and looks again).
 */
async function removeStaleLock(
  lockFile: string,
  staleText: string,
  me: LockInfo,
  meText: string,
  options: LockOptions,
): Promise<boolean> {
  const takeover = `${lockFile}.takeover`;
  if (!(await createExclusive(takeover, meText, me.token))) {
    await clearAbandonedTakeover(takeover, me.token, options);
    return false;
  }
  try {
    if ((await readLockText(lockFile)) === staleText) await unlinkIfPresent(lockFile);
  } finally {
    await unlinkIfPresent(takeover);
  }
  return true;
}

/**
 * A takeover lock whose holder died mid-takeover would block every window forever. It is cleared
 * when it is older than any takeover takes, by renaming it aside (only one contender wins the
 * rename) and putting it back if what was moved is not the one judged abandoned.
 */
async function clearAbandonedTakeover(takeover: string, token: string, options: LockOptions): Promise<void> {
  let judged: string | undefined;
  try {
    const { mtimeMs } = await fsp.stat(takeover);
    if (options.clock.now() - mtimeMs <= ABANDONED_TAKEOVER_MS) return;
    judged = await readLockText(takeover);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return;
    throw e;
  }
  const aside = `${takeover}.abandoned-${token}`;
  try {
    await fsp.rename(takeover, aside);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return;
    throw e;
  }
  if ((await readLockText(aside)) !== judged) {
    await fsp.link(aside, takeover).catch((e: unknown) =>
      errnoCode(e) === 'EEXIST' ? undefined : fsp.rename(aside, takeover).catch(() => undefined),
    );
  }
  await unlinkIfPresent(aside);
}

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await fsp.unlink(file);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
