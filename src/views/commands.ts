// Palette commands for the project and its sessions. Every command takes optional arguments so it
// can also be driven from tests and keybindings without prompts.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { newNovelFiles } from '../project/template';
import { SessionError } from '../session/errors';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

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
        void vscode.window.showErrorMessage(sessionErrorText(err) ?? message);
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
        value: defaultSessionTitle(novel),
      });
      if (name === undefined) return undefined;
      const session = await novel.create(name.trim() || defaultSessionTitle(novel));
      return session.header.id;
    })),
    vscode.commands.registerCommand('worldline.switchSession', withNovel(async (novel, id?: string) => {
      if (!idle(vscode.l10n.t('switch sessions'))) return undefined;
      let target = id;
      if (!target) {
        const sessions = (await novel.library.list()).sort((a, b) => b.modified - a.modified);
        if (sessions.length === 0) {
          void vscode.window.showInformationMessage(vscode.l10n.t('This novel has no sessions yet.'));
          return undefined;
        }
        const pick = await vscode.window.showQuickPick(sessions.map((s) => ({
          label: s.title,
          description: s.id === novel.session?.header.id ? vscode.l10n.t('current') : undefined,
          detail: s.tooLarge
            ? vscode.l10n.t('too large to open · last written {0}', new Date(s.modified).toLocaleString())
            : vscode.l10n.t('{0} entries · last written {1}', s.entries, new Date(s.modified).toLocaleString()),
          id: s.id,
        })), { title: vscode.l10n.t('Switch Session'), placeHolder: vscode.l10n.t('Choose a conversation') });
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
        const pick = await vscode.window.showQuickPick(backups.map((b) => ({
          label: b.title,
          description: new Date(b.createdAt).toLocaleString(),
          detail: path.basename(b.file),
          file: b.file,
        })), { title: vscode.l10n.t('Restore Session from Backup'), placeHolder: vscode.l10n.t('The backup comes back as a new session; nothing is overwritten.') });
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

function defaultSessionTitle(novel: NovelWorkspace): string {
  const date = new Date().toLocaleDateString();
  return novel.language === 'zh' ? `会话 ${date}` : `Session ${date}`;
}

async function initializeNovel(novel: NovelWorkspace, title?: string): Promise<boolean> {
  if (await novel.hasProjectFile()) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This folder already has worldline.yaml; nothing was changed.'));
    await vscode.window.showTextDocument(novel.configUri, { preview: false });
    return false;
  }
  const lang = vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  const name = title ?? path.basename(novel.root.fsPath);
  const files = newNovelFiles(lang, name);
  for (const file of files) {
    const uri = vscode.Uri.joinPath(novel.root, ...file.path.split('/'));
    try {
      await vscode.workspace.fs.stat(uri);
      continue; // never overwrite a file the novelist already has
    } catch {
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(file.content));
    }
  }
  await novel.reloadConfig();
  const chapter = vscode.Uri.joinPath(novel.root, 'chapters', '01.md');
  await vscode.window.showTextDocument(chapter, { preview: false });
  void vscode.window.showInformationMessage(vscode.l10n.t('Novel initialized: worldline.yaml and chapters/01.md are ready. Open the Worldline view to start writing.'));
  return true;
}

/**
 * The session store's errors in the novelist's language. The core words them in English with
 * details (paths, ids) for the log; these say what happened and what to do.
 */
function sessionErrorText(err: unknown): string | undefined {
  if (!(err instanceof SessionError)) return undefined;
  switch (err.code) {
    case 'read-only': return vscode.l10n.t('This window is read-only: another VS Code window is writing this novel.');
    case 'not-found': return vscode.l10n.t('That session file no longer exists; it may have been moved or deleted.');
    case 'newer-version': return vscode.l10n.t('This session was written by a newer version of Worldline. Update the extension to open it.');
    case 'closed': return vscode.l10n.t('The novel was closed; reopen the folder to continue.');
    case 'invalid-backup': return vscode.l10n.t('That file is not a Worldline session backup, or it no longer exists.');
    case 'invalid-name': return vscode.l10n.t('That name cannot be used: a session needs a title of at least one character.');
    case 'too-large': return vscode.l10n.t('This session file is too large to open safely. It is kept untouched; start a new session to write on (the Worldline log has the details).');
    case 'not-a-file': return vscode.l10n.t('A session file is not a regular file (a folder, pipe or device has its name), so it cannot be opened. Move it out of .worldline/sessions.');
    default: return undefined;
  }
}
