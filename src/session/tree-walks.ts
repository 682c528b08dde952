// Walks over the tree index: the path to a leaf, ancestry, variants (siblings), the tip of a
// variant, and the turn an entry belongs to. Pure functions of the index.
//
// The index is a forest (TreeIndex.settle cuts loops), but every walk is also capped at the number
// of entries, so no state of the index can make one loop or grow without end.

import { ChainEntry } from './entries';
import { SessionError } from './errors';
import { TreeIndex } from './tree-index';

export function requireChain(index: TreeIndex, id: string): ChainEntry {
  const entry = index.chain(id);
  if (entry) return entry;
  const what = index.has(id) ? 'is an edit, hide, label or navigation record, not a message' : 'is not in this session';
  throw new SessionError(
    'unknown-entry',
    `Entry ${id} ${what}. It may belong to another session or to a damaged part of the file; reopen the session and try again.`,
  );
}

/** Chain entries from the root to `leafId`, inclusive. `null` is before the first entry: empty. */
export function pathTo(index: TreeIndex, leafId: string | null): ChainEntry[] {
  if (leafId === null) return [];
  const path: ChainEntry[] = [];
  const cap = index.size;
  let entry: ChainEntry | undefined = requireChain(index, leafId);
  while (entry && path.length < cap) {
    path.push(entry);
    entry = parentEntry(index, entry);
  }
  return path.reverse();
}

/**
 * True when `ancestorId` is `id` or lies on the path from the root to `id`. `null` as the ancestor
 * ("before the first entry") is an ancestor of everything; `null` as `id` has only `null` as one.
 * Unknown ids are simply not ancestors (the leaf guard asks this about ids that may be gone).
 */
export function isAncestorOrSelf(index: TreeIndex, ancestorId: string | null, id: string | null): boolean {
  if (ancestorId === null) return true;
  if (id === null) return false;
  let entry = index.chain(id);
  if (!index.chain(ancestorId)) return false;
  for (let steps = index.size; entry && steps > 0; steps--) {
    if (entry.id === ancestorId) return true;
    entry = parentEntry(index, entry);
  }
  return false;
}

/** Same-parent chain children of the same type as `id`, file order, and where `id` is among them. */
export function variantsOf(index: TreeIndex, id: string): { siblings: ChainEntry[]; index: number } {
  const entry = requireChain(index, id);
  const siblings = index.childrenOf(index.parentOf(entry)).filter((e) => e.type === entry.type);
  return { siblings, index: siblings.indexOf(entry) };
}

/**
 * The most recent leaf inside the subtree of `id`: the node in it that was last appended or
 * navigated to. Switching to a variant lands where the novelist last was on that branch.
 * Cost is the size of the subtree (variants are usually recent and small).
 */
export function tipOf(index: TreeIndex, id: string): string {
  const root = requireChain(index, id);
  let best = root.id;
  let bestSeq = index.leafSeqOf(root.id);
  const stack: string[] = [root.id];
  for (let budget = index.size; stack.length > 0 && budget > 0; budget--) {
    const current = stack.pop() as string;
    for (const child of index.childrenOf(current)) {
      const seq = index.leafSeqOf(child.id);
      if (seq > bestSeq) {
        bestSeq = seq;
        best = child.id;
      }
      stack.push(child.id);
    }
  }
  return best;
}

/** The `user` entry that starts the turn containing `id` (itself if it is one), or undefined. */
export function turnStartOf(index: TreeIndex, id: string): ChainEntry | undefined {
  let entry: ChainEntry | undefined = requireChain(index, id);
  for (let steps = index.size; entry && entry.type !== 'user'; steps--) {
    if (steps <= 0) return undefined;
    entry = parentEntry(index, entry);
  }
  return entry;
}

function parentEntry(index: TreeIndex, entry: ChainEntry): ChainEntry | undefined {
  const parent = index.parentOf(entry);
  return parent === null ? undefined : index.chain(parent);
}
