// The flows' small ports (src/model/flowPorts.ts) in VS Code: the worldline.* settings, commands,
// a cancellable progress notification, context keys.
import * as vscode from 'vscode';
import type { Asking, CommandPort, Progress, SetContext, SettingsPort } from '../model/flowPorts';
import type { Log } from './log';
import { translate } from './notices';
import { vscodePrompter } from './prompter';
import { readSettings } from './settings';

export const vscodeSettings: SettingsPort = {
  read: readSettings,
  raw: (name) => vscode.workspace.getConfiguration('worldline').get<unknown>(name),
  write: (name, value, scope) => vscode.workspace.getConfiguration('worldline').update(name, value,
    // The novel's own settings; with no folder open there are none, so the user's.
    scope === 'workspace' || vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global),
};

export const vscodeCommands: CommandPort = { run: (command, ...args) => vscode.commands.executeCommand(command, ...args) };

export const setContext: SetContext = (key, value) => vscode.commands.executeCommand('setContext', key, value);

export const withProgress: Progress = (title, work) => vscode.window.withProgress(
  { location: vscode.ProgressLocation.Notification, title: translate(title), cancellable: true },
  (_progress, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    return work(abort.signal);
  },
);

/** Questions and notifications through VS Code, words through its l10n. */
export function asking(log: Log): Asking {
  return { prompter: vscodePrompter, say: translate, commands: vscodeCommands, log };
}
