// Shapes shared by the turn loop, the runner and their callers (the chat view). Plain TS.
import type { AssistantEntry, ChainEntry } from '../session/entries';
import type { ScribeOutcome } from '../state/scribeRun';
import type { ToolChange } from './tools';
import type { ToolSpec } from '../model/streaming';

/** A tool that is not a manuscript file tool (memory_search): its schema and how to run it. */
export interface ExtraTool {
  spec: ToolSpec;
  run(argsJson: string): Promise<{ result: string; isError: boolean }>;
}

export type TurnPhase = 'idle' | 'writing' | 'tool' | 'scribe';

export type TurnEvent =
  | { type: 'phase'; phase: TurnPhase }
  /** Streamed reply text, in order. */
  | { type: 'delta'; text: string }
  /** Streamed reasoning text of the current model step, in order (never part of the reply). */
  | { type: 'reasoning'; text: string }
  | { type: 'toolStart'; name: string; args: string }
  /** `summary` (describeChange) when the call changed a file. */
  | { type: 'toolEnd'; name: string; result: string; isError: boolean; summary?: string }
  /** Every entry the turn appends (user, assistant, tool), right after it is written. */
  | { type: 'entry'; entry: ChainEntry }
  /** The turn failed; `retryable` = offer Retry. */
  | { type: 'error'; message: string; retryable: boolean }
  /** Something after the turn went wrong (checkpoint, flush, scribe); the turn itself stands. */
  | { type: 'warning'; message: string };

export type TurnStatus = 'done' | 'error' | 'aborted';

export interface TurnResult {
  status: TurnStatus;
  /** The turn's user entry; absent when the turn was stopped before it started. */
  userEntryId?: string;
  /** The turn's last assistant entry (the one carrying finish error/aborted on failure). */
  assistantId?: string;
  error?: string;
  /** True when Retry should be offered (every failure of the model part). */
  retryable?: boolean;
  /** Files changed this turn, in call order. */
  changes: ToolChange[];
  /** New prose this turn, per file (see proseAdded.ts). */
  proseAdded: string;
  /**
   * Only for `done`: settles when the scribe has run (or was skipped). It never rejects. `send`
   * resolves before it, so the input frees up while the scribe works.
   */
  scribeDone?: Promise<ScribeOutcome | void>;
}

export interface CheckpointInfo {
  userEntryId: string;
  assistantId: string;
  changes: readonly ToolChange[];
}

export interface ScribeInfo {
  userEntryId: string;
  /** The instruction as the model saw it (edits applied, no state block). */
  instruction: string;
  proseAdded: string;
  /** The agent's chat text this turn (its replies joined). */
  reply: string;
  /** The leaf when the scribe starts: its result applies only while this is still on the branch. */
  leafBefore: string | null;
  /** Fires when the runner is disposed. */
  signal: AbortSignal;
}

export type TurnKind = 'send' | 'regenerate' | 'edit' | 'retry';

export interface TurnHooks {
  /**
   * Before a new instruction is appended, once the previous turn's scribe is done (so nothing of
   * it lands inside that turn): Send pins hand edits here. A failure only costs the pin.
   */
  beforeInstruction?(): Promise<void>;
  /**
   * Before the model is called: text to put next to the state block (recalled memory), for the
   * turn's instruction. A failure only costs the recall.
   */
  recall?(info: { userEntryId: string; instruction: string }): Promise<string | undefined>;
  /**
   * Before the model is called: the codex entries the turn names, rendered (src/codex/story.ts),
   * for after the state block in front of the instruction, and their paths to record on the turn.
   * A failure only costs the codex block.
   */
  codex?(info: { userEntryId: string; instruction: string }): Promise<{ text: string; paths: readonly string[] } | undefined>;
  /**
   * Before the model is called, after the leaf is on the turn's user entry. Regenerate and edit
   * use it to bring the prose back to the checkpoint before the turn. A failure ends the turn as
   * an error, before any model call.
   */
  beforeTurn?(info: { kind: TurnKind; userEntryId: string }): Promise<void>;
  /** End of a normally finished turn, awaited. A failure is reported as a warning only. */
  checkpoint?(info: CheckpointInfo): Promise<void>;
  /** After the checkpoint, not awaited by the turn. */
  scribe?(info: ScribeInfo): Promise<ScribeOutcome | void>;
  /**
   * After the scribe (a summary when one is due). Not awaited by the turn, but the next turn waits
   * for it, so what it appends never lands inside a turn. A failure is reported as a warning only.
   */
  afterScribe?(info: { userEntryId: string; outcome: ScribeOutcome | void; signal: AbortSignal }): Promise<unknown>;
}

/** What the turn loop hands back to the runner. */
export interface LoopOutcome {
  status: TurnStatus;
  assistantId?: string;
  error?: string;
  retryable?: boolean;
  changes: ToolChange[];
  /** Every assistant entry of the turn, in order. */
  replies: AssistantEntry[];
}

/** Thrown (as a rejection) when an action needs the runner idle. */
export class TurnBusyError extends Error {
  readonly code = 'busy';
  constructor(readonly action: string, lang: 'zh' | 'en' = 'en') {
    super(
      lang === 'zh'
        ? `助手正在写作，现在不能「${action}」。请先停止，或等这一轮写完。`
        : `Cannot ${action} while the agent is writing. Stop the reply first, or wait for it to finish.`,
    );
    this.name = 'TurnBusyError';
  }
}

export function isTurnBusyError(x: unknown): x is TurnBusyError {
  return x instanceof TurnBusyError;
}
