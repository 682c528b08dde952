// The continuity checker's public API (DESIGN, "Continuity"): the rules, the judge's prompt and
// answer, one whole check, and anchoring a finding's quote in the edited chapter.
export * from './types';
export { findCandidates, parseItem, timeOf, dayOf } from './rules';
export { judgePrompt, parseJudgeAnswer, JUDGE_MAX_PROSE, type JudgePrompt } from './judge';
export { checkContinuity, anchorQuote, findingId, type CheckOptions, type CheckResult } from './check';
export { NameTable, findNearNames, type NameMention, type NearName } from './names';
export { splitSentences, splitClauses, quoteMask, type Sentence } from './sentences';
