// The rows of one worldline in the Worldlines tree: its saves in the order they were written, and
// where "you are here" is. Story written after the current save (not saved yet) is a row of its
// own right under that save: after a loaded save in the middle of a line it sits between that save
// and the later ones, since saving it then forks a new line.
import type { SaveNode, WorldlineNode, WorldlineView } from './view';

export type LineRow =
  /** `here`: the novelist stands exactly at this save (no story after it). */
  | { kind: 'save'; save: SaveNode; here: boolean }
  /** Story after the save `from`, not saved; `forks` when later saves of the line lie past `from`. */
  | { kind: 'after'; from: SaveNode; forks: boolean };

export function lineRows(view: Pick<WorldlineView, 'current'>, line: WorldlineNode): LineRow[] {
  const after = view.current.storyAfterLastSave;
  const rows: LineRow[] = line.saves.map((save) => ({ kind: 'save', save, here: save.isCurrent && !after }));
  const at = line.saves.findIndex((s) => s.isCurrent);
  const from = line.saves[at];
  if (line.isCurrent && after && from) rows.splice(at + 1, 0, { kind: 'after', from, forks: at < line.saves.length - 1 });
  return rows;
}
