// The data behind the Worldlines sidebar (a native tree view or a webview graph): every line with
// its saves, the edges where lines branch, and where the novelist stands. Computed from the tree
// and the sidecar each time; soft-deleted saves are left out of the picture, never out of the tree.
// A view is built once per turn: nothing in it walks the whole path or the whole tree again (the
// saves list only extends, the "nearest visible save above" answers are kept while the soft
// deletes stay the same, and "on the current branch" is the tree's own ancestor question).

import { ChainEntry, SaveEntry, isChainEntry } from '../session/entries';
import { SaveTree, lastSaveOn, savesOf } from './saves';
import { saveFactsReader, type FactsTree, type SaveFacts } from './saveFacts';
import { WorldlineSidecar, displaySaveName, displayWorldlineName } from './sidecar-data';

export { findSave, latestSaveOnBranch, checkpointAtSave } from './saves';

export interface SaveNode {
  saveId: string;
  /** The save entry's id in the tree: loading the save navigates here. */
  entryId: string;
  /** Display name (the sidecar's rename, else the name written in the entry). */
  name: string;
  originalName: string;
  worldlineId: string;
  kind: SaveEntry['kind'];
  /** The nearest visible save above this one in the tree: the previous save of its line, or the fork point. */
  parentSaveId?: string;
  /** The visible save this save's line branched at; absent for a line that starts at the root. */
  forkFromSaveId?: string;
  ts: string;
  /** Position among all saves in the session file (write order; the graph's rows, clock-free). */
  order: number;
  /** On the path from the root to the current leaf. */
  onCurrentBranch: boolean;
  /** The last visible save on the current path: "you are here" (or here, plus story after it). */
  isCurrent: boolean;
  /** The in-story time and place at the save and the first words of its prose (./saveFacts.ts). */
  facts?: SaveFacts;
}

export interface WorldlineNode {
  id: string;
  name: string;
  originalName: string;
  /** Visible saves in the order they were written. */
  saves: SaveNode[];
  /** Where this line branched off another one; the graph draws the fork edge from this save. */
  forkFrom?: { saveId: string; name: string; worldlineId: string };
  /** Holds the current save. */
  isCurrent: boolean;
}

export interface DeletedSave {
  saveId: string;
  entryId: string;
  name: string;
  worldlineId: string;
  worldlineName: string;
}

export interface WorldlineView {
  /** Lines with at least one visible save, in the order their first visible save was written. */
  worldlines: WorldlineNode[];
  current: {
    saveId?: string;
    worldlineId?: string;
    /** Story (instructions, replies, prose, state edits) on the current path after the current save, or anywhere on it when there is none. */
    storyAfterLastSave: boolean;
  };
  /** Soft-deleted saves, for a "restore deleted save" picker. */
  deleted: DeletedSave[];
}

/** Entry types that are not story: a save itself, and compaction summaries. */
const NOT_STORY: ReadonlySet<ChainEntry['type']> = new Set(['save', 'summary']);

export function buildWorldlineView(tree: FactsTree, sidecar: WorldlineSidecar, leafId: string | null): WorldlineView {
  const hidden = new Set(sidecar.deletedSaveIds);
  const saves = savesOf(tree);
  const visibleAbove = visibleSaveFinder(tree, hidden);
  const factsOf = saveFactsReader(tree);

  const path = tree.path(leafId);
  const current = lastSaveOn(path, hidden);
  const storyAfterLastSave = storyAfter(path, current);

  // The original name of a line is the one its first save was written with (deleted or not).
  const originalLineName = new Map<string, string>();
  for (const s of saves) if (!originalLineName.has(s.worldlineId)) originalLineName.set(s.worldlineId, s.worldlineName);

  const lines = new Map<string, WorldlineNode>(); // insertion order = file order of first visible save
  const deleted: DeletedSave[] = [];
  for (const [order, s] of saves.entries()) {
    const lineName = displayWorldlineName(sidecar, s.worldlineId, originalLineName.get(s.worldlineId) ?? s.worldlineName);
    if (hidden.has(s.saveId)) {
      deleted.push({ saveId: s.saveId, entryId: s.id, name: displaySaveName(sidecar, s), worldlineId: s.worldlineId, worldlineName: lineName });
      continue;
    }
    let line = lines.get(s.worldlineId);
    if (!line) {
      line = { id: s.worldlineId, name: lineName, originalName: originalLineName.get(s.worldlineId) ?? s.worldlineName, saves: [], isCurrent: false };
      // A line's fork point is the visible save above its first visible save, when that save is on
      // another line. Derived from the tree, so a deleted fork point re-anchors further up.
      const above = visibleAbove(s.parentId);
      if (above && above.worldlineId !== s.worldlineId) {
        line.forkFrom = { saveId: above.saveId, name: displaySaveName(sidecar, above), worldlineId: above.worldlineId };
      }
      lines.set(s.worldlineId, line);
    }
    const parent = visibleAbove(s.parentId);
    const node: SaveNode = {
      saveId: s.saveId,
      entryId: s.id,
      name: displaySaveName(sidecar, s),
      originalName: s.name,
      worldlineId: s.worldlineId,
      kind: s.kind,
      ts: s.ts,
      order,
      onCurrentBranch: tree.isAncestorOrSelf(s.id, leafId),
      isCurrent: current !== undefined && current.id === s.id,
      facts: factsOf(s.id),
    };
    if (parent) node.parentSaveId = parent.saveId;
    if (line.forkFrom) node.forkFromSaveId = line.forkFrom.saveId;
    if (node.isCurrent) line.isCurrent = true;
    line.saves.push(node);
  }

  const view: WorldlineView = { worldlines: [...lines.values()], current: { storyAfterLastSave }, deleted };
  if (current) {
    view.current.saveId = current.saveId;
    view.current.worldlineId = current.worldlineId;
  }
  return view;
}

/** Story on the path after the save `current` (walking back from the leaf), or anywhere on it without one. */
function storyAfter(path: readonly ChainEntry[], current: SaveEntry | undefined): boolean {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (current && e.id === current.id) return false;
    if (!NOT_STORY.has(e.type)) return true;
  }
  return false;
}

interface KeptFinder {
  hiddenKey: string;
  memo: Map<string, SaveEntry | null>;
}

/** Per tree: the finder's answers, valid while the soft deletes are the same (an entry's ancestors never change). */
const keptFinders = new WeakMap<object, KeptFinder>();

/**
 * `visibleAbove(id)`: the nearest save at or above entry `id` that is not hidden. Memoised along
 * each walk and kept across views of the same tree, so each entry is walked about once in the
 * session's lifetime however many saves and turns there are.
 */
function visibleSaveFinder(tree: SaveTree, hidden: ReadonlySet<string>): (id: string | null) => SaveEntry | undefined {
  const hiddenKey = [...hidden].sort().join('\n');
  let kept = keptFinders.get(tree);
  if (!kept || kept.hiddenKey !== hiddenKey) {
    kept = { hiddenKey, memo: new Map() };
    keptFinders.set(tree, kept);
  }
  const memo = kept.memo;
  const chainOf = chainReader(tree);
  const limit = tree.entries().length;
  return (id) => {
    const walked: string[] = [];
    let found: SaveEntry | null = null;
    for (let cur = id; cur !== null; ) {
      const known = memo.get(cur);
      if (known !== undefined) {
        found = known;
        break;
      }
      const e = chainOf(cur);
      if (!e) break; // an unknown parent (a damaged line): the session treats the child as a root
      if (walked.length > limit) break; // a loop in a damaged tree (the session cuts them on load)
      walked.push(cur);
      if (e.type === 'save' && !hidden.has(e.saveId)) {
        found = e;
        break;
      }
      cur = e.parentId;
    }
    for (const w of walked) memo.set(w, found);
    return found ?? undefined;
  };
}

/** A chain entry by id: the tree's own lookup when it has one (a Session), else one map of this view's. */
function chainReader(tree: SaveTree): (id: string) => ChainEntry | undefined {
  const get = tree.get?.bind(tree);
  if (get) {
    return (id) => {
      const e = get(id);
      return e && isChainEntry(e) ? e : undefined;
    };
  }
  const chain = new Map<string, ChainEntry>();
  for (const e of tree.entries()) if (isChainEntry(e)) chain.set(e.id, e);
  return (id) => chain.get(id);
}
