// Endpoint settings changing: the core's watch (src/model/endpointWatch.ts) decides whose key to
// ask for and which custom headers to warn about; this feeds it VS Code's configuration events.
import * as vscode from 'vscode';
import { EndpointWatch } from '../model/endpointWatch';
import type { KeyAsk } from '../model/keyPrompt';
import type { Log } from './log';
import type { ApiKeys } from './settings';
import { asking, vscodeSettings } from './shellPorts';

export class SettingsWatch implements vscode.Disposable {
  private readonly watch: EndpointWatch;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(keys: ApiKeys, log: Log) {
    this.watch = new EndpointWatch({ ...asking(log), settings: vscodeSettings, keys });
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => this.watch.changed((s) => e.affectsConfiguration(s))));
    this.watch.warnRefusedHeaders();
  }

  /** An origin that is being asked for elsewhere (Choose Provider asks itself): not asked again here. */
  markAsked(origin: string): void {
    this.watch.markAsked(origin);
  }

  /** Resolves with the questions the last settings change raised. */
  settled(): Promise<KeyAsk[]> {
    return this.watch.settled();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
