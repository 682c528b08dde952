// The current branch, kept instead of rebuilt (issue 13). The tree is append-only, so the path of
// a node never changes: the path to the leaf is kept as an array with an id → position map and,
// per type, the positions of that type on it. An append extends it in O(1); a navigation cuts it
// back to the common ancestor of the old and new leaf and extends it from there. It syncs lazily,
// when read, against the index's leaf, so no write can leave it behind.
//
// Reads hand out the array itself, typed readonly, so a read costs nothing. Its entries never
// change: an append only adds one at its end (the path it was is still its first entries), and a
// navigation that cuts entries off copies the kept part first once the array was handed out, so
// the old array stays the old path. A reader that must hold a path unchanged across writes copies
// it (or keeps its length, as a PathView does).

import type { ChainEntry, ChainEntryOf, ChainType } from './entries';

/** What the kept path reads from the tree index. */
export interface PathIndex {
  readonly leafId: string | null;
  readonly size: number;
  chain(id: string): ChainEntry | undefined;
  /** The parent used by the tree (null for roots and orphans). */
  parentOf(entry: ChainEntry): string | null;
}

/** A path as it was when asked for (root → leaf): its first `length` entries never change. */
export interface PathView {
  readonly leafId: string | null;
  readonly length: number;
  /**
   * The entries, root first. Shared with the kept path: appends while the leaf stays on this
   * branch extend it past `length`; copy it to keep it as it is.
   */
  readonly entries: readonly ChainEntry[];
  /** Where `id` is on this path, or -1. */
  indexOf(id: string): number;
  /** The last entry of `type` at or before position `at` (default: the leaf). */
  lastOfType<T extends ChainType>(type: T, at?: number): ChainEntryOf<T> | undefined;
}

/** Counts for the benches: how often the path was built from the root. */
export interface KeptPathStats {
  /** Walks from the leaf to the root (the first read, a navigation with no common ancestor). */
  fullBuilds: number;
  /** Entries added to the kept path (appends and the new part after a navigation). */
  extended: number;
  /** Entries cut off by navigations. */
  cut: number;
}

export class KeptPath {
  private entries: ChainEntry[] = [];
  /** The array was handed out: copy it before cutting entries off. */
  private shared = false;
  private readonly positions = new Map<string, number>();
  private readonly byType = new Map<ChainType, number[]>();
  private synced = false;
  /** Bumps whenever entries are cut off: a view made before then cannot use the live map. */
  private generationValue = 0;
  /** Bumps on every change of the path. */
  private revisionValue = 0;
  private view: PathView | undefined;
  readonly stats: KeptPathStats = { fullBuilds: 0, extended: 0, cut: 0 };

  constructor(private readonly index: PathIndex) {}

  /** Changes when the path changes (append or navigation); read after `sync()`. */
  get revision(): number {
    return this.revisionValue;
  }

  /** Changes when entries were cut off the path. */
  get generation(): number {
    return this.generationValue;
  }

  get length(): number {
    return this.entries.length;
  }

  /** Brings the kept path to the index's leaf. Cost: what changed (O(1) for an append). */
  sync(): void {
    const leaf = this.index.leafId;
    if (this.synced && leaf === (this.entries.at(-1)?.id ?? null)) return;
    this.moveTo(leaf);
    this.synced = true;
  }

  /** The path to the leaf, synced. The same object until the path changes. */
  current(): PathView {
    this.sync();
    if (!this.view) {
      this.shared = true;
      this.view = new KeptView(this, this.entries, this.generationValue, this.index.leafId);
    }
    return this.view;
  }

  /** Position of `id` on the synced path, or -1. */
  positionOf(id: string): number {
    this.sync();
    return this.positions.get(id) ?? -1;
  }

  at(position: number): ChainEntry | undefined {
    return this.entries[position];
  }

  /**
   * The path to any leaf. On the kept path (the leaf or an ancestor of it) it shares the kept
   * structures; elsewhere the walk goes up only to the kept path and takes the prefix from there.
   */
  viewOf(leafId: string | null): PathView {
    const current = this.current();
    if (leafId === current.leafId) return current;
    if (leafId === null) return EMPTY_VIEW;
    const at = this.positions.get(leafId);
    if (at !== undefined) return new KeptView(this, this.entries.slice(0, at + 1), this.generationValue, leafId);
    const { joinAt, tail } = this.walkToPath(leafId);
    const entries = this.entries.slice(0, joinAt + 1);
    for (let i = tail.length - 1; i >= 0; i--) entries.push(tail[i] as ChainEntry);
    return new ScratchView(entries, leafId);
  }

  /**
   * True when `ancestorId` is `id` or on the path to `id`, answered from the kept path when `id`
   * is on it or joins it. Both ids must be chain entries (the caller checks).
   */
  isAncestorOrSelf(ancestorId: string, id: string): boolean {
    this.sync();
    const ancestorAt = this.positions.get(ancestorId);
    const at = this.positions.get(id);
    if (at !== undefined) return ancestorAt !== undefined && ancestorAt <= at;
    let entry = this.index.chain(id);
    for (let steps = this.index.size; entry && steps > 0; steps--) {
      if (entry.id === ancestorId) return true;
      const joined = this.positions.get(entry.id);
      if (joined !== undefined) return ancestorAt !== undefined && ancestorAt <= joined;
      entry = this.parent(entry);
    }
    return false;
  }

  /** The last entry of `type` at or before position `limit` of the synced path. */
  lastOfTypeAt<T extends ChainType>(type: T, limit: number): ChainEntryOf<T> | undefined {
    const list = this.byType.get(type);
    if (!list || limit < 0) return undefined;
    // The last position ≤ limit (binary search: positions are ascending).
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid] as number) <= limit) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? undefined : (this.entries[list[found] as number] as ChainEntryOf<T>);
  }

  /** Positions of `type` on the synced path, ascending (live: do not keep). */
  positionsOfType(type: ChainType): readonly number[] {
    return this.byType.get(type) ?? NO_POSITIONS;
  }

  /** Live map lookup, for views of the current generation. */
  livePosition(id: string): number | undefined {
    return this.positions.get(id);
  }

  // ------------------------------------------------------------------------------------------

  private moveTo(leaf: string | null): void {
    if (leaf === null) {
      this.cutTo(0);
      return;
    }
    const { joinAt, tail } = this.walkToPath(leaf);
    if (joinAt < 0) this.stats.fullBuilds++;
    this.cutTo(joinAt + 1);
    for (let i = tail.length - 1; i >= 0; i--) this.push(tail[i] as ChainEntry);
  }

  /**
   * From `leafId` up to the first entry on the kept path: where it joins (-1: at no entry) and the
   * entries walked, leaf first. Capped at the index size like every walk (tree-walks.ts).
   */
  private walkToPath(leafId: string): { joinAt: number; tail: ChainEntry[] } {
    const tail: ChainEntry[] = [];
    let entry = this.index.chain(leafId);
    const cap = this.index.size;
    while (entry && tail.length < cap) {
      const at = this.positions.get(entry.id);
      if (at !== undefined) return { joinAt: at, tail };
      tail.push(entry);
      entry = this.parent(entry);
    }
    return { joinAt: -1, tail };
  }

  private parent(entry: ChainEntry): ChainEntry | undefined {
    const id = this.index.parentOf(entry);
    return id === null ? undefined : this.index.chain(id);
  }

  private cutTo(length: number): void {
    const entries = this.entries;
    if (length >= entries.length) return;
    for (let i = entries.length - 1; i >= length; i--) this.positions.delete((entries[i] as ChainEntry).id);
    for (const list of this.byType.values()) {
      while (list.length > 0 && (list[list.length - 1] as number) >= length) list.pop();
    }
    this.stats.cut += entries.length - length;
    // Held arrays stay the paths they were: the kept part is copied rather than cut in place.
    if (this.shared) {
      this.entries = entries.slice(0, length);
      this.shared = false;
    } else {
      entries.length = length;
    }
    this.generationValue++;
    this.changed();
  }

  private push(entry: ChainEntry): void {
    const at = this.entries.length;
    this.entries.push(entry);
    this.positions.set(entry.id, at);
    let list = this.byType.get(entry.type);
    if (!list) this.byType.set(entry.type, (list = []));
    list.push(at);
    this.stats.extended++;
    this.changed();
  }

  private changed(): void {
    this.revisionValue++;
    this.view = undefined;
  }
}

/**
 * A view of the kept path or of a prefix of it. While the kept path was only extended since the
 * view was made (same generation), lookups go to the live map and type positions, bounded by the
 * view's length; after a cut they fall back to the view's own entries.
 */
class KeptView implements PathView {
  private own: Map<string, number> | undefined;
  readonly length: number;

  constructor(
    private readonly kept: KeptPath,
    readonly entries: readonly ChainEntry[],
    private readonly generation: number,
    readonly leafId: string | null,
  ) {
    this.length = entries.length;
  }

  /** The view's own entries, also when the shared array grew since. */
  private ownEntries(): readonly ChainEntry[] {
    return this.entries.length === this.length ? this.entries : this.entries.slice(0, this.length);
  }

  indexOf(id: string): number {
    if (this.kept.generation === this.generation) {
      const at = this.kept.livePosition(id);
      return at !== undefined && at < this.length ? at : -1;
    }
    if (!this.own) {
      this.own = new Map();
      this.ownEntries().forEach((e, i) => this.own?.set(e.id, i));
    }
    return this.own.get(id) ?? -1;
  }

  lastOfType<T extends ChainType>(type: T, at = this.length - 1): ChainEntryOf<T> | undefined {
    const limit = Math.min(at, this.length - 1);
    if (this.kept.generation === this.generation) return this.kept.lastOfTypeAt(type, limit);
    return lastOfTypeIn(this.entries, type, limit);
  }
}

/** A path built outside the kept one (another branch): its own entries, its own lookups. */
class ScratchView implements PathView {
  private own: Map<string, number> | undefined;

  constructor(readonly entries: readonly ChainEntry[], readonly leafId: string | null) {}

  get length(): number {
    return this.entries.length;
  }

  indexOf(id: string): number {
    if (!this.own) {
      this.own = new Map();
      this.entries.forEach((e, i) => this.own?.set(e.id, i));
    }
    return this.own.get(id) ?? -1;
  }

  lastOfType<T extends ChainType>(type: T, at = this.entries.length - 1): ChainEntryOf<T> | undefined {
    return lastOfTypeIn(this.entries, type, at);
  }
}

/** The ids on a path as a set, answered by the path's own lookups (no set is built). */
export class PathIds implements ReadonlySet<string> {
  constructor(private readonly view: PathView) {}

  get size(): number {
    return this.view.length;
  }

  has(id: string): boolean {
    return this.view.indexOf(id) >= 0;
  }

  *keys(): IterableIterator<string> {
    const { entries, length } = this.view;
    for (let i = 0; i < length; i++) yield (entries[i] as ChainEntry).id;
  }

  values(): IterableIterator<string> {
    return this.keys();
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.keys();
  }

  *entries(): IterableIterator<[string, string]> {
    for (const id of this.keys()) yield [id, id];
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const id of this.keys()) callback.call(thisArg, id, id, this);
  }
}

function lastOfTypeIn<T extends ChainType>(entries: readonly ChainEntry[], type: T, at: number): ChainEntryOf<T> | undefined {
  for (let i = Math.min(at, entries.length - 1); i >= 0; i--) {
    const e = entries[i] as ChainEntry;
    if (e.type === type) return e as ChainEntryOf<T>;
  }
  return undefined;
}

const NO_POSITIONS: readonly number[] = Object.freeze([]);
const EMPTY_VIEW: PathView = new ScratchView(Object.freeze([]) as readonly ChainEntry[], null);
