// The shapes shared by the SillyTavern chat import and export (DESIGN, "Import"): a chat file as
// read (read.ts), the tree it joins into (join.ts), and what the import tells the novelist.
// Plain data: nothing here touches the disk.

/** How line 1 of a chat file looks; SillyTavern has written all four over the years. */
export type HeaderShape =
  /** `{user_name, character_name, create_date, chat_metadata}` (2023–2024). */
  | 'named'
  /** `{user_name, character_name, create_date}` with no `chat_metadata` (before metadata existed). */
  | 'named-without-metadata'
  /** `{chat_metadata, user_name: 'unused', character_name: 'unused'}` (2025 on). */
  | 'unused-names'
  /** No header: line 1 is already a message (group chats before 2025; metadata lived in the group JSON). */
  | 'headerless';

/** A line that was not imported, and why (1-based line number). */
export interface SkippedLine {
  line: number;
  reason: string;
}

/** One alternative text of a message slot (a swipe). */
export interface ChatSwipe {
  text: string;
  /** `send_date` exactly as written (string or number); kept for export back. */
  sendDate?: string | number;
  /** The same date as ISO 8601, when it is one of SillyTavern's formats. */
  sendIso?: string;
  /** `extra.reasoning` of this swipe: kept as metadata, never as text. */
  reasoning?: string;
  /** The swipe's `extra`, without `reasoning` (kept for export back). */
  extra?: Record<string, unknown>;
  /** The rest of the swipe's `swipe_info` item (gen_started, gen_finished…), for export back. */
  info?: Record<string, unknown>;
}

/** One message of a chat file, in line order. */
export interface ChatMessage {
  /** 1-based line in its file. */
  line: number;
  /** The speaker as written (`name`), `{{user}}`/`{{char}}` resolved. */
  name: string;
  isUser: boolean;
  /** `is_system` on a story message: hidden by /hide, out of the prompt. */
  hidden: boolean;
  /** The swipes of the slot, at least one; `swipes[chosen]` holds the shown text (`mes`). */
  swipes: ChatSwipe[];
  /** `swipe_id` (0 when the message has no swipes). */
  chosen: number;
  /** The message's other top-level fields (title, force_avatar, extension data…), for export back. */
  fields?: Record<string, unknown>;
}

/** A chat file as read. */
export interface ChatFile {
  /** The file name without `.jsonl`: the chat's name, the one `main_chat` links to. */
  name: string;
  shape: HeaderShape;
  /** Names from the header; undefined when absent or `'unused'`. */
  userName?: string;
  characterName?: string;
  /** `create_date` as written. */
  createDate?: string;
  /** `chat_metadata` ({} when there is none). */
  metadata: Record<string, unknown>;
  /** `chat_metadata.main_chat`: the chat this one was branched or checkpointed from. */
  mainChat?: string;
  isGroup: boolean;
  messages: ChatMessage[];
  skipped: SkippedLine[];
  /** True system notices (SillyTavern's own help, welcome, errors…): not story messages, left out. */
  systemNotices: number;
}

/** On an imported message's session entry (`imported`). */
export type { ImportedFrom } from '../../session/entries';

/** What one import did, for its summary. */
export interface ImportCounts {
  /** Message slots on the joined tree (a slot shared by several files counts once). */
  messages: number;
  /** Swipes beyond the first of their slot, and texts that differ between files: sibling variants. */
  variants: number;
  /** Chat files joined (the chat and its branches and checkpoints). */
  files: number;
  /** Places where files part (the tree's forks between files). */
  branches: number;
  hidden: number;
  skippedLines: number;
  systemNotices: number;
}

/** The scene-state variable an imported author's note goes into when there is no codex for it. */
export const AUTHORS_NOTE_VARIABLE = 'authors_note';
