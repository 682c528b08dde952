// applyPatch: the public entry point. Never throws, always returns a schema-valid state.
import { finishWarnings } from './messages';
import { normalizeState } from './normalize';
import { mergePatch, type ApplyOptions, type Warn } from './patch';
import { validateState } from './schema';
import type { MergeResult, SceneState } from './types';

export type { ApplyOptions } from './patch';

/** Collects warnings with a hard ceiling (a hostile patch must not allocate without bound). */
export function warningSink(): { warnings: string[]; warn: Warn } {
  const warnings: string[] = [];
  return { warnings, warn: (w) => void (warnings.length < 1000 && warnings.push(w)) };
}

/** A deep copy of a valid state, or a repaired copy (with warnings) of one that is not. */
export function copyOrRepair(state: unknown, opts: ApplyOptions, warn: Warn): SceneState {
  if (validateState(state)) return structuredClone(state);
  const fixed = normalizeState(state, opts);
  fixed.warnings.forEach(warn);
  return fixed.state;
}

export function applyPatch(state: SceneState, patch: unknown, opts: ApplyOptions = {}): MergeResult {
  const sink = warningSink();
  const next = mergePatch(copyOrRepair(state, opts, sink.warn), patch, opts, sink.warn);
  return { state: next, warnings: finishWarnings(sink.warnings, opts.lang) };
}
