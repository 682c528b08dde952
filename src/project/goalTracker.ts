// The goals' live figures for one open book: the day history kept in .worldline/goals.json and the
// session's starting length. The shell feeds it every new manuscript length and asks what today
// and this session wrote. Writes are atomic (temp file + rename) and gathered (one write a couple
// of seconds after the last change), so typing does not write the file at every pause. Never
// throws and never rejects: a file that cannot be read or written is a warning in the log, and a
// corrupt one is set aside and the history starts over.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../common/atomic-write';
import {
  dayKey, dayWritten, emptyHistory, HISTORY_FILE, parseHistory, rebaseDay, recentDays, recordReading, serializeHistory,
  type DayHistory, type DayWords,
} from './goals';

export interface GoalFileIo {
  /** The file's text; undefined when there is none. */
  read(file: string): Promise<string | undefined>;
  /** Replaces the file whole, atomically (its folder is made when missing). */
  write(file: string, text: string): Promise<void>;
  /** Moves a corrupt file out of the way; returns where it went. */
  setAside(file: string): Promise<string>;
}

export const nodeGoalIo: GoalFileIo = {
  read: async (file) => {
    try {
      return await fsp.readFile(file, 'utf8');
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  write: async (file, text) => {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
  },
  setAside: async (file) => {
    const aside = `${file}.broken-${Date.now()}`;
    await fsp.rename(file, aside);
    return aside;
  },
};

export interface GoalTrackerOptions {
  /** The book folder; the history is its .worldline/goals.json. */
  root: string;
  warn(message: string): void;
  /** Something shown changed (the status bar renders again). */
  changed?(): void;
  now?: () => Date;
  io?: GoalFileIo;
  /** Quiet time before a change is written (default 2 s). */
  writeDelayMs?: number;
}

export interface ManuscriptReading {
  /** The manuscript's length now. */
  total: number;
  /** The open session's id (undefined: none open); another id starts a new sitting. */
  session: string | undefined;
  /** The jump is not writing (the globs changed): the day and the session keep what they showed. */
  rebase?: boolean;
}

export class GoalTracker {
  private history: DayHistory = emptyHistory();
  private readonly file: string;
  private readonly now: () => Date;
  private readonly io: GoalFileIo;
  private readonly loading: Promise<void>;
  private loaded = false;
  /** Readings that came before the file was read, applied after it in order. */
  private early: ManuscriptReading[] = [];
  /** The last length read in this window. */
  private last: number | undefined;
  private sitting: { session: string | undefined; start: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private dirtySince = 0;
  private disposed = false;
  /** The file is there but could not be read: it is never overwritten (what it holds is not lost). */
  private readOnly = false;

  constructor(private readonly options: GoalTrackerOptions) {
    this.file = path.join(options.root, ...HISTORY_FILE.split('/'));
    this.now = options.now ?? (() => new Date());
    this.io = options.io ?? nodeGoalIo;
    this.loading = this.load();
  }

  /** Settles when the history file has been read (or found unusable). */
  whenLoaded(): Promise<void> {
    return this.loading;
  }

  /** A new length of the manuscript. */
  reading(r: ManuscriptReading): void {
    if (this.disposed || !Number.isSafeInteger(r.total) || r.total < 0) return;
    if (!this.loaded) {
      this.early.push(r);
      return;
    }
    this.apply(r);
  }

  /** Words written today (net growth since the day began, never below zero). */
  today(): number {
    return dayWritten(this.history.days[dayKey(this.now())]);
  }

  /** Words written in this sitting of the open session (never below zero); 0 before the first reading. */
  session(): number {
    return this.sitting && this.last !== undefined ? Math.max(0, this.last - this.sitting.start) : 0;
  }

  /** The last `count` days, newest first (see goals.ts `recentDays`). */
  days(count: number): DayWords[] {
    return recentDays(this.history, dayKey(this.now()), count);
  }

  /** Writes a pending change now. Never rejects. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || this.readOnly) return this.writing;
    this.dirty = false;
    const text = serializeHistory(this.history);
    this.writing = this.writing.then(() => this.io.write(this.file, text)).catch((err: unknown) => {
      this.options.warn(`could not write the goal history ${HISTORY_FILE}: ${messageOf(err)}`);
    });
    return this.writing;
  }

  /** Writes what is pending and stops. */
  dispose(): Promise<void> {
    const done = this.flush();
    this.disposed = true;
    return done;
  }

  // ------------------------------------------------------------------------------------------

  private apply(r: ManuscriptReading): void {
    const day = dayKey(this.now());
    const before = this.history;
    if (r.rebase && this.last !== undefined) {
      this.history = rebaseDay(this.history, day, r.total);
      if (this.sitting) this.sitting = { ...this.sitting, start: this.sitting.start + (r.total - this.last) };
    } else {
      this.history = recordReading(this.history, { total: r.total, day, ...(this.last !== undefined ? { previous: this.last } : {}) });
    }
    if (!this.sitting || this.sitting.session !== r.session) this.sitting = { session: r.session, start: r.total };
    const changedLength = this.last !== r.total;
    this.last = r.total;
    if (this.history !== before) this.later();
    if (this.history !== before || changedLength) this.options.changed?.();
  }

  private later(): void {
    const delay = this.options.writeDelayMs ?? 2000;
    const now = Date.now();
    if (!this.dirty) this.dirtySince = now;
    this.dirty = true;
    if (this.timer) clearTimeout(this.timer);
    // Steady typing never goes quiet for long: what waited five quiet times is written anyway.
    this.timer = setTimeout(() => void this.flush(), now - this.dirtySince >= 5 * delay ? 0 : delay);
  }

  private async load(): Promise<void> {
    try {
      const text = await this.io.read(this.file);
      if (text !== undefined) {
        const parsed = parseHistory(text);
        this.history = parsed.history;
        if (parsed.problem) this.options.warn(`${HISTORY_FILE}: ${parsed.problem}`);
        if (parsed.corrupt) {
          try {
            this.options.warn(`${HISTORY_FILE}: the unreadable file was kept as ${path.basename(await this.io.setAside(this.file))}`);
          } catch (err) {
            this.options.warn(`${HISTORY_FILE}: could not set the unreadable file aside (${messageOf(err)}); it will be replaced`);
          }
        }
      }
    } catch (err) {
      this.readOnly = true;
      this.options.warn(`could not read the goal history ${HISTORY_FILE} (${messageOf(err)}); today is counted from now and the file is left as it is`);
    }
    this.loaded = true;
    const early = this.early;
    this.early = [];
    for (const r of early) this.apply(r);
    this.options.changed?.();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
