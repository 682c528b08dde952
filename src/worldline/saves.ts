// Reading saves off a conversation tree. Saves are `save` chain entries (DESIGN.md, "Saves and
// worldlines"); everything here is computed from the tree, nothing is cached.

import type { ChainEntry, CheckpointEntry, Entry, SaveEntry } from '../session/entries';

/**
 * What the worldline code needs from a conversation tree. A `Session` satisfies it as is; tests
 * may pass a small in-memory tree. `path()` without an argument is the path to the current leaf.
 */
export interface SaveTree {
  entries(): readonly Entry[];
  path(leafId?: string | null): ChainEntry[];
  isAncestorOrSelf(ancestorId: string | null, id: string | null): boolean;
}

/** Every save in the tree, in file order (= the order they were written). */
export function savesOf(tree: Pick<SaveTree, 'entries'>): SaveEntry[] {
  const out: SaveEntry[] = [];
  for (const e of tree.entries()) if (e.type === 'save') out.push(e);
  return out;
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
