// The Codex commands as the novelist meets them: New Codex Entry… (what kind, what name, the file
// at a free path), Rename Codex Entry (the name in the front matter and the file's name), Create
// Entry (a roster name drafted by the side model, shown for review, written only on Write). What
// to ask, in what order, what an answer means and what to say is decided here, over the Prompter
// and the novel's files; the shell gives the editor's part (showing a file, the draft's editor,
// the progress notification) and the side model.
import type { Say, Text } from '../common/text';
import type { Prompter } from '../protocol/prompter';
import type { ChainEntry } from '../session/entries';
import type { Lang, SceneState } from '../state/types';
import { CODEX_WORDS, kindPicks, nameProblem, writeQuestion, written, writtenNotEntry } from './commandWords';
import { draftEntry, turnsNaming, type DraftDeps } from './draft';
import { entryPath, numberedPath, renamedFrontMatter, renamedPath } from './entryFile';
import { formatCodexFile, parseCodexFile } from './file';
import type { NovelFiles } from './novelFiles';
import { codexNodeOf } from './tree';
import { CODEX_KINDS, type CodexEntry, type CodexKind } from './types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** What Create Entry did: the file it wrote, or why not (tests read it). */
export type CreateEntryResult = { written: string } | { discarded: true } | { error: string } | undefined;

/** The open novel as the Codex commands need it. */
export interface CodexNovel {
  readonly files: NovelFiles;
  /** The codex folder (worldline.yaml `codex:`). */
  readonly folder: string;
  /** The novel's language (the draft's). */
  readonly lang: Lang;
  /** The scene state at the leaf (the opening without a session) and the branch's turns. */
  story(): { readonly state: SceneState; readonly path: readonly ChainEntry[] };
}

/** The untitled editor a draft is reviewed in. */
export interface DraftEditor {
  /** The text as the novelist left it. */
  text(): string;
  /** Closes the editor without asking to save it (the text was taken, or discarded). */
  close(): Promise<void>;
}

export interface CodexFlowHost {
  readonly prompter: Prompter;
  readonly log: { info(message: string): void; warn(message: string): void };
  /** The shell's translator, for the error a command returns and the log. */
  readonly say: Say;
  /** The language of a parse error in a reviewed draft (the editor's). */
  readonly uiLang: Lang;
  /** The open novel; undefined without a folder. */
  novel(): CodexNovel | undefined;
  /** The entries the Codex view shows. */
  entries(): readonly CodexEntry[];
  /** The Codex view loads the entries again. */
  reload(): Promise<void>;
  /** Opens a file of the novel in an editor. */
  show(file: string): Promise<unknown>;
  /** The side model that drafts (the scribe's). */
  drafter(): Promise<DraftDeps>;
  /** Work the novelist should see going on (the side model's call). */
  progress<T>(title: Text, work: () => Promise<T>): Promise<T>;
  /** The draft in an untitled Markdown editor. */
  editDraft(text: string): Promise<DraftEditor>;
}

const isKind = (v: unknown): v is CodexKind => (CODEX_KINDS as readonly unknown[]).includes(v);

/**
 * The entry a command was given: the tree's node, or a path the view shows. Anything else (an
 * argument from another extension or the palette) is no entry; the view's own entry is trusted
 * only as far as its path and name, which are all the rename reads.
 */
function entryOf(arg: unknown, entries: readonly CodexEntry[]): CodexEntry | undefined {
  const node = codexNodeOf(arg);
  const entry: unknown = node?.kind === 'entry' ? node.entry : entries.find((e) => e.path === arg);
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { path, name } = entry as { path?: unknown; name?: unknown };
  return typeof path === 'string' && path !== '' && typeof name === 'string' ? (entry as CodexEntry) : undefined;
}

/** The name and kind to draft: a "not in the codex yet" node, or a name given (a character unless told). */
function draftTargetOf(arg: unknown, kindArg: unknown): { name: string; kind: CodexKind } | undefined {
  const node = codexNodeOf(arg);
  const given: unknown = node?.kind === 'missing' ? node.missing : typeof arg === 'string' ? { name: arg, kind: kindArg ?? 'character' } : undefined;
  if (typeof given !== 'object' || given === null) return undefined;
  const { name, kind } = given as { name?: unknown; kind?: unknown };
  return typeof name === 'string' && name.trim() !== '' && isKind(kind) ? { name, kind } : undefined;
}

export class CodexFlows {
  constructor(private readonly host: CodexFlowHost) {}

  /** New Codex Entry…: the path of the file made, or undefined. */
  async newEntry(kindArg?: CodexKind, nameArg?: string): Promise<string | undefined> {
    const novel = this.novelOrSay();
    if (!novel) return undefined;
    // An argument that is not a kind (or a name) is asked for, as if none were given.
    const kind = isKind(kindArg) ? kindArg : await this.host.prompter.pick(kindPicks(), { title: CODEX_WORDS.kindTitle });
    if (!kind) return undefined;
    const name = (typeof nameArg === 'string' ? nameArg : await this.askName(CODEX_WORDS.nameTitle))?.trim();
    if (!name || nameProblem(name)) return undefined;
    const text = formatCodexFile({ name, kind, keys: [name], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: '' });
    const path = await this.writeFree(novel, entryPath(novel.folder, kind, name), text);
    if (path === undefined) return undefined;
    this.host.log.info(`codex entry created: ${path}`);
    await this.host.reload();
    await this.host.show(path);
    return path;
  }

  /** Rename Codex Entry: the entry's path after the rename, or undefined. */
  async renameEntry(arg?: unknown, nameArg?: string): Promise<string | undefined> {
    const novel = this.novelOrSay();
    if (!novel) return undefined;
    const entry = entryOf(arg, this.host.entries());
    if (!entry) {
      void this.host.prompter.notify('warning', CODEX_WORDS.pickEntry);
      return undefined;
    }
    const name = (typeof nameArg === 'string' ? nameArg : await this.askName(CODEX_WORDS.renameTitle, entry.name))?.trim();
    if (!name || nameProblem(name) || name === entry.name) return undefined;
    try {
      const renamed = renamedFrontMatter(await novel.files.read(entry.path), name);
      if (!renamed.ok) {
        void this.host.prompter.notify('error', renamed.error);
        return undefined;
      }
      const target = renamedPath(entry.path, name);
      const path = target === entry.path ? target : await this.freePath(novel, target);
      await novel.files.replace(entry.path, renamed.text);
      if (path !== entry.path) await novel.files.rename(entry.path, path);
      this.host.log.info(`codex entry renamed: ${entry.path} → ${path}`);
      await this.host.reload();
      return path;
    } catch (err) {
      this.fileFailed(entry.path, err);
      return undefined;
    }
  }

  /** Create Entry: the side model's draft for a name "not in the codex yet", written on Write. */
  async createEntry(arg?: unknown, kindArg?: CodexKind): Promise<CreateEntryResult> {
    const novel = this.novelOrSay();
    if (!novel) return undefined;
    const target = draftTargetOf(arg, kindArg);
    if (!target) {
      void this.host.prompter.notify('warning', CODEX_WORDS.pickName);
      return undefined;
    }
    const { state, path: turns } = novel.story();
    const result = await this.host.progress({ ...CODEX_WORDS.drafting, args: [target.name] }, async () => draftEntry(
      await this.host.drafter(),
      { ...target, folder: novel.folder, state, turns: turnsNaming(turns, target.name), lang: novel.lang },
    ));
    if (!result.ok) {
      const error = this.host.say(result.error);
      this.host.log.warn(`codex draft for ${target.name}: ${error}`);
      void this.host.prompter.notify('error', result.error);
      return { error };
    }
    const path = await this.freePath(novel, result.entry.path);
    const draft = await this.host.editDraft(formatCodexFile(result.entry));
    const write = CODEX_WORDS.write;
    const picked = await this.host.prompter.notify('info', writeQuestion(path), write, CODEX_WORDS.discard);
    const text = draft.text();
    await draft.close();
    if (picked?.message !== write.message) return { discarded: true };
    const parsed = parseCodexFile(path, text, { uiLang: this.host.uiLang });
    if (!parsed.ok) {
      const why = writtenNotEntry(path, parsed.error);
      void this.host.prompter.notify('error', why);
      return { error: this.host.say(why) };
    }
    const at = await this.writeFree(novel, path, text);
    if (at === undefined) return { error: this.host.say(l10n.t('The codex file {0} could not be written (see the Worldline log).', path)) };
    this.host.log.info(`codex entry written from a draft: ${at}`);
    await this.host.reload();
    await this.host.show(at);
    void this.host.prompter.notify('info', written(at));
    return { written: at };
  }

  private novelOrSay(): CodexNovel | undefined {
    const novel = this.host.novel();
    if (!novel) void this.host.prompter.notify('warning', CODEX_WORDS.noNovel);
    return novel;
  }

  private askName(title: Text, value?: string): Promise<string | undefined> {
    return this.host.prompter.ask({ title, prompt: CODEX_WORDS.namePrompt, validate: nameProblem, ...(value !== undefined ? { value } : {}) });
  }

  /** `path`, or the first numbered path beside it that no file has yet. */
  private async freePath(novel: CodexNovel, path: string): Promise<string> {
    let candidate = path;
    for (let n = 2; await novel.files.exists(candidate); n++) candidate = numberedPath(path, n);
    return candidate;
  }

  /**
   * Writes a new file at `path` or the first free numbered path beside it; a file that appears
   * there meanwhile is never overwritten (the next number is tried). Undefined, the failure said,
   * when it cannot be written.
   */
  private async writeFree(novel: CodexNovel, path: string, text: string): Promise<string | undefined> {
    let at = await this.freePath(novel, path);
    for (let tries = 0; ; tries++) {
      try {
        await novel.files.writeNew(at, text);
        return at;
      } catch (err) {
        const taken = (err as { code?: unknown }).code === 'EEXIST';
        if (!taken || tries >= 3) {
          this.fileFailed(at, err);
          return undefined;
        }
        at = await this.freePath(novel, path);
      }
    }
  }

  private fileFailed(path: string, err: unknown): void {
    this.host.log.warn(`codex file ${path}: ${err instanceof Error ? err.message : String(err)}`);
    void this.host.prompter.notify('error', l10n.t('The codex file {0} could not be written (see the Worldline log).', path));
  }
}
