// "The prose added to the manuscript this turn", for the scribe. Per file, the text before the
// turn's first change is compared with the text after its last one, and the new part is kept in
// whole lines: an append gives the appended lines, an edit the rewritten lines, a new file its text.
import type { ToolChange } from './tools';

/** Default cap in characters; the scribe's own prompt caps again (head and tail). */
export const PROSE_ADDED_CAP = 40_000;

/** The lines of `after` that differ from `before` (common leading and trailing lines trimmed). */
export function addedText(before: string | undefined, after: string): string {
  if (before === undefined || before === '') return after;
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let endA = after.length;
  let endB = before.length;
  while (endA > start && endB > start && after.charCodeAt(endA - 1) === before.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  if (endA <= start) return ''; // only deletions
  // Widen to whole lines so the scribe reads sentences, not fragments.
  const atLineStart = start === 0 || after[start - 1] === '\n' || after[start] === '\n';
  const lineStart = atLineStart ? start : after.lastIndexOf('\n', start - 1) + 1;
  const atLineEnd = endA === after.length || after[endA] === '\n' || after[endA] === '\r' || after[endA - 1] === '\n';
  const nl = after.indexOf('\n', endA);
  const lineEnd = atLineEnd ? endA : nl === -1 ? after.length : nl;
  return after.slice(lineStart, lineEnd);
}

/** The turn's new prose across files, in the order files were first changed. */
export function proseAdded(changes: readonly ToolChange[], cap = PROSE_ADDED_CAP): string {
  const byFile = new Map<string, { before: string | undefined; after: string }>();
  for (const c of changes) {
    const seen = byFile.get(c.path);
    if (seen) seen.after = c.after;
    else byFile.set(c.path, { before: c.before, after: c.after });
  }
  const parts: string[] = [];
  for (const { before, after } of byFile.values()) {
    const added = addedText(before, after).trim();
    if (added !== '') parts.push(added);
  }
  const text = parts.join('\n\n');
  if (text.length <= cap) return text;
  const half = Math.floor((cap - 3) / 2);
  return `${text.slice(0, half)}\n…\n${text.slice(text.length - half)}`;
}
