// Public API of the scene state module (plain TS; never imports `vscode`).
export type { SceneState, CharacterState, Roster, RosterTable, Lang, ListField, MergeResult } from './types';
export { ROSTER_TABLES, LIST_FIELDS, PATCH_FIELDS, CHARACTER_FIELDS } from './types';
export { LIMITS } from './limits';
export { applyPatch, type ApplyOptions } from './apply';
export { normalizeState, emptyState } from './normalize';
export { validateState, checkState, describeProblem, type Problem, type ProblemCode } from './schema';
export { openingState, openingStateWithWarnings, type OpeningInput } from './opening';
export { stateAt, type StateAtResult } from './stateAt';
export { registerRoster, departedCharacters, itemName, emptyRoster } from './roster';
export { formatState, formatWorld, type FormatOptions } from './format';
export { injectState, type MessageLike } from './inject';
export { buildScribePrompt, ledgerJson, excerpt, SCRIBE_LIMITS, type ScribePrompt, type ScribePromptInput } from './scribePrompt';
export { parseScribeOutput, type ParseResult } from './scribeParse';
export {
  runScribe,
  ScribeError,
  SCRIBE_MAX_TOKENS,
  type ScribeDeps,
  type ScribeInput,
  type ScribeOutcome,
  type ScribeErrorKind,
  type ScribeSkipReason,
} from './scribeRun';
export { leafStillCurrent } from './leafGuard';
export { userEdit, type UserEditResult } from './userEdit';
