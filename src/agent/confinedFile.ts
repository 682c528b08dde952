// Reads and writes one manuscript file so that nothing outside the novel folder is ever read or
// written, even while another process swaps folders or files for links (TOCTOU). Path strings
// are checked elsewhere (`paths.ts`); this module checks what the file system really holds.
//
// Rules: every folder on the way and the file itself must be real entries at their own path (a
// symlink anywhere below the novel folder is refused), the file must be a regular file (no FIFO,
// socket, device: never opened in a way that could block) with exactly one hard link, and its
// device/inode must be the one found at that path inside the real novel folder.
//
// Two strategies:
// - 'handle' (Linux): every folder is held open and its children are named through
//   /proc/self/fd/<fd>/<name>, which the kernel resolves from the open folder itself, as
//   openat(2) would. A swap of any component after it was opened cannot redirect anything.
// - 'path' (elsewhere, or without /proc): names are resolved from the real root at each call, so
//   every step is verified by an lstat chain from the root, and what we created in a wrong place
//   is swept away again. The residual windows are described at `writeConfined`.
//
// The system calls are synchronous on purpose: between a check and the call it protects no other
// JavaScript runs, which keeps the window of the 'path' strategy to microseconds. They touch
// metadata and one chapter's text, so the event loop is held for very little.
import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';

export type ConfinementCode = 'WL_LINK' | 'WL_NOT_FILE' | 'WL_HARD_LINK' | 'WL_MOVED' | 'WL_NO_ROOT';
export type NonFileKind = 'fifo' | 'socket' | 'device' | 'directory' | 'other';

/** A refusal by the file-system checks; `paths.confinementText` turns it into a tool error. */
export class ConfinementError extends Error {
  override readonly name = 'ConfinementError';
  constructor(
    readonly code: ConfinementCode,
    /** The path the caller asked for (POSIX, relative to the novel folder). */
    readonly rel: string,
    /** The component at fault ("" for the novel folder itself). */
    readonly at: string,
    readonly kind?: NonFileKind,
  ) {
    super(`${code}: "${at}" (for "${rel}")`);
  }
}

export function isConfinementError(err: unknown): err is ConfinementError {
  return err instanceof Error && err.name === 'ConfinementError' && typeof (err as { code?: unknown }).code === 'string';
}

export type Strategy = 'handle' | 'path';
/** Points between a check and the operation it protects; tests swap things there. */
export type Step = 'mkdir' | 'open' | 'opened' | 'temp' | 'written' | 'rename' | 'renamed';

export interface ConfineOptions {
  /** 'auto' (default) uses 'handle' where the platform allows it. */
  strategy?: 'auto' | Strategy;
  /** Test hook, awaited at each step. */
  hook?: (step: Step, rel: string) => void | Promise<void>;
}

const C = fs.constants;
// Absent on Windows; there the checks below compare the handle with an lstat of the name instead.
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const O_NOCTTY = C.O_NOCTTY ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
const DIR_FLAGS = C.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const READ_FLAGS = C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const TEMP_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW | O_NOCTTY;
/** How long a stray of ours (path strategy) is looked for before giving up. */
const SWEEP_MS = 50;

type Stats = fs.BigIntStats;
interface Id {
  dev: bigint;
  ino: bigint;
}
const sameId = (a: Id, b: Id): boolean => a.dev === b.dev && a.ino === b.ino;

function errno(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : '';
}

function nodeError(code: string, what: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${what}`), { code });
}

function kindOf(st: Stats): NonFileKind {
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  if (st.isDirectory()) return 'directory';
  return 'other';
}

/** lstat, or undefined when nothing (or no folder on the way) is there. */
function lstatMaybe(p: string): Stats | undefined {
  try {
    return fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
  } catch (err) {
    if (errno(err) === 'ENOTDIR') return undefined;
    throw err;
  }
}

const fstat = (fd: number): Stats => fs.fstatSync(fd, { bigint: true });

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed.
  }
}

let handleWorks: boolean | undefined;

/** Whether folders can be addressed by handle (/proc/self/fd) here; probed once per process. */
export function handleStrategyAvailable(probeDir: string): boolean {
  if (handleWorks !== undefined) return handleWorks;
  if (process.platform !== 'linux') return (handleWorks = false);
  let fd: number | undefined;
  try {
    fd = fs.openSync(probeDir, C.O_RDONLY | O_DIRECTORY);
    handleWorks = sameId(fstat(fd), fs.statSync(`/proc/self/fd/${fd}/.`, { bigint: true }));
  } catch {
    handleWorks = false;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
  return handleWorks;
}

/** A folder of the manuscript, checked to be a real folder at `rel` inside the real root. */
interface Dir {
  rel: string;
  id: Id;
  /** A path naming `child` inside this very folder. */
  child(name: string): string;
}

const joinRel = (a: string, b: string): string => (a === '' ? b : `${a}/${b}`);

/** One confined operation: the real root, the folders walked so far, the handles to close. */
class Op {
  readonly dirs: Dir[] = [];
  private readonly fds: number[] = [];
  /** Where links found in place of our folders led (path strategy): where a stray of ours may be. */
  private readonly seenLinks: { rel: string; target: string }[] = [];

  private constructor(
    readonly realRoot: string,
    readonly strategy: Strategy,
    readonly rel: string,
    private readonly hook: ConfineOptions['hook'],
  ) {}

  static begin(root: string, rel: string, opts: ConfineOptions): Op {
    if (rel.split('/').some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) {
      throw new Error(`confinedFile: "${rel}" is not a validated relative path`);
    }
    let realRoot: string;
    try {
      realRoot = fs.realpathSync(root);
    } catch (err) {
      if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errno(err))) throw new ConfinementError('WL_NO_ROOT', rel, '');
      throw err;
    }
    const strategy: Strategy = opts.strategy !== 'path' && handleStrategyAvailable(realRoot) ? 'handle' : 'path';
    const op = new Op(realRoot, strategy, rel, opts.hook);
    if (strategy === 'handle') {
      const fd = op.track(fs.openSync(realRoot, C.O_RDONLY | O_DIRECTORY));
      const st = fstat(fd);
      if (!st.isDirectory()) throw new ConfinementError('WL_NO_ROOT', rel, '');
      op.dirs.push({ rel: '', id: st, child: (name) => `/proc/self/fd/${fd}/${name}` });
    } else {
      const st = lstatMaybe(realRoot);
      if (st === undefined || !st.isDirectory()) throw new ConfinementError('WL_NO_ROOT', rel, '');
      op.dirs.push({ rel: '', id: st, child: (name) => path.join(realRoot, name) });
    }
    return op;
  }

  /** Callers await `step` only when hooked: without a hook not even a microtask runs between a check and its call. */
  get hooked(): boolean {
    return this.hook !== undefined;
  }

  async step(step: Step): Promise<void> {
    if (this.hook) await this.hook(step, this.rel);
  }

  track(fd: number): number {
    this.fds.push(fd);
    return fd;
  }

  close(): void {
    for (const fd of this.fds.splice(0)) closeQuietly(fd);
  }

  get last(): Dir {
    return this.dirs[this.dirs.length - 1] as Dir;
  }

  /** The absolute path of `rel` below the real root, resolved afresh by the kernel. */
  abs(rel: string): string {
    return rel === '' ? this.realRoot : path.join(this.realRoot, ...rel.split('/'));
  }

  moved(at: string): ConfinementError {
    return new ConfinementError('WL_MOVED', this.rel, at);
  }

  /** Every folder walked so far is still a real folder (not a link) with its identity, reached by lstat from the real root. */
  verifyChain(): void {
    for (const d of this.dirs) {
      const p = this.abs(d.rel);
      const st = lstatMaybe(p);
      if (st === undefined || st.isSymbolicLink() || !st.isDirectory() || !sameId(st, d.id)) {
        if (st?.isSymbolicLink()) this.noteLink(d.rel, p);
        throw this.moved(d.rel);
      }
    }
  }

  /** The file `name` in the last folder, reached by path from the real root, is `id`; between two chain checks. */
  verifyEntry(name: string, id: Id): void {
    this.verifyChain();
    const rel = joinRel(this.last.rel, name);
    const st = lstatMaybe(this.abs(rel));
    if (st === undefined || !st.isFile() || !sameId(st, id)) throw this.moved(rel);
    this.verifyChain();
  }

  /**
   * Walks the folders of `rel` from the root, each checked to be a real folder (never a link),
   * creating missing ones when `create`. Returns false when one is missing and `create` is false.
   */
  async walk(create: boolean): Promise<boolean> {
    const segs = this.rel.split('/');
    for (const seg of segs.slice(0, -1)) {
      const parent = this.last;
      const rel = joinRel(parent.rel, seg);
      const p = parent.child(seg);
      let st = lstatMaybe(p);
      if (st === undefined) {
        if (!create) return false;
        if (this.hooked) await this.step('mkdir');
        st = await this.mkdir(rel, p);
      }
      if (st.isSymbolicLink()) throw new ConfinementError('WL_LINK', this.rel, rel);
      if (!st.isDirectory()) throw nodeError('ENOTDIR', rel);
      if (this.strategy === 'handle') {
        let fd: number;
        try {
          fd = this.track(fs.openSync(p, DIR_FLAGS));
        } catch (err) {
          const again = lstatMaybe(p);
          if (again?.isSymbolicLink()) throw new ConfinementError('WL_LINK', this.rel, rel);
          if (again === undefined || again.isDirectory()) throw this.moved(rel);
          throw err;
        }
        const held = fstat(fd);
        if (!held.isDirectory() || !sameId(held, st)) throw this.moved(rel);
        this.dirs.push({ rel, id: held, child: (name) => `/proc/self/fd/${fd}/${name}` });
      } else {
        this.dirs.push({ rel, id: st, child: (name) => path.join(this.abs(rel), name) });
      }
    }
    return true;
  }

  /**
   * Creates one folder. By handle it is made inside the held parent. By path the parent is checked
   * right before, and the new folder right after; one made elsewhere (its parent swapped for a
   * link in between) is swept away again.
   */
  private async mkdir(rel: string, p: string): Promise<Stats> {
    if (this.strategy === 'path') this.verifyChain();
    try {
      fs.mkdirSync(p);
    } catch (err) {
      if (errno(err) !== 'EEXIST') throw err;
    }
    if (this.strategy === 'handle') {
      const st = lstatMaybe(p);
      if (st === undefined) throw this.moved(rel);
      return st;
    }
    // A handle on the new folder tells when it is really gone (its link count drops to 0).
    let fd: number | undefined;
    try {
      fd = fs.openSync(p, DIR_FLAGS);
    } catch {
      fd = undefined;
    }
    try {
      const st = lstatMaybe(p);
      const held = fd !== undefined ? fstat(fd) : st;
      try {
        this.verifyChain();
        if (st === undefined || held === undefined || !sameId(st, held)) throw this.moved(rel);
      } catch (err) {
        if (held !== undefined && held.isDirectory() && held.nlink > 0n) await this.sweep(rel, held, fd, true);
        throw err;
      }
      return st;
    } finally {
      if (fd !== undefined) closeQuietly(fd);
    }
  }

  private noteLink(rel: string, p: string): void {
    try {
      const target = path.resolve(path.dirname(p), fs.readlinkSync(p));
      if (!this.seenLinks.some((l) => l.rel === rel && l.target === target)) this.seenLinks.push({ rel, target });
    } catch {
      // Gone again already.
    }
  }

  private noteLinksOn(rel: string): void {
    const segs = rel.split('/');
    for (let k = 1; k < segs.length; k++) {
      const r = segs.slice(0, k).join('/');
      const p = this.abs(r);
      if (lstatMaybe(p)?.isSymbolicLink()) this.noteLink(r, p);
    }
  }

  /**
   * Removes an entry we created (a temp file, or an empty folder with `dir`) that may sit in a
   * folder reached through a swapped link: tried by its name and under the targets of links seen
   * in place of our folders, only where the entry found there has our identity, for up to
   * SWEEP_MS, until its handle shows no name left. Best effort; a stray never holds text.
   */
  async sweep(rel: string, id: Id, fd: number | undefined, dir: boolean): Promise<boolean> {
    const deadline = Date.now() + SWEEP_MS;
    for (;;) {
      this.noteLinksOn(rel);
      const candidates = [this.abs(rel)];
      for (const l of this.seenLinks) {
        if (rel.startsWith(`${l.rel}/`)) candidates.push(path.join(l.target, ...rel.slice(l.rel.length + 1).split('/')));
      }
      let removed = false;
      for (const c of candidates) {
        const st = lstatMaybe(c);
        if (st === undefined || st.isSymbolicLink() || !sameId(st, id)) continue;
        try {
          if (dir) fs.rmdirSync(c);
          else fs.unlinkSync(c);
          removed = true;
        } catch {
          // Not empty any more, or raced away: try again.
        }
      }
      // The handle knows whether any name is left; without one, a removal by identity has to do.
      if (fd !== undefined ? fstat(fd).nlink === 0n : removed) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

function baseName(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1);
}

/** Refuses what `st` (an lstat of the target) shows to be anything but a plain, singly linked file. */
function checkTarget(rel: string, st: Stats): void {
  if (st.isSymbolicLink()) throw new ConfinementError('WL_LINK', rel, rel);
  if (!st.isFile()) throw new ConfinementError('WL_NOT_FILE', rel, rel, kindOf(st));
  if (st.nlink > 1n) throw new ConfinementError('WL_HARD_LINK', rel, rel);
}

/** Opens an existing file for reading without following a link and without ever blocking. */
async function openForRead(op: Op, rel: string): Promise<number | undefined> {
  const p = op.last.child(baseName(rel));
  // lstat first: a FIFO or a device is refused without being opened at all.
  const pre = lstatMaybe(p);
  if (pre === undefined) return undefined;
  checkTarget(rel, pre);
  if (op.hooked) await op.step('open');
  let fd: number;
  try {
    fd = op.track(fs.openSync(p, READ_FLAGS));
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new ConfinementError('WL_LINK', rel, rel);
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw new ConfinementError('WL_NOT_FILE', rel, rel, 'socket');
    if (code === 'EISDIR') throw new ConfinementError('WL_NOT_FILE', rel, rel, 'directory');
    throw err;
  }
  // Swapped between the lstat and the open: the handle itself is what counts.
  const held = fstat(fd);
  if (!held.isFile()) throw new ConfinementError('WL_NOT_FILE', rel, rel, kindOf(held));
  if (held.nlink > 1n) throw new ConfinementError('WL_HARD_LINK', rel, rel);
  if (op.hooked) await op.step('opened');
  // Without O_NOFOLLOW (Windows) the open followed a link; the lstat of the name then differs.
  op.verifyEntry(baseName(rel), held);
  return fd;
}

/** The file's text, or undefined when it (or a folder on the way) does not exist. */
export async function readConfined(root: string, rel: string, opts: ConfineOptions = {}): Promise<string | undefined> {
  const op = Op.begin(root, rel, opts);
  try {
    if (!(await op.walk(false))) return undefined;
    const fd = await openForRead(op, rel);
    return fd === undefined ? undefined : fs.readFileSync(fd, 'utf8');
  } finally {
    op.close();
  }
}

export type Inspection = { exists: false } | { exists: true; dev: bigint; ino: bigint };

/**
 * The same checks as a read, without reading: for writers that are not ours (VS Code's
 * WorkspaceEdit), run just before and after they touch the file. With `createFolders`, missing
 * folders are created by the confined walk so the other writer only has to create the file.
 */
export async function inspectConfined(root: string, rel: string, opts: ConfineOptions & { createFolders?: boolean } = {}): Promise<Inspection> {
  const op = Op.begin(root, rel, opts);
  try {
    if (!(await op.walk(opts.createFolders === true))) return { exists: false };
    const fd = await openForRead(op, rel);
    if (fd === undefined) {
      op.verifyChain();
      return { exists: false };
    }
    const st = fstat(fd);
    return { exists: true, dev: st.dev, ino: st.ino };
  } finally {
    op.close();
  }
}

/**
 * Creates or replaces the file with `text`, creating missing folders.
 *
 * A fresh temp file is created with O_CREAT|O_EXCL|O_NOFOLLOW next to the target (so it never
 * overwrites or follows anything), checked to be where it should be before a byte is written,
 * written, checked again, then renamed over the target: rename replaces the name, never follows
 * a link there, and leaves any other hard link of the old file untouched. Last, the target is
 * checked to be our file at the path inside the root. The file's permission bits are kept; a
 * read-only file is refused rather than replaced.
 *
 * By handle, the temp file, the rename and new folders are all named from the held folder, so no
 * swap can redirect them: nothing is ever created or written outside. By path, each name is
 * resolved from the root at the call; what remains is (a) a swap between the chain check and the
 * open/mkdir right after it, which can put an empty temp file or folder of ours outside (it is
 * swept away again when found within SWEEP_MS; no byte is written before the next check); (b) a
 * swapper that flips a folder to a link and back between the lstats of one check, fooling it; and
 * (c) a swap inside the rename system call, between the kernel's lookups of the source and the
 * target folder. (b) and (c) need two exactly timed swaps within microseconds; the check after the
 * rename reports them as an error.
 */
export async function writeConfined(root: string, rel: string, text: string, opts: ConfineOptions = {}): Promise<void> {
  const op = Op.begin(root, rel, opts);
  const base = baseName(rel);
  let temp: { rel: string; path: string; id: Id; fd: number } | undefined;
  let renamed = false;
  try {
    await op.walk(true);
    const target = op.last.child(base);
    const pre = lstatMaybe(target);
    let mode: number | undefined;
    if (pre !== undefined) {
      checkTarget(rel, pre);
      mode = Number(pre.mode & 0o777n);
      // A rename would replace a read-only file silently; the novelist made it read-only on purpose.
      if ((mode & 0o200) === 0) throw nodeError('EACCES', rel);
    }
    const name = `.wl-${randomBytes(6).toString('hex')}.tmp`;
    const tempPath = op.last.child(name);
    if (op.strategy === 'path') op.verifyChain();
    const fd = op.track(fs.openSync(tempPath, TEMP_FLAGS, mode ?? 0o666));
    const made = fstat(fd);
    temp = { rel: joinRel(op.last.rel, name), path: tempPath, id: made, fd };
    if (op.hooked) await op.step('temp');
    op.verifyEntry(name, made); // before any byte is written
    fs.writeFileSync(fd, text, 'utf8');
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    if (op.hooked) await op.step('written');
    op.verifyEntry(name, made);
    if (op.hooked) await op.step('rename');
    fs.renameSync(tempPath, target);
    renamed = true;
    if (op.hooked) await op.step('renamed');
    op.verifyEntry(base, made);
  } catch (err) {
    if (temp !== undefined && !renamed) await removeTemp(op, temp);
    throw err;
  } finally {
    op.close();
  }
}

/** Removes our temp file where its name leads to it (never another file of that name). */
async function removeTemp(op: Op, temp: { rel: string; path: string; id: Id; fd: number }): Promise<void> {
  if (op.strategy === 'path') {
    await op.sweep(temp.rel, temp.id, temp.fd, false);
    return;
  }
  // Named from the held folder: exactly our file.
  try {
    const st = lstatMaybe(temp.path);
    if (st !== undefined && sameId(st, temp.id)) fs.unlinkSync(temp.path);
  } catch {
    // Best effort: a stray ".wl-….tmp" never matches the manuscript globs.
  }
}
