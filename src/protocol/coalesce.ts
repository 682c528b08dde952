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

/**
 * Whether a turn is being written (the StoryShell is one). `onDidChange` fires for each change of
 * the turn: a rendered entry, a phase, a streamed token ('stream').
 */
export interface TurnActivity {
  readonly busy: boolean;
  onDidChange(listener: (change: string) => void): { dispose(): void };
}

/**
 * The refreshes of a view that shows what a turn changes only once it is written (the scene state,
 * the worldlines): held while the turn runs, let go by any change of it but a streamed token.
 */
export class TurnCoalescer extends Coalescer {
  private readonly listening: { dispose(): void } | undefined;

  constructor(options: Omit<CoalescerOptions, 'hold'> & { turns?: TurnActivity }) {
    const turns = options.turns;
    super({ ...options, hold: () => turns?.busy ?? false });
    this.listening = turns?.onDidChange((change) => {
      if (change !== 'stream') this.release();
    });
  }

  override dispose(): void {
    this.listening?.dispose();
    super.dispose();
  }
}

/** What a page or tree shows, as sent: a value equal to the last one need not be sent again. */
export class LastShown {
  private shown: string | undefined;

  /** True (and remembered) when `value` differs from what was shown last. */
  differs(value: unknown): boolean {
    if (this.matches(value)) return false;
    this.remember(value);
    return true;
  }

  /** True when `value` is what was shown last (false when nothing was). */
  matches(value: unknown): boolean {
    return this.shown !== undefined && JSON.stringify(value ?? null) === this.shown;
  }

  /** `value` is now shown. */
  remember(value: unknown): void {
    this.shown = JSON.stringify(value ?? null);
  }

  /** The page forgot what it showed (hidden, reloaded): the next value is sent whatever it is. */
  forget(): void {
    this.shown = undefined;
  }
}
