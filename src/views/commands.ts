// Palette commands for the project and its sessions. Every command takes optional arguments so it
// can also be driven from tests and keybindings without prompts.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { initializeNovelFolder } from '../project/initialize';
import { backupRows, defaultSessionTitle, sessionErrorWords, sessionRows } from '../session/words';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';

/**
 * @param idle returns false (after telling the novelist why) when a turn is running: switching
 *   or creating sessions waits until the agent has finished writing.
 */
export function registerProjectCommands(getNovel: () => NovelWorkspace | undefined, log: Log, idle: (action: string) => boolean = () => true): vscode.Disposable[] {
  const withNovel = <A extends unknown[]>(fn: (novel: NovelWorkspace, ...args: A) => Promise<unknown>) =>
    async (...args: A) => {
      const novel = getNovel();
      if (!novel) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Open the folder of your novel first (File > Open Folder).'));
        return undefined;
      }
      try {
        return await fn(novel, ...args);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(message);
        const words = sessionErrorWords(err);
        void vscode.window.showErrorMessage(words ? translate(words) : message);
        return undefined;
      }
    };

  return [
    vscode.commands.registerCommand('worldline.initializeNovel', withNovel(initializeNovel)),
    vscode.commands.registerCommand('worldline.newSession', withNovel(async (novel, title?: string) => {
      if (!idle(vscode.l10n.t('start a new session'))) return undefined;
      const name = title ?? await vscode.window.showInputBox({
        title: vscode.l10n.t('New Session'),
        prompt: vscode.l10n.t('A name for the new conversation'),
        value: defaultSessionTitle(novel.language),
      });
      if (name === undefined) return undefined;
      const session = await novel.create(name.trim() || defaultSessionTitle(novel.language));
      return session.header.id;
    })),
    vscode.commands.registerCommand('worldline.switchSession', withNovel(async (novel, id?: string) => {
      if (!idle(vscode.l10n.t('switch sessions'))) return undefined;
      let target = id;
      if (!target) {
        const rows = sessionRows(await novel.library.list(), novel.session?.header.id, translate);
        if (rows.length === 0) {
          void vscode.window.showInformationMessage(vscode.l10n.t('This novel has no sessions yet.'));
          return undefined;
        }
        const pick = await vscode.window.showQuickPick(rows, { title: vscode.l10n.t('Switch Session'), placeHolder: vscode.l10n.t('Choose a conversation') });
        target = pick?.id;
      }
      if (!target) return undefined;
      await novel.open(target);
      return target;
    })),
    vscode.commands.registerCommand('worldline.renameSession', withNovel(async (novel, title?: string) => {
      const session = await novel.ensureSession();
      const name = title ?? await vscode.window.showInputBox({
        title: vscode.l10n.t('Rename Session'),
        value: session.title,
        validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The name cannot be empty.')),
      });
      if (!name || !name.trim()) return undefined;
      await novel.library.rename(session.header.id, name.trim());
      return name.trim();
    })),
    vscode.commands.registerCommand('worldline.restoreSessionFromBackup', withNovel(async (novel, file?: string) => {
      if (!idle(vscode.l10n.t('restore a session'))) return undefined;
      let chosen = file;
      if (!chosen) {
        const backups = await novel.library.backups();
        if (backups.length === 0) {
          void vscode.window.showInformationMessage(vscode.l10n.t('There are no session backups yet. Worldline keeps them in .worldline/backups/ as you write.'));
          return undefined;
        }
        const pick = await vscode.window.showQuickPick(backupRows(backups), { title: vscode.l10n.t('Restore Session from Backup'), placeHolder: vscode.l10n.t('The backup comes back as a new session; nothing is overwritten.') });
        chosen = pick?.file;
      }
      if (!chosen) return undefined;
      const restored = await novel.library.restoreBackup(chosen);
      await novel.open(restored.header.id);
      void vscode.window.showInformationMessage(vscode.l10n.t('Restored as the new session "{0}".', restored.title));
      return restored.header.id;
    })),
    vscode.commands.registerCommand('worldline.showLog', () => log.show()),
  ];
}

async function initializeNovel(novel: NovelWorkspace, title?: string): Promise<boolean> {
  const lang = vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  const result = await initializeNovelFolder(novel.root.fsPath, lang, title ?? path.basename(novel.root.fsPath));
  if (!result.initialized) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This folder already has worldline.yaml; nothing was changed.'));
    await vscode.window.showTextDocument(novel.configUri, { preview: false });
    return false;
  }
  await novel.reloadConfig();
  const chapter = vscode.Uri.joinPath(novel.root, 'chapters', '01.md');
  await vscode.window.showTextDocument(chapter, { preview: false });
  void vscode.window.showInformationMessage(vscode.l10n.t('Novel initialized: worldline.yaml and chapters/01.md are ready. Open the Worldline view to start writing.'));
  return true;
}
