// Palette commands for the project and its sessions, over the core's flows (src/session/
// sessionFlows.ts, src/project/initializeFlow.ts). Every command takes optional arguments so it
// can also be driven from tests and keybindings without prompts.
import * as vscode from 'vscode';
import { initializeNovel } from '../project/initializeFlow';
import { SessionFlows } from '../session/sessionFlows';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';
import { vscodePrompter } from './prompter';

/**
 * @param idle returns false (after telling the novelist why) when a turn is running: switching
 *   or creating sessions waits until the agent has finished writing.
 */
export function registerProjectCommands(getNovel: () => NovelWorkspace | undefined, log: Log, idle: (action: string) => boolean = () => true): vscode.Disposable[] {
  const flows = new SessionFlows({ prompter: vscodePrompter, log, novel: getNovel, idle: (action) => idle(translate(action)) });
  const initialize = (novel: NovelWorkspace, title?: string) => initializeNovel({
    prompter: vscodePrompter,
    displayLanguage: vscode.env.language,
    openFile: (file) => vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false }),
    reloadConfig: () => novel.reloadConfig(),
  }, novel.root.fsPath, title);
  return [
    vscode.commands.registerCommand('worldline.initializeNovel', (title?: string) => flows.run((novel) => initialize(novel, title))),
    vscode.commands.registerCommand('worldline.newSession', (title?: string) => flows.newSession(title)),
    vscode.commands.registerCommand('worldline.switchSession', (id?: string) => flows.switchSession(id)),
    vscode.commands.registerCommand('worldline.renameSession', (title?: string) => flows.renameSession(title)),
    vscode.commands.registerCommand('worldline.restoreSessionFromBackup', (file?: string) => flows.restoreFromBackup(file)),
    vscode.commands.registerCommand('worldline.showLog', () => log.show()),
  ];
}
