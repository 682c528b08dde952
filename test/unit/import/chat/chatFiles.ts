// ChatFile values built directly (as the reader would make them), so the join and the session lines
// are tested on exactly the branch sets a test needs.
import type { ChatFile, ChatMessage, ChatSwipe } from '../../../../src/import/chat/types';

/** One message: `u` (the user) or `c` (the character) with one text or several swipes. */
export interface Msg {
  u?: string | string[];
  c?: string | string[];
  /** The chosen swipe (default 0). */
  pick?: number;
  hidden?: boolean;
  name?: string;
  fields?: Record<string, unknown>;
  swipe?: Partial<ChatSwipe>;
}

export const USER = 'Le';
export const CHAR = 'Seraphina';

export function message(m: Msg, line: number): ChatMessage {
  const isUser = m.u !== undefined;
  const texts = ([] as string[]).concat((isUser ? m.u : m.c) ?? '');
  const swipes: ChatSwipe[] = texts.map((text) => ({ text, ...m.swipe }));
  return {
    line,
    name: m.name ?? (isUser ? USER : CHAR),
    isUser,
    hidden: m.hidden ?? false,
    swipes,
    chosen: m.pick ?? 0,
    ...(m.fields ? { fields: m.fields } : {}),
  };
}

export function chat(name: string, msgs: readonly Msg[], opts: { mainChat?: string; metadata?: Record<string, unknown>; characterName?: string } = {}): ChatFile {
  const metadata = { ...opts.metadata, ...(opts.mainChat !== undefined ? { main_chat: opts.mainChat } : {}) };
  return {
    name,
    shape: 'named',
    userName: USER,
    characterName: opts.characterName ?? CHAR,
    metadata,
    ...(opts.mainChat !== undefined ? { mainChat: opts.mainChat } : {}),
    isGroup: false,
    messages: msgs.map((m, i) => message(m, i + 2)),
    skipped: [],
    systemNotices: 0,
  };
}

/** The shown text of each message of a file, in line order. */
export function shownTexts(file: ChatFile): string[] {
  return file.messages.map((m) => m.swipes[m.chosen]?.text ?? '');
}
