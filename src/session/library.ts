// Several sessions per novel, in `<root>/.worldline/sessions/<id>.jsonl`: create, list, open,
// rename, the current one, backups and restore. The library also owns the novel's write lock:
// the first window to need it writes; any other window opens sessions read-only.
//
// Files: .worldline/lock (the write lock), .worldline/current-session.json (the current session,
// written atomically), .worldline/backups/ (session backups). Listing never creates anything.

import { Stats, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BackupInfo, listBackupFiles, pruneBackups, writeBackup } from './backups';
import { Clock, Timers, systemClock, systemTimers } from './clock';
import { SessionError, errnoCode, isSessionError } from './errors';
import { syncDirectory, tempPathFor, writeFileAtomic } from '../common/atomic-write';
import { isValidSessionId, newSessionId } from './ids';
import { LockInfo, LockResult, acquireLock, defaultIsProcessAlive, readLock, releaseLock } from './lock';
import { SessionLimits, sessionLimits } from './limits';
import { openForLines, readSmallFile } from './jsonl-lines';
import { LoadedFile, loadSessionFile } from './load';
import { RECOVERED_TITLE } from './parse';
import { restoredSession } from './restore';
import { LoadReport, Session, SessionHooks } from './session';
import { SessionScan, scanSessionBuffer, scanSessionFile } from './session-scan';
import { IdleRunner } from './idleRunner';

export type { BackupInfo } from './backups';
export type { LoadReport } from './session';

export interface SessionSummary {
  id: string;
  title: string;
  createdAt: string;
  /** Entry lines in the file (chain and side entries). */
  entries: number;
  /** Last modification of the file, ms since the epoch. */
  modified: number;
  /** The file is over the size limit: it cannot be opened, `entries` is 0. */
  tooLarge?: boolean;
}

export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  /** True when this library (this window) holds the lock. */
  thisWindow: boolean;
}

export interface SessionLibraryOptions {
  clock?: Clock;
  /** Timers for the backups' idle wait; tests pass fake ones. */
  timers?: Timers;
  /** This window's process id (tests pose as other windows). */
  pid?: number;
  host?: string;
  isProcessAlive?: (pid: number) => boolean;
  /**
   * A session is backed up once no write has come for this many ms (default 10 s), and when it
   * closes: never inside a run of writes such as a turn.
   */
  backupIdleMs?: number;
  /** At most one backup per session per this many ms (default 10 s). */
  backupIntervalMs?: number;
  /** Backups kept per session (default 50). */
  backupsKept?: number;
  /** Problems that must not fail a write (a backup that could not be written), for the log. */
  onWarning?: (message: string) => void;
  /** Size limits for session files (tests lower them); the defaults are in limits.ts. */
  limits?: Partial<SessionLimits>;
}

export type OpenedSession = { session: Session; report: LoadReport };

const SESSION_FILE = /^([A-Za-z0-9-]{1,64})\.jsonl$/;

export class SessionLibrary {
  readonly root: string;
  readonly worldlineDir: string;
  readonly sessionsDir: string;
  readonly backupsDir: string;
  private readonly lockFile: string;
  private readonly currentFile: string;

  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly pid: number;
  private readonly host: string;
  private readonly isProcessAlive: (pid: number) => boolean;
  private readonly backupIdleMs: number;
  private readonly backupIntervalMs: number;
  private readonly backupsKept: number;
  private readonly warn: (message: string) => void;
  private readonly limits: SessionLimits;

  private lock: LockResult | undefined;
  private lockAttempt: Promise<LockResult> | undefined;
  private readonly opened = new Map<string, Promise<OpenedSession>>();
  private readonly backupRunners = new Map<string, IdleRunner>();
  private readonly pendingWork = new Set<Promise<unknown>>();
  /** The latest Session object per id: a backup copies what it has written. */
  private readonly backupSources = new Map<string, Session>();
  private readonly scanCache = new Map<string, SessionScan & { key: string }>();
  private currentOverride: string | undefined;
  private disposed = false;

  constructor(novelRoot: string, options: SessionLibraryOptions = {}) {
    this.root = path.resolve(novelRoot);
    this.worldlineDir = path.join(this.root, '.worldline');
    this.sessionsDir = path.join(this.worldlineDir, 'sessions');
    this.backupsDir = path.join(this.worldlineDir, 'backups');
    this.lockFile = path.join(this.worldlineDir, 'lock');
    this.currentFile = path.join(this.worldlineDir, 'current-session.json');
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.pid = options.pid ?? process.pid;
    this.host = options.host ?? os.hostname();
    this.isProcessAlive = options.isProcessAlive ?? defaultIsProcessAlive;
    this.backupIdleMs = options.backupIdleMs ?? 10_000;
    this.backupIntervalMs = options.backupIntervalMs ?? 10_000;
    this.backupsKept = options.backupsKept ?? 50;
    this.warn = options.onWarning ?? (() => undefined);
    this.limits = sessionLimits(options.limits);
  }

  // ---------------------------------------------------------------- sessions

  /** The novel's sessions, most recently modified first. */
  async list(): Promise<SessionSummary[]> {
    let names: string[];
    try {
      names = await fsp.readdir(this.sessionsDir);
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return [];
      throw e;
    }
    const result: SessionSummary[] = [];
    for (const name of names) {
      const m = SESSION_FILE.exec(name);
      if (!m) continue; // torn-tail side files, temp files
      const summary = await this.summarize(m[1]);
      if (summary) result.push(summary);
    }
    return result.sort((a, b) => b.modified - a.modified);
  }

  async create(title: string): Promise<Session> {
    const clean = cleanTitle(title);
    await this.requireOwner();
    await fsp.mkdir(this.sessionsDir, { recursive: true });
    let id: string;
    do id = newSessionId();
    while (await exists(this.fileOf(id)));
    const session = await Session.create(this.fileOf(id), { id, title: clean }, { clock: this.clock, hooks: this.hooksFor(id), limits: this.limits });
    this.opened.set(id, Promise.resolve({ session, report: session.loadReport }));
    this.backUpNow(session); // a header: a backup exists from the start
    return session;
  }

  /**
   * Opens a session; the same object while it stays open. Read-only when another window holds
   * the novel's lock (writes then reject with a message saying which window).
   */
  async open(id: string): Promise<OpenedSession> {
    this.checkNotDisposed();
    const file = this.fileOf(id);
    const lock = await this.tryLock();
    const readOnly = lock.kind !== 'owner';
    const cached = this.opened.get(id);
    if (cached) {
      const opened = await cached.catch(() => undefined);
      if (opened && !opened.session.isClosed && opened.session.readOnly === readOnly) return opened;
      // A read-only copy while this window now owns the lock: reopen writable.
      if (opened && !opened.session.isClosed) await opened.session.close();
    }
    const opening = Session.open(file, {
      readOnly,
      readOnlyReason: readOnly ? this.readOnlyMessage(lock) : undefined,
      clock: this.clock,
      hooks: this.hooksFor(id),
      limits: this.limits,
    });
    this.opened.set(id, opening);
    try {
      const opened = await opening;
      // Writes since the newest backup (a crash before the idle copy) are copied once quiet.
      if (!readOnly) this.scheduleBackup(opened.session);
      return opened;
    } catch (e) {
      if (this.opened.get(id) === opening) this.opened.delete(id);
      throw e;
    }
  }

  /** Renames by appending a title label; line 1 is never rewritten. */
  async rename(id: string, title: string): Promise<void> {
    const clean = cleanTitle(title);
    await this.requireOwner();
    const wasOpen = this.opened.has(id);
    const { session } = await this.open(id);
    try {
      await session.appendSide({ type: 'label', targetId: session.header.id, label: clean });
      await session.flush();
    } finally {
      if (!wasOpen) await session.close();
    }
  }

  /** The session the novelist was last in, if it still exists. */
  async current(): Promise<string | undefined> {
    const id = this.currentOverride ?? (await this.readCurrentFile());
    return id !== undefined && isValidSessionId(id) && (await exists(this.fileOf(id))) ? id : undefined;
  }

  /** Remembers the current session (a read-only window remembers it only in memory). */
  async setCurrent(id: string): Promise<void> {
    this.fileOf(id); // validates
    const lock = await this.tryLock();
    if (lock.kind !== 'owner') {
      this.currentOverride = id;
      return;
    }
    this.currentOverride = undefined;
    await fsp.mkdir(this.worldlineDir, { recursive: true });
    await writeFileAtomic(this.currentFile, `${JSON.stringify({ sessionId: id })}\n`);
  }

  // ---------------------------------------------------------------- backups

  /** Backups of one session, or of all, newest first. */
  async backups(id?: string): Promise<BackupInfo[]> {
    const files = await listBackupFiles(this.backupsDir, id);
    const liveTitles = new Map<string, string | undefined>();
    const result: BackupInfo[] = [];
    for (const b of files) {
      if (!liveTitles.has(b.sessionId)) liveTitles.set(b.sessionId, (await this.summarize(b.sessionId))?.title);
      const title = liveTitles.get(b.sessionId) ?? (await readHeaderTitle(b.file)) ?? RECOVERED_TITLE;
      result.push({ ...b, title });
    }
    return result;
  }

  /**
   * Brings a backup back as a new session titled "<title> (restored <date>)". Nothing is
   * overwritten; entry ids are kept (memory rows and checkpoints refer to them). Damaged lines in
   * the backup are left out.
   */
  async restoreBackup(backupFile: string): Promise<Session> {
    await this.requireOwner();
    let loaded: LoadedFile;
    try {
      loaded = await loadSessionFile(backupFile, 'unknown', this.limits);
    } catch (e) {
      if (isSessionError(e, 'not-found')) throw new SessionError('invalid-backup', `The backup ${backupFile} no longer exists.`);
      if (isSessionError(e, 'not-a-file')) throw new SessionError('invalid-backup', `${path.basename(backupFile)} is not a Worldline session backup.`);
      throw e;
    }
    await fsp.mkdir(this.sessionsDir, { recursive: true });
    let id: string;
    do id = newSessionId();
    while (await exists(this.fileOf(id)));
    const { lines } = restoredSession(loaded, { backupName: path.basename(backupFile), newId: id, now: this.clock.now() });
    await writeLinesAtomic(this.fileOf(id), lines);
    const { session } = await this.open(id);
    this.backUpNow(session);
    return session;
  }

  /**
   * Makes a new session from the lines `build` gives for its new id (an import, see
   * src/import/chat/sessionLines.ts): written whole and atomically, then opened and backed up like
   * a restored backup. If `build` throws, nothing is left behind.
   */
  async createFromLines(build: (id: string) => Iterable<string>): Promise<Session> {
    await this.requireOwner();
    await fsp.mkdir(this.sessionsDir, { recursive: true });
    let id: string;
    do id = newSessionId();
    while (await exists(this.fileOf(id)));
    await writeLinesAtomic(this.fileOf(id), build(id));
    const { session } = await this.open(id);
    this.backUpNow(session);
    return session;
  }

  // ---------------------------------------------------------------- the lock

  /** Who holds the novel's write lock (undefined if nobody does, or the lock file is unreadable). */
  async lockOwner(): Promise<LockOwner | undefined> {
    const lock = await this.tryLock();
    if (lock.kind === 'owner') return { ...publicInfo(lock.info), thisWindow: true };
    const info = await readLock(this.lockFile);
    return info ? { ...publicInfo(info), thisWindow: false } : undefined;
  }

  /** True when this window may write. Tries to take the lock (e.g. after the other window closed). */
  async acquireLock(): Promise<boolean> {
    return (await this.tryLock()).kind === 'owner';
  }

  /** Writes pending backups, closes open sessions and releases the lock. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const opening of [...this.opened.values()]) {
      const opened = await opening.catch(() => undefined);
      await opened?.session.close().catch((e: unknown) => this.warn(`Closing a session failed: ${String(e)}`));
    }
    for (const runner of this.backupRunners.values()) await runner.dispose();
    while (this.pendingWork.size > 0) await Promise.allSettled([...this.pendingWork]);
    await this.lockAttempt?.catch(() => undefined);
    if (this.lock?.kind === 'owner') await releaseLock(this.lockFile, this.lock.info.token);
    this.lock = undefined;
  }

  // ---------------------------------------------------------------- internals

  private fileOf(id: string): string {
    if (!isValidSessionId(id)) {
      throw new SessionError('invalid-name', `"${id}" is not a session id (letters, digits and "-" only).`);
    }
    return path.join(this.sessionsDir, `${id}.jsonl`);
  }

  /** The lock state, trying again when another window held it (it may have closed since). */
  private async tryLock(): Promise<LockResult> {
    this.checkNotDisposed();
    if (this.lock?.kind === 'owner') return this.lock;
    if (!this.lockAttempt) {
      this.lockAttempt = (async () => {
        await fsp.mkdir(this.worldlineDir, { recursive: true });
        return acquireLock(this.lockFile, { pid: this.pid, host: this.host, clock: this.clock, isProcessAlive: this.isProcessAlive });
      })().finally(() => (this.lockAttempt = undefined));
    }
    const result = await this.lockAttempt;
    this.lock = result;
    return result;
  }

  private async requireOwner(): Promise<void> {
    const lock = await this.tryLock();
    if (lock.kind !== 'owner') throw new SessionError('read-only', this.readOnlyMessage(lock));
  }

  private readOnlyMessage(lock: LockResult): string {
    if (lock.kind === 'owner') return '';
    const owner = lock.owner;
    if (!owner) {
      return (
        "This novel's lock file (.worldline/lock) is held but cannot be read, so this window is read-only. " +
        'If no other VS Code window has this novel open, delete that file and reopen the session.'
      );
    }
    const where = owner.host === this.host ? `process ${owner.pid}` : `process ${owner.pid} on computer "${owner.host}"`;
    return (
      `This novel is open for writing in another VS Code window (${where}), so this window is read-only. ` +
      'Close the novel in the other window, then reopen the session here.'
    );
  }

  private hooksFor(id: string): SessionHooks {
    return {
      afterWrite: (session) => this.scheduleBackup(session),
      onClose: (session) => {
        const opening = this.opened.get(id);
        void opening?.then((o) => {
          if (o.session === session && this.opened.get(id) === opening) this.opened.delete(id);
        }, () => undefined);
        const runner = this.backupRunners.get(id);
        if (runner) this.track(runner.flush());
      },
      onListenerError: (e) => this.warn(`A session listener failed: ${String(e)}`),
    };
  }

  /** A backup once the session has been quiet for a while (never inside a turn's writes). */
  private scheduleBackup(session: Session): void {
    this.backupRunnerFor(session).trigger();
  }

  /** A backup now (a new or restored session), in the background. */
  private backUpNow(session: Session): void {
    const runner = this.backupRunnerFor(session);
    runner.trigger();
    this.track(runner.flush());
  }

  private backupRunnerFor(session: Session): IdleRunner {
    const id = session.header.id;
    this.backupSources.set(id, session);
    let runner = this.backupRunners.get(id);
    if (!runner) {
      runner = new IdleRunner({
        idleMs: this.backupIdleMs,
        minIntervalMs: this.backupIntervalMs,
        clock: this.clock,
        timers: this.timers,
        run: () => this.backUp(id),
        onError: (e) => this.warn(`The backup of session ${id} could not be written: ${String(e)}`),
      });
      this.backupRunners.set(id, runner);
    }
    return runner;
  }

  private async backUp(id: string): Promise<void> {
    const session = this.backupSources.get(id);
    if (!session) return;
    const source = { file: session.file, sessionId: id, title: session.title, byteLength: session.byteLength };
    // Nothing written since the newest backup: another copy would hold the same bytes.
    const [newest] = await listBackupFiles(this.backupsDir, id);
    if (newest && newest.bytes === source.byteLength) return;
    await writeBackup(this.backupsDir, source, this.clock.now());
    await pruneBackups(this.backupsDir, id, this.backupsKept);
  }

  private track(work: Promise<unknown>): void {
    this.pendingWork.add(work);
    void work.finally(() => this.pendingWork.delete(work));
  }

  private async summarize(id: string): Promise<SessionSummary | undefined> {
    const file = this.fileOf(id);
    let stat: Stats;
    try {
      stat = await fsp.stat(file);
    } catch {
      return undefined;
    }
    const live = await this.opened.get(id)?.catch(() => undefined);
    if (live && !live.session.isClosed) {
      const s = live.session;
      return { id, title: s.title, createdAt: s.header.createdAt, entries: s.entryCount, modified: stat.mtimeMs };
    }
    const key = `${stat.size}:${stat.mtimeMs}`;
    let scan = this.scanCache.get(id);
    if (scan?.key !== key) {
      const found = await scanSessionFile(file, this.limits);
      scan = { key, ...found };
      this.scanCache.set(id, scan);
    }
    return {
      id,
      title: scan.title ?? RECOVERED_TITLE,
      createdAt: scan.header?.createdAt ?? new Date(stat.birthtimeMs || stat.mtimeMs).toISOString(),
      entries: scan.entryLines,
      modified: stat.mtimeMs,
      ...(scan.tooLarge ? { tooLarge: true } : {}),
    };
  }

  private async readCurrentFile(): Promise<string | undefined> {
    try {
      const v: unknown = JSON.parse((await readSmallFile(this.currentFile, 64 * 1024)) ?? '');
      const id = typeof v === 'object' && v !== null ? (v as { sessionId?: unknown }).sessionId : undefined;
      return typeof id === 'string' ? id : undefined;
    } catch {
      return undefined; // missing or damaged: no current session
    }
  }

  private checkNotDisposed(): void {
    if (this.disposed) throw new SessionError('closed', 'The novel was closed; reopen the folder to continue.');
  }
}

function cleanTitle(title: string): string {
  const clean = title.replace(/[\r\n\t]+/g, ' ').trim();
  if (!clean) throw new SessionError('invalid-name', 'A session needs a title; type at least one character.');
  return clean;
}

function publicInfo(info: LockInfo): Omit<LockOwner, 'thisWindow'> {
  return { pid: info.pid, host: info.host, startedAt: info.startedAt };
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}

async function readHeaderTitle(file: string): Promise<string | undefined> {
  try {
    // Non-blocking open: a FIFO among the backups must not hang the listing.
    const opened = await openForLines(file, Number.MAX_SAFE_INTEGER);
    if (opened.kind !== 'ok') return undefined;
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await opened.handle.read(buf, 0, buf.length, 0);
      return scanSessionBuffer(buf.subarray(0, bytesRead)).header?.title;
    } finally {
      await opened.handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Writes lines to a temp file beside `file` in batches, fsyncs, and renames it into place. */
async function writeLinesAtomic(file: string, lines: Iterable<string>): Promise<void> {
  const temp = tempPathFor(file);
  try {
    const handle = await fsp.open(temp, 'wx');
    try {
      let batch: string[] = [];
      let batchChars = 0;
      for (const line of lines) {
        batch.push(line);
        batchChars += line.length + 1;
        if (batchChars >= 1024 * 1024) {
          await handle.writeFile(`${batch.join('\n')}\n`, 'utf8');
          batch = [];
          batchChars = 0;
        }
      }
      if (batch.length > 0) await handle.writeFile(`${batch.join('\n')}\n`, 'utf8');
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
