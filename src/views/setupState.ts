// The facts the first-run steps depend on (a folder, worldline.yaml, a key for the main endpoint),
// read from VS Code and cached so the Chat can render synchronously; the step itself is computed in
// the core (src/protocol/chatModel.ts `setupStep`). The same facts are context keys, which the
// walkthrough's steps complete on.
import * as vscode from 'vscode';
import { dialectForEndpoint } from '../model/dialects';
import type { SetupInputs } from '../protocol/chatModel';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import { readSettings, type ApiKeys } from './settings';

export class SetupState implements vscode.Disposable {
  private facts: { project: boolean; keyMissing: boolean } | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly keys: ApiKeys,
    secrets: vscode.SecretStorage,
    private readonly log: Log,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('worldline')) void this.refresh(); }),
      secrets.onDidChange(() => void this.refresh()),
    );
    const novel = getNovel();
    if (novel) this.disposables.push(novel.onDidChangeConfig(() => void this.refresh()));
    void this.refresh();
  }

  /** The inputs of the Chat's first-run step; undefined until they have been read once (no flash of a wrong step). */
  inputs(): SetupInputs | undefined {
    if (!this.facts) return undefined;
    const settings = readSettings();
    return { folder: this.getNovel() !== undefined, project: this.facts.project, keyMissing: this.facts.keyMissing, host: hostOf(settings.baseUrl) };
  }

  /** Re-reads the facts (one read at a time); fires when they changed. */
  refresh(): Promise<void> {
    this.running = this.running.then(() => this.read()).catch((err: unknown) => this.log.warn(`reading the setup state failed: ${err instanceof Error ? err.message : String(err)}`));
    return this.running;
  }

  /** The first reply arrived: the walkthrough's "first instruction" step is done. */
  wrote(): void {
    void vscode.commands.executeCommand('setContext', 'worldline.wrote', true);
  }

  private async read(): Promise<void> {
    const novel = this.getNovel();
    const settings = readSettings();
    const project = novel ? await novel.hasProjectFile() : false;
    const needsKey = dialectForEndpoint(settings.baseUrl, settings).needsKey;
    const keyMissing = needsKey && (await this.keys.forRequests(settings)).main === '';
    const next = { project, keyMissing };
    const before = this.facts;
    this.facts = next;
    await vscode.commands.executeCommand('setContext', 'worldline.hasProject', project);
    await vscode.commands.executeCommand('setContext', 'worldline.keyReady', !keyMissing);
    if (!before || before.project !== project || before.keyMissing !== keyMissing) this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
