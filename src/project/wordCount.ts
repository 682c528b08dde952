// The manuscript's length for the status bar, and the last turn's change. Counted over the files
// the project's one matcher accepts, walked as the checkpoints walk them, so "counted" and
// "tracked" (and "the agent may write it") are one fact. CJK characters count one each, Latin
// words one each (agent/manuscript.ts). Plain Node; the shell passes a reader that prefers an open
// editor's unsaved text.
//
// The count is kept, not recomputed: one walk at open (in the background) gives a count per file,
// and from then on only the files that changed are read again: the turn's own tool changes, saves,
// and the manuscript change feed (project/manuscriptChanges.ts: restores, undo, loads, a watcher).
// A restore, an undo or a load also drops the last turn's delta (`forgetTurn`): it described prose
// that is not there any more.
// A full walk runs again only when the feed says "anything may have changed", when the matcher or
// the folder changes, or when `count()` is asked for.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { countWords } from '../agent/manuscript';
import { turnWordDelta } from '../agent/wordDelta';
import type { ToolChange } from '../agent/tools';
import { walkManuscript } from '../checkpoints/walk';
import { isManuscriptAt, type ManuscriptMatcher } from './manuscript';
import type { ChangeListener, ChangedPaths } from './manuscriptChanges';

/** A manuscript of more files than this is not counted (the walk stops and the count is left out). */
export const MAX_COUNTED_FILES = 20_000;

/** Files read at once during the full walk: enough to keep the disk busy, few enough to leave the host room. */
const READ_CONCURRENCY = 8;

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
      const code = codeOf(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  };
}

/** The words of every manuscript file, file by file; a file that disappears while it is counted is left out. Rejects on other failures. */
export async function countFiles(source: CountSource, maxFiles = MAX_COUNTED_FILES): Promise<Map<string, number>> {
  const read = source.read ?? diskReader(source.root);
  const { files } = await walkManuscript(source.root, source.matcher, maxFiles);
  const counts = new Map<string, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const rel = files[next++] as string;
      const text = await read(rel);
      if (text !== undefined) counts.set(rel, countWords(text));
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  return counts;
}

/** The words of every manuscript file; a file that disappears while it is counted is skipped. Rejects on other failures. */
export async function countManuscript(source: CountSource, maxFiles = MAX_COUNTED_FILES): Promise<number> {
  return sum(await countFiles(source, maxFiles));
}

/** What the counter listens to for changed files (a `ManuscriptChanges` is one). */
export interface ChangeFeed {
  listen(listener: ChangeListener): () => void;
}

export interface WordCounterPorts {
  /** What to count now; undefined when no novel is open (nothing is counted). */
  source(): CountSource | undefined;
  /** The total or the delta changed: the status bar renders again. */
  changed(): void;
  warn(message: string): void;
  /** Quiet time after a save or an editor change before that file is counted again (default 500 ms). */
  debounceMs?: number;
  /** The manuscript change feed; its paths are counted again at once ('all': a full walk). */
  feed?: ChangeFeed;
}

/**
 * The status bar's figures, kept per file. All counting runs one step at a time, in the order it
 * was asked for, so a later count is never overwritten by an earlier one finishing late.
 */
export class WordCounter {
  /** Words per manuscript file, for `basis`. */
  private files = new Map<string, number>();
  /** The folder and matcher `files` were walked with; undefined: walk before anything else. */
  private basis: { root: string; matcher: ManuscriptMatcher } | undefined;
  private total: number | undefined;
  private delta: number | undefined;
  /** Asked for: a full walk, and files to read again. */
  private walkAll = false;
  private readonly dirty = new Set<string>();
  /** Files saved or edited, waiting for the quiet moment (`debounceMs`). */
  private readonly soon = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private work: Promise<void> | undefined;
  private lastWalkOk = true;
  private lastTurn: Promise<void> = Promise.resolve();
  private readonly stopListening: (() => void) | undefined;
  private disposed = false;

  constructor(private readonly ports: WordCounterPorts) {
    this.stopListening = ports.feed?.listen((paths) => this.touched(paths));
  }

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

  /** Settles when every change reported so far has been counted (tests wait on it). Never rejects. */
  whenCounted(): Promise<void> {
    return this.drain();
  }

  /**
   * Walks and counts the whole manuscript (at open, after a settings change). Never rejects: a
   * failure is reported through `warn` and gives undefined, and the last total stays shown.
   */
  async count(): Promise<number | undefined> {
    if (!this.ports.source()) return undefined;
    this.walkAll = true;
    await this.drain();
    return this.lastWalkOk ? this.total : undefined;
  }

  /** These files changed (or 'all': anything may have): they are counted again now. */
  touched(paths: ChangedPaths): void {
    if (this.disposed) return;
    if (paths === 'all') this.walkAll = true;
    else for (const p of paths) this.mark(p);
    void this.drain();
  }

  /**
   * A turn ended with these file changes: the delta is what they added (see agent/wordDelta.ts),
   * then the files it changed are counted again. Never rejects.
   */
  turnEnded(changes: readonly (Pick<ToolChange, 'before' | 'after'> & { path?: string })[]): Promise<void> {
    const done = (async () => {
      this.delta = turnWordDelta(changes);
      this.ports.changed();
      for (const c of changes) if (c.path !== undefined) this.mark(c.path);
      await this.drain();
    })().catch((err: unknown) => {
      this.ports.warn(`could not count the turn's words: ${messageOf(err)}`);
    });
    this.lastTurn = done;
    return done;
  }

  /**
   * The prose moved without a turn (a restore, an undo, a loaded save): the last turn's change no
   * longer describes the manuscript, so it is not shown. The files themselves come through the feed.
   */
  forgetTurn(): void {
    if (this.delta === undefined) return;
    this.delta = undefined;
    this.ports.changed();
  }

  /** A file was saved: a manuscript file is counted again once saving has been quiet for a moment. */
  fileSaved(absPath: string): void {
    const source = this.ports.source();
    if (!source || !isManuscriptAt(source.matcher, source.root, absPath)) return;
    this.later(path.relative(source.root, absPath).split(path.sep).join('/'));
  }

  /** The file at `rel` changed in an editor (typed, or closed unsaved): counted again after the quiet moment. */
  later(rel: string): void {
    if (this.disposed) return;
    this.soon.add(rel);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const paths = [...this.soon];
      this.soon.clear();
      this.touched(paths);
    }, this.ports.debounceMs ?? 500);
  }

  dispose(): void {
    this.disposed = true;
    this.stopListening?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  // ------------------------------------------------------------------------------------------

  private mark(p: string): void {
    const rel = normalRel(p);
    if (rel !== undefined) this.dirty.add(rel);
  }

  /** Runs the steps asked for, one at a time; settles when nothing is left. */
  private async drain(): Promise<void> {
    // A change that comes while the last run is finishing is left to the next one: go on until clean.
    do await this.run();
    while (!this.disposed && (this.walkAll || this.dirty.size > 0));
  }

  /** The one run of steps under way (started when there is none). */
  private run(): Promise<void> {
    if (!this.work) {
      const work = this.steps().finally(() => {
        if (this.work === work) this.work = undefined;
      });
      this.work = work;
    }
    return this.work;
  }

  private async steps(): Promise<void> {
    try {
      while (!this.disposed && (this.walkAll || this.dirty.size > 0)) await this.step();
    } catch (err) {
      // Dropped rather than tried again at once (it would fail the same way): the next change walks.
      this.walkAll = false;
      this.dirty.clear();
      this.basis = undefined;
      this.ports.warn(`could not count the manuscript's words: ${messageOf(err)}`);
    }
  }

  private async step(): Promise<void> {
    const source = this.ports.source();
    if (!source) {
      this.walkAll = false;
      this.dirty.clear();
      return;
    }
    const basis = this.basis;
    if (!basis || basis.root !== source.root || basis.matcher !== source.matcher) this.walkAll = true;
    if (this.walkAll) {
      this.walkAll = false;
      // Whatever changes while the walk runs is marked again and read after it.
      this.dirty.clear();
      await this.walk(source);
      return;
    }
    const paths = [...this.dirty];
    this.dirty.clear();
    const before = this.total;
    for (const rel of paths) await this.recount(source, rel);
    if (this.total !== before) this.ports.changed();
  }

  private async walk(source: CountSource): Promise<void> {
    try {
      const files = await countFiles(source);
      this.files = files;
      this.basis = { root: source.root, matcher: source.matcher };
      this.total = sum(files);
      this.lastWalkOk = true;
      this.ports.changed();
    } catch (err) {
      // The next change walks again; the last total stays shown meanwhile.
      this.basis = undefined;
      this.lastWalkOk = false;
      this.ports.warn(`could not count the manuscript's words: ${messageOf(err)}`);
    }
  }

  /** Counts one changed path again: a file (written, created, gone), or a folder that went or came. */
  private async recount(source: CountSource, rel: string): Promise<void> {
    let kind: Kind;
    try {
      kind = await kindAt(source.root, rel);
    } catch (err) {
      this.ports.warn(`could not count the words of ${rel}: ${messageOf(err)}`);
      return;
    }
    if (kind === 'dir') {
      // A folder arrived (moved in, or made by a tool outside the feed): only a walk finds its files.
      if (source.matcher.mayContain(rel)) this.walkAll = true;
      return;
    }
    if (kind === 'file' && source.matcher.matches(rel)) {
      try {
        const text = await (source.read ?? diskReader(source.root))(rel);
        this.set(rel, text === undefined ? undefined : countWords(text));
      } catch (err) {
        this.ports.warn(`could not count the words of ${rel}: ${messageOf(err)}`);
      }
      return;
    }
    this.set(rel, undefined);
    // A folder that went takes its files with it.
    if (kind === 'missing') {
      const prefix = `${rel}/`;
      for (const counted of [...this.files.keys()]) if (counted.startsWith(prefix)) this.set(counted, undefined);
    }
  }

  private set(rel: string, words: number | undefined): void {
    const old = this.files.get(rel) ?? 0;
    if (words === undefined) this.files.delete(rel);
    else this.files.set(rel, words);
    this.total = (this.total ?? 0) + (words ?? 0) - old;
  }
}

type Kind = 'file' | 'dir' | 'missing' | 'other';

/**
 * What is at `rel`, judged as the walk judges it: a regular file or folder reached through real
 * folders only (a symlink anywhere on the way is not the manuscript).
 */
async function kindAt(root: string, rel: string): Promise<Kind> {
  const segs = rel.split('/');
  let at = root;
  for (let i = 0; i < segs.length; i++) {
    at = path.join(at, segs[i] as string);
    let st;
    try {
      st = await fsp.lstat(at);
    } catch (err) {
      const code = codeOf(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
      throw err;
    }
    const last = i === segs.length - 1;
    if (st.isDirectory()) {
      if (last) return 'dir';
    } else if (!last) {
      return 'other';
    } else {
      return st.isFile() ? 'file' : 'other';
    }
  }
  return 'other';
}

/** A relative POSIX path inside the folder, or undefined for one that cannot be manuscript. */
function normalRel(p: string): string | undefined {
  const rel = path.posix.normalize(p.replace(/\\/g, '/')).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (rel === '' || rel === '.' || rel.startsWith('/') || rel === '..' || rel.startsWith('../')) return undefined;
  return rel;
}

function sum(counts: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const n of counts.values()) total += n;
  return total;
}

function codeOf(err: unknown): unknown {
  return (err as { code?: unknown } | undefined)?.code;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
