// "Import SillyTavern Chat…" and "Export Session as SillyTavern Chat": registrations over the
// core's flows (src/import/chat/importFlow.ts), with VS Code's open and save dialogs. Both take
// their path as an argument too, so tests and keybindings run them without a dialog.
import * as vscode from 'vscode';
import { sessionErrorWords } from '../session/words';
import { ChatImportFlows, nodeChatFiles, type Reimport } from '../import/chat/importFlow';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import { translate } from './notices';
import { vscodePrompter } from './prompter';

export function registerChatImportCommands(getNovel: () => NovelWorkspace | undefined, log: Log, idle: (action: string) => boolean = () => true): vscode.Disposable[] {
  const flows = new ChatImportFlows({
    prompter: vscodePrompter,
    files: nodeChatFiles,
    log,
    say: translate,
    idle: (action) => idle(translate(action)),
    novel: () => {
      const novel = getNovel();
      return novel && {
        root: novel.root.fsPath,
        codexFolder: novel.config.codex,
        library: novel.library,
        session: novel.session,
        branch: () => novel.branch(),
        open: (id: string) => novel.open(id),
      };
    },
    pickSource: async () => (await vscode.window.showOpenDialog({
      canSelectFiles: true,
      canSelectFolders: true,
      canSelectMany: false,
      openLabel: vscode.l10n.t('Import'),
      title: vscode.l10n.t('A SillyTavern chat (.jsonl), or a character\'s chat folder'),
      filters: { [vscode.l10n.t('SillyTavern chats')]: ['jsonl'] },
    }))?.[0]?.fsPath,
    chooseTarget: async (title, defaultPath) => (await vscode.window.showSaveDialog({
      title: translate(title),
      defaultUri: vscode.Uri.file(defaultPath),
      filters: { [vscode.l10n.t('SillyTavern chats')]: ['jsonl'] },
    }))?.fsPath,
  });
  const failed = (what: string) => (err: unknown): undefined => {
    const message = err instanceof Error ? err.message : String(err);
    log.error(`${what} failed: ${message}`);
    const words = sessionErrorWords(err);
    void vscode.window.showErrorMessage(words ? translate(words) : vscode.l10n.t('The chat could not be imported or exported: {0}', message));
    return undefined;
  };
  return [
    vscode.commands.registerCommand('worldline.importSillyTavernChat', (source?: unknown, reimport?: unknown) =>
      flows.importChat(typeof source === 'string' ? source : undefined, isReimport(reimport) ? reimport : 'ask').then((outcome) => {
        // The session is current now: show it in the Chat.
        if (outcome) void vscode.commands.executeCommand('worldline.chat.focus');
        return outcome;
      }, failed('chat import'))),
    vscode.commands.registerCommand('worldline.exportSillyTavernChat', (target?: unknown) =>
      flows.exportChat(typeof target === 'string' ? target : undefined).catch(failed('chat export'))),
  ];
}

function isReimport(v: unknown): v is Reimport {
  return v === 'ask' || v === 'copy' || v === 'open';
}
