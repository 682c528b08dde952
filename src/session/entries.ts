// The shapes of the lines in a session file (`.worldline/sessions/<id>.jsonl`).
// Line 1 is a SessionHeader; every other line is one Entry. See DESIGN.md, "The session tree".
import type { Finding } from '../continuity/types';

export type ChainType = 'user' | 'assistant' | 'tool' | 'checkpoint' | 'state' | 'summary' | 'save';
export type SideType = 'edit' | 'hide' | 'label' | 'leaf' | 'findings';
export type EntryType = ChainType | SideType;

export const CHAIN_TYPES: readonly ChainType[] = ['user', 'assistant', 'tool', 'checkpoint', 'state', 'summary', 'save'];
export const SIDE_TYPES: readonly SideType[] = ['edit', 'hide', 'label', 'leaf', 'findings'];

/**
 * The format version this code writes; files with a higher version are refused, not guessed at.
 * 1: every `state` entry holds the whole scene state. 2: a `state` entry may instead hold the
 * change from the state entry before it on its path (`base` + `patch`, see stateCodec.ts), with a
 * whole state every few entries. A file keeps the version of its header: old files are read and
 * appended to as version 1, never rewritten.
 */
export const SESSION_FORMAT_VERSION = 2;

/** The versions this code reads. */
export type SessionFormatVersion = 1 | 2;

export interface SessionHeader {
  type: 'session';
  version: SessionFormatVersion;
  id: string;
  createdAt: string;
  title: string;
}

/**
 * Fields every entry carries. For side entries `parentId` records where the leaf was when the
 * entry was written; it is informational and never makes a side entry part of the tree.
 */
interface Base {
  id: string;
  parentId: string | null;
  ts: string; // ISO 8601
}

/**
 * Fields a provider sent with a message or a tool call that must go back to it unchanged in later
 * requests (DeepSeek's `reasoning_content`, Gemini's `extra_content` thought signature). Stored as
 * received; which ones are replayed is the dialect's rule (src/model/).
 */
export type ProviderFields = Record<string, unknown>;

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  providerFields?: ProviderFields;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the provider served from its cache (when it says). */
  cachedTokens?: number;
  /** Reasoning tokens inside `completionTokens` (when the provider says). */
  reasoningTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'aborted' | 'error';

/**
 * Where an imported message came from (src/import/chat/): the source's own fields, kept so export
 * back loses nothing. Shown to the novelist (the speaker's name), never sent to the model.
 */
export interface ImportedFrom {
  from: 'sillytavern';
  /** The speaker's name. */
  name: string;
  /** `send_date` as written in the source. */
  sendDate?: string | number;
  /** The message's reasoning (`extra.reasoning`): metadata, never text. */
  reasoning?: string;
  /** The source's `extra`, without `reasoning`. */
  extra?: Record<string, unknown>;
  /** The rest of the swipe's `swipe_info` item (gen_started, gen_finished…). */
  info?: Record<string, unknown>;
  /** The message's other top-level fields (title, force_avatar, extension data…); on the chosen swipe's entry only. */
  fields?: Record<string, unknown>;
}

export interface UserEntry extends Base {
  type: 'user';
  text: string;
  imported?: ImportedFrom;
}

export interface AssistantEntry extends Base {
  type: 'assistant';
  text: string;
  toolCalls?: ToolCall[];
  model: string;
  usage?: TokenUsage;
  finish: FinishReason;
  error?: string;
  /**
   * On a turn's first assistant entry: book-relative paths of the codex entries injected in front
   * of its instruction (src/codex/injected.ts). Absent: none (and on entries older than the codex).
   */
  codex?: string[];
  /** Message-level fields the provider sent (see ProviderFields). */
  providerFields?: ProviderFields;
  imported?: ImportedFrom;
}

export interface ToolEntry extends Base {
  type: 'tool';
  callId: string;
  name: string;
  result: string;
  isError: boolean;
}

export interface CheckpointEntry extends Base {
  type: 'checkpoint';
  commit: string;
  ref: string;
  changed: string[];
}

export interface StateEntry extends Base {
  type: 'state';
  state: unknown; // the state module owns the shape
  by: 'scribe' | 'user' | 'import';
  warnings: string[];
}

export interface SummaryEntry extends Base {
  type: 'summary';
  text: string;
  coversThroughId: string;
}

export interface SaveEntry extends Base {
  type: 'save';
  saveId: string;
  name: string;
  worldlineId: string;
  worldlineName: string;
  parentSaveId?: string;
  forkFromSaveId?: string;
  kind: 'first' | 'sameLine' | 'fork';
}

export interface EditEntry extends Base {
  type: 'edit';
  targetId: string;
  text: string;
}

export interface HideEntry extends Base {
  type: 'hide';
  targetId: string;
  hidden: boolean;
}

/** `targetId === header.id` names the session itself: renaming never rewrites line 1. An empty label clears it. */
export interface LabelEntry extends Base {
  type: 'label';
  targetId: string;
  label: string;
}

/** Records navigation so a reopened session returns to the same place. `null` = before the first entry. */
export interface LeafEntry extends Base {
  type: 'leaf';
  targetId: string | null;
}

/**
 * The continuity checker's findings on a turn (DESIGN, "Continuity"): `targetId` is the turn's
 * `state` entry (the state the prose was checked against), so the findings follow the branch with
 * it. `intended`: ids of findings the novelist marked as intended (not shown again on this branch).
 * The latest entry per target holds the whole list: a mark appends a new one.
 */
export interface FindingsEntry extends Base {
  type: 'findings';
  targetId: string;
  findings: Finding[];
  intended: string[];
}

export type ChainEntry = UserEntry | AssistantEntry | ToolEntry | CheckpointEntry | StateEntry | SummaryEntry | SaveEntry;
export type SideEntry = EditEntry | HideEntry | LabelEntry | LeafEntry | FindingsEntry;
export type Entry = ChainEntry | SideEntry;

/** Distributes Omit over a union so each member keeps its own fields. */
type OmitBase<T> = T extends unknown ? Omit<T, keyof Base> : never;

/** What callers pass to `Session.append`: the entry minus the fields the session fills in. */
export type NewChainEntry = OmitBase<ChainEntry>;
/** What callers pass to `Session.appendSide`. */
export type NewSideEntry = OmitBase<SideEntry>;

export type ChainEntryOf<T extends ChainType> = Extract<ChainEntry, { type: T }>;
export type SideEntryOf<T extends SideType> = Extract<SideEntry, { type: T }>;

const CHAIN_TYPE_SET: ReadonlySet<string> = new Set(CHAIN_TYPES);
const SIDE_TYPE_SET: ReadonlySet<string> = new Set(SIDE_TYPES);

export function isChainType(type: string): type is ChainType {
  return CHAIN_TYPE_SET.has(type);
}

export function isSideType(type: string): type is SideType {
  return SIDE_TYPE_SET.has(type);
}

export function isChainEntry(entry: Entry): entry is ChainEntry {
  return CHAIN_TYPE_SET.has(entry.type);
}

export function isSideEntry(entry: Entry): entry is SideEntry {
  return SIDE_TYPE_SET.has(entry.type);
}

/** One message of the model's context, rebuilt from the branch (see `Session.context`). */
export interface ContextMessage {
  entryId: string;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  toolCalls?: ToolCall[];
  callId?: string;
  name?: string;
  /** An assistant message's finish ('aborted': a stopped reply, replayed marked as cut off). */
  finish?: FinishReason;
  /** An assistant message's provider fields, for the dialect to replay. */
  providerFields?: ProviderFields;
}
