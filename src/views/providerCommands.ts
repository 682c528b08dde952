// Choose Provider and Test Connection as commands. The flows are the core's
// (src/model/providerFlow.ts, src/model/connectionFlow.ts); this only hands them VS Code's ports.
// Both take optional arguments, so tests and keybindings can run them without prompts.
import * as vscode from 'vscode';
import { runConnectionTest } from '../model/connectionFlow';
import { chooseProvider } from '../model/providerFlow';
import type { Log } from './log';
import type { ApiKeys } from './settings';
import type { SettingsWatch } from './settingsWatch';
import { asking, vscodeSettings, withProgress } from './shellPorts';

/** Registers both commands; `onChosen` runs after a provider was chosen. */
export function registerProviderCommands(keys: ApiKeys, watch: SettingsWatch, log: Log, onChosen: () => void): vscode.Disposable[] {
  const ports = { ...asking(log), settings: vscodeSettings, keys, progress: withProgress, markAsked: (origin: string) => watch.markAsked(origin) };
  return [
    vscode.commands.registerCommand('worldline.chooseProvider', async (raw?: unknown) => {
      const chosen = await chooseProvider(ports, raw);
      if (chosen) onChosen();
      return chosen;
    }),
    vscode.commands.registerCommand('worldline.testConnection', (raw?: unknown) => runConnectionTest(ports, raw)),
  ];
}
