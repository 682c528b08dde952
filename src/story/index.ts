// The story core: the branch as a value, and the decisions the verbs take from it.
export { Branch, Branches, branchOf, openingOf } from './branch';
export type { BranchContext, BranchOptions, BranchSource, Turn } from './branch';
export { proseAndChatLanding, proseToFollow, saveLanding } from './landing';
export type { Landing } from './landing';
export { answerStillCurrent, markBranch } from './answer';
export type { AnswerCheck, BranchMark, MarkedSession, StaleReason } from './answer';
export { Story, checkpointFor } from './story';
export type { BranchHereResult, RestoreOutcome, UndoResult } from './story';
export type { ChatVerb, DirtyChoice, FollowSetting, StoryEvent, StoryHost, StoryLog, UndoAction, UndoOffer } from './host';
