// "Import SillyTavern Lorebook or Character Card…" in VS Code: the flow of
// src/import/codexImportFlow.ts over the Prompter, the novel's files, the open dialog and the
// Explorer's reveal of the codex folder.
import * as vscode from 'vscode';
import { diskNovelFiles } from '../codex/novelFiles';
import { importIntoCodex, type CodexImportHost } from '../import/codexImportFlow';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import { translate } from './notices';
import { vscodePrompter } from './prompter';

export function registerImportCommands(getNovel: () => NovelWorkspace | undefined, log: Log): vscode.Disposable[] {
  const host: CodexImportHost = {
    prompter: vscodePrompter,
    log,
    say: translate,
    novel: () => {
      const novel = getNovel();
      return novel && { files: diskNovelFiles(novel.root.fsPath), codexFolder: novel.config.codex };
    },
    pickFiles: async (o) => (await vscode.window.showOpenDialog({
      canSelectMany: true,
      openLabel: translate(o.openLabel),
      filters: { [translate(o.filterName)]: [...o.extensions] },
    }))?.map((u) => u.fsPath),
    revealFolder: async (folder) => {
      const novel = getNovel();
      if (novel) await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.joinPath(novel.root, ...folder.split('/')));
    },
  };
  return [vscode.commands.registerCommand('worldline.importSillyTavern', (files?: string[]) => importIntoCodex(host, files))];
}
