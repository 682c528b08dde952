// The Codex commands in VS Code: the flows of src/codex/codexFlows.ts (New Codex Entry…, Rename
// Codex Entry, Create Entry) over the Prompter, the novel's files, and what only the editor does:
// opening a file, the progress notification, the draft's untitled editor.
import * as vscode from 'vscode';
import { CodexFlows, type CreateEntryResult, type DraftEditor } from '../codex/codexFlows';
import type { CodexKind } from '../codex/types';
import { diskNovelFiles } from '../codex/novelFiles';
import { sideChatClient } from '../memory';
import { resolveLanguage } from '../project/config';
import type { CodexTreeProvider } from './codexTree';
import type { NovelWorkspace } from './novel';
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

export function registerCodexCommands(deps: CodexCommandDeps): vscode.Disposable[] {
  const { tree, log } = deps;
  const flows = new CodexFlows({
    prompter: vscodePrompter,
    log,
    say: translate,
    uiLang: resolveLanguage('auto', vscode.env.language),
    novel: () => {
      const novel = deps.getNovel();
      return novel && {
        files: diskNovelFiles(novel.root.fsPath),
        folder: tree.folder(),
        lang: novel.language,
        story: () => {
          const branch = novel.branch();
          return { state: branch?.state.state ?? novel.branchOptions.opening, path: branch?.path ?? [] };
        },
      };
    },
    entries: () => tree.entries(),
    reload: () => tree.reload(),
    show: async (file) => {
      const novel = deps.getNovel();
      if (novel) await vscode.window.showTextDocument(vscode.Uri.joinPath(novel.root, file), { preview: false });
    },
    drafter: async () => {
      const settings = readSettings();
      return { client: sideChatClient(settings, await deps.keys.forRequests(settings)), model: settings.scribeModel };
    },
    progress: async (title, work) => vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: translate(title) }, work),
    editDraft: async (content): Promise<DraftEditor> => {
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content });
      await vscode.window.showTextDocument(doc, { preview: false });
      return { text: () => doc.getText(), close: () => closeUntitled(doc) };
    },
  });
  return [
    vscode.commands.registerCommand('worldline.codex.newEntry', (kind?: CodexKind, name?: string) => flows.newEntry(kind, name)),
    vscode.commands.registerCommand('worldline.codex.renameEntry', (arg?: unknown, name?: string) => flows.renameEntry(arg, name)),
    vscode.commands.registerCommand('worldline.codex.createEntry', (arg?: unknown, kind?: CodexKind): Promise<CreateEntryResult> => flows.createEntry(arg, kind)),
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
