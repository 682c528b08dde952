// planNewSave: what the next `save` entry on this branch is — first, sameLine or fork
// (DESIGN.md, "Saves and worldlines"). A fork is a consequence of the tree's shape, never a
// command: the story was rewound past a save and went another way.

import { newEntryId } from '../session/ids';
import type { SaveEntry } from '../session/entries';
import type { ProjectLanguage } from '../project/config';
import { cleanName, defaultSaveName, detachedLineName, forkLineName, mainLineName } from './names';
import { SaveTree, lastSaveOn, savesOf } from './saves';
import { WorldlineSidecar, displaySaveName } from './sidecar-data';

/** The fields of a `save` entry the caller appends with `Session.append` (the session adds id, parentId, ts). */
export type NewSaveEntry = Omit<SaveEntry, 'id' | 'parentId' | 'ts'>;

export interface PlanNewSaveInput {
  /** The novelist's name for the save; blank → "存档 N" / "Save N". */
  name: string;
  lang: ProjectLanguage;
  tree: SaveTree;
  /** Where the save will be appended; default the tree's current leaf. */
  leafId?: string | null;
  /**
   * The session's renames. Only save renames are used: a fork's line is named after the save as
   * the novelist sees it now. Worldline renames are not copied into entries (see sameLine).
   */
  sidecar?: WorldlineSidecar;
  /** Short unique ids; tests may fix them. Default: 8 random hex characters. */
  newId?: (taken: (id: string) => boolean) => string;
}

export function planNewSave(input: PlanNewSaveInput): NewSaveEntry {
  const { tree, lang } = input;
  const newId = input.newId ?? newEntryId;
  const path = input.leafId === undefined ? tree.path() : tree.path(input.leafId);
  const saves = savesOf(tree);
  const saveIds = new Set(saves.map((s) => s.saveId));
  const lineIds = new Set(saves.map((s) => s.worldlineId));

  const name = cleanName(input.name) || defaultSaveName(lang, saves.length + 1);
  const saveId = newId((id) => saveIds.has(id));
  // Soft-deleted saves still count: deletion is a view matter and can be undone, and a line must
  // stay a chain when a deleted save comes back.
  const prev = lastSaveOn(path);

  if (!prev) {
    // Nothing saved on this branch. The first line of a tree is the main line; a second root-level
    // line (the novelist went back before every save) gets a number, not a second "main line".
    const worldlineName = lineIds.size === 0 ? mainLineName(lang) : detachedLineName(lang, lineIds.size + 1);
    return { type: 'save', saveId, name, worldlineId: newId((id) => lineIds.has(id)), worldlineName, kind: 'first' };
  }

  const onBranch = new Set(path.map((e) => e.id));
  // "After prev" = in prev's subtree. prev is the last save on the branch, so any such save is off
  // it — but ask the question as the design states it rather than lean on that.
  const forked = saves.some((s) => s.id !== prev.id && !onBranch.has(s.id) && tree.isAncestorOrSelf(prev.id, s.id));
  if (forked) {
    const prevName = input.sidecar ? displaySaveName(input.sidecar, prev) : prev.name;
    return {
      type: 'save',
      saveId,
      name,
      worldlineId: newId((id) => lineIds.has(id)),
      worldlineName: forkLineName(lang, prevName, lineIds.size + 1),
      parentSaveId: prev.saveId,
      forkFromSaveId: prev.saveId,
      kind: 'fork',
    };
  }
  // Same line: the ORIGINAL name is inherited. A rename lives only in the sidecar, keyed by
  // worldline id, so every save of a line shows the same name even if the sidecar is lost.
  const entry: NewSaveEntry = {
    type: 'save',
    saveId,
    name,
    worldlineId: prev.worldlineId,
    worldlineName: prev.worldlineName,
    parentSaveId: prev.saveId,
    kind: 'sameLine',
  };
  if (prev.forkFromSaveId !== undefined) entry.forkFromSaveId = prev.forkFromSaveId; // the line's fork point, carried along
  return entry;
}
