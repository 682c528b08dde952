// One refresh for a burst of change events. A turn fires a change for every entry it appends, a
// streamed token, a phase; a view that redrew on each would rebuild and send its whole model ten
// times a turn. Requests join the one already waiting (about a frame), a refresh never overlaps
// the previous one, and a view may hold its refreshes while a turn is being written. Plain TS.

export interface CoalescerOptions {
  /** The refresh. A request made while it runs makes one more run after it. */
  run(): void | Promise<void>;
  /** How long a request waits for others to join it (default 16 ms, about one frame). */
  delayMs?: number;
  /** While true, a due refresh waits for `release()`. */
  hold?: () => boolean;
  /** A refresh failed (the next request runs again). */
  onError(err: unknown): void;
}

export class Coalescer {
  private requested = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(private readonly options: CoalescerOptions) {}

  /** True while a refresh is asked for and not yet run. */
  get pending(): boolean {
    return this.requested;
  }

  /** Asks for a refresh; it runs once the moment has passed, together with every other request made meanwhile. */
  request(): void {
    if (this.disposed) return;
    this.requested = true;
    this.arm();
  }

  /** The hold may have ended: a refresh asked for meanwhile runs now (after the usual moment). */
  release(): void {
    if (this.requested) this.arm();
  }

  /** Runs the refresh at once, hold or not (a page that just loaded, the novelist's own edit). */
  now(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.requested = true;
    this.clearTimer();
    return this.fire(true);
  }

  /** Settles when no refresh is running or due (one due and not held runs now). */
  async idle(): Promise<void> {
    while (!this.disposed && (this.running || (this.requested && !this.options.hold?.()))) {
      await (this.running ?? this.fire(false));
    }
  }

  dispose(): void {
    this.disposed = true;
    this.requested = false;
    this.clearTimer();
  }

  private arm(): void {
    if (this.timer || this.running || this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.fire(false);
    }, this.options.delayMs ?? 16);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(force: boolean): Promise<void> {
    if (this.disposed || !this.requested) return this.running ?? Promise.resolve();
    if (this.running) return this.running.then(() => this.fire(force));
    if (!force && this.options.hold?.()) return Promise.resolve();
    this.requested = false;
    this.clearTimer();
    const run = (async () => {
      try {
        await this.options.run();
      } catch (err) {
        this.options.onError(err);
      }
    })();
    const running = run.finally(() => {
      this.running = undefined;
      if (this.requested) this.arm();
    });
    this.running = running;
    return running;
  }
}
