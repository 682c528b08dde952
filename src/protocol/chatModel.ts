// What the Chat page shows, computed from plain inputs: the Story's branch as messages, whether
// the agent is busy and in which phase, the title, and how the model is named. The shell gathers
// the inputs (the open Story, the session, settings) and posts the result; the words are English
// keys marked for the localisation test and translated by the shell's `say`.
import { recordedToolLines, type TranscriptMessage } from '../agent/transcript';
import type { Say, Text } from '../common/text';
import { isDemoModel } from '../model/models';
import type { ChainEntry } from '../session/entries';
import type { ChatMessage, ChatModel, ChatStream, ChatToolLine, FromChatPage, Notice, ToChatPage } from './chat';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** What the Chat needs of the open session's Story (src/story/story.ts satisfies it). */
export interface ChatStory {
  readonly busy: boolean;
  readonly phase: ChatModel['phase'];
  readonly canRetry: boolean;
  readonly stream?: { readonly text: string; readonly tools: readonly ChatToolLine[] } | undefined;
  branch(): { readonly transcript: readonly TranscriptMessage[]; readonly path: readonly ChainEntry[] };
}

export interface ChatInputs {
  story: ChatStory | undefined;
  session: { readonly title: string; readonly readOnly: boolean } | undefined;
  /** The novel's title from worldline.yaml (maybe empty); undefined when no novel is open. */
  novelTitle: string | undefined;
  /** The `worldline.model` setting (empty: none chosen). */
  model: string;
  notice?: Notice;
}

/** One message as the page shows it: the checkpoint as its commit and how many files it changed. */
export function chatMessage(m: TranscriptMessage): ChatMessage {
  return {
    id: m.id, role: m.role, text: m.text, hidden: m.hidden, edited: m.edited, variant: m.variant,
    finish: m.finish, error: m.error, tools: m.tools, model: m.model,
    checkpoint: m.checkpoint ? { commit: m.checkpoint.commit, changed: m.checkpoint.changed.length } : undefined,
  };
}

/**
 * The page's model. The title: the session's, else the novel's (or "Chat" when it has none), and
 * "Worldline" with no novel open. The model label: the model's name, or "no model selected"; the
 * demo model is flagged so the page can say what it is.
 */
export function chatModel(inputs: ChatInputs, say: Say): ChatModel {
  const { story, session, novelTitle } = inputs;
  const model: ChatModel = {
    title: session?.title ?? (novelTitle !== undefined ? novelTitle || say(l10n.t('Chat')) : 'Worldline'),
    readOnly: session?.readOnly ?? false,
    busy: story?.busy ?? false,
    phase: story?.phase ?? 'idle',
    modelLabel: inputs.model || say(l10n.t('no model selected')),
    isDemo: isDemoModel(inputs.model),
    messages: (story?.branch().transcript ?? []).map(chatMessage),
    canRetry: story?.canRetry ?? false,
  };
  if (inputs.notice) model.notice = inputs.notice;
  return model;
}

/**
 * What the streaming block shows: the agent's stream, minus the tool lines whose results are
 * already recorded, since the message list shows those (see `recordedToolLines`).
 */
export function chatStream(story: ChatStory | undefined): ChatStream | undefined {
  const s = story?.stream;
  if (!story || !s) return undefined;
  return { text: s.text, tools: s.tools.slice(recordedToolLines(story.branch().path)) };
}

/** The phase message: the page counts as busy while any phase (the scribe too) is running. */
export function phaseMessage(story: ChatStory | undefined): Extract<ToChatPage, { type: 'phase' }> {
  const phase = story?.phase ?? 'idle';
  return { type: 'phase', phase, busy: (story?.busy ?? false) || phase !== 'idle' };
}

/**
 * The render message. The streaming block rides along, so the page never shows a new tool entry in
 * the message list next to an older streaming block that still has the same line.
 */
export function renderMessage(model: ChatModel, stream: ChatStream | undefined): Extract<ToChatPage, { type: 'render' }> {
  return stream ? { type: 'render', model, stream } : { type: 'render', model };
}

/** The palette command a message's checkpoint button runs (with the checkpoint entry of that message). */
export function checkpointCommand(m: Extract<FromChatPage, { type: 'restore' | 'showChanges' }>): string {
  if (m.type === 'showChanges') return 'worldline.showTurnChanges';
  return m.withChat ? 'worldline.restoreProseAndChat' : 'worldline.restoreProseOnly';
}
