// Starting git: one command that runs to its end (`runOnce`), with its input fed on stdin and its
// output collected as bytes. Never a shell, never a synchronous spawn (the extension host's
// thread would stop for as long as git runs). A failure rejects with an Error whose message is
// git's own stderr (or stdout), which gitRunner.ts classifies; the caller sees nothing else.
import { spawn, type ChildProcess } from 'node:child_process';

export interface GitCommand {
  /** The full path of git (gitBinary.ts). */
  program: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  /** Fed on stdin, then stdin is closed (no input: stdin is closed at once). */
  input?: string | Buffer;
  /** Killed after this long (the failure says so). */
  timeoutMs: number;
}

/** What a finished command printed. */
export interface GitOutput {
  stdout: Buffer;
  stderr: string;
}

/** A command that failed: its exit code (or the signal) and git's words. */
export class GitExit extends Error {
  constructor(message: string, readonly code: number | null, readonly stdout: Buffer) {
    super(message);
    this.name = 'GitExit';
  }
}

/** Starts git with no shell; stdio are pipes. Spawn errors (ENOENT, EACCES) arrive as 'error' events. */
export function startGit(cmd: Omit<GitCommand, 'input' | 'timeoutMs'>): ChildProcess {
  return spawn(cmd.program, [...cmd.args], { cwd: cmd.cwd, env: cmd.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, shell: false });
}

export function runOnce(cmd: GitCommand): Promise<GitOutput> {
  return new Promise<GitOutput>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = startGit(cmd);
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new Error(`git timed out after ${cmd.timeoutMs} ms`)));
    }, cmd.timeoutMs);
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => finish(() => reject(Object.assign(new Error(`spawn ${cmd.program} ${(e as NodeJS.ErrnoException).code ?? ''}: ${e.message}`), { cause: e }))));
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out);
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) return finish(() => resolve({ stdout, stderr }));
      // git's words, or none: a silent failure (`rev-parse --verify -q` of a missing ref) stays silent.
      const words = stderr.trim() !== '' ? stderr : stdout.toString('utf8');
      finish(() => reject(new GitExit(signal ? `git was stopped (${signal})` : words, code, stdout)));
    });
    // A git that exits before reading all its input (a fatal error) closes the pipe: that is the
    // failure reported by 'close', not an EPIPE of ours.
    child.stdin?.on('error', () => undefined);
    if (cmd.input !== undefined) child.stdin?.end(cmd.input);
    else child.stdin?.end();
  });
}
