// The status bar's "this turn" change in manuscript length. Pure.
//
// The change is (length when the turn ended) − (length when the turn's model part started, after
// any prose restore). It is computed from the turn's own file changes rather than from two counts
// of the manuscript, because a count is asynchronous (find the files, read them) and the one at
// the start raced the turn's first write; an older cached count at the start was wrong in two
// more ways (a turn sent while the last scribe ran counted the last turn's words too, and
// Regenerate subtracted the length before its prose restore). Each change records its file's text
// before and after the call, in call order, so summing (after − before) per change telescopes to
// (last after − first before) per file: exactly the change the turn made, whatever came before it.
import { countWords } from './manuscript';
import type { ToolChange } from './tools';

/** Words (CJK characters one each, Latin words one each) the turn's changes added, net. */
export function turnWordDelta(changes: readonly Pick<ToolChange, 'before' | 'after'>[]): number {
  let delta = 0;
  for (const c of changes) delta += countWords(c.after) - countWords(c.before ?? '');
  return delta;
}
