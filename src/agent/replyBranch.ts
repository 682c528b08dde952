// "Edit as a new branch" for an agent reply: the turn is copied as a sibling of the original with
// the reply's text replaced, so the original stays one ◀ ▶ away. The copy keeps what the turn did
// (tool calls and their results, its checkpoint, the scribe's state), because the prose it wrote is
// the same: only the words in the chat differ. The next turn then continues from the copy.
import type { ChainEntry, NewChainEntry } from '../session/entries';

/** Entry types a turn consists of after its instruction; saves and summaries stay with the original. */
const TURN_TYPES: ReadonlySet<ChainEntry['type']> = new Set(['assistant', 'tool', 'checkpoint', 'state']);

/**
 * The entries to append, in order, under the reply's parent: from the reply's first entry to the
 * end of its turn on `path`: its checkpoint and the state after it. A later checkpoint before the
 * next instruction (the prose restored or edited by hand, pinned before a send or a save) is new
 * prose past the turn's end (as `Branch.turnOf` says): it stays with the original. The saved text
 * goes on `editId`'s part; other parts with text are emptied, as an in-place edit does, so the
 * copy reads exactly as typed.
 */
export function replyBranchCopy(
  path: readonly ChainEntry[],
  firstId: string,
  editId: string,
  text: string,
): NewChainEntry[] | undefined {
  const start = path.findIndex((e) => e.id === firstId);
  if (start < 0 || path[start]?.type !== 'assistant') return undefined;
  const out: NewChainEntry[] = [];
  let ended = false; // the turn's checkpoint was copied: only its state still belongs to the turn
  for (let i = start; i < path.length; i++) {
    const e = path[i] as ChainEntry;
    if (e.type === 'user' || (ended && e.type !== 'state' && TURN_TYPES.has(e.type))) break;
    if (!TURN_TYPES.has(e.type)) continue;
    if (e.type === 'checkpoint') ended = true;
    const { id: _id, parentId: _parentId, ts: _ts, ...fields } = e;
    const copy = { ...fields } as NewChainEntry;
    if (copy.type === 'assistant') copy.text = e.id === editId ? text : '';
    out.push(copy);
  }
  return out;
}
