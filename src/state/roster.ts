// The grow-only roster: every name ever seen, with the in-story time it was first seen. It lets the
// model tell a newcomer from an old acquaintance; names leave only when a table hits its cap.
import { clip, hasOwn, setOwn } from './json';
import { LIMITS, RESERVED_KEYS } from './limits';
import { ROSTER_TABLES, type Roster, type RosterTable, type SceneState } from './types';

export function emptyRoster(): Roster {
  return { characters: {}, locations: {}, items: {}, threads: {} };
}

/**
 * The roster name of an item: the string without a trailing holder in parentheses, so
 * "黄铜怀表（青梧持有）" and "黄铜怀表（林砚持有）" are one item changing hands.
 */
export function itemName(item: string): string {
  // By hand rather than /\s*[（(][^（()）]*[）)]\s*$/, which rescans a long run of spaces from each
  // of its positions. Same result: the closer ends the string, the opener is the nearest before it.
  const t = item.trimEnd();
  const last = t.charCodeAt(t.length - 1);
  if (last === 0xff09 || last === 0x29) {
    for (let i = t.length - 2; i >= 0; i--) {
      const c = t.charCodeAt(i);
      if (c === 0xff09 || c === 0x29) break; // a second closer: not a trailing "(…)"
      if (c === 0xff08 || c === 0x28) {
        const stripped = t.slice(0, i).trim();
        return stripped === '' ? item.trim() : stripped;
      }
    }
  }
  return item.trim();
}

/** The names each table holds right now (the scene's characters, places, items and threads). */
export function activeNames(state: SceneState): Record<RosterTable, Set<string>> {
  const locations = new Set<string>();
  if (state.location.trim() !== '') locations.add(state.location.trim());
  for (const name of Object.keys(state.characters)) {
    const at = state.characters[name]?.at.trim() ?? '';
    if (at !== '') locations.add(at);
  }
  return {
    characters: new Set(Object.keys(state.characters)),
    locations,
    items: new Set(state.items.map(itemName).filter((s) => s !== '')),
    threads: new Set(state.threads.map((s) => s.trim()).filter((s) => s !== '')),
  };
}

/**
 * Names in eviction order: oldest first, but names still active in the scene only after every
 * inactive one (dropping a name that is on stage would make it look new next turn).
 */
export function evictionOrder(table: Record<string, string>, active: Set<string>): string[] {
  const keys = Object.keys(table);
  return [...keys.filter((k) => !active.has(k)), ...keys.filter((k) => active.has(k))];
}

function capTable(table: Record<string, string>, cap: number, active: Set<string>): Record<string, string> {
  const keys = Object.keys(table);
  if (keys.length <= cap) return table;
  const drop = new Set(evictionOrder(table, active).slice(0, keys.length - cap));
  const out: Record<string, string> = {};
  for (const k of keys) if (!drop.has(k)) setOwn(out, k, table[k] ?? '');
  return out;
}

/**
 * Adds every active name that is not yet listed, stamped with the current in-story time, then
 * applies the caps. Returns a new roster; existing names keep their first-seen time.
 * Note: JS objects list integer-like keys ("42") first, so such names count as oldest.
 */
export function registerRoster(state: SceneState): Roster {
  const time = clip(state.time, LIMITS.place);
  const active = activeNames(state);
  const next = emptyRoster();
  for (const t of ROSTER_TABLES) {
    // Spread defines own properties (never calls a setter), so it is as safe as setOwn, and fast.
    const table: Record<string, string> = { ...state.roster[t] };
    for (const name of active[t]) {
      const key = clip(name, t === 'characters' ? LIMITS.name : t === 'locations' ? LIMITS.place : LIMITS.listItem);
      if (!RESERVED_KEYS.has(key) && !hasOwn(table, key)) setOwn(table, key, time);
    }
    next[t] = capTable(table, LIMITS.roster[t], active[t]);
  }
  return next;
}

/** Characters the roster knows who are not in the scene any more (shown as departed). */
export function departedCharacters(state: SceneState): string[] {
  return Object.keys(state.roster.characters).filter((n) => !hasOwn(state.characters, n));
}
