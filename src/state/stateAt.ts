// "The world is a function of the branch": the scene state at a leaf is the last valid `state`
// entry on the root→leaf path, else the opening state. Entries come from disk, so each is
// re-checked against the schema; a corrupt one is skipped (with a warning), never trusted.
import { isPlainObject } from './json';
import { messages } from './messages';
import { openingState } from './opening';
import { checkState, describeProblem, validateState } from './schema';
import type { Lang, SceneState } from './types';

export interface StateAtResult {
  state: SceneState;
  /** Problems met while reading (corrupt entries skipped), in the project language. */
  warnings: string[];
  /** The warnings stored on the entry used: what the scribe should hear next turn. */
  lastWarnings: string[];
  /** Id of the entry used; undefined when the opening state was used. */
  entryId?: string;
  by?: string;
}

/**
 * @param pathEntries entries on the path, root first (any objects; only `type === 'state'` count)
 * @param opening a SceneState, or the project's `opening:` settings
 */
export function stateAt(pathEntries: readonly unknown[], opening: unknown, opts: { lang?: Lang } = {}): StateAtResult {
  const lang = opts.lang ?? 'zh';
  const warnings: string[] = [];
  for (let i = pathEntries.length - 1; i >= 0; i--) {
    const e = pathEntries[i];
    if (!isPlainObject(e) || e['type'] !== 'state') continue;
    const id = typeof e['id'] === 'string' ? e['id'] : `#${i}`;
    const problems = checkState(e['state']);
    if (problems.length > 0) {
      const why = problems.slice(0, 2).map((p) => describeProblem(p, lang)).join('; ');
      warnings.push(messages(lang).entryCorrupt(id, why));
      continue;
    }
    const stored = e['warnings'];
    const result: StateAtResult = {
      state: structuredClone(e['state'] as SceneState),
      warnings,
      lastWarnings: Array.isArray(stored) ? stored.filter((w): w is string => typeof w === 'string') : [],
      entryId: id,
    };
    if (typeof e['by'] === 'string') result.by = e['by'];
    return result;
  }
  const state = validateState(opening) ? structuredClone(opening) : openingState(opening, { lang });
  return { state, warnings, lastWarnings: [] };
}
