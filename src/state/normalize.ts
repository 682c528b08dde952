// normalizeState: repairs anything into a valid SceneState (for corrupt or old data), keeping what
// can be kept. It reuses the merge rules: a state is read as a patch onto an empty state, after
// its roster has been copied over, so first-seen times survive.
import { hasOwn, isPlainObject, setOwn } from './json';
import { LIMITS, RESERVED_KEYS } from './limits';
import { finishWarnings, messages } from './messages';
import { cleanText, mergePatch, type ApplyOptions } from './patch';
import { emptyRoster } from './roster';
import { ROSTER_TABLES, type MergeResult, type Roster, type SceneState } from './types';

export function emptyState(): SceneState {
  return { time: '', location: '', characters: {}, items: [], facts: [], threads: [], roster: emptyRoster() };
}

function keyMax(t: keyof Roster): number {
  return t === 'characters' ? LIMITS.name : t === 'locations' ? LIMITS.place : LIMITS.listItem;
}

function readRoster(x: unknown): Roster {
  const out = emptyRoster();
  if (!isPlainObject(x)) return out;
  for (const t of ROSTER_TABLES) {
    const table = x[t];
    if (!isPlainObject(table)) continue;
    const keys = Object.keys(table);
    // Keep the newest entries when over the cap (the oldest would be dropped first anyway).
    for (const raw of keys.slice(Math.max(0, keys.length - LIMITS.roster[t]))) {
      const k = cleanText(raw, keyMax(t)).text;
      if (k === '' || RESERVED_KEYS.has(k) || hasOwn(out[t], k)) continue;
      const v = table[raw];
      // The roster is printed in one line as name@time: neither may break it.
      setOwn(out[t], k, typeof v === 'string' ? cleanText(v, LIMITS.place).text : '');
    }
  }
  return out;
}

export function normalizeState(x: unknown, opts: ApplyOptions = {}): MergeResult {
  const warnings: string[] = [];
  const warn = (w: string): void => void (warnings.length < 1000 && warnings.push(w));
  const base = emptyState();
  if (!isPlainObject(x)) {
    warn(messages(opts.lang).notAState());
    return { state: base, warnings: finishWarnings(warnings, opts.lang) };
  }
  base.roster = readRoster(x['roster']);
  const asPatch: Record<string, unknown> = {};
  for (const k of Object.keys(x)) {
    if (k === 'roster') continue;
    if (k === 'variables' && x[k] === undefined) continue;
    setOwn(asPatch, k, x[k]);
  }
  // Characters keep their own `at`; a missing one means "here", as for a new character.
  const state = mergePatch(base, asPatch, opts, warn);
  return { state, warnings: finishWarnings(warnings, opts.lang) };
}
