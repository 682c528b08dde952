// Import SillyTavern Chat… and Export Session as SillyTavern Chat as the novelist meets them:
// which source (one chat file, or a character's chat folder and which of its chats), the group
// JSON beside a group chat, files too large or unreadable, the same source imported before, where
// the author's note goes, the new session made current, and the summary; for the export, the save
// dialog and the notice. Over the Prompter port and a small file port; the shell gives the dialogs.
// The source files are only ever read.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { entryPath, numberedPath } from '../../codex/entryFile';
import { formatCodexFile } from '../../codex/file';
import { writeFileAtomic } from '../../common/atomic-write';
import { ofCount, type Say, type Text } from '../../common/text';
import type { Prompter } from '../../protocol/prompter';
import type { SessionLibrary } from '../../session/library';
import type { Session } from '../../session/session';
import type { Branch } from '../../story/branch';
import { branchToExport, exportChat, metadataFromState, type BranchReader, type ExportMessage } from './export';
import { chatFamilies } from './families';
import { findImport, fingerprintOf, IMPORT_RECORD_FILE, parseImportRecord, withImport } from './importRecord';
import { isGroupJsonError, readChatFile, readGroupJson, type GroupInfo } from './read';
import { ImportTooLargeError, importChats, type ImportedSession } from './sessionLines';
import type { ChatFile, ImportCounts } from './types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** A chat file larger than this is refused before it is read (SillyTavern's largest reported chats are tens of MB). */
export const MAX_CHAT_FILE_BYTES = 128 * 1024 * 1024;
/** A group JSON is small; a large one is not one. */
const MAX_GROUP_FILE_BYTES = 4 * 1024 * 1024;
/** Group files looked through for the one listing a chat. */
const MAX_GROUP_FILES = 1000;
/** Skipped lines named in the notification (all of them go to the log). */
const LINES_NAMED = 5;

/** What the flows do on disk. Paths are the platform's own. */
export interface ChatImportFiles {
  /** Undefined when there is nothing at `file`. */
  stat(file: string): Promise<{ size: number; isDirectory: boolean } | undefined>;
  /** The names in a folder. */
  list(folder: string): Promise<string[]>;
  readText(file: string): Promise<string>;
  /** Creates the file and its folders; never replaces one (flag 'wx': EEXIST when it is there). */
  writeNew(file: string, text: string): Promise<void>;
  /** Replaces the file whole, atomically (its folders made). */
  replace(file: string, text: string): Promise<void>;
}

/** The file port on Node's fs. */
export const nodeChatFiles: ChatImportFiles = {
  async stat(file) {
    try {
      const s = await fsp.stat(file);
      return { size: s.size, isDirectory: s.isDirectory() };
    } catch {
      return undefined;
    }
  },
  list: (folder) => fsp.readdir(folder),
  readText: (file) => fsp.readFile(file, 'utf8'),
  async writeNew(file, text) {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, text, { flag: 'wx' });
  },
  async replace(file, text) {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
  },
};

/** What the flows need of the open novel (the shell's NovelWorkspace, adapted). */
export interface ChatImportNovel {
  /** The book folder. */
  readonly root: string;
  /** worldline.yaml `codex:`, relative to the book. */
  readonly codexFolder: string;
  readonly library: Pick<SessionLibrary, 'createFromLines' | 'list'>;
  /** The current session: what the export reads its branch from. */
  readonly session: (BranchReader & Pick<Session, 'title' | 'leafId'>) | undefined;
  /** The current session's branch at its leaf (its scene state); undefined without a session. */
  branch(): Branch | undefined;
  /** Makes that session current (it opens in the Chat). */
  open(id: string): Promise<unknown>;
}

export interface ChatImportHost {
  readonly prompter: Prompter;
  readonly files: ChatImportFiles;
  readonly log: { info(message: string): void; warn(message: string): void };
  /** The shell's translator: the summary is made of translated parts, and the codex entry's name is written in the novelist's language. */
  readonly say: Say;
  /** The open novel; undefined without a folder. */
  novel(): ChatImportNovel | undefined;
  /** False (the refusal said) while a turn is running. */
  idle(action: Text): boolean;
  /** The open dialog: one chat file, or a folder of them. */
  pickSource(): PromiseLike<string | undefined>;
  /** The save dialog, starting at `defaultPath`; undefined when cancelled. */
  chooseTarget(title: Text, defaultPath: string): PromiseLike<string | undefined>;
  now?(): Date;
}

/** What Import SillyTavern Chat… did: the session made (or the one opened instead), and its counts. */
export type ChatImportOutcome =
  | { kind: 'imported'; sessionId: string; counts: ImportCounts; codexFiles: string[] }
  | { kind: 'opened'; sessionId: string };

/** A chat file as read, with its text (for the fingerprint). */
interface ReadFile {
  file: string;
  text: string;
  chat: ChatFile;
  /** A group chat's group JSON, when found beside it. */
  group?: GroupInfo;
}

/** What happens when the source was imported before: the command's argument can say, for tests and keybindings. */
export type Reimport = 'ask' | 'copy' | 'open';

export class ChatImportFlows {
  constructor(private readonly host: ChatImportHost) {}

  /** Import SillyTavern Chat…: `source` a chat file or a chat folder (else the open dialog). */
  async importChat(source?: string, reimport: Reimport = 'ask'): Promise<ChatImportOutcome | undefined> {
    const { prompter, files } = this.host;
    const novel = this.host.novel();
    if (!novel) {
      void prompter.notify('warning', l10n.t('Open the folder of your novel first (File > Open Folder).'));
      return undefined;
    }
    if (!this.host.idle(l10n.t('import a chat'))) return undefined;
    const picked = source ?? await this.host.pickSource();
    if (!picked) return undefined;
    const stat = await files.stat(picked);
    if (!stat) {
      void prompter.notify('error', l10n.t('{0} is not there any more.', picked));
      return undefined;
    }
    const candidates = stat.isDirectory
      ? (await files.list(picked)).filter((n) => n.toLowerCase().endsWith('.jsonl')).sort().map((n) => path.join(picked, n))
      : [picked];
    if (candidates.length === 0) {
      void prompter.notify('warning', l10n.t('{0} holds no SillyTavern chats (*.jsonl files).', picked));
      return undefined;
    }

    const problems: string[] = [];
    const read: ReadFile[] = [];
    for (const file of candidates) {
      const got = await this.readOne(file);
      if ('problem' in got) problems.push(got.problem);
      else read.push(got);
    }
    if (read.length === 0) {
      void prompter.notify('error', literal(problems.join(' ')));
      return undefined;
    }

    const family = await this.chooseFamily(read);
    if (!family) return undefined;
    const main = family.main;
    const fingerprint = fingerprintOf(family.files.map((f) => ({ name: path.basename(f.file), text: f.text })));
    const recordFile = path.join(novel.root, ...IMPORT_RECORD_FILE.split('/'));
    const record = parseImportRecord(await files.readText(recordFile).catch(() => undefined));
    const sessions = await novel.library.list();
    const before = findImport(record, fingerprint, (id) => sessions.some((s) => s.id === id));
    if (before) {
      const title = sessions.find((s) => s.id === before.sessionId)?.title ?? before.sessionId;
      let choice = reimport;
      if (choice === 'ask') {
        const copy = l10n.t('Import a New Copy');
        const open = l10n.t('Open the Imported Session');
        const answer = await prompter.notify('warning', l10n.t('"{0}" was imported already, as the session "{1}".', main, title), copy, open);
        choice = answer?.message === copy.message ? 'copy' : answer?.message === open.message ? 'open' : 'ask';
      }
      if (choice === 'open') {
        await novel.open(before.sessionId);
        return { kind: 'opened', sessionId: before.sessionId };
      }
      if (choice !== 'copy') return undefined;
    }

    const codexRoot = path.join(novel.root, ...novel.codexFolder.split('/'));
    const hasCodex = (await files.stat(codexRoot))?.isDirectory === true;
    const now = this.host.now?.() ?? new Date();
    // A group chat is named by its group (its file by a date).
    const groupName = family.files.find((f) => f.group?.name)?.group?.name.trim();
    const title = groupName ? `${groupName} (SillyTavern)` : undefined;
    // What the build (run by the library with the new session's id) made, or why it refused.
    const built: { made?: Extract<ImportedSession, { ok: true }>; refused?: Text } = {};
    let session: Session;
    try {
      session = await novel.library.createFromLines((id) => {
        const result = importChats(family.files.map((f) => f.chat), { newId: id, now: now.getTime(), main, authorsNote: hasCodex ? 'codex' : 'state', ...(title ? { title } : {}) });
        if (!result.ok) {
          built.refused = result.error;
          throw new Error(result.error.message);
        }
        built.made = result;
        return result.lines;
      });
    } catch (err) {
      // Refused before writing (too many entries), or while writing (past the size limits: the
      // library removed what was written).
      const refused = built.refused ?? (err instanceof ImportTooLargeError ? err.text : undefined);
      if (refused) {
        void prompter.notify('error', refused);
        return undefined;
      }
      throw err;
    }
    const result = built.made;
    if (!result) return undefined;
    const codexFiles = hasCodex ? await this.writeNotes(novel, result.authorsNotes) : [];
    try {
      await files.replace(recordFile, withImport(record, { fingerprint, sessionId: session.header.id, source: main, importedAt: now.toISOString() }));
    } catch (err) {
      // The session is made; only a later import of the same chat will not be noticed.
      this.host.log.warn(`import: ${IMPORT_RECORD_FILE} not written: ${err instanceof Error ? err.message : String(err)}`);
    }
    await novel.open(session.header.id);

    for (const f of family.files) {
      for (const s of f.chat.skipped) this.host.log.warn(`import: ${path.basename(f.file)} line ${s.line} skipped: ${s.reason}`);
    }
    const summary = this.summary(result.title, result.counts, family.files, codexFiles, problems);
    const worry = result.counts.skippedLines > 0 || problems.length > 0;
    this.host.log.info(`import: ${summary}`);
    void prompter.notify(worry ? 'warning' : 'info', literal(summary));
    return { kind: 'imported', sessionId: session.header.id, counts: result.counts, codexFiles };
  }

  /** Export Session as SillyTavern Chat: the current branch, its variants as swipes; the file written, or undefined. */
  async exportChat(target?: string): Promise<string | undefined> {
    const { prompter } = this.host;
    const novel = this.host.novel();
    const session = novel?.session;
    const branch = novel?.branch();
    if (!novel || !session || !branch) {
      void prompter.notify('warning', l10n.t('Open a session first: the export writes its current branch.'));
      return undefined;
    }
    const title = session.title;
    const chosen = target ?? await this.host.chooseTarget(l10n.t('Export Session as SillyTavern Chat'), path.join(novel.root, `${safeFileName(title)}.jsonl`));
    if (!chosen) return undefined;
    const exported = branchToExport(session, { leafId: session.leafId });
    const text = exportChat({
      messages: exported,
      metadata: metadataFromState(branch.state.state),
      // For Worldline's own turns: the names the imported messages had, else the novelist and the title.
      userName: speakerOf(exported, true) ?? this.host.say(l10n.t('You')),
      characterName: speakerOf(exported, false) ?? title,
      now: (this.host.now?.() ?? new Date()).getTime(),
    });
    await this.host.files.replace(chosen, text);
    void prompter.notify('info', l10n.t('Exported the current branch to {0}.', path.basename(chosen)));
    return chosen;
  }

  /** One chat file read (its group JSON beside it when the folder layout has one), or why not. */
  private async readOne(file: string): Promise<ReadFile | { problem: string }> {
    const { files, say } = this.host;
    const base = path.basename(file);
    const stat = await files.stat(file);
    if (!stat || stat.isDirectory) return { problem: say(l10n.t('{0} is not a file.', base)) };
    if (stat.size > MAX_CHAT_FILE_BYTES) {
      return { problem: say(l10n.t('{0} is too large to import ({1} MB; the limit is {2} MB).', base, Math.ceil(stat.size / 2 ** 20), MAX_CHAT_FILE_BYTES / 2 ** 20)) };
    }
    let text: string;
    try {
      text = await files.readText(file);
    } catch (err) {
      this.host.log.warn(`import: ${file} could not be read: ${err instanceof Error ? err.message : String(err)}`);
      return { problem: say(l10n.t('{0} could not be read: {1}', base, err instanceof Error ? err.message : String(err))) };
    }
    const name = base.replace(/\.jsonl$/iu, '');
    const group = await this.groupOf(file, name);
    try {
      return { file, text, chat: readChatFile({ name, text, ...(group ? { group } : {}) }), ...(group ? { group } : {}) };
    } catch (err) {
      return { problem: say(l10n.t('{0} is not a SillyTavern chat: {1}', base, err instanceof Error ? err.message : String(err))) };
    }
  }

  /**
   * SillyTavern keeps a group's chats in `<user>/group chats/<chat>.jsonl` and the group in
   * `<user>/groups/<group>.json`: before groups had several chats the chat was named by the group's
   * id, since then the group lists its chats (`chats`, `chat_id`). Read when it is there.
   */
  private async groupOf(file: string, name: string): Promise<GroupInfo | undefined> {
    const folder = path.dirname(file);
    if (path.basename(folder).toLowerCase() !== 'group chats') return undefined;
    const groups = path.join(path.dirname(folder), 'groups');
    const same = path.join(groups, `${name}.json`);
    const text = await this.smallText(same) ?? await this.listingGroup(groups, name);
    if (text === undefined) return undefined;
    const group = readGroupJson(text);
    if (!isGroupJsonError(group)) return group;
    this.host.log.warn(`import: the group of ${path.basename(file)} not used: ${group.error}`);
    return undefined;
  }

  /** The text of the group file that lists `chat` among its chats. */
  private async listingGroup(groups: string, chat: string): Promise<string | undefined> {
    const names = (await this.host.files.list(groups).catch(() => [] as string[])).filter((n) => n.toLowerCase().endsWith('.json')).slice(0, MAX_GROUP_FILES);
    for (const n of names) {
      const text = await this.smallText(path.join(groups, n));
      if (text !== undefined && listsChat(text, chat)) return text;
    }
    return undefined;
  }

  /** A small file's text; undefined when it is not there, too large or unreadable. */
  private async smallText(file: string): Promise<string | undefined> {
    const stat = await this.host.files.stat(file);
    if (!stat || stat.isDirectory || stat.size > MAX_GROUP_FILE_BYTES) return undefined;
    return this.host.files.readText(file).catch(() => undefined);
  }

  /** The chat to import: the only family, or the one picked. */
  private async chooseFamily(read: ReadFile[]): Promise<{ main: string; files: ReadFile[] } | undefined> {
    const linked = read.map((r) => ({ name: r.chat.name, ...(r.chat.mainChat !== undefined ? { mainChat: r.chat.mainChat } : {}), read: r }));
    const families = chatFamilies(linked).map((f) => ({ main: f.root.name, files: f.files.map((x) => x.read) }));
    if (families.length === 1) return families[0];
    return this.host.prompter.pick(families.map((f) => {
      const messages = Math.max(0, ...f.files.map((r) => r.chat.messages.length));
      const branches = f.files.length - 1;
      return {
        label: literal(f.main),
        description: literal(`${this.host.say(ofCount(messages, l10n.t('{0} message', messages), l10n.t('{0} messages', messages)))} · ${this.host.say(ofCount(branches, l10n.t('{0} branch', branches), l10n.t('{0} branches', branches)))}`),
        value: f,
      };
    }), { title: l10n.t('Import SillyTavern Chat'), placeHolder: l10n.t('This folder holds several chats: which one?') });
  }

  /** The author's notes as codex `always` entries; a taken path gets `-2`, `-3`… (nothing overwritten). Book-relative paths written. */
  private async writeNotes(novel: ChatImportNovel, notes: readonly { file: string; text: string }[]): Promise<string[]> {
    const written: string[] = [];
    for (const note of notes) {
      const name = this.host.say(l10n.t("Author's note of {0}", note.file));
      const text = formatCodexFile({ name, kind: 'style', keys: [], secondaryKeys: [], logic: 'and-any', always: true, priority: 0, disabled: false, body: note.text });
      const first = entryPath(novel.codexFolder, 'style', name);
      for (let n = 1; n <= 100; n++) {
        const rel = n === 1 ? first : numberedPath(first, n);
        try {
          await this.host.files.writeNew(path.join(novel.root, ...rel.split('/')), text);
          written.push(rel);
          break;
        } catch (err) {
          if ((err as { code?: unknown }).code !== 'EEXIST') {
            this.host.log.warn(`import: ${rel} not written: ${err instanceof Error ? err.message : String(err)}`);
            break;
          }
        }
      }
    }
    return written;
  }

  /** The notification: what was imported, then what was left out and where to read more. */
  private summary(title: string, c: ImportCounts, read: readonly ReadFile[], codexFiles: readonly string[], problems: readonly string[]): string {
    const say = this.host.say;
    const parts = [say(l10n.t('Imported "{0}": {1}, {2}, {3}, {4}.', title,
      say(ofCount(c.messages, l10n.t('{0} message', c.messages), l10n.t('{0} messages', c.messages))),
      say(ofCount(c.variants, l10n.t('{0} variant', c.variants), l10n.t('{0} variants', c.variants))),
      say(ofCount(c.branches, l10n.t('{0} branch', c.branches), l10n.t('{0} branches', c.branches))),
      say(ofCount(c.hidden, l10n.t('{0} hidden message', c.hidden), l10n.t('{0} hidden messages', c.hidden)))))];
    if (c.skippedLines > 0) {
      const where = read.filter((r) => r.chat.skipped.length > 0)
        .map((r) => `${path.basename(r.file)}: ${r.chat.skipped.map((s) => s.line).slice(0, LINES_NAMED).join(', ')}${r.chat.skipped.length > LINES_NAMED ? ', …' : ''}`)
        .join('; ');
      parts.push(say(ofCount(c.skippedLines,
        l10n.t('{0} line could not be read and was skipped ({1}); the Worldline log says why.', c.skippedLines, where),
        l10n.t('{0} lines could not be read and were skipped ({1}); the Worldline log says why.', c.skippedLines, where))));
    }
    if (c.systemNotices > 0) {
      parts.push(say(ofCount(c.systemNotices,
        l10n.t("{0} of SillyTavern's own system notices was left out.", c.systemNotices),
        l10n.t("{0} of SillyTavern's own system notices were left out.", c.systemNotices))));
    }
    if (codexFiles.length > 0) parts.push(say(l10n.t("The author's note is in the codex: {0}.", codexFiles.join(', '))));
    parts.push(...problems);
    return parts.join(' ');
  }
}

/** The group JSON lists `chat` among its chats (or as its current one). */
function listsChat(text: string, chat: string): boolean {
  try {
    const o: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (typeof o !== 'object' || o === null) return false;
    const g = o as { chats?: unknown; chat_id?: unknown };
    return (Array.isArray(g.chats) && g.chats.some((c) => String(c) === chat)) || String(g.chat_id) === chat;
  } catch {
    return false;
  }
}

/** The first speaker's name on the user's side (or the character's) among the exported messages. */
function speakerOf(messages: readonly ExportMessage[], user: boolean): string | undefined {
  return messages.find((m) => m.isUser === user && m.name !== '')?.name;
}

/** A title as a file name on every system. */
function safeFileName(title: string): string {
  const s = title.replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/gu, '-').replace(/[. ]+$/u, '').trim();
  return s === '' ? 'chat' : s.slice(0, 100);
}
