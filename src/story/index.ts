// The story core: the branch as a value, and the decisions the verbs take from it.
export { Branch, Branches, branchOf, openingOf } from './branch';
export type { BranchContext, BranchOptions, BranchSource, Turn } from './branch';
export { proseAndChatLanding, proseToFollow, saveLanding } from './landing';
export type { Landing } from './landing';
export { answerStillCurrent, markBranch } from './answer';
export type { AnswerCheck, BranchMark, MarkedSession, StaleReason } from './answer';
export { Story, checkpointFor } from './story';
export type { BranchHereResult, RestoreOutcome, UndoResult } from './story';
export type { ChatVerb, DirtyChoice, FollowSetting, LiveChange, ProgressKind, StoryEvent, StoryHost, StoryLog, StoryProject, TurnNotice, UndoAction, UndoOffer } from './host';
export { RerunCancelledError, StoryTurns, laterTurns } from './turns';
export type { PendingInstruction, StreamView, TurnOwner } from './turns';
export { leaveTurnsWords } from './words';
export type { LeaveTurnsWords } from './words';
export { StoryContinuity, aliasesOf, proseByFile } from './continuity';
export type { CheckOutcome, ShownFinding, TurnFindings } from './continuity';
export { fixInstruction, stateEditFor, stateFixFor } from './continuityFix';
