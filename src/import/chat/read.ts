// One SillyTavern chat file (JSONL) read into a ChatFile (types.ts), following what SillyTavern's own
// loading code does with every historical shape and every missing field. The rules, each with its
// place in SillyTavern's source, are in README.md next to this file.
// Never throws on content: a line that is not a message goes to `skipped` with its line number and
// why; everything else is imported. One JSON.parse per line, no work that grows faster than the file.
import type { ChatFile, ChatMessage, ChatSwipe, HeaderShape, SkippedLine } from './types';
import { sendDateIso } from './dates';

const l10n = { t: (s: string): string => s };

const REASON = {
  notJson: l10n.t('This line is not valid JSON (damaged, or changed by hand), so it is not a message. SillyTavern leaves such lines out too; the rest of the chat was imported.'),
  torn: l10n.t('The last line is cut off, probably because SillyTavern was still saving the file when it stopped. Everything before it was imported.'),
  notObject: l10n.t('This line is valid JSON but not a chat message: a message is a JSON object with a name and a text.'),
  notMessage: l10n.t('This JSON object has none of the fields of a chat message (name, mes, is_user), so it was left out.'),
  secondHeader: l10n.t('This line is a chat header in the middle of the file; only the first line of a chat can be its header, so it was left out.'),
};

/** A group's definition (`groups/<id>.json`): where headerless group chats keep their metadata. */
export interface GroupInfo {
  name: string;
  /** Member characters, by avatar file name (as SillyTavern stores them). */
  members: string[];
  /** The group's current chat (`chat_id`): its metadata is `chatMetadata`. */
  chatId?: string;
  chatMetadata?: Record<string, unknown>;
  /** The metadata of the group's other chats, by chat name (`past_metadata`). */
  pastMetadata?: Record<string, Record<string, unknown>>;
}

export interface GroupJsonError {
  error: string;
}

/** SillyTavern's system message types that are its own notices, not story (script.js:559-573). */
const NOTICE_TYPES: ReadonlySet<string> = new Set([
  'help', 'welcome', 'group', 'empty', 'generic', 'slash_commands', 'formatting', 'hotkeys', 'macros',
  'welcome_prompt', 'assistant_note',
  // Older builds' checkpoint notices (`system_message_types.BOOKMARK_CREATED` / `BOOKMARK_BACK`).
  'bookmark_created', 'bookmark_back',
]);
/** `systemUserName` (script.js:491): the speaker of every notice. */
const SYSTEM_USER_NAME = 'SillyTavern System';

/** Top-level message keys the reader turns into ChatMessage/ChatSwipe fields; the rest go to `fields`. */
const MESSAGE_KEYS: ReadonlySet<string> = new Set([
  'name', 'is_user', 'is_system', 'send_date', 'mes', 'swipes', 'swipe_id', 'swipe_info', 'extra', 'gen_started', 'gen_finished',
]);
/** A `swipe_info` item's keys that are ChatSwipe fields; the rest stay in `info`. */
const SWIPE_INFO_KEYS: ReadonlySet<string> = new Set(['send_date', 'extra']);
/** Keys that make an object a message rather than some other JSON object. */
const MESSAGE_MARKERS = ['mes', 'name', 'is_user', 'is_system', 'swipes', 'send_date', 'extra'];
const HEADER_MARKERS = ['user_name', 'character_name', 'chat_metadata', 'create_date'];

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object without the given keys; the same object when it has none of them (no copy). */
function without(o: Json, keys: ReadonlySet<string>): Json {
  let has = false;
  for (const k in o) {
    if (keys.has(k)) {
      has = true;
      break;
    }
  }
  if (!has) return o;
  const out: Json = {};
  for (const k in o) if (!keys.has(k)) out[k] = o[k];
  return out;
}

const REASONING_KEY: ReadonlySet<string> = new Set(['reasoning']);

const nonEmpty = (o: Json): Json | undefined => {
  for (const _ in o) return o;
  return undefined;
};

/** A message text as SillyTavern would hold it: missing is empty, anything else becomes text. */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function isHeader(o: Json): boolean {
  if ('mes' in o || 'is_user' in o) return false;
  return HEADER_MARKERS.some((k) => k in o);
}

function isMessage(o: Json): boolean {
  return MESSAGE_MARKERS.some((k) => k in o);
}

function headerName(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && v !== 'unused' ? v : undefined;
}

function shapeOf(o: Json): HeaderShape {
  if (!('chat_metadata' in o)) return 'named-without-metadata';
  const unused = o.user_name === 'unused' || o.character_name === 'unused' || (o.user_name === undefined && o.character_name === undefined);
  return unused ? 'unused-names' : 'named';
}

/** A SillyTavern notice (help, welcome, "group created"…), not a story message. */
function isNotice(o: Json, extra: Json | undefined): boolean {
  const type = extra?.type;
  if (typeof type === 'string' && NOTICE_TYPES.has(type)) return true;
  if (type === 'narrator' || type === 'comment') return false;
  return o.name === SYSTEM_USER_NAME && !!o.is_system && !o.is_user;
}

function swipeFrom(text: string, sendDate: unknown, extra: unknown, info: Json | undefined): ChatSwipe {
  const swipe: ChatSwipe = { text };
  if (typeof sendDate === 'string' || typeof sendDate === 'number') {
    swipe.sendDate = sendDate;
    const iso = sendDateIso(sendDate);
    if (iso !== undefined) swipe.sendIso = iso;
  }
  // `extra` split into its reasoning (metadata, never text) and the rest.
  if (isObject(extra)) {
    const reasoning = extra.reasoning;
    if (typeof reasoning === 'string') {
      swipe.reasoning = reasoning;
      const rest = nonEmpty(without(extra, REASONING_KEY));
      if (rest) swipe.extra = rest;
    } else if (nonEmpty(extra)) swipe.extra = extra;
  }
  if (info) swipe.info = info;
  return swipe;
}

/**
 * The slot's swipes. `mes` wins for the chosen one, with the message's own send_date, extra and
 * gen_started/gen_finished (SillyTavern copies them into `swipe_info` on the next save:
 * syncMesToSwipe). Missing `swipes` is `[mes]` (script.js:8276-8282); a `swipe_id` that names no
 * swipe gets the shown text as the swipe it chose (the state of a swipe being generated, :8304-8307).
 */
function swipesOf(o: Json, mes: string): { swipes: ChatSwipe[]; chosen: number } {
  const raw = Array.isArray(o.swipes) && o.swipes.length > 0 ? o.swipes : undefined;
  const infos = Array.isArray(o.swipe_info) ? o.swipe_info : [];
  const texts = raw ? raw.map(textOf) : [mes];
  let chosen = 0;
  if (raw) {
    const id = o.swipe_id;
    if (typeof id === 'number' && Number.isInteger(id) && id >= 0 && id < texts.length) chosen = id;
    else {
      const same = texts.indexOf(mes);
      chosen = same >= 0 ? same : texts.push(mes) - 1;
    }
  }
  const swipes: ChatSwipe[] = new Array<ChatSwipe>(texts.length);
  for (let i = 0; i < texts.length; i++) {
    // swipe_info shorter than swipes: the swipe has no info of its own (SillyTavern then shows the
    // message's send_date and extra, script.js:8160-8161); longer: the surplus is never read.
    const item = isObject(infos[i]) ? (infos[i] as Json) : undefined;
    if (i === chosen) {
      // One copy: the item's own fields, then the message's generation times over them.
      let info: Json | undefined = item ? nonEmpty(without(item, SWIPE_INFO_KEYS)) : undefined;
      if ('gen_started' in o || 'gen_finished' in o) {
        if (info === item || info === undefined) info = info ? { ...info } : {};
        if ('gen_started' in o) info.gen_started = o.gen_started;
        if ('gen_finished' in o) info.gen_finished = o.gen_finished;
      }
      swipes[i] = swipeFrom(mes, o.send_date, o.extra, info);
    } else {
      swipes[i] = item ? swipeFrom(texts[i]!, item.send_date, item.extra, nonEmpty(without(item, SWIPE_INFO_KEYS))) : { text: texts[i]! };
    }
  }
  return { swipes, chosen };
}

// SillyTavern's evaluateMacros replaces these case-insensitively (macros.js:424-427, 452).
const USER_MACRO = /\{\{user\}\}|<USER>/gi;
const CHAR_MACRO = /\{\{char\}\}|<BOT>|<CHAR>/gi;

function resolveMacros(text: string, user: string | undefined, char: string | undefined): string {
  if (!text.includes('{{') && !text.includes('<')) return text;
  let out = text;
  if (user !== undefined) out = out.replace(USER_MACRO, () => user);
  if (char !== undefined) out = out.replace(CHAR_MACRO, () => char);
  return out;
}

export interface ReadChatInput {
  /** The file name without `.jsonl` (the name `main_chat` links to). */
  name: string;
  text: string;
  /** The group's definition, for a group chat (its metadata when the chat has no header). */
  group?: GroupInfo;
}

/** Reads one chat file. Never throws on content; see the file comment. */
export function readChatFile(input: ReadChatInput): ChatFile {
  let text = input.text;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && isBlank(lines[last]!)) last--;

  const skipped: SkippedLine[] = [];
  const messages: ChatMessage[] = [];
  let header: Json | undefined;
  let seenFirst = false;
  let systemNotices = 0;
  let isGroup = false;
  let firstUserName: string | undefined;
  /** The chat's message 0 (notices count: they are in SillyTavern's `chat` array too). */
  let first: { message: ChatMessage; story: boolean } | undefined;

  for (let i = 0; i <= last; i++) {
    const line = lines[i]!;
    if (isBlank(line)) continue;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: i === last ? REASON.torn : REASON.notJson });
      continue;
    }
    if (!isObject(o)) {
      skipped.push({ line: i + 1, reason: REASON.notObject });
      continue;
    }
    if (isHeader(o)) {
      if (seenFirst) skipped.push({ line: i + 1, reason: REASON.secondHeader });
      else header = o;
      seenFirst = true;
      continue;
    }
    seenFirst = true;
    if (!isMessage(o)) {
      skipped.push({ line: i + 1, reason: REASON.notMessage });
      continue;
    }
    if (o.is_group === true) isGroup = true;
    const extra = isObject(o.extra) ? o.extra : undefined;
    if (isNotice(o, extra)) {
      systemNotices++;
      if (!first) first = { message: { line: i + 1, name: '', isUser: false, hidden: true, swipes: [{ text: '' }], chosen: 0 }, story: false };
      continue;
    }
    const isUser = !!o.is_user;
    const name = typeof o.name === 'string' ? o.name : '';
    if (isUser && firstUserName === undefined && name !== '') firstUserName = name;
    const { swipes, chosen } = swipesOf(o, textOf(o.mes));
    const message: ChatMessage = { line: i + 1, name, isUser, hidden: !!o.is_system, swipes, chosen };
    let fields: Json | undefined;
    for (const k in o) {
      if (MESSAGE_KEYS.has(k)) continue;
      (fields ??= {})[k] = o[k];
    }
    if (fields) message.fields = fields;
    messages.push(message);
    // messageFormatting resolves macros in message 0 only, when it is neither the user's nor a
    // system one (script.js:1920-1927).
    if (!first) first = { message, story: !isUser && !message.hidden };
  }

  const shape: HeaderShape = header ? shapeOf(header) : 'headerless';
  const userName = header ? headerName(header.user_name) : undefined;
  const characterName = header ? headerName(header.character_name) : undefined;
  const fromHeader = header && isObject(header.chat_metadata) ? header.chat_metadata : undefined;
  const metadata = fromHeader ?? groupMetadata(input.group, input.name) ?? {};

  for (const m of messages) {
    if (m.name !== '') continue;
    // A nameless message: SillyTavern shows the current persona's or character's name.
    const fallback = m.isUser ? (userName ?? firstUserName) : characterName;
    if (fallback !== undefined) m.name = fallback;
  }
  if (first?.story) {
    const m = first.message;
    const user = userName ?? firstUserName;
    const char = m.name !== '' ? m.name : characterName;
    for (const s of m.swipes) s.text = resolveMacros(s.text, user, char);
  }

  const file: ChatFile = {
    name: input.name,
    shape,
    metadata,
    isGroup: isGroup || shape === 'headerless' || input.group !== undefined,
    messages,
    skipped,
    systemNotices,
  };
  if (userName !== undefined) file.userName = userName;
  if (characterName !== undefined) file.characterName = characterName;
  if (header && (typeof header.create_date === 'string' || typeof header.create_date === 'number')) {
    file.createDate = String(header.create_date);
  }
  const main = metadata.main_chat;
  if (typeof main === 'string' && main !== '') file.mainChat = main;
  return file;
}

function isBlank(line: string): boolean {
  if (line.length === 0) return true;
  const c = line.charCodeAt(0);
  // Only a line that starts with white space can be blank; checking the first character keeps
  // the megabyte lines of a long chat from being copied by trim().
  return (c === 32 || c === 9 || c === 13) && line.trim() === '';
}

/** A headerless group chat's metadata: the group's current chat's, else its `past_metadata` (group-chats.js:1799-1805). */
function groupMetadata(group: GroupInfo | undefined, chatName: string): Record<string, unknown> | undefined {
  if (!group) return undefined;
  if (group.chatId === chatName && group.chatMetadata) return group.chatMetadata;
  return group.pastMetadata?.[chatName];
}

/** Reads a group definition (`groups/<id>.json`). */
export function readGroupJson(text: string): GroupInfo | GroupJsonError {
  let o: unknown;
  try {
    o = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return { error: l10n.t('The group file is not valid JSON, so its chats were read without its metadata.') };
  }
  if (!isObject(o) || !Array.isArray(o.members)) {
    return { error: l10n.t('This is not a SillyTavern group file (it has no list of members), so its chats were read without its metadata.') };
  }
  const group: GroupInfo = {
    name: typeof o.name === 'string' ? o.name : '',
    members: o.members.filter((m): m is string => typeof m === 'string'),
  };
  // Groups from before multiple chats had no chat_id: it was the group's id (group-chats.js:618-625).
  const chatId = o.chat_id ?? o.id;
  if (typeof chatId === 'string' || typeof chatId === 'number') group.chatId = String(chatId);
  if (isObject(o.chat_metadata)) group.chatMetadata = o.chat_metadata;
  if (isObject(o.past_metadata)) {
    const past: Record<string, Record<string, unknown>> = {};
    for (const [k, v] of Object.entries(o.past_metadata)) if (isObject(v)) past[k] = v;
    group.pastMetadata = past;
  }
  return group;
}

export function isGroupJsonError(v: GroupInfo | GroupJsonError): v is GroupJsonError {
  return 'error' in v;
}

