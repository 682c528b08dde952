// Memory follows the novelist's edits. Rows are written once, from the text as it was when it was
// archived; a message edited (or hidden) afterwards must not come back in its old words. A row is
// current when its node is not hidden and, for an instruction or a reply, its text still appears in
// the node's text as edited (chunks are contiguous pieces of that text, so an edit elsewhere in a
// long reply leaves the untouched chunks current). Prose rows come from the tool-call arguments,
// which an edit of the message never changes. The edited text itself is archived again
// (`editedSinceArchive`), so recall finds the new words.
import type { ChainEntry } from '../session/entries';
import type { MemoryRow, TextView } from './types';

export type RowFilter = (row: MemoryRow) => boolean;

/** Whether a row still says what its node says. Each node's text is looked up once per filter. */
export function currentRowFilter(getEntry: (id: string) => ChainEntry | undefined, view: TextView): RowFilter {
  const texts = new Map<string, string | null>();
  const textOf = (id: string): string | null => {
    let t = texts.get(id);
    if (t === undefined) {
      const entry = getEntry(id);
      t = entry === undefined || view.isHidden(id) ? null : view.textOf(entry);
      texts.set(id, t);
    }
    return t;
  };
  return (row) => {
    const text = textOf(row.nodeId);
    if (text === null) return false;
    return row.role === 'prose' || text.includes(row.text);
  };
}

/**
 * Entries of the branch the novelist edited that the model no longer sees in full (they lie
 * before the summary): archiving them again adds rows for their new text. Archiving is
 * idempotent, so this costs nothing once done.
 */
export function editedSinceArchive(
  path: readonly ChainEntry[],
  isEdited: (id: string) => boolean,
  visibleIds: ReadonlySet<string>,
): ChainEntry[] {
  return path.filter((e) => (e.type === 'user' || e.type === 'assistant') && !visibleIds.has(e.id) && isEdited(e.id));
}
