// The Codex commands: New Codex Entry…, Rename Codex Entry, Create Entry (a roster name drafted by
// the side model, shown in an untitled editor, written only on the novelist's Write). The words
// and the rules (paths, names, the draft) are the core's (src/codex/); this file asks and writes.
import * as vscode from 'vscode';
import { CODEX_WORDS, kindPicks, nameProblem, writeQuestion, written, writtenNotEntry } from '../codex/commandWords';
import { draftEntry, turnsNaming } from '../codex/draft';
import { entryPath, numberedPath, renamedFrontMatter, renamedPath } from '../codex/entryFile';
import { formatCodexFile, parseCodexFile } from '../codex/file';
import { codexNodeOf } from '../codex/tree';
import type { CodexEntry, CodexKind } from '../codex/types';
import { sideChatClient } from '../memory';
import { resolveLanguage } from '../project/config';
import type { CodexTreeProvider } from './codexTree';
import { exists, type NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';
import { vscodePrompter } from './prompter';
import { readSettings, type ApiKeys } from './settings';

export interface CodexCommandDeps {
  getNovel(): NovelWorkspace | undefined;
  tree: CodexTreeProvider;
  keys: ApiKeys;
  log: Log;
}

/** What Create Entry did: the file it wrote, or why not (tests read it). */
export type CreateEntryResult = { written: string } | { discarded: true } | { error: string } | undefined;

/** `path`, or the first numbered path beside it that no file has yet. */
async function freeUri(novel: NovelWorkspace, path: string): Promise<string> {
  let candidate = path;
  for (let n = 2; await exists(vscode.Uri.joinPath(novel.root, candidate)); n++) candidate = numberedPath(path, n);
  return candidate;
}

export function registerCodexCommands(deps: CodexCommandDeps): vscode.Disposable[] {
  const { tree, log } = deps;
  const novelOrSay = (): NovelWorkspace | undefined => {
    const novel = deps.getNovel();
    if (!novel) void vscode.window.showWarningMessage(translate(CODEX_WORDS.noNovel));
    return novel;
  };
  const askName = (title: typeof CODEX_WORDS.nameTitle, value?: string) => vscodePrompter.ask({ title, prompt: CODEX_WORDS.namePrompt, validate: nameProblem, ...(value !== undefined ? { value } : {}) });

  const newEntry = async (kindArg?: CodexKind, nameArg?: string): Promise<string | undefined> => {
    const novel = novelOrSay();
    if (!novel) return undefined;
    const kind = kindArg ?? (await vscodePrompter.pick(kindPicks(), { title: CODEX_WORDS.kindTitle }));
    if (!kind) return undefined;
    const name = (nameArg ?? (await askName(CODEX_WORDS.nameTitle)))?.trim();
    if (!name || nameProblem(name)) return undefined;
    const path = await freeUri(novel, entryPath(tree.folder(), kind, name));
    const text = formatCodexFile({ name, kind, keys: [name], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: '' });
    const uri = vscode.Uri.joinPath(novel.root, path);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    log.info(`codex entry created: ${path}`);
    await tree.reload();
    await vscode.window.showTextDocument(uri, { preview: false });
    return path;
  };

  const renameEntry = async (arg?: unknown, nameArg?: string): Promise<string | undefined> => {
    const novel = novelOrSay();
    if (!novel) return undefined;
    const node = codexNodeOf(arg);
    const entry: CodexEntry | undefined = node?.kind === 'entry' ? node.entry : tree.entries().find((e) => e.path === arg);
    if (!entry) {
      void vscode.window.showWarningMessage(translate(CODEX_WORDS.pickEntry));
      return undefined;
    }
    const name = (nameArg ?? (await askName(CODEX_WORDS.renameTitle, entry.name)))?.trim();
    if (!name || nameProblem(name) || name === entry.name) return undefined;
    const from = vscode.Uri.joinPath(novel.root, entry.path);
    const renamed = renamedFrontMatter(new TextDecoder().decode(await vscode.workspace.fs.readFile(from)), name);
    if (!renamed.ok) {
      void vscode.window.showErrorMessage(translate(renamed.error));
      return undefined;
    }
    const target = renamedPath(entry.path, name);
    const path = target === entry.path ? target : await freeUri(novel, target);
    const to = vscode.Uri.joinPath(novel.root, path);
    await vscode.workspace.fs.writeFile(from, new TextEncoder().encode(renamed.text));
    if (path !== entry.path) await vscode.workspace.fs.rename(from, to);
    log.info(`codex entry renamed: ${entry.path} → ${path}`);
    await tree.reload();
    return path;
  };

  const createEntry = async (arg?: unknown, kindArg?: CodexKind): Promise<CreateEntryResult> => {
    const novel = novelOrSay();
    if (!novel) return undefined;
    const node = codexNodeOf(arg);
    const target = node?.kind === 'missing' ? node.missing : typeof arg === 'string' ? { name: arg, kind: kindArg ?? 'character' } : undefined;
    if (!target) {
      void vscode.window.showWarningMessage(translate(CODEX_WORDS.pickName));
      return undefined;
    }
    const branch = novel.branch();
    const settings = readSettings();
    const folder = tree.folder();
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: translate({ ...CODEX_WORDS.drafting, args: [target.name] }) }, async () => draftEntry(
      { client: sideChatClient(settings, await deps.keys.forRequests(settings)), model: settings.scribeModel },
      { ...target, folder, state: branch?.state.state ?? novel.branchOptions.opening, turns: turnsNaming(branch?.path ?? [], target.name), lang: novel.language },
    ));
    if (!result.ok) {
      const error = translate(result.error);
      log.warn(`codex draft for ${target.name}: ${error}`);
      void vscode.window.showErrorMessage(error);
      return { error };
    }
    const path = await freeUri(novel, result.entry.path);
    const draft = await vscode.workspace.openTextDocument({ language: 'markdown', content: formatCodexFile(result.entry) });
    await vscode.window.showTextDocument(draft, { preview: false });
    const write = translate(CODEX_WORDS.write);
    const picked = await vscode.window.showInformationMessage(translate(writeQuestion(path)), write, translate(CODEX_WORDS.discard));
    const text = draft.getText();
    await closeUntitled(draft);
    if (picked !== write) return { discarded: true };
    const parsed = parseCodexFile(path, text, { uiLang: resolveLanguage('auto', vscode.env.language) });
    if (!parsed.ok) {
      const error = translate(writtenNotEntry(path, parsed.error));
      void vscode.window.showErrorMessage(error);
      return { error };
    }
    const uri = vscode.Uri.joinPath(novel.root, path);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    log.info(`codex entry written from a draft: ${path}`);
    await tree.reload();
    await vscode.window.showTextDocument(uri, { preview: false });
    void vscode.window.showInformationMessage(translate(written(path)));
    return { written: path };
  };

  return [
    vscode.commands.registerCommand('worldline.codex.newEntry', newEntry),
    vscode.commands.registerCommand('worldline.codex.renameEntry', renameEntry),
    vscode.commands.registerCommand('worldline.codex.createEntry', createEntry),
    vscode.commands.registerCommand('worldline.codex.refresh', () => tree.reload()),
  ];
}

/** Closes the draft's editor without asking to save it (the text was taken, or discarded). */
async function closeUntitled(doc: vscode.TextDocument): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString());
  if (tabs.length === 0) return;
  // An untitled document with text asks to be saved on close; revert it first, as Discard means.
  await vscode.window.showTextDocument(doc, { preview: false });
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
}
