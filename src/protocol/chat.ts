// The messages between the Chat page (media/chat.js) and the extension. media/chat.js type-checks
// against these unions (media/tsconfig.json), and every inbound message passes `decodeFromChatPage`.
import { decoderFor } from './decode';

export interface ChatToolLine {
  text: string;
  /** A manuscript path the line opens, when the tool touched a file. */
  path?: string;
  isError: boolean;
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  hidden: boolean;
  edited: boolean;
  /** ◀ n/m ▶ among same-type siblings; count 1 means no variants. */
  variant: { index: number; count: number };
  finish?: 'stop' | 'length' | 'aborted' | 'error';
  error?: string;
  tools: ChatToolLine[];
  model?: string;
  /** An imported message's speaker (SillyTavern's name for it): the page's label instead of You / Agent. */
  speaker?: string;
  /**
   * The turn this message belongs to ended with a checkpoint (restore buttons). `lost`: the
   * checkpoint store no longer has it (it was rebuilt), so its restores cannot work.
   */
  checkpoint?: { commit: string; changed: number; lost?: boolean };
  /** A reply's token usage as the provider reported it (every model call of the reply summed); absent when none was reported. */
  usage?: ChatUsage;
}

/** Token usage of one reply. */
export interface ChatUsage {
  /** Prompt tokens (each tool step sends the context again, so they add up). */
  prompt: number;
  completion: number;
  /** Prompt tokens served from the provider's cache. */
  cached: number;
  /** What the reply cost, where the model's prices are known; absent otherwise. */
  cost?: { amount: number; currency: 'USD' | 'CNY' };
  /** All of it in the window's language, ready to show: "1,200 prompt tokens (800 from cache), 90 reply tokens · ≈ $0.0012". */
  label: string;
}

export interface ChatModel {
  title: string;
  readOnly: boolean;
  busy: boolean;
  phase: 'idle' | 'writing' | 'tool' | 'scribe';
  modelLabel: string;
  isDemo: boolean;
  messages: ChatMessage[];
  canRetry: boolean;
  notice?: Notice;
  /** The next first-run step that is missing, shown in the empty Chat with its buttons (src/protocol/chatModel.ts). */
  setup?: SetupStep;
  /** The session's usage in words (calls, tokens, cache share, cost where priced); absent before any reported usage. */
  sessionUsage?: string;
  /** The instruction waiting for the scribe to finish (one at most); the page shows it with Cancel. */
  pending?: { text: string };
}

/** A palette command a Chat button runs (src/protocol/chatModel.ts `pageCommandId`). */
export type ChatCommand = 'setKey' | 'selectModel' | 'chooseProvider' | 'initializeNovel' | 'openFolder' | 'testConnection';

export const CHAT_COMMANDS: readonly ChatCommand[] = ['setKey', 'selectModel', 'chooseProvider', 'initializeNovel', 'openFolder', 'testConnection'];

/** What is missing before a first instruction can go out, in the order it must be done. */
export interface SetupStep {
  missing: 'folder' | 'project' | 'model' | 'key';
  /** Already in the novelist's language. */
  text: string;
  /** The first is the main way forward. */
  actions: { command: ChatCommand; label: string }[];
}

/** The line under the messages that says why the last turn did not end well, with its way out. */
export interface Notice {
  kind: 'error' | 'info';
  text: string;
  action?: 'setKey' | 'retry' | 'selectModel';
}

/**
 * The reply streaming now: its text since the last recorded reply entry, and the tool lines not yet
 * shown in the message list (a tool line moves there once its result is recorded).
 */
export interface ChatStream {
  text: string;
  tools: ChatToolLine[];
  /** The model's reasoning for this step, where the provider streams it; absent (never empty) when none. */
  reasoning?: string;
  /** When this step began waiting for the model (epoch ms): the page counts the thinking time from it. */
  since?: number;
}

/** Everything the page shows but the messages: the header, the notice line, the composer's state. */
export type ChatHead = Omit<ChatModel, 'messages'>;

/**
 * The streaming block as a change to what the page has: keep the first `from` characters of its
 * text, add `text`; the reasoning likewise (absent: the block has none); the tool lines and
 * `since` are sent whole (absent `since`: none).
 */
export interface ChatStreamDelta {
  from: number;
  text: string;
  tools: ChatToolLine[];
  reasoning?: { from: number; text: string };
  since?: number;
}

/**
 * The page is kept in step with numbered updates (src/protocol/chatMirror.ts): a `render` sets
 * everything and starts the count at `seq`; a `patch` or `stream` applies only to the page that
 * holds update `base`, and makes it `seq`. A page that finds a gap asks again with `ready`.
 */
export type ToChatPage =
  /** Everything. `stream` is the streaming block as of this render (absent: none). */
  | { type: 'render'; seq: number; model: ChatModel; stream?: ChatStream }
  | ChatPatch
  /** Only the streaming block changed. */
  | ({ type: 'stream'; seq: number; base: number } & ChatStreamDelta)
  | { type: 'phase'; phase: ChatModel['phase']; busy: boolean }
  /** `append`: the text goes after the draft in the input box (a quote from the editor), not over it. */
  | { type: 'focusInput'; text?: string; append?: boolean };

/**
 * The changes since update `base`, keyed by message: messages whose id stayed at their place and
 * whose content changed are sent again (`replace`); from the first place where the ids differ,
 * the page drops its messages and appends the new ones (`splice`). Absent parts did not change.
 */
export interface ChatPatch {
  type: 'patch';
  seq: number;
  base: number;
  head?: ChatHead;
  replace?: { at: number; message: ChatMessage }[];
  splice?: { keep: number; append: ChatMessage[] };
  /** The streaming block changed (null: it is gone). */
  stream?: ChatStreamDelta | null;
}

export type FromChatPage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'retry' }
  | { type: 'regenerate'; id: string }
  | { type: 'variant'; id: string; delta: -1 | 1 }
  | { type: 'edit'; id: string; text: string; asBranch: boolean }
  | { type: 'hide'; id: string; hidden: boolean }
  | { type: 'branchHere'; id: string }
  | { type: 'copy'; id: string }
  | { type: 'openFile'; path: string }
  | { type: 'restore'; id: string; withChat: boolean }
  | { type: 'showChanges'; id: string }
  /** Drops the instruction waiting for the scribe; the host puts its text back into the composer. */
  | { type: 'cancelPending' }
  | { type: 'command'; command: ChatCommand };

export const decodeFromChatPage = decoderFor<FromChatPage>('chat', {
  ready: {},
  send: { text: 'string' },
  stop: {},
  retry: {},
  regenerate: { id: 'string' },
  variant: { id: 'string', delta: [-1, 1] },
  edit: { id: 'string', text: 'string', asBranch: 'boolean' },
  hide: { id: 'string', hidden: 'boolean' },
  branchHere: { id: 'string' },
  copy: { id: 'string' },
  openFile: { path: 'string' },
  restore: { id: 'string', withChat: 'boolean' },
  showChanges: { id: 'string' },
  cancelPending: {},
  command: { command: CHAT_COMMANDS },
});
