// Reading saves off a conversation tree. Saves are `save` chain entries (DESIGN.md, "Saves and
// worldlines"); everything here is computed from the tree. The one cache, the list of saves, only
// extends: the tree is append-only, so the entries already scanned never change.

import type { ChainEntry, CheckpointEntry, Entry, SaveEntry } from '../session/entries';

/**
 * What the worldline code needs from a conversation tree. A `Session` satisfies it as is; tests
 * may pass a small in-memory tree. `path()` without an argument is the path to the current leaf.
 */
export interface SaveTree {
  entries(): readonly Entry[];
  path(leafId?: string | null): readonly ChainEntry[];
  isAncestorOrSelf(ancestorId: string | null, id: string | null): boolean;
  /** An entry by id (a Session has it); without it the view indexes the entries itself. */
  get?(id: string): Entry | undefined;
}

interface ScannedSaves {
  /** The entries array scanned (a session hands out the same growing array). */
  source: readonly Entry[];
  /** How many of its entries were scanned, and the last of them (a replaced array is rescanned). */
  scanned: number;
  last: Entry | undefined;
  saves: SaveEntry[];
}

const scannedSaves = new WeakMap<object, ScannedSaves>();

/** Every save in the tree, in file order (= the order they were written). Scans only entries new since the last call. */
export function savesOf(tree: Pick<SaveTree, 'entries'>): SaveEntry[] {
  const all = tree.entries();
  let c = scannedSaves.get(tree);
  if (!c || c.source !== all || c.scanned > all.length || all[c.scanned - 1] !== c.last) c = { source: all, scanned: 0, last: undefined, saves: [] };
  for (let i = c.scanned; i < all.length; i++) {
    const e = all[i] as Entry;
    if (e.type === 'save') c.saves.push(e);
  }
  c.scanned = all.length;
  c.last = all[all.length - 1];
  scannedSaves.set(tree, c);
  return c.saves.slice();
}

/** The save entry with this `saveId`, or undefined (it may live in another session). */
export function findSave(tree: Pick<SaveTree, 'entries'>, saveId: string): SaveEntry | undefined {
  for (const e of tree.entries()) if (e.type === 'save' && e.saveId === saveId) return e;
  return undefined;
}

/** The last save on a path, skipping `hidden` save ids (soft deletes) when given. */
export function lastSaveOn(path: readonly ChainEntry[], hidden?: ReadonlySet<string>): SaveEntry | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (e.type === 'save' && !hidden?.has(e.saveId)) return e;
  }
  return undefined;
}

/**
 * The latest save on the branch to `leafId` (default: the current leaf). Planning counts every
 * save; a view passes the soft-deleted ids so the marker lands on a save the novelist can see.
 */
export function latestSaveOnBranch(
  tree: Pick<SaveTree, 'path'>,
  leafId?: string | null,
  hidden?: ReadonlySet<string>,
): SaveEntry | undefined {
  return lastSaveOn(leafId === undefined ? tree.path() : tree.path(leafId), hidden);
}

/**
 * The checkpoint the manuscript stood at when this save was written: the last `checkpoint` on the
 * path to the save. Loading a save restores prose to it; exporting reads the files at its commit.
 */
export function checkpointAtSave(tree: Pick<SaveTree, 'entries' | 'path'>, saveId: string): CheckpointEntry | undefined {
  const save = findSave(tree, saveId);
  if (!save) return undefined;
  const path = tree.path(save.id);
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (e.type === 'checkpoint') return e;
  }
  return undefined;
}
