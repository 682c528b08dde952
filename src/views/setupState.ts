// The first-run facts (src/model/setupFlow.ts) re-read whenever what they depend on changes: the
// worldline.* settings, the secret storage, the novel's worldline.yaml.
import * as vscode from 'vscode';
import { SetupFacts } from '../model/setupFlow';
import type { SetupInputs } from '../protocol/chatModel';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import type { ApiKeys } from './settings';
import { setContext, vscodeSettings } from './shellPorts';

export class SetupState implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly facts: SetupFacts;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  readonly onDidChange = this.changed.event;

  constructor(getNovel: () => NovelWorkspace | undefined, keys: ApiKeys, secrets: vscode.SecretStorage, log: Log) {
    this.facts = new SetupFacts({ novel: getNovel, settings: vscodeSettings, keys, setContext, log }, () => this.changed.fire());
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('worldline')) void this.refresh(); }),
      secrets.onDidChange(() => void this.refresh()),
    );
    const novel = getNovel();
    if (novel) this.disposables.push(novel.onDidChangeConfig(() => void this.refresh()));
    void this.refresh();
  }

  /** The inputs of the Chat's first-run step; undefined until they have been read once. */
  inputs(): SetupInputs | undefined {
    return this.facts.inputs();
  }

  /** Re-reads the facts (one read at a time); fires onDidChange when they changed. */
  refresh(): Promise<void> {
    return this.facts.refresh();
  }

  /** The first reply arrived: the walkthrough's "first instruction" step is done. */
  wrote(): void { this.facts.wrote(); }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
