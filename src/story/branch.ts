// `Branch`: DESIGN's principle "the world is a function of the branch" as a value. For one leaf of
// a session it gives the path and everything computed from it (context, scene state, checkpoint,
// saves, memory node ids) and the turns on it, with where each turn ends. Plain TypeScript.
//
// A Branch describes the session as it was when it was made (leaf and entry count); ask `Branches`
// again after a change. The path to a leaf never changes (the file is append-only), but edits,
// hides and new children do, so every lazily computed part belongs to that moment.
//
// For the session's current leaf nothing here walks the path: the path, its lookups and the
// context are the session's kept ones (src/session/keptBranch.ts), and the transcript is kept per
// session too (./keptTranscript.ts). A Branch of another leaf computes its parts as before.

import type {
  ChainEntry,
  ChainType,
  CheckpointEntry,
  ContextMessage,
  Entry,
  SaveEntry,
  SummaryEntry,
  UserEntry,
} from '../session/entries';
import { isChainEntry } from '../session/entries';
import { buildTranscript, type TranscriptMessage } from '../agent/transcript';
import type { PathView } from '../session/keptPath';
import { openingState } from '../state/opening';
import { stateAt, type StateAtResult } from '../state/stateAt';
import type { Lang, SceneState } from '../state/types';
import { keptTranscriptOf, type KeptTranscriptSource } from './keptTranscript';

/** What a Branch reads from a session (a `Session` is one). */
export interface BranchSource extends KeptTranscriptSource {
  readonly header: { readonly id: string };
  readonly leafId: string | null;
  readonly entryCount: number;
  get(id: string): Entry | undefined;
  path(leafId: string | null): readonly ChainEntry[];
  children(id: string | null): ChainEntry[];
  tipOf(id: string): string;
  contextWithSummary(leafId: string | null): BranchContext;
}

export interface BranchContext {
  summary?: SummaryEntry;
  summaryText?: string;
  messages: readonly ContextMessage[];
}

export interface BranchOptions {
  /** The opening scene, parsed once (see `openingOf`): the state before any `state` entry. */
  opening: SceneState;
  lang: Lang;
}

/**
 * One turn: `user → assistant/tool … → checkpoint → state [→ save]` (DESIGN, "The session tree").
 * The entries before the first instruction (an opening save, the first "before" checkpoint) form
 * a turn without a `user`.
 */
export interface Turn {
  user?: UserEntry;
  /** From the user entry up to the entry before the next user entry, along the branch. */
  entries: readonly ChainEntry[];
  /** The last checkpoint before the instruction: the prose the turn started from. */
  checkpointBefore?: CheckpointEntry;
  /** The checkpoint taken at the end of the turn: the first one after the instruction. */
  checkpoint?: CheckpointEntry;
  /**
   * The end of the turn: the last entry that still shows the turn's prose — its checkpoint and the
   * `state`, `save` and `summary` entries right after it. A later checkpoint (hand edits pinned
   * before a save or the next instruction) is new prose, so it lies past the end. Restore Prose
   * and Chat lands here, so prose, scene state and "you are here" agree.
   */
  end: ChainEntry;
}

/** Bookkeeping written after a turn's checkpoint that belongs to the same prose. */
const AFTER_CHECKPOINT: ReadonlySet<ChainType> = new Set<ChainType>(['state', 'save', 'summary']);
/** Entries that are not the turn's own words or work. */
const BOOKKEEPING: ReadonlySet<ChainType> = new Set<ChainType>(['checkpoint', 'state', 'save', 'summary']);

export class Branch {
  readonly sessionId: string;
  readonly entryCount: number;
  /** The path with its lookups: the session's kept one for its current leaf. */
  private readonly view: PathView;
  private fixedPath: readonly ChainEntry[] | undefined;
  private cachedContext: BranchContext | undefined;
  private cachedState: StateAtResult | undefined;
  private cachedNodeIds: ReadonlySet<string> | undefined;
  private cachedTranscript: readonly TranscriptMessage[] | undefined;
  private readonly turns = new Map<string, Turn | undefined>();

  constructor(
    private readonly source: BranchSource,
    readonly leafId: string | null,
    private readonly options: BranchOptions,
  ) {
    this.sessionId = source.header.id;
    this.entryCount = source.entryCount;
    this.view = source.pathView(leafId);
  }

  /**
   * Chain entries from the root to the leaf, inclusive. Shared with the session's kept path (do
   * not change it): appends may extend that array later, as `Session.path()` says.
   */
  get path(): readonly ChainEntry[] {
    // Once the kept array grew, this Branch stays the branch it was made for.
    const entries = this.view.entries;
    return entries.length === this.view.length ? entries : (this.fixedPath ??= entries.slice(0, this.view.length));
  }

  /** The model's context: the active summary and the messages after it, edits applied, hidden ones left out. */
  get context(): BranchContext {
    return (this.cachedContext ??= this.source.contextWithSummary(this.leafId));
  }

  /** The scene state: the last valid `state` entry on the path, else the opening state. Shared: do not change it. */
  get state(): StateAtResult {
    return (this.cachedState ??= stateAt(this.path, this.options.opening, { lang: this.options.lang }));
  }

  /** The prose of this branch: the last checkpoint on the path. */
  get checkpoint(): CheckpointEntry | undefined {
    return this.view.lastOfType('checkpoint');
  }

  /** Saves on the path, root first. */
  get saves(): SaveEntry[] {
    return this.path.filter((e): e is SaveEntry => e.type === 'save');
  }

  /** Ids of every entry on the path: memory recall keeps only rows whose node id is here. */
  get nodeIds(): ReadonlySet<string> {
    return (this.cachedNodeIds ??= new Set(this.path.map((e) => e.id)));
  }

  /** The Chat's messages: one per instruction, one per reply (its entries and tool lines gathered). Shared: do not change it. */
  get transcript(): readonly TranscriptMessage[] {
    if (this.cachedTranscript) return this.cachedTranscript;
    // Current (nothing written since it was made): the session's kept transcript is this one's.
    const current = this.source.leafId === this.leafId && this.source.entryCount === this.entryCount;
    return (this.cachedTranscript = current ? keptTranscriptOf(this.source).read() : buildTranscript({
      path: () => this.path,
      textOf: (id) => this.source.textOf(id),
      isHidden: (id) => this.source.isHidden(id),
      sideFor: (id, type) => this.source.sideFor(id, type),
      variants: (id) => this.source.variants(id),
    }));
  }

  /** A message or bookkeeping entry of the session (on this branch or not). */
  entry(id: string): ChainEntry | undefined {
    return this.chainEntry(id);
  }

  /** True when `id` is on the path. */
  has(id: string): boolean {
    return this.view.indexOf(id) >= 0;
  }

  /** The last checkpoint on the path from the root to `id` (on this branch or not). */
  checkpointAt(id: string | null): CheckpointEntry | undefined {
    if (id === null) return undefined;
    const at = this.view.indexOf(id);
    if (at >= 0) return this.view.lastOfType('checkpoint', at);
    if (!this.chainEntry(id)) return undefined;
    return this.source.pathView(id).lastOfType('checkpoint');
  }

  /** The turn that holds `id`; undefined for an id that is no message or bookkeeping entry of the session. */
  turnOf(id: string): Turn | undefined {
    if (this.turns.has(id)) return this.turns.get(id);
    const turn = this.computeTurn(id);
    this.turns.set(id, turn);
    return turn;
  }

  /**
   * The last entry that still shows what `id` shows: `id`, then the `state`, `save` and `summary`
   * entries right after it. Along this branch when `id` is on it, else along the branch the
   * novelist last was on below `id`. Where that branch does not carry them on (it ends, or goes on
   * into the next turn), the entries written right after `id` elsewhere are its record: the
   * earliest such child is followed, so a turn whose state lies beside the branch still ends there.
   */
  endAfter(id: string): ChainEntry | undefined {
    const entry = this.chainEntry(id);
    if (!entry) return undefined;
    const view = this.referenceView(id);
    const reference = view.entries;
    let index = view.indexOf(id);
    let current = entry;
    for (let budget = this.entryCount; budget > 0; budget--) {
      const next = index >= 0 ? reference[index + 1] : undefined;
      if (next && AFTER_CHECKPOINT.has(next.type)) {
        current = next;
        index += 1;
        continue;
      }
      const beside = this.source.children(current.id).find((c) => c !== next && AFTER_CHECKPOINT.has(c.type));
      if (!beside) break;
      current = beside;
      index = -1; // off the reference path from here on
    }
    return current;
  }

  // ------------------------------------------------------------------------------------------

  private computeTurn(id: string): Turn | undefined {
    const entry = this.chainEntry(id);
    if (!entry) return undefined;
    const view = this.referenceView(id);
    const reference = view.entries;
    const at = view.indexOf(id);
    let start = at;
    while (start >= 0 && reference[start]?.type !== 'user') start--;
    let stop = at + 1;
    while (stop < reference.length && reference[stop]?.type !== 'user') stop++;
    const from = Math.max(start, 0);
    const entries = reference.slice(from, stop);
    if (stop === reference.length && !this.has(id)) entries.push(...this.restOfTurn(entries.at(-1) as ChainEntry));
    const checkpoint = entries.find((e): e is CheckpointEntry => e.type === 'checkpoint');
    // Without a checkpoint (checkpoints off, or the turn failed) the turn's last own entry anchors it.
    const anchor = checkpoint ?? [...entries].reverse().find((e) => !BOOKKEEPING.has(e.type)) ?? (entries[0] as ChainEntry);
    const turn: Turn = { entries, end: this.endAfter(anchor.id) ?? anchor };
    if (start >= 0) turn.user = reference[start] as UserEntry;
    const before = start > 0 ? view.lastOfType('checkpoint', start - 1) : undefined;
    if (before) turn.checkpointBefore = before;
    if (checkpoint) turn.checkpoint = checkpoint;
    return turn;
  }

  /**
   * A turn off the branch whose last visit stopped inside it (a "branch here" at its reply) goes on
   * through what it wrote first: the earliest child, up to the next instruction.
   */
  private restOfTurn(last: ChainEntry): ChainEntry[] {
    const rest: ChainEntry[] = [];
    let current = last;
    for (let budget = this.entryCount; budget > 0; budget--) {
      const next = this.source.children(current.id)[0];
      if (!next || next.type === 'user') break;
      rest.push(next);
      current = next;
    }
    return rest;
  }

  /** This branch when `id` is on it, else the path to where the novelist last was below `id`. */
  private referenceView(id: string): PathView {
    return this.has(id) ? this.view : this.source.pathView(this.source.tipOf(id));
  }

  private chainEntry(id: string): ChainEntry | undefined {
    const entry = this.source.get(id);
    return entry && isChainEntry(entry) ? entry : undefined;
  }
}

/**
 * One Branch per (leaf, entry count): asking again without a change gives the same value, so the
 * views of one change share one computation.
 */
export class Branches {
  private last: Branch | undefined;

  constructor(
    private readonly source: BranchSource,
    readonly options: BranchOptions,
  ) {}

  at(leafId: string | null = this.source.leafId): Branch {
    const last = this.last;
    if (last && last.leafId === leafId && last.entryCount === this.source.entryCount) return last;
    const branch = new Branch(this.source, leafId, this.options);
    this.last = branch;
    return branch;
  }
}

const branchesOf = new WeakMap<BranchSource, Branches>();

/** The session's Branch at `leafId` (default its leaf), from a cache kept per session and options. */
export function branchOf(source: BranchSource, options: BranchOptions, leafId: string | null = source.leafId): Branch {
  let branches = branchesOf.get(source);
  if (!branches || branches.options.opening !== options.opening || branches.options.lang !== options.lang) {
    branches = new Branches(source, options);
    branchesOf.set(source, branches);
  }
  return branches.at(leafId);
}

const openings = new WeakMap<object, Map<Lang, SceneState>>();

/**
 * The opening state for the project's `opening:` settings, parsed once per loaded settings object
 * (a config reload brings a new object, so a new parse). Shared: do not change it.
 */
export function openingOf(settings: object, lang: Lang): SceneState {
  let byLang = openings.get(settings);
  if (!byLang) {
    byLang = new Map();
    openings.set(settings, byLang);
  }
  let state = byLang.get(lang);
  if (!state) {
    state = openingState(settings, { lang });
    byLang.set(lang, state);
  }
  return state;
}
