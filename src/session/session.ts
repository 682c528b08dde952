// One conversation tree, backed by one append-only JSONL file (DESIGN.md, "The session tree").
// Reads are answered from the in-memory index; writes go through a queue so each one sees the
// leaf left by the previous one, and each is exactly one line appended to the file.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { AppendLog } from './append-log';
import { Clock, fileTimestamp, systemClock } from './clock';
import {
  ChainEntry,
  ChainEntryOf,
  ChainType,
  ContextMessage,
  Entry,
  LeafEntry,
  NewChainEntry,
  NewSideEntry,
  SESSION_FORMAT_VERSION,
  SessionHeader,
  SideEntry,
  SideEntryOf,
  SideType,
  isChainType,
  isSideType,
} from './entries';
import { SessionError, errnoCode } from './errors';
import { syncDirectory } from '../common/atomic-write';
import { newEntryId } from './ids';
import { copyRangeToNewFile, formatBytes } from './jsonl-lines';
import { NEAR_LIMIT, SessionLimits, sessionLimits } from './limits';
import { loadSessionFile } from './load';
import { CorruptLine } from './parse';
import { StateCodec } from './stateCodec';
import { TreeIndex } from './tree-index';
import { requireChain, tipOf, turnStartOf, variantsOf } from './tree-walks';
import { activeSummaryView, buildContext } from './context';
import { KeptBranch, type SummaryView } from './keptBranch';
import { PathIds, type KeptPathStats, type PathView } from './keptPath';
import { checkEntry, checkStoredEntry } from './validate';

export interface LoadReport {
  warnings: string[];
  corruptLines: CorruptLine[];
  tornTail?: { bytes: number; movedTo: string };
}

export type SessionChange =
  | { kind: 'append'; entry: ChainEntry }
  | { kind: 'side'; entry: SideEntry }
  | { kind: 'navigate'; entry: LeafEntry; leafId: string | null };

export type SessionListener = (change: SessionChange) => void;

export interface Disposable {
  dispose(): void;
}

/** Hooks for the owner of the session (the library): backups after writes, bookkeeping on close. */
export interface SessionHooks {
  afterWrite?(session: Session): void;
  onClose?(session: Session): void;
  /** Reports a listener that threw, so one bad view cannot break a write. */
  onListenerError?(error: unknown): void;
}

export interface SessionOpenOptions {
  readOnly?: boolean;
  /** Shown when a write is refused on a read-only session; say why and what to do. */
  readOnlyReason?: string;
  clock?: Clock;
  hooks?: SessionHooks;
  /** Size limits (tests lower them); the defaults are in limits.ts. */
  limits?: Partial<SessionLimits>;
}

export interface AppendOptions {
  /**
   * Decides, with the leaf the entry would be written under, whether to write at all. Side calls
   * (scribe, summary) use it as their leaf guard, so the check and the write cannot be separated
   * by another queued write. Must be synchronous and cheap; it runs inside the write queue.
   */
  guard?: (leafId: string | null) => boolean;
}

/** An append whose guard refused the current leaf: the branch changed, nothing was written. */
export class StaleLeafError extends Error {
  override readonly name = 'StaleLeafError';
  constructor(readonly leafId: string | null) {
    super('The branch changed before this could be saved, so it was dropped; nothing was written.');
  }
}

export function isStaleLeafError(e: unknown): e is StaleLeafError {
  return e instanceof StaleLeafError;
}

/** A badly damaged file must not flood the log: the first warnings say what happened. */
const MAX_ENTRY_WARNINGS = 20;
const DEFAULT_READ_ONLY_REASON = 'This session is open read-only, so it cannot be changed here.';

export class Session {
  private readonly listeners = new Set<SessionListener>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly header: SessionHeader,
    readonly file: string,
    readonly readOnly: boolean,
    /** What was found when the file was opened. */
    readonly loadReport: LoadReport,
    private readonly index: TreeIndex,
    /** How state entries go to the file: the header's version decides. */
    private readonly codec: StateCodec,
    private readonly log: AppendLog | undefined,
    private readonly loadedBytes: number,
    private readonly clock: Clock,
    private readonly readOnlyReason: string,
    private readonly hooks: SessionHooks,
    private readonly limits: SessionLimits,
  ) {}

  // ---------------------------------------------------------------- opening

  /** Creates a new session file holding only its header. Fails if the file exists. */
  static async create(
    file: string,
    init: { id: string; title: string },
    options: Omit<SessionOpenOptions, 'readOnly' | 'readOnlyReason'> = {},
  ): Promise<Session> {
    const clock = options.clock ?? systemClock;
    const header: SessionHeader = {
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id: init.id,
      createdAt: new Date(clock.now()).toISOString(),
      title: init.title,
    };
    const data = `${JSON.stringify(header)}\n`;
    const handle = await fsp.open(file, 'wx');
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(path.dirname(file));
    const log = await AppendLog.open(file, Buffer.byteLength(data), false);
    const report: LoadReport = { warnings: [], corruptLines: [] };
    const limits = sessionLimits(options.limits);
    const index = new TreeIndex();
    return new Session(header, file, false, report, index, new StateCodec(header.version, index), log, 0, clock, '', options.hooks ?? {}, limits);
  }

  /**
   * Loads a session file. When writable, a torn last line is moved to `<id>.torn-<time>.jsonl`
   * beside it and the file is cut back to its last complete line; a read-only open changes nothing.
   * The file is read line by line within the size limits (limits.ts): a file over them is refused
   * with `too-large`, never read into memory whole.
   */
  static async open(file: string, options: SessionOpenOptions = {}): Promise<{ session: Session; report: LoadReport }> {
    const readOnly = options.readOnly ?? false;
    const clock = options.clock ?? systemClock;
    const limits = sessionLimits(options.limits);
    const stem = path.basename(file, '.jsonl');
    const { parsed, index, codec, corruptLines, entryWarnings, moreWarnings, unlistedCorrupt } = await loadSessionFile(file, stem, limits);
    const report: LoadReport = { warnings: [...parsed.warnings], corruptLines };
    if (corruptLines.length > 0) {
      const lines = [...new Set(corruptLines.map((c) => c.line))];
      const count = lines.length + unlistedCorrupt - (unlistedCorrupt > 0 ? 1 : 0);
      report.warnings.push(
        `${count} damaged line${count === 1 ? ' was' : 's were'} skipped (line${count === 1 ? '' : 's'} ` +
          `${summarizeNumbers(lines)}). They stay in the file untouched; every other entry was loaded.`,
      );
    }
    report.warnings.push(...entryWarnings.slice(0, MAX_ENTRY_WARNINGS).map((w) => (w.line > 0 ? `Line ${w.line}: ${w.text}.` : `${w.text}.`)));
    const more = Math.max(0, entryWarnings.length - MAX_ENTRY_WARNINGS) + moreWarnings;
    if (more > 0) report.warnings.push(`…and ${more} more warnings like these.`);
    if (parsed.keptBytes > limits.maxFileBytes * NEAR_LIMIT || index.size > limits.maxEntries * NEAR_LIMIT) {
      report.warnings.push(
        `This session is close to its size limit (${formatBytes(parsed.keptBytes)} of ${formatBytes(limits.maxFileBytes)}, ` +
          `${index.size.toLocaleString('en-US')} of ${limits.maxEntries.toLocaleString('en-US')} entries). Start a new session soon; this one stays readable.`,
      );
    }

    let size = parsed.keptBytes;
    if (parsed.tornTail) {
      const { offset, bytes } = parsed.tornTail;
      if (readOnly) {
        report.warnings.push(
          `The last line of the session is incomplete (${bytes} bytes); it was left in place because this window ` +
            'opened the session read-only. The window that owns the novel sets it aside.',
        );
      } else {
        const movedTo = await setTornTailAside(file, stem, offset, bytes, clock);
        await truncateFile(file, offset);
        report.tornTail = { bytes, movedTo };
        report.warnings.push(
          `The last line of the session was incomplete (${bytes} bytes, probably cut off by a crash). ` +
            `It was moved to ${path.basename(movedTo)}; every complete entry before it was kept.`,
        );
      }
    }

    let log: AppendLog | undefined;
    if (!readOnly) {
      log = await AppendLog.open(file, size, parsed.missingFinalNewline);
      if (parsed.headerRecovered && size === 0) {
        // Nothing survived, not even the header: write the recovered one so the file is whole again.
        await log.appendLine(JSON.stringify(parsed.header));
        size = log.bytes;
      }
    }
    const session = new Session(
      parsed.header,
      file,
      readOnly,
      report,
      index,
      codec,
      log,
      size,
      clock,
      options.readOnlyReason ?? DEFAULT_READ_ONLY_REASON,
      options.hooks ?? {},
      limits,
    );
    return { session, report };
  }

  // ---------------------------------------------------------------- reading

  /** The latest title label on the session, else the header's title. */
  get title(): string {
    return this.labelOf(this.header.id) ?? this.header.title;
  }

  get leafId(): string | null {
    return this.index.leafId;
  }

  /** Number of entries loaded and written (chain and side). */
  get entryCount(): number {
    return this.index.size;
  }

  /** Bytes of complete lines in the file: a backup copies exactly this prefix. */
  get byteLength(): number {
    return this.log ? this.log.bytes : this.loadedBytes;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get(id: string): Entry | undefined {
    return this.index.get(id);
  }

  /** All entries in file order (chain and side). */
  entries(): readonly Entry[] {
    return this.index.all();
  }

  /** Chain children of `id` (or the roots, for `null`), in file order. */
  children(id: string | null): ChainEntry[] {
    return [...this.index.childrenOf(id)];
  }

  /**
   * Chain entries from the root to `leafId`, inclusive. The current branch is kept, not rebuilt
   * (keptPath.ts): the array is shared, its entries never change, but appends while the leaf stays
   * on it extend it. Copy it to hold it unchanged across writes.
   */
  path(leafId: string | null = this.leafId): readonly ChainEntry[] {
    return this.pathView(leafId).entries;
  }

  /** The path to `leafId` with its lookups (position of an id, last entry of a type). */
  pathView(leafId: string | null = this.leafId): PathView {
    if (leafId !== null && leafId !== this.index.leafId) requireChain(this.index, leafId);
    return this.kept.path.viewOf(leafId);
  }

  /** The ids on the path to `leafId` as a set, answered by the kept path (memory recall's branch filter). */
  pathIds(leafId: string | null = this.leafId): ReadonlySet<string> {
    return new PathIds(this.pathView(leafId));
  }

  /** The entries on the path to `leafId` that have an edit, root first. */
  editedOnPath(leafId: string | null = this.leafId): ChainEntry[] {
    if (leafId === this.index.leafId) return this.kept.editedOnPath();
    return this.path(leafId).filter((e) => this.index.side(e.id, 'edit') !== undefined);
  }

  isOnPath(id: string, leafId: string | null = this.leafId): boolean {
    return this.isAncestorOrSelf(id, leafId);
  }

  /** The leaf guard's question: is `ancestorId` the same as or an ancestor of `id`? */
  isAncestorOrSelf(ancestorId: string | null, id: string | null): boolean {
    if (ancestorId === null) return true;
    if (id === null) return false;
    // Unknown ids are simply not ancestors (the leaf guard asks this about ids that may be gone).
    if (!this.index.chain(ancestorId) || !this.index.chain(id)) return false;
    return this.kept.path.isAncestorOrSelf(ancestorId, id);
  }

  /** How often the kept branch was built from its start (benches and tests count them). */
  get keptStats(): Readonly<KeptPathStats> & { readonly contextBuilds: number } {
    return { ...this.kept.path.stats, contextBuilds: this.kept.contextBuilds };
  }

  /**
   * The entries whose text, visibility or variant count changed since `cursor` (0: since the
   * session opened), so views kept of the branch can follow them.
   */
  displayChangesSince(cursor: number): { cursor: number; ids: readonly string[] } {
    return this.kept.displayChangesSince(cursor);
  }

  /** The latest side entry of `type` pointing at `targetId` (latest in the file wins). */
  sideFor<T extends SideType>(targetId: string, type: T): SideEntryOf<T> | undefined {
    return this.index.side(targetId, type);
  }

  /**
   * For each `chainType` entry on the path to `leafId` that has a side entry of `sideType`, the
   * latest one, root first. On the current branch one look per entry of that type (the kept path
   * knows their positions), not one per entry of the path.
   */
  sidesOnPath<C extends ChainType, S extends SideType>(
    chainType: C,
    sideType: S,
    leafId: string | null = this.leafId,
  ): { entry: ChainEntryOf<C>; side: SideEntryOf<S>; position: number }[] {
    const out: { entry: ChainEntryOf<C>; side: SideEntryOf<S>; position: number }[] = [];
    if (leafId === null) return out;
    const kept = this.kept.path;
    const limit = kept.positionOf(leafId);
    if (limit >= 0) {
      for (const at of kept.positionsOfType(chainType)) {
        if (at > limit) break;
        const entry = kept.at(at) as ChainEntryOf<C>;
        const side = this.index.side(entry.id, sideType);
        if (side) out.push({ entry, side, position: at });
      }
      return out;
    }
    this.path(leafId).forEach((e, at) => {
      if (e.type !== chainType) return;
      const side = this.index.side(e.id, sideType);
      if (side) out.push({ entry: e as ChainEntryOf<C>, side, position: at });
    });
    return out;
  }

  /** A message's text with its latest edit applied (a tool entry's result; '' for bookkeeping entries). */
  textOf(id: string): string {
    return this.textOfEntry(requireChain(this.index, id));
  }

  isHidden(id: string): boolean {
    return this.index.side(id, 'hide')?.hidden ?? false;
  }

  /** The latest non-empty label on a node (or on the header id: the title label). */
  labelOf(id: string): string | undefined {
    const label = this.index.side(id, 'label')?.label;
    return label ? label : undefined;
  }

  /** The model's context for a branch. See context.ts for the rules. Shared: do not change it. */
  context(leafId: string | null = this.leafId): readonly ContextMessage[] {
    if (leafId === this.index.leafId) return this.kept.context();
    return buildContext(this.path(leafId), this.textSource);
  }

  /**
   * The context after the branch's active summary: the summary (its text with edits applied) and
   * the messages after the entry it covers through. Without a summary, the whole context.
   * For the current leaf only the messages after the summary are kept and extended.
   */
  contextWithSummary(leafId: string | null = this.leafId): SummaryView {
    if (leafId === this.index.leafId) return this.kept.contextWithSummary();
    return activeSummaryView(this.path(leafId), this.textSource);
  }

  /** The last chain entry of `type` on the path to `leafId` (e.g. the scene state, the checkpoint). */
  lastOnPath<T extends ChainType>(type: T, leafId: string | null = this.leafId): ChainEntryOf<T> | undefined {
    if (leafId === null) return undefined;
    const kept = this.kept.path;
    const at = kept.positionOf(leafId);
    if (at >= 0) return kept.lastOfTypeAt(type, at);
    return this.pathView(leafId).lastOfType(type);
  }

  /** Same-parent chain entries of the same type (regenerated replies, edits-as-new-branch). */
  variants(id: string): { siblings: ChainEntry[]; index: number } {
    return variantsOf(this.index, id);
  }

  /** Where to land when switching to the variant `id`: the last leaf inside its subtree. */
  tipOf(id: string): string {
    // The leaf is the node most recently made the leaf, so it is the tip of every subtree it is in.
    const leaf = this.index.leafId;
    if (leaf !== null && this.kept.path.positionOf(id) >= 0) return leaf;
    return tipOf(this.index, id);
  }

  /** The `user` entry of the turn containing `id`: regenerate moves the leaf there first. */
  regenerateTarget(id: string): string {
    const kept = this.kept.path;
    const at = kept.positionOf(id);
    const start = at >= 0 ? kept.lastOfTypeAt('user', at) : turnStartOf(this.index, id);
    if (!start) {
      throw new SessionError(
        'no-turn',
        'There is no instruction before this message, so there is nothing to regenerate from. Write an instruction first.',
      );
    }
    return start.id;
  }

  // ---------------------------------------------------------------- writing

  /**
   * Appends a chain entry under the current leaf; it becomes the leaf. One write. With a `guard`,
   * the leaf check runs inside the write queue, after every write queued before it (a pending
   * navigate included); if it refuses, nothing is written and this rejects with StaleLeafError.
   */
  async append(entry: NewChainEntry, options: AppendOptions = {}): Promise<ChainEntry> {
    if (!isChainType(entry.type)) {
      throw invalidEntry(`"${String(entry.type)}" is not a message or bookkeeping entry; use appendSide().`);
    }
    const { guard } = options;
    const written = await this.write((id, parentId, ts) => {
      if (guard && !guard(parentId)) throw new StaleLeafError(parentId);
      const { type, ...fields } = entry;
      return { id, parentId, type, ts, ...fields } as ChainEntry;
    });
    return written as ChainEntry;
  }

  /**
   * Appends an edit, hide, label or findings entry. The leaf does not move. Use `navigate` to move
   * it. A `guard` is checked inside the write queue as for `append` (StaleLeafError when it refuses).
   */
  async appendSide(entry: NewSideEntry, options: AppendOptions = {}): Promise<SideEntry> {
    if (!isSideType(entry.type) || entry.type === 'leaf') {
      const hint = entry.type === 'leaf' ? 'use navigate() to move the leaf' : 'use append() for messages';
      throw invalidEntry(`"${String(entry.type)}" cannot be appended as a side entry; ${hint}.`);
    }
    const { guard } = options;
    const written = await this.write((id, parentId, ts) => {
      if (guard && !guard(parentId)) throw new StaleLeafError(parentId);
      this.checkSideTarget(entry);
      const { type, ...fields } = entry;
      return { id, parentId, type, ts, ...fields } as SideEntry;
    });
    return written as SideEntry;
  }

  /** Moves the leaf (`null` = before the first entry) and records it, so reopening returns here. */
  async navigate(targetId: string | null): Promise<void> {
    await this.write((id, parentId, ts): LeafEntry | undefined => {
      if (targetId !== null) requireChain(this.index, targetId);
      if (targetId === this.index.leafId) return undefined; // already there: nothing to record
      return { id, parentId, type: 'leaf', ts, targetId };
    });
  }

  /** Makes every write so far durable (fsync). Called at the end of each turn. */
  flush(): Promise<void> {
    if (!this.log || this.closed) return Promise.resolve();
    const log = this.log;
    return this.enqueue(() => log.sync());
  }

  /** Waits for pending writes, fsyncs and closes the file. The novel's lock is the library's. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const log = this.log;
    try {
      if (log) await this.enqueue(() => log.close());
    } finally {
      this.listeners.clear();
      this.hooks.onClose?.(this);
    }
  }

  /** Fired after every append, side entry and navigation (views update live). */
  onDidChange(listener: SessionListener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  // ---------------------------------------------------------------- internals

  private readonly textSource = {
    textOf: (entry: ChainEntry) => this.textOfEntry(entry),
    isHidden: (id: string) => this.isHidden(id),
  };

  /** The current branch's reads, kept between calls; made at the first read (keptBranch.ts). */
  private keptBranch: KeptBranch | undefined;

  private get kept(): KeptBranch {
    return (this.keptBranch ??= new KeptBranch(this.index, this.textSource));
  }

  private textOfEntry(entry: ChainEntry): string {
    const edit = this.index.side(entry.id, 'edit');
    if (edit) return edit.text;
    switch (entry.type) {
      case 'user':
      case 'assistant':
      case 'summary':
        return entry.text;
      case 'tool':
        return entry.result;
      default:
        return '';
    }
  }

  private checkSideTarget(entry: NewSideEntry): void {
    if (entry.type === 'label' && entry.targetId === this.header.id) return; // the session's title
    const target = requireChain(this.index, entry.targetId as string);
    if (entry.type === 'edit' && !['user', 'assistant', 'tool', 'summary'].includes(target.type)) {
      throw invalidEntry(`A ${target.type} entry has no text to edit.`);
    }
    if (entry.type === 'findings' && target.type !== 'state') {
      throw invalidEntry(`Continuity findings belong on a state entry, not on a ${target.type} entry.`);
    }
  }

  /**
   * Queues one write: `build` runs when the write's turn comes (so it sees the current leaf) and
   * returns the entry, or undefined for nothing to write. The entry is checked, written as one
   * line, then indexed as read back from that line, so memory always equals the file.
   */
  private write(build: (id: string, parentId: string | null, ts: string) => Entry | undefined): Promise<Entry | undefined> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    // Refused at call time only: a write queued before close() still completes before the file closes.
    return this.enqueue(async () => {
      const id = newEntryId((candidate) => this.index.isTaken(candidate) || candidate === this.header.id);
      const built = build(id, this.index.leafId, new Date(this.clock.now()).toISOString());
      if (!built) return undefined;
      let line: string;
      try {
        line = JSON.stringify(built);
        if (built.type === 'state') {
          // A state goes to the file as what it became as JSON, perhaps as a patch (stateCodec.ts).
          const plain = checkEntry(JSON.parse(line));
          if (!plain.ok) throw invalidEntry(`${plain.error}.`);
          line = JSON.stringify(this.codec.encode(plain.value));
        }
      } catch (e) {
        if (e instanceof SessionError) throw e;
        throw invalidEntry(`It cannot be stored as JSON (${(e as Error).message}).`);
      }
      this.checkRoom(line);
      const checked = checkStoredEntry(JSON.parse(line), this.header.version);
      if (!checked.ok) throw invalidEntry(`${checked.error}.`);
      const { entry, problem } = this.codec.decode(checked.value);
      if (problem) throw invalidEntry(`${problem}.`); // cannot happen: encode applied it back already
      await (this.log as AppendLog).appendLine(line);
      this.index.add(entry);
      this.keptBranch?.written(entry); // the kept branch follows edits, hides and new variants
      this.codec.remember(checked.value, true);
      this.hooks.afterWrite?.(this);
      this.emit(changeFor(entry));
      return entry;
    });
  }

  /** Keeps the file within the limits the next open applies, so it always opens again. */
  private checkRoom(line: string): void {
    const bytes = Buffer.byteLength(line, 'utf8');
    const { maxLineBytes, maxFileBytes, maxEntries } = this.limits;
    if (bytes > maxLineBytes) {
      throw invalidEntry(`it is ${formatBytes(bytes)}, over the ${formatBytes(maxLineBytes)} limit for one entry.`);
    }
    if (this.byteLength + bytes + 2 > maxFileBytes || this.index.size >= maxEntries) {
      throw new SessionError(
        'too-large',
        `This session has reached its size limit (${formatBytes(maxFileBytes)} or ${maxEntries.toLocaleString('en-US')} entries), ` +
          'so nothing more can be added to it. Start a new session to go on writing; this one stays as it is and can still be read.',
      );
    }
  }

  private refusal(): SessionError | undefined {
    if (this.closed) return new SessionError('closed', 'This session was closed; open it again to continue.');
    if (this.readOnly || !this.log) return new SessionError('read-only', this.readOnlyReason);
    return undefined;
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private emit(change: SessionChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (e) {
        this.hooks.onListenerError?.(e);
      }
    }
  }
}

function changeFor(entry: Entry): SessionChange {
  if (entry.type === 'leaf') return { kind: 'navigate', entry, leafId: entry.targetId };
  return isChainType(entry.type) ? { kind: 'append', entry: entry as ChainEntry } : { kind: 'side', entry: entry as SideEntry };
}

function invalidEntry(detail: string): SessionError {
  return new SessionError('invalid-entry', `The entry was not saved: ${detail}`);
}

async function setTornTailAside(file: string, stem: string, offset: number, bytes: number, clock: Clock): Promise<string> {
  const base = path.join(path.dirname(file), `${stem}.torn-${fileTimestamp(clock.now())}`);
  const source = await fsp.open(file, 'r');
  try {
    for (let n = 0; ; n++) {
      const target = n === 0 ? `${base}.jsonl` : `${base}-${n}.jsonl`;
      try {
        // Copied in chunks: a torn tail can be as long as the file.
        await copyRangeToNewFile(source, offset, bytes, target);
        await syncDirectory(path.dirname(target));
        return target;
      } catch (e) {
        if (errnoCode(e) !== 'EEXIST' || n > 100) throw e;
      }
    }
  } finally {
    await source.close();
  }
}

async function truncateFile(file: string, length: number): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** "3, 7, 9–12" */
function summarizeNumbers(numbers: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length && parts.length <= 12; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    parts.push(j > i + 1 ? `${numbers[i]}–${numbers[j]}` : j === i + 1 ? `${numbers[i]}, ${numbers[j]}` : `${numbers[i]}`);
    i = j;
  }
  return parts.length > 12 ? `${parts.slice(0, 12).join(', ')}, …` : parts.join(', ');
}
