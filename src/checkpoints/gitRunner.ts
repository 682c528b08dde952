// Runs git for one shadow repo through simple-git, with the isolated environment, and turns git's
// failures into typed CheckpointErrors. A stale lock (left by a crash) is moved aside, never
// deleted, and the command is retried once.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { CheckpointError, messages } from './errors';
import { resolveGitBinary } from './gitBinary';
import { commandConfig, isolatedEnv, type ShadowPaths } from './gitEnv';

export interface GitRunnerOptions extends ShadowPaths {
  binary?: string;
  log?: (m: string) => void;
  /** A lock file older than this is considered left behind by a crash. */
  staleLockMs?: number;
  timeoutMs?: number;
  /** Longest command line we build (default: 24k characters on Windows, 200k elsewhere). */
  maxArgvChars?: number;
}

/** Windows' command line stops near 32k characters; elsewhere we still keep argv modest. */
const MAX_ARGV_CHARS = process.platform === 'win32' ? 24_000 : 200_000;

export class GitRunner {
  /** The git the caller asked for (named in messages). */
  readonly binary: string;
  /** Its full path, found on first use outside the book folder (see gitBinary.ts). */
  private program: string | undefined;
  private readonly instances = new Map<string, SimpleGit>();

  constructor(private readonly opts: GitRunnerOptions) {
    this.binary = opts.binary ?? 'git';
  }

  get paths(): ShadowPaths {
    return { root: this.opts.root, gitDir: this.opts.gitDir };
  }

  /** Runs `git <args>` and returns stdout as text. */
  async run(args: string[], env: Record<string, string> = {}): Promise<string> {
    return this.withLockRetry(() => this.instance(env).raw(args));
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
  async catFileBytes(args: string[]): Promise<Buffer> {
    return this.withLockRetry(async () => (await this.instance({}).binaryCatFile(args)) as Buffer);
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

  private instance(extraEnv: Record<string, string>): SimpleGit {
    const key = JSON.stringify(extraEnv);
    let git = this.instances.get(key);
    if (!git) {
      this.program ??= resolveGitBinary(this.binary, this.opts.root);
      // Only the plain environment is kept; one-off ones (a temporary index) are not.
      git = simpleGit({
        baseDir: this.opts.root,
        binary: this.program,
        maxConcurrentProcesses: 4,
        trimmed: false,
        config: commandConfig(this.opts.gitDir),
        timeout: { block: this.opts.timeoutMs ?? 120_000 },
        // simple-git refuses `-c` for the keys that can start a program, so that a caller cannot
        // pass hostile values by accident. Here it is the other way round: commandConfig sets those
        // keys to values that start nothing, and only our own code builds the arguments.
        // Custom binary: always a full path (ours, or one the caller chose), such as
        // "C:\Program Files\Git\cmd\git.exe", which simple-git's plain check would refuse.
        // Template dir: `init --template=` (none), so no sample hooks are copied into the store.
        unsafe: {
          allowUnsafeHooksPath: true,
          allowUnsafeFsMonitor: true,
          allowUnsafePager: true,
          allowUnsafeEditor: true,
          allowUnsafeAskPass: true,
          allowUnsafeSshCommand: true,
          allowUnsafeCredentialHelper: true,
          allowUnsafeProtocolOverride: true,
          allowUnsafeGpgProgram: true,
          allowUnsafeTemplateDir: true,
          allowUnsafeCustomBinary: true,
        },
      }).env(isolatedEnv(this.paths, extraEnv));
      if (Object.keys(extraEnv).length === 0) this.instances.set(key, git);
    }
    return git;
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

/** Maps a simple-git failure to a CheckpointError a novelist can act on. */
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
  return new CheckpointError('error', messages.gitFailed('git', firstLine.trim()), text);
}

/** Node file-system errors (not git's): they carry an errno code and a path. */
function fsErrno(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, path: p, syscall } = err as { code?: unknown; path?: unknown; syscall?: unknown };
  if (typeof code !== 'string' || typeof syscall !== 'string' || syscall.startsWith('spawn')) return undefined;
  return typeof p === 'string' ? `${code}: ${p}` : code;
}

/** Drops the GIT_TRACE lines (see gitEnv.ts) from git's messages. */
export function stripTrace(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\d\d:\d\d:\d\d\.\d+ +\S+:\d+ +trace: /.test(l))
    .join('\n');
}
