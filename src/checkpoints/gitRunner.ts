// Runs git for one shadow repo, with the isolated environment and the `-c` settings on every
// process, and turns git's failures into typed CheckpointErrors. Two ways in: one command run to
// its end (`run`, `runInput`), or a request to one of the long-lived processes (`hashFiles`,
// `writeCommit`, `updateRefs`, `readBlobs`, `objectTypes`; gitPipe.ts), which spare a turn its
// process starts. A stale lock (left by a crash) is moved aside, never deleted, and the command
// retried once.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, messages } from './errors';
import { resolveGitBinary } from './gitBinary';
import { commandConfig, isolatedEnv, type ShadowPaths } from './gitEnv';
import { lines, GitPipe, type AnswerEnd } from './gitPipe';
import { GitExit, runOnce, startGit } from './gitProcess';

export interface GitRunnerOptions extends ShadowPaths {
  binary?: string;
  log?: (m: string) => void;
  /** A lock file older than this is considered left behind by a crash. */
  staleLockMs?: number;
  timeoutMs?: number;
  /** Longest command line we build (default: 24k characters on Windows, 200k elsewhere). */
  maxArgvChars?: number;
  /** Told of every git process started, with its arguments (tests count them; benches report them). */
  onSpawn?: (args: readonly string[]) => void;
  /** The long-lived processes stop after this long without a request (default 10 minutes). */
  pipeIdleMs?: number;
}

/** One ref change of an `updateRefs` transaction. */
export interface RefUpdate {
  ref: string;
  /** The commit the ref gets; undefined deletes it. */
  commit?: string;
  /** The ref must not exist yet (refs that are never overwritten). */
  create?: boolean;
  /** For a delete: the commit the ref must still name. */
  expected?: string;
}

/** Windows' command line stops near 32k characters; elsewhere we still keep argv modest. */
const MAX_ARGV_CHARS = process.platform === 'win32' ? 24_000 : 200_000;

export class GitRunner {
  /** The git the caller asked for (named in messages). */
  readonly binary: string;
  /** Its full path, found on first use outside the book folder (see gitBinary.ts). */
  private program: Promise<string> | undefined;
  private readonly pipes = new Map<string, GitPipe>();
  private commitSeq = 0;

  constructor(private readonly opts: GitRunnerOptions) {
    this.binary = opts.binary ?? 'git';
  }

  get paths(): ShadowPaths {
    return { root: this.opts.root, gitDir: this.opts.gitDir };
  }

  /** Runs `git <args>` and returns stdout as text. */
  async run(args: string[], env: Record<string, string> = {}): Promise<string> {
    return (await this.runBytes(args, undefined, env)).toString('utf8');
  }

  /** Runs `git <args>` with `input` on stdin and returns stdout as text. */
  async runInput(args: string[], input: string | Buffer, env: Record<string, string> = {}): Promise<string> {
    return (await this.runBytes(args, input, env)).toString('utf8');
  }

  /** Like run, but a silent non-zero exit (e.g. `rev-parse --verify -q` of a missing ref) gives undefined. */
  async tryRun(args: string[]): Promise<string | undefined> {
    try {
      return await this.run(args);
    } catch (err) {
      if (err instanceof CheckpointError && err.kind === 'error' && (err.detail ?? '').trim() === '') return undefined;
      throw err;
    }
  }

  /** Runs `git cat-file <args>` and returns stdout as bytes (manuscript files are not always UTF-8). */
  catFileBytes(args: string[]): Promise<Buffer> {
    return this.runBytes(['cat-file', ...args], undefined, {});
  }

  /** Runs `git <prefix> -- <paths…>` in as few calls as the command line allows. */
  async runForPaths(prefix: string[], paths: readonly string[], env: Record<string, string> = {}): Promise<void> {
    let batch: string[] = [];
    let size = 0;
    for (const p of paths) {
      if (batch.length > 0 && size + p.length + 1 > (this.opts.maxArgvChars ?? MAX_ARGV_CHARS)) {
        await this.run([...prefix, '--', ...batch], env);
        batch = [];
        size = 0;
      }
      batch.push(p);
      size += p.length + 1;
    }
    if (batch.length > 0) await this.run([...prefix, '--', ...batch], env);
  }

  /**
   * Stores each file (relative to the book folder) as a blob, as git reads it now, and returns the
   * object ids in order. The caller has checked with lstat that each is a regular file outside any
   * symlinked folder. A file gone meanwhile ends git's process: that rejects (`hash-object` names it).
   */
  async hashFiles(files: readonly string[]): Promise<string[]> {
    if (files.length === 0) return [];
    const input = files.map((f) => `${quotePathLine(f)}\n`).join('');
    const out = await this.request('blobs', ['hash-object', '-w', '--no-filters', '--stdin-paths'], input, lines(files.length));
    return out.toString('latin1').split('\n').slice(0, files.length);
  }

  /** Writes a commit object (the text as `git cat-file commit` shows it) and returns its id. */
  async writeCommit(text: string): Promise<string> {
    // hash-object reads objects from files only: the text goes through one file of ours in the
    // store, made new each time (never written through something planted there).
    const file = path.join(this.opts.gitDir, `worldline-commit-${process.pid}-${Date.now().toString(36)}-${++this.commitSeq}.txt`);
    await fsp.writeFile(file, text, { flag: 'wx' });
    try {
      const out = await this.request('commits', ['hash-object', '-t', 'commit', '-w', '--stdin-paths'], `${quotePathLine(file)}\n`, lines(1));
      return out.toString('latin1').trim();
    } finally {
      // Waited for (a fraction of a millisecond): the store holds no stray file once the checkpoint returns, so a copy of the book taken then is clean.
      await fsp.rm(file, { force: true }).catch(() => undefined);
    }
  }

  /** One transaction: every update happens, or none (a ref that must be new and exists fails it). */
  async updateRefs(updates: readonly RefUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const cmds = updates.map((u) => {
      if (u.commit === undefined) return `delete ${u.ref}\0${u.expected ?? ''}\0`;
      if (u.create) return `create ${u.ref}\0${u.commit}\0`;
      return `update ${u.ref}\0${u.commit}\0\0`;
    });
    const input = `start\0${cmds.join('')}prepare\0commit\0`;
    await this.request('refs', ['update-ref', '--no-deref', '-m', 'worldline', '--stdin', '-z'], input, lines(3));
  }

  /** The bytes of each blob, in order (`cat-file --batch`); rejects when one is missing. */
  async readBlobs(oids: readonly string[]): Promise<Buffer[]> {
    if (oids.length === 0) return [];
    const out = await this.request('cat', ['cat-file', '--batch'], oids.map((o) => `${o}\n`).join(''), batchAnswers(oids.length));
    const blobs: Buffer[] = [];
    let at = 0;
    for (const oid of oids) {
      const nl = out.indexOf(10, at);
      const header = out.subarray(at, nl).toString('latin1').split(' ');
      if (header[1] !== 'blob') throw new CheckpointError('corrupt', messages.corrupt(`the object ${oid.slice(0, 10)} is ${header[1] ?? 'unreadable'}`), header.join(' '));
      const size = Number(header[2]);
      blobs.push(Buffer.from(out.subarray(nl + 1, nl + 1 + size)));
      at = nl + 1 + size + 1;
    }
    return blobs;
  }

  /**
   * The type of each object ("commit", "tree", "blob", "tag"), or "missing", in order: one
   * `cat-file --batch-check` request for them all. The caller passes full object ids only (a short
   * one could be "ambiguous", which is answered as missing too).
   */
  async objectTypes(oids: readonly string[]): Promise<string[]> {
    if (oids.length === 0) return [];
    const out = await this.request('check', ['cat-file', '--batch-check'], oids.map((o) => `${o}\n`).join(''), lines(oids.length));
    return out.toString('latin1').split('\n').slice(0, oids.length).map((line) => {
      const parts = line.split(' ');
      return parts.length >= 3 ? (parts[1] as string) : 'missing';
    });
  }

  /** Stops the long-lived processes (the store is closed, or moved aside). */
  close(): void {
    for (const p of this.pipes.values()) p.close();
    this.pipes.clear();
  }

  /** A request to the long-lived process `name` (started on first use); a stale lock is handled as for a command. */
  private async request(name: string, args: string[], input: string | Buffer, end: AnswerEnd): Promise<Buffer> {
    const program = await this.resolve();
    let pipe = this.pipes.get(name);
    if (!pipe) {
      pipe = new GitPipe({
        start: () => {
          this.opts.onSpawn?.(args);
          return startGit({ program, args: this.fullArgs(args), env: isolatedEnv(this.paths), cwd: this.opts.root });
        },
        ...(this.opts.pipeIdleMs !== undefined ? { idleMs: this.opts.pipeIdleMs } : {}),
        timeoutMs: this.opts.timeoutMs ?? 120_000,
      });
      this.pipes.set(name, pipe);
    }
    const p = pipe;
    return this.withLockRetry(async () => {
      try {
        return await p.request(input, end);
      } catch (err) {
        // A process that died between two requests (killed, or gone with its pipe) is started
        // again; what git itself refused is not asked twice, nor a ref transaction (it may have run).
        const text = err instanceof Error ? err.message : String(err);
        if (name === 'refs' || /^(fatal|error):/m.test(text) || /timed out/.test(text)) throw err;
        return p.request(input, end);
      }
    });
  }

  private async runBytes(args: string[], input: string | Buffer | undefined, env: Record<string, string>): Promise<Buffer> {
    const program = await this.resolve();
    return this.withLockRetry(async () => {
      this.opts.onSpawn?.(args);
      const out = await runOnce({
        program,
        args: this.fullArgs(args),
        env: isolatedEnv(this.paths, env),
        cwd: this.opts.root,
        ...(input !== undefined ? { input } : {}),
        timeoutMs: this.opts.timeoutMs ?? 120_000,
      });
      return out.stdout;
    });
  }

  /** The git program, found once (asynchronously: no blocking stat on the extension host). */
  async resolve(): Promise<string> {
    this.program ??= resolveGitBinary(this.binary, this.opts.root);
    return this.program;
  }

  private fullArgs(args: readonly string[]): string[] {
    return [...commandConfig(this.opts.gitDir).flatMap((kv) => ['-c', kv]), ...args];
  }

  private async withLockRetry<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const e = classifyGitError(err, this.binary);
      const lock = e.kind === 'locked' ? e.detail : undefined;
      if (lock === undefined || !(await this.moveAsideIfStale(lock))) throw e;
      try {
        return await fn();
      } catch (err2) {
        throw classifyGitError(err2, this.binary);
      }
    }
  }

  private async moveAsideIfStale(lock: string): Promise<boolean> {
    const abs = path.resolve(this.opts.root, lock);
    const inside = path.relative(this.opts.gitDir, abs);
    if (inside.startsWith('..') || path.isAbsolute(inside)) return false; // only our own locks
    try {
      const st = await fsp.stat(abs);
      if (Date.now() - st.mtimeMs < (this.opts.staleLockMs ?? 60_000)) return false;
      const aside = `${abs}.stale-${Date.now()}`;
      await fsp.rename(abs, aside);
      this.opts.log?.(`checkpoints: moved a stale lock aside: ${aside}`);
      return true;
    } catch {
      return false;
    }
  }
}

/** `cat-file --batch` answers: "<oid> <type> <size>\n<bytes>\n" each, or "<name> missing\n". */
function batchAnswers(n: number): AnswerEnd {
  return (out) => {
    let at = 0;
    for (let i = 0; i < n; i++) {
      const nl = out.indexOf(10, at);
      if (nl < 0) return undefined;
      const parts = out.subarray(at, nl).toString('latin1').split(' ');
      if (parts.length < 3) {
        at = nl + 1; // "missing" or "ambiguous": no body
        continue;
      }
      const end = nl + 1 + Number(parts[2]) + 1;
      if (out.length < end) return undefined;
      at = end;
    }
    return at;
  };
}

/**
 * A path as one line of `--stdin-paths`: as it is, or C-quoted when it holds a newline, a
 * backslash or a double quote, or starts with a quote (git unquotes a line that starts with one).
 */
export function quotePathLine(p: string): string {
  if (!/["\\\n\r\t]/.test(p)) return p;
  let out = '"';
  for (const ch of Buffer.from(p, 'utf8')) {
    if (ch === 0x22) out += '\\"';
    else if (ch === 0x5c) out += '\\\\';
    else if (ch === 0x0a) out += '\\n';
    else if (ch === 0x0d) out += '\\r';
    else if (ch === 0x09) out += '\\t';
    else if (ch < 0x20 || ch >= 0x7f) out += `\\${ch.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(ch);
  }
  return `${out}"`;
}

const CORRUPT = [
  /index file corrupt/i,
  /bad signature 0x/i,
  /index file smaller than expected/i,
  /bad index version/i,
  /object file .* is empty/i,
  /loose object .* is corrupt/i,
  /(?:invalid|bad) (?:sha1|object|tree|commit)/i,
  /could not parse (?:HEAD|commit|object)/i,
  /unable to read (?:tree|[0-9a-f]{7,})/i,
  /packed object .* is corrupt/i,
  /broken ref/i,
  /reference broken/i,
  /not a git repository/i,
  /fatal: (?:missing|corrupt) /i,
  /missing (?:blob|tree|commit)/i,
];

/** Maps a failure of git (or of starting it) to a CheckpointError a novelist can act on. */
export function classifyGitError(err: unknown, binary: string): CheckpointError {
  if (err instanceof CheckpointError) return err;
  const errno = fsErrno(err);
  if (errno) return new CheckpointError('io', `A file in the book folder could not be used (${errno}).`, String(err));
  const text = stripTrace(err instanceof Error ? err.message : String(err));
  if (/\bENOENT\b/.test(text) && /spawn/.test(text)) return new CheckpointError('gitMissing', messages.gitMissing(binary), text);
  if (/\b(EACCES|EPERM)\b/.test(text) && /spawn/.test(text)) return new CheckpointError('gitMissing', messages.gitMissing(binary), text);
  const lock = /Unable to create '([^']+\.lock)': File exists/i.exec(text);
  if (lock) return new CheckpointError('locked', messages.locked(path.basename(lock[1])), lock[1]);
  const firstLine = text.split('\n').find((l) => /^(fatal|error):/.test(l.trim())) ?? text.split('\n')[0];
  if (CORRUPT.some((re) => re.test(text))) return new CheckpointError('corrupt', messages.corrupt(firstLine.replace(/^(fatal|error):\s*/, '').trim()), text);
  if (/block timeout reached|timed out/i.test(text)) return new CheckpointError('error', messages.gitFailed('git', 'git took too long and was stopped'), text);
  // A silent failure keeps an empty detail (tryRun tells it by that); the message still says something.
  const said = firstLine.trim() !== '' ? firstLine.trim() : err instanceof GitExit ? `exit code ${err.code ?? 'none'}` : 'no output';
  return new CheckpointError('error', messages.gitFailed('git', said), text);
}

/** Node file-system errors (not git's): they carry an errno code and a path. */
function fsErrno(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, path: p, syscall } = err as { code?: unknown; path?: unknown; syscall?: unknown };
  if (typeof code !== 'string' || typeof syscall !== 'string' || syscall.startsWith('spawn')) return undefined;
  return typeof p === 'string' ? `${code}: ${p}` : code;
}

/** Drops GIT_TRACE lines (a store opened by older versions ran git with it) from git's messages. */
export function stripTrace(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\d\d:\d\d:\d\d\.\d+ +\S+:\d+ +trace: /.test(l))
    .join('\n');
}
