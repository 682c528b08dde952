// The port through which the Story reaches the editor (DESIGN, "Story and Branch"). The core asks
// for what only the editor knows (unsaved editors, the novelist's answers, a setting, whether the
// agent is writing) and tells what happened as typed events; the shell turns them into its own
// localised words. Nothing here is VS Code: a test implements it in a few lines.
import type { CheckpointErrorKind, RestoreResult, ShadowRepo } from '../checkpoints';
import type { ManuscriptFs } from '../agent/fsNode';
import type { TurnResult } from '../agent/turnTypes';
import type { CompactOutcome } from '../memory/sessionMemory';
import type { RequestKeys } from '../model/keys';
import type { ModelProblem } from '../model/problem';
import type { WorldlineSettings } from '../model/settings';
import type { ProjectConfig, ProjectLanguage } from '../project/config';
import type { ChangeSink } from '../project/manuscriptChanges';
import type { ScribeStatus } from '../protocol/state';
import type { SaveEntry } from '../session/entries';
import type { BranchMark, StaleReason } from './answer';
import type { BranchOptions } from './branch';

/** The verbs a running turn refuses, as the busy refusal names them. */
export type ChatVerb = 'switch variants' | 'hide' | 'edit' | 'branch' | 'send a message' | 'regenerate' | 'retry' | 'save' | 'compact';

/** The open novel as the Story needs it, read when needed (a config reload gives a new one). */
export interface StoryProject {
  /** Absolute path of the novel folder. */
  readonly root: string;
  readonly config: ProjectConfig;
  readonly lang: ProjectLanguage;
  /** How Branches are computed (the opening state parsed once per config, the language). */
  readonly branchOptions: BranchOptions;
}

/**
 * What was done about a "context too long" refusal before the turn failed: the older turns were
 * summarised and the turn written again, and it was refused again (`retried`); or nothing could be
 * summarised (too few turns, the summary failed, another window owns the novel: `notCompacted`).
 */
export type ContextRecovery = 'retried' | 'notCompacted';

/** Why the last turn did not end well, for the Chat's notice line (the shell words it). */
export type TurnNotice =
  | { kind: 'noModel' }
  /** The writing model's key was set for another endpoint than the one the setting names now. */
  | { kind: 'keyWithheld'; setFor: string; endpoint: string }
  /**
   * The turn failed. `message`: the runner's or the model's English words (the log's), shown as
   * they are only when there is no `problem`: the model failure's code and arguments, which the
   * shell words. `auth` offers Set API Key instead of Retry. For a context-length refusal,
   * `recovery` says what was tried and `contextWindow` the window in tokens, when known.
   */
  | { kind: 'failed'; message?: string; auth: boolean; problem?: ModelProblem; recovery?: ContextRecovery; contextWindow?: number }
  /** Stopped by the novelist; `kept` when some of the reply (text, or a file written) stayed. */
  | { kind: 'stopped'; kept: boolean }
  /** The model refused the conversation as too long: the older turns are being summarised, then the turn runs again. */
  | { kind: 'compacting' }
  /** The turn came through after the older turns were summarised (the conversation had outgrown the context window). */
  | { kind: 'compacted' };

/** Why the scribe failed, for the Scene State view (the shell words it). */
export interface ScribeProblem {
  /** Where it failed: its model call, reading its answer, saving the new state. */
  stage: 'model' | 'parse' | 'append';
  /** For `model`: the model failure's code and arguments, when known. */
  model?: ModelProblem;
}

/** What the views redraw: everything, the streaming block only, or the phase. */
export type LiveChange = 'render' | 'stream' | 'phase';

export type DirtyChoice = 'save' | 'cancel';
/** What long work is about (the shell words it): a summary, the store walking the book, or a restore of the prose. */
export type ProgressKind = 'summary' | 'checkpoints' | 'restore';
export type FollowSetting = 'ask' | 'always' | 'never';

/**
 * One thing Undo takes back, newest last. Undo always takes back the newest one, prose and chat
 * together: the prose through the store's undo stack (checked against `undoRef`, so an older,
 * unrelated restore is never undone instead), the chat by moving the leaf back.
 */
export type UndoAction =
  /** A restore of the prose; `leafBefore` is set when it moved the chat too (undefined: it did not). */
  | { kind: 'prose'; undoRef: string; leafBefore: string | null | undefined }
  /** Only the chat moved (a save with no checkpoint on its path): the prose was not touched. */
  | { kind: 'chat'; leafBefore: string | null };

/** An Undo offered with a report (a button): the action, and the branch it was offered on. */
export interface UndoOffer {
  readonly action: UndoAction;
  readonly asked: BranchMark | undefined;
}

/** What happened, for the novelist. The shell words each kind; the core writes no UI text. */
export type StoryEvent =
  /** A restore was asked for, but the branch has no checkpoint yet. */
  | { kind: 'noCheckpoint' }
  /** Refused: the agent is writing. */
  | { kind: 'busy' }
  /** A verb (switch variants, hide, edit, branch here, a turn, save, compact) refused: the agent is writing. */
  | { kind: 'busyVerb'; verb: ChatVerb }
  /** Send refused: an instruction already waits for the scribe (or a save, a summary) to finish. */
  | { kind: 'instructionWaiting' }
  /** Refused: another window is writing this novel. */
  | { kind: 'readOnly' }
  /** Regenerate with nothing on the branch to regenerate. */
  | { kind: 'nothingToRegenerate' }
  /** An edited reply was being copied as a new branch and the branch moved: the copy stops. */
  | { kind: 'replyCopyStopped' }
  /** The chat, the phase or the streamed text changed: the views redraw. */
  | { kind: 'live'; change: LiveChange }
  /** A turn ended (its changes counted by the status bar). */
  | { kind: 'turnEnded'; result: TurnResult }
  /** The scribe started or finished; `problem` when it failed (the status keeps the English log line). */
  | { kind: 'scribe'; status: ScribeStatus; problem?: ScribeProblem }
  /** Save Point made; `fork` when a new worldline begins here. */
  | { kind: 'saved'; entry: SaveEntry; fork: boolean }
  /** Compact Now ended (the automatic summaries are only logged); `problem` when its model call failed. */
  | { kind: 'compacted'; outcome: CompactOutcome; problem?: ModelProblem }
  /** The checkpoint store is off or could not open (the shell knows why). */
  | { kind: 'unavailable' }
  /** The prose was restored (with the chat, or prose only); `undo` when Undo can take it back. */
  | { kind: 'restored'; withChat: boolean; result: RestoreResult; undo?: UndoOffer }
  /**
   * Branch here moved the story back: `laterTurns` turns left the branch (they stay as a variant);
   * `restored` when the prose followed. `undo` moves the chat back (and the prose, when it followed).
   */
  | { kind: 'branched'; laterTurns: number; restored?: RestoreResult; undo: UndoOffer }
  /** A save made before any checkpoint was loaded: only the chat moved. */
  | { kind: 'chatOnlyLoad'; undo: UndoOffer }
  /**
   * A restore failed. `message`: the store's English words (the log's); `code`: the checkpoint
   * error's kind, which the shell words (without it the message is shown as it is).
   */
  | { kind: 'restoreFailed'; message: string; code?: CheckpointErrorKind }
  /** Prose follows the branch was refused whole: something not ours is in the way. */
  | { kind: 'followBlocked'; message: string; code?: CheckpointErrorKind }
  /** An answer came after the branch moved: nothing was done. */
  | { kind: 'staleAnswer'; reason: StaleReason }
  /** An Undo button clicked after the story moved on: nothing was undone. */
  | { kind: 'staleUndoButton' }
  /** Undo took back a restore; `chatStays` when it was made before this window (prose only). */
  | { kind: 'undone'; result: RestoreResult; chatStays: boolean }
  /** Undo moved the chat back (a chat-only load). */
  | { kind: 'undoneChatOnly' }
  /** The Undo button's restore is not the newest any more. */
  | { kind: 'undoNotNewest' }
  /** The newest restore cannot be undone: the store changed since. The stack is dropped. */
  | { kind: 'undoGone' }
  | { kind: 'nothingToUndo' }
  | { kind: 'undoFailed'; message: string; code?: CheckpointErrorKind }
  /** A checkpoint was not taken (writing goes on); `corrupt` when a rebuild is the way out. */
  | { kind: 'checkpointSkipped'; message: string; corrupt: boolean; code?: CheckpointErrorKind };

export interface StoryLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface StoryHost {
  /** The open novel: folder, config, language. */
  project(): StoryProject;
  /** One snapshot of the settings, taken when a verb needs it. */
  settings(): WorldlineSettings;
  /** The keys each request may carry under these settings (the core's rule decides; src/model/keys.ts). */
  keys(settings: WorldlineSettings): Promise<RequestKeys>;
  /** The file system the agent's tools write through (the editor's, so open editors follow). */
  manuscriptFs(): ManuscriptFs;
  /** The checkpoint store; undefined when checkpoints are off (the host says why, once). */
  store(): Promise<ShadowRepo | undefined>;
  /** Long background work the novelist should see going on (a summary; the first walk of the book's checkpoints). */
  progress<T>(work: () => Promise<T>, kind?: ProgressKind): Promise<T>;
  /**
   * The manuscript change feed: the Story reports the files the agent's tools wrote and the files
   * a restore wrote or deleted; the shell adds the editor's saves and its file watcher. The
   * checkpoint store stages from it, the word count counts from it. Absent: nothing is reported
   * (a store opened without a feed walks the book at every checkpoint).
   */
  readonly changes?: ChangeSink;
  /**
   * Unsaved manuscript editors before a restore: asks the novelist, then saves each one with its
   * save confirmed on disk; 'cancel' when the novelist cancels or a save failed (the host says so).
   */
  saveUnsavedOrCancel(): Promise<DirtyChoice>;
  /** Before a checkpoint: saves whatever manuscript editors are unsaved (failures are the host's to tell). */
  saveUnsavedToDisk(): Promise<void>;
  /** "Bring the prose along?" with the number of files that differ; true for yes. */
  askFollow(changed: number): Promise<boolean>;
  /**
   * Before regenerating a reply that has later turns on the branch: they leave it (kept as a
   * variant, ◀ brings them back). True to go on; the host may remember "don't ask again".
   */
  confirmLeaveTurns(turns: number): Promise<boolean>;
  /** After a restore, open editors of the files it touched have caught up with the disk. */
  settle(result: RestoreResult): Promise<void>;
  report(event: StoryEvent): void;
  readonly log: StoryLog;
}
