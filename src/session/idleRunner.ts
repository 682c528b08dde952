// Runs a job once things have gone quiet, for session backups: a whole-file copy must not sit in
// a turn (it took 231–524 ms at 100k entries, and the turn's fsync then paid for its dirty pages).
// After the last trigger it waits `idleMs`; each new trigger starts the wait again. Runs never
// overlap and start at least `minIntervalMs` apart. `flush()` runs a pending job now and waits for
// it (closing must not lose the last copy).

import { Clock, Timers } from './clock';

export interface IdleRunnerOptions {
  idleMs: number;
  minIntervalMs: number;
  clock: Clock;
  timers: Timers;
  run: () => Promise<void>;
  onError: (error: unknown) => void;
}

export class IdleRunner {
  private pending = false;
  private lastTrigger = Number.NEGATIVE_INFINITY;
  private lastStart = Number.NEGATIVE_INFINITY;
  private timer: unknown;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(private readonly options: IdleRunnerOptions) {}

  /** Something changed: run once it has been quiet for `idleMs`. */
  trigger(): void {
    if (this.disposed) return;
    this.pending = true;
    this.lastTrigger = this.options.clock.now();
    if (!this.running) this.arm(this.options.idleMs);
  }

  /** Runs a pending job now (after any run in progress) and waits for it. */
  async flush(): Promise<void> {
    this.cancelTimer();
    await this.running;
    if (this.pending) await this.start();
  }

  /** Flushes, then ignores further triggers. */
  async dispose(): Promise<void> {
    await this.flush();
    this.disposed = true;
    this.cancelTimer();
  }

  private due(): void {
    if (!this.pending || this.running || this.disposed) return;
    const { idleMs, minIntervalMs, clock } = this.options;
    const wait = Math.max(this.lastTrigger + idleMs, this.lastStart + minIntervalMs) - clock.now();
    if (wait > 0) this.arm(wait);
    else void this.start();
  }

  private start(): Promise<void> {
    this.cancelTimer();
    this.pending = false;
    this.lastStart = this.options.clock.now();
    const running = this.options
      .run()
      .catch(this.options.onError)
      .finally(() => {
        this.running = undefined;
        this.due(); // triggers that came during the run
      });
    this.running = running;
    return running;
  }

  private arm(ms: number): void {
    this.cancelTimer();
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = undefined;
      this.due();
    }, ms);
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
