// What the Scene State view shows of a branch's state, and the novelist's edit from that view.
// Plain TypeScript: the shell adds the scribe's status and the window's facts, and words the
// failures it has to word (a read-only window).
import { stringify } from 'yaml';
import type { NewChainEntry } from '../session/entries';
import type { StateViewModel } from '../protocol/state';
import { departedCharacters } from './roster';
import type { StateAtResult } from './stateAt';
import type { Lang, SceneState } from './types';
import { userEdit } from './userEdit';

export type SceneStateView = Pick<StateViewModel, 'state' | 'yaml' | 'departed' | 'source' | 'readWarnings'>;

/** The view's part computed from the scene state at a leaf (a Branch's `state`). Does not change `at`. */
export function sceneStateView(at: StateAtResult): SceneStateView {
  const source: SceneStateView['source'] = { warnings: at.lastWarnings };
  if (at.by !== undefined) source.by = at.by;
  if (at.entryId !== undefined) source.entryId = at.entryId;
  return {
    state: at.state,
    yaml: stringify(at.state, { lineWidth: 0 }),
    departed: departedCharacters(at.state),
    source,
    readWarnings: at.warnings,
  };
}

/** What a state edit is appended to (a `Session` is one). */
export interface StateEditTarget {
  readonly readOnly: boolean;
  append(entry: NewChainEntry): Promise<unknown>;
  flush(): Promise<void>;
}

export type StateEditOutcome =
  | { ok: true; state: SceneState; warnings: string[] }
  /** `invalid`: the input was refused (the error says why, in the project language); nothing was written. */
  | { ok: false; reason: 'invalid'; error: string }
  /** Another window is writing the novel; nothing was written. */
  | { ok: false; reason: 'read-only' }
  /** The session could not be opened or written; `error` is the cause. */
  | { ok: false; reason: 'failed'; error: string };

/**
 * The novelist's edit of the scene state: validated against `state` (the state at the current
 * leaf) by the core's rules, then appended as a `state` entry {by: "user"} and flushed. The
 * session is asked for only once the edit is valid, so a refused edit never creates a session.
 */
export async function applyUserEdit(
  session: () => Promise<StateEditTarget>,
  state: SceneState,
  input: unknown,
  lang: Lang,
): Promise<StateEditOutcome> {
  const result = userEdit(state, input, { lang });
  if (!result.ok) return { ok: false, reason: 'invalid', error: result.error };
  try {
    const target = await session();
    if (target.readOnly) return { ok: false, reason: 'read-only' };
    await target.append({ type: 'state', state: result.state, by: 'user', warnings: result.warnings });
    await target.flush();
    return { ok: true, state: result.state, warnings: result.warnings };
  } catch (err) {
    return { ok: false, reason: 'failed', error: err instanceof Error ? err.message : String(err) };
  }
}
