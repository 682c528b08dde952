// Roster names the codex has no entry for: the people, places and items the scribe has seen that
// no entry names or keys. The Codex view lists them with Create Entry. Threads are plot lines, not
// things to describe, so they are left out.
import type { Roster } from '../state/types';
import type { CodexEntry, CodexKind } from './types';

export interface MissingName {
  readonly name: string;
  /** What an entry for it would be. */
  readonly kind: CodexKind;
}

const TABLE_KINDS: readonly (readonly [keyof Roster, CodexKind])[] = [
  ['characters', 'character'],
  ['locations', 'place'],
  ['items', 'item'],
];

/** How names compare: case-insensitive, width and composition folded, outer spaces ignored. */
export function nameKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}

/** Roster names (characters, then places, then items, each in roster order) that no entry's name or key covers. */
export function missingNames(roster: Roster, entries: readonly CodexEntry[]): MissingName[] {
  const known = new Set<string>();
  for (const e of entries) {
    known.add(nameKey(e.name));
    for (const k of e.keys) known.add(nameKey(k));
  }
  const out: MissingName[] = [];
  const listed = new Set<string>();
  for (const [table, kind] of TABLE_KINDS) {
    for (const name of Object.keys(roster[table])) {
      const key = nameKey(name);
      if (key === '' || known.has(key) || listed.has(key)) continue;
      listed.add(key);
      out.push({ name: name.trim(), kind });
    }
  }
  return out;
}
