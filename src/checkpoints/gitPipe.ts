// One long-lived git process that answers requests line by line (`hash-object --stdin-paths`,
// `update-ref --stdin`): a request costs a write and a read instead of a process start, which on
// the extension host blocks its thread for 1–3 ms (more as its memory grows) and costs git's own
// start-up besides. Requests are answered one at a time, in order. The process is started on
// first use, started again after it died (a failed `update-ref` transaction ends it, by git's
// design), stopped after a quiet while and on `close()`, and never keeps Node alive.
import type { ChildProcess } from 'node:child_process';

export interface GitPipeOptions {
  /** Starts the process (the runner's isolated environment and `-c` settings). */
  start(): ChildProcess;
  /** Stopped after this long without a request (default 10 minutes). */
  idleMs?: number;
  /** A request unanswered for this long kills the process (default 120 s). */
  timeoutMs?: number;
}

/** How many bytes of `out` complete the answer, or undefined while more is to come. */
export type AnswerEnd = (out: Buffer) => number | undefined;

/** The answer ends after `n` newline characters. */
export function lines(n: number): AnswerEnd {
  return (out) => {
    let seen = 0;
    for (let i = out.indexOf(10); i >= 0; i = out.indexOf(10, i + 1)) if (++seen === n) return i + 1;
    return undefined;
  };
}

interface Pending {
  end: AnswerEnd;
  resolve(answer: Buffer): void;
  reject(err: Error): void;
}

export class GitPipe {
  private child: ChildProcess | undefined;
  private out: Buffer = Buffer.alloc(0);
  private err = '';
  private pending: Pending | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: GitPipeOptions) {}

  /** True while a process is running (tests). */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** Sends `input` and resolves with the answer; rejects with git's words when the process dies first. */
  request(input: string | Buffer, end: AnswerEnd): Promise<Buffer> {
    const run = this.tail.then(() => this.exchange(input, end));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Stops the process; later requests start a new one unless `final`. */
  close(final = true): void {
    if (final) this.closed = true;
    this.stop();
  }

  private exchange(input: string | Buffer, end: AnswerEnd): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the git process was closed'));
    const child = this.child ?? this.spawn();
    if (this.idle) clearTimeout(this.idle);
    this.hold(child, true);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new Error(`git timed out after ${this.opts.timeoutMs ?? 120_000} ms`));
        child.kill('SIGKILL');
      }, this.opts.timeoutMs ?? 120_000);
      timer.unref();
      this.pending = {
        end,
        resolve: (answer) => {
          clearTimeout(timer);
          this.hold(child, false);
          this.armIdle();
          resolve(answer);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      child.stdin?.write(input);
      this.drain();
    });
  }

  private spawn(): ChildProcess {
    const child = this.opts.start();
    this.child = child;
    this.out = Buffer.alloc(0);
    this.err = '';
    child.stdout?.on('data', (d: Buffer) => {
      if (this.child !== child) return;
      this.out = this.out.length === 0 ? d : Buffer.concat([this.out, d]);
      this.drain();
    });
    child.stderr?.on('data', (d: Buffer) => {
      if (this.child === child) this.err = (this.err + d.toString('utf8')).slice(-8000);
    });
    child.stdin?.on('error', () => undefined); // the process died: reported by 'close'
    const gone = (why: Error) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.idle) clearTimeout(this.idle);
      this.fail(why);
    };
    child.on('error', (e) => gone(Object.assign(new Error(`spawn ${(e as NodeJS.ErrnoException).code ?? ''}: ${e.message}`), { cause: e })));
    child.on('close', (code, signal) => gone(new Error(this.err.trim() !== '' ? this.err : `git exited with ${code ?? signal}`)));
    return child;
  }

  /** Kept alive only while a request waits: an idle process never keeps Node (or a test run) from exiting. */
  private hold(child: ChildProcess, on: boolean): void {
    if (on) child.ref();
    else child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) {
      const handle = s as unknown as { ref?: () => void; unref?: () => void } | null;
      if (on) handle?.ref?.();
      else handle?.unref?.();
    }
  }

  private drain(): void {
    const p = this.pending;
    if (!p) return;
    const n = p.end(this.out);
    if (n === undefined) return;
    const answer = this.out.subarray(0, n);
    this.out = this.out.subarray(n);
    this.pending = undefined;
    p.resolve(Buffer.from(answer));
  }

  private fail(err: Error): void {
    const p = this.pending;
    this.pending = undefined;
    p?.reject(err);
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(), this.opts.idleMs ?? 600_000);
    this.idle.unref();
  }

  private stop(): void {
    if (this.idle) clearTimeout(this.idle);
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    this.fail(new Error('the git process was stopped'));
    child.stdin?.end();
    // A process that does not leave on end of input is made to.
    const kill = setTimeout(() => child.kill('SIGKILL'), 2000);
    kill.unref();
    child.once('close', () => clearTimeout(kill));
  }
}
