// Leading + trailing throttle (as lodash's, which SillyTavern uses for backups): the first call
// runs at once, calls within the interval collapse into one run at the end of it, runs never
// overlap. `flush()` runs a pending call now (dispose must not lose the last copy).

import { Clock, Timers } from './clock';

export class Throttle {
  private lastRun = Number.NEGATIVE_INFINITY;
  private pending = false;
  private timer: unknown;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly run: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  trigger(): void {
    if (this.disposed) return;
    this.pending = true;
    this.schedule();
  }

  /** Runs a pending call now (after any run in progress) and waits for it. */
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

  private schedule(): void {
    if (this.running || this.timer !== undefined || !this.pending) return;
    const wait = this.lastRun + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      void this.start();
      return;
    }
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
  }

  private start(): Promise<void> {
    this.pending = false;
    this.lastRun = this.clock.now();
    const running = this.run()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        this.schedule(); // triggers that arrived during the run
      });
    this.running = running;
    return running;
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
