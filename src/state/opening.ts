// The opening state from the project file (worldline.yaml `opening:`), used when a branch has no
// `state` entry yet. It goes through the same merge rules as any patch, so it is always valid.
import { isPlainObject, setOwn, show } from './json';
import { finishWarnings, messages } from './messages';
import { emptyState } from './normalize';
import { mergePatch, type ApplyOptions } from './patch';
import type { MergeResult, SceneState } from './types';

/** What `opening:` in worldline.yaml may hold. Everything is optional. */
export interface OpeningInput {
  time?: string;
  location?: string;
  /** Names (all start here, affinity 0) or per-name partial character states. */
  characters?: string[] | Record<string, Partial<{ affinity: number; status: string; notes: string; at: string }>>;
  items?: string[];
  facts?: string[];
  threads?: string[];
  variables?: Record<string, unknown>;
}

const OPENING_KEYS = new Set(['time', 'location', 'characters', 'items', 'facts', 'threads', 'variables']);

export function openingStateWithWarnings(opening: unknown, opts: ApplyOptions = {}): MergeResult {
  const m = messages(opts.lang);
  const warnings: string[] = [];
  const warn = (w: string): void => void (warnings.length < 1000 && warnings.push(w));
  const base = emptyState();
  if (opening === undefined || opening === null) {
    return { state: mergePatch(base, {}, opts, warn), warnings: [] };
  }
  if (!isPlainObject(opening)) {
    warn(m.openingIgnored(show(opening)));
    return { state: mergePatch(base, {}, opts, warn), warnings: finishWarnings(warnings, opts.lang) };
  }
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(opening)) {
    if (!OPENING_KEYS.has(k)) {
      warn(m.openingIgnored(k));
      continue;
    }
    setOwn(patch, k, opening[k]);
  }
  const chars = opening['characters'];
  if (Array.isArray(chars)) {
    const record: Record<string, unknown> = {};
    for (const c of chars) {
      if (typeof c === 'string') setOwn(record, c, {});
      else warn(m.openingIgnored(`characters: ${show(c)}`));
    }
    patch['characters'] = record;
  }
  // Opening variables replace nothing (the state is empty), so a deep merge is a plain copy.
  const state = mergePatch(base, patch, opts, warn);
  return { state, warnings: finishWarnings(warnings, opts.lang) };
}

/** The opening state; problems in the settings are dropped (see openingStateWithWarnings). */
export function openingState(opening?: unknown, opts: ApplyOptions = {}): SceneState {
  return openingStateWithWarnings(opening, opts).state;
}
