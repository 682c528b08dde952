// How `state` entries are stored in a format-2 file: as the change from the state entry before it
// on its path, with the whole state every SNAPSHOT_EVERY entries along a path, so a state line is
// small (whole scene states were 60% of a long session's bytes). In memory every state entry still
// has `StateEntry.state`, the whole state: a patched entry's is made when first read, by applying
// its patch copy-on-write to its base's state, so what did not change is shared (and frozen, so a
// change through one state cannot show in another). Opening reads thousands of states and uses one.
//
// The base is named by id, never implied. A patch whose base is damaged, missing or itself lost
// cannot be rebuilt: its entry stays in the tree (nothing below it is lost) with state `null`,
// which the scene-state reader treats as a damaged state and falls back from, as it always has;
// the line is reported when the file is opened. A patch that does not apply to its base (only a
// hand edit makes one) is found when its state is first read, and is `null` the same way.
// Format-1 files keep whole states, on read and on write.

import type { Entry, SessionFormatVersion, StateEntry } from './entries';
import { PatchOp, applyJsonPatch, deepFreeze, diffJson, isPlainJsonObject } from './jsonDiff';
import type { TreeIndex } from './tree-index';

/** A `state` line of a format-2 file that holds a change instead of the whole state. */
export interface StoredStatePatch extends Omit<StateEntry, 'state'> {
  /** The id of the state entry this one changes: the nearest state entry above it when written. */
  base: string;
  patch: PatchOp[];
}

/** What a line of a session file holds. */
export type StoredEntry = Entry | StoredStatePatch;

/**
 * A whole state every this many state entries along a path. Measured on a 100k-entry session
 * (bench/lib/fixtures.ts, 6.4 KB states, 1.1 KB patches): whole states every 16 cost 6.6% more
 * file than never, every 32 3.3%, every 64 1.7%. 32 bounds what one damaged line can take with it
 * (the states after it, up to the next whole one) at a small price; open time does not depend on
 * it (each patch is applied at most once, when its state is first read).
 */
export const SNAPSHOT_EVERY = 32;

interface Pending {
  base: StateEntry;
  patch: PatchOp[];
}

export function isStatePatch(e: StoredEntry): e is StoredStatePatch {
  return e.type === 'state' && (e as Partial<StateEntry>).state === undefined;
}

export class StateCodec {
  /** State entry id → patches since the last whole state on its chain (0: a whole state). */
  private readonly depth = new Map<string, number>();
  /** State entries whose state could not be rebuilt. */
  private readonly lost = new Set<string>();
  /** Entries whose patch is not applied yet, with their base. */
  private readonly pending = new Map<object, Pending>();

  constructor(
    readonly version: SessionFormatVersion,
    private readonly index: TreeIndex,
    private readonly snapshotEvery: number = SNAPSHOT_EVERY,
  ) {}

  /**
   * The line form of an entry about to be written (JSON data, as parsed back from its text):
   * a state entry as a patch when that is smaller and applies back to exactly the same JSON.
   */
  encode(entry: Entry): StoredEntry {
    if (this.version < 2 || entry.type !== 'state' || !isPlainJsonObject(entry.state)) return entry;
    const base = this.stateAbove(entry.parentId);
    // Only a base already stored (so earlier in the file) and whole in memory will do.
    const depth = base && isPlainJsonObject(base.state) ? this.depth.get(base.id) : undefined;
    if (!base || depth === undefined || depth + 1 >= this.snapshotEvery) return entry;
    const patch = diffJson(base.state as Record<string, unknown>, entry.state);
    if (!patch) return entry;
    const whole = JSON.stringify(entry.state);
    if (JSON.stringify(patch).length >= whole.length) return entry;
    const applied = applyJsonPatch(base.state as Record<string, unknown>, patch);
    // The diff keeps key order; this makes sure, so memory and file can never disagree.
    if (!applied.ok || JSON.stringify(applied.value) !== whole) return entry;
    const stored: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry)) {
      if (key === 'state') {
        stored.base = base.id;
        stored.patch = patch;
      } else if (key !== 'base' && key !== 'patch') stored[key] = value; // (hand-made extra fields of these names go)
    }
    return stored as unknown as StoredStatePatch;
  }

  /**
   * The in-memory entry for a line. A patch's base must be a state entry already in the index;
   * `problem` says why not (the state is then `null`). The patch is applied when the state is
   * first read, not here: opening reads thousands of states and uses one.
   */
  decode(stored: StoredEntry): { entry: Entry; problem?: string } {
    if (!isStatePatch(stored)) return { entry: stored };
    const base = this.index.get(stored.base);
    let problem: string | undefined;
    if (!base || base.type !== 'state') problem = `the state it changes (entry ${stored.base}) is missing or damaged`;
    else if (this.lost.has(base.id)) problem = `the state it changes (entry ${stored.base}) could not be rebuilt either`;
    const entry: Record<string, unknown> = {};
    for (const key of Object.keys(stored)) {
      if (key === 'base') {
        if (problem !== undefined) entry.state = null;
        // In the place `state` had when written, so the entry's fields keep their order.
        else Object.defineProperty(entry, 'state', { get: () => this.materialize(entry), enumerable: true, configurable: true });
      } else if (key !== 'patch') entry[key] = (stored as unknown as Record<string, unknown>)[key];
    }
    if (problem === undefined) this.pending.set(entry, { base: base as StateEntry, patch: stored.patch });
    return problem === undefined
      ? { entry: entry as unknown as Entry }
      : { entry: entry as unknown as Entry, problem: `state entry ${stored.id}: ${problem}, so its scene state is lost; the branch uses the last intact state before it` };
  }

  /** Records a state entry the index took (`rebuilt`: false when its state is already known lost). */
  remember(stored: StoredEntry, rebuilt: boolean): void {
    if (stored.type !== 'state') return;
    if (!rebuilt) {
      this.lost.add(stored.id);
      return;
    }
    this.depth.set(stored.id, isStatePatch(stored) ? (this.depth.get(stored.base) ?? 0) + 1 : 0);
  }

  /**
   * Applies the patches from the nearest state already in memory down to `entry`, oldest first
   * (a loop, not recursion: a hand-made file may chain any number of patches). Each state becomes
   * a plain data property; one whose patch does not apply is `null`, as a damaged state is.
   */
  private materialize(entry: Record<string, unknown>): unknown {
    const chain: Record<string, unknown>[] = [];
    for (let at: Record<string, unknown> | undefined = entry; at && this.pending.has(at); at = this.pending.get(at)?.base as Record<string, unknown> | undefined) {
      chain.push(at);
    }
    let state: unknown = null;
    for (let i = chain.length - 1; i >= 0; i--) {
      const at = chain[i];
      const { base, patch } = this.pending.get(at) as Pending;
      this.pending.delete(at);
      const from = base.state;
      state = null;
      if (isPlainJsonObject(from) && !this.lost.has(base.id)) {
        const applied = applyJsonPatch(deepFreeze(from), patch);
        if (applied.ok) state = applied.value;
      }
      if (state === null) this.lost.add(at.id as string);
      Object.defineProperty(at, 'state', { value: state, writable: true, enumerable: true, configurable: true });
    }
    return state;
  }

  /** The nearest state entry on the path above `id` (inclusive), if any. */
  private stateAbove(id: string | null): StateEntry | undefined {
    let current = id === null ? undefined : this.index.chain(id);
    for (let steps = 0; current && steps <= this.index.size; steps++) {
      if (current.type === 'state') return current;
      const parent = this.index.parentOf(current);
      current = parent === null ? undefined : this.index.chain(parent);
    }
    return undefined;
  }
}
