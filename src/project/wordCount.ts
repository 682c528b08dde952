// The manuscript's length for the status bar, and the last turn's change. Counted over the files
// the project's one matcher accepts, walked as the checkpoints walk them, so "counted" and
// "tracked" (and "the agent may write it") are one fact. CJK characters count one each, Latin
// words one each (agent/manuscript.ts). Plain Node; the shell passes a reader that prefers an open
// editor's unsaved text.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { countWords } from '../agent/manuscript';
import { turnWordDelta } from '../agent/wordDelta';
import type { ToolChange } from '../agent/tools';
import { walkManuscript } from '../checkpoints/walk';
import { isManuscriptAt, type ManuscriptMatcher } from './manuscript';

/** A manuscript of more files than this is not counted (the walk stops and the count is left out). */
export const MAX_COUNTED_FILES = 20_000;

/** The text of the manuscript file at `rel` (POSIX, relative to the book folder); undefined when it is gone. */
export type ReadText = (rel: string) => Promise<string | undefined>;

export interface CountSource {
  root: string;
  matcher: ManuscriptMatcher;
  /** Default: the file on disk (see `diskReader`). */
  read?: ReadText;
}

/** Reads files of the book folder from disk; a file that disappeared reads as undefined. */
export function diskReader(root: string): ReadText {
  return async (rel) => {
    try {
      return await fsp.readFile(path.join(root, ...rel.split('/')), 'utf8');
    } catch (err) {
      const code = (err as { code?: unknown } | undefined)?.code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  };
}

/** The words of every manuscript file; a file that disappears while it is counted is skipped. Rejects on other failures. */
export async function countManuscript(source: CountSource, maxFiles = MAX_COUNTED_FILES): Promise<number> {
  const read = source.read ?? diskReader(source.root);
  const { files } = await walkManuscript(source.root, source.matcher, maxFiles);
  let total = 0;
  for (const rel of files) {
    const text = await read(rel);
    if (text !== undefined) total += countWords(text);
  }
  return total;
}

export interface WordCounterPorts {
  /** What to count now; undefined when no novel is open (nothing is counted). */
  source(): CountSource | undefined;
  /** The total or the delta changed: the status bar renders again. */
  changed(): void;
  warn(message: string): void;
  /** Quiet time after a saved manuscript file before counting again (default 500 ms). */
  debounceMs?: number;
}

/**
 * The status bar's figures. Counts may overlap (a save while a turn's count runs): the result of
 * the latest started count wins, an older one finishing later never overwrites it.
 */
export class WordCounter {
  private total: number | undefined;
  private delta: number | undefined;
  private started = 0;
  private shown = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastTurn: Promise<void> = Promise.resolve();

  constructor(private readonly ports: WordCounterPorts) {}

  /** The manuscript's length as last counted (undefined before the first count or after failures only). */
  get words(): number | undefined {
    return this.total;
  }

  /** The last turn's change in length (undefined before the first turn). */
  get turnDelta(): number | undefined {
    return this.delta;
  }

  /** Settles when the count after the last ended turn is done. */
  whenTurnCounted(): Promise<void> {
    return this.lastTurn;
  }

  /**
   * Counts the manuscript. Never rejects: a failure is reported through `warn` and gives
   * undefined. The total shown changes only when no later count has been shown already.
   */
  async count(): Promise<number | undefined> {
    const source = this.ports.source();
    if (!source) return undefined;
    const seq = ++this.started;
    try {
      const total = await countManuscript(source);
      if (seq > this.shown) {
        this.shown = seq;
        this.total = total;
        this.ports.changed();
      }
      return total;
    } catch (err) {
      this.ports.warn(`could not count the manuscript's words: ${messageOf(err)}`);
      return undefined;
    }
  }

  /**
   * A turn ended with these file changes: the delta is what they added (see agent/wordDelta.ts),
   * then the manuscript is counted again. Never rejects.
   */
  turnEnded(changes: readonly Pick<ToolChange, 'before' | 'after'>[]): Promise<void> {
    const done = (async () => {
      this.delta = turnWordDelta(changes);
      this.ports.changed();
      await this.count();
    })().catch((err: unknown) => {
      this.ports.warn(`could not count the turn's words: ${messageOf(err)}`);
    });
    this.lastTurn = done;
    return done;
  }

  /** A file was saved: a manuscript file is counted again once saving has been quiet for a moment. */
  fileSaved(absPath: string): void {
    const source = this.ports.source();
    if (!source || !isManuscriptAt(source.matcher, source.root, absPath)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.count();
    }, this.ports.debounceMs ?? 500);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
