// The status bar item: model, turn phase, and the manuscript's length with this turn's delta. The
// figures come from the core counter (project/wordCount.ts), the words from protocol/statusLine.ts.
import * as vscode from 'vscode';
import { WordCounter, diskReader, type CountSource } from '../project/wordCount';
import type { ToolChange } from '../agent/tools';
import { dialectForEndpoint } from '../model/dialects';
import { contextWindowFor, nextPromptTokens, pricingOf, usageTotals } from '../model/usage';
import { statusText, statusTooltip, type TooltipInputs } from '../protocol/statusLine';
import type { StoryShell } from './storyShell';
import { readSettings } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';

export class WorldlineStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('worldline.status', vscode.StatusBarAlignment.Left, 50);
  private readonly counter: WordCounter;
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly agent: StoryShell,
    log: Log,
  ) {
    this.item.name = 'Worldline';
    this.item.command = 'worldline.chat.focus';
    this.counter = new WordCounter({ source: () => this.source(), changed: () => this.render(), warn: (m) => log.warn(m) });
    this.disposables.push(
      agent.onDidChange((what) => {
        if (what !== 'stream') this.render();
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.scheme === 'file') this.counter.fileSaved(doc.uri.fsPath);
      }),
    );
    void this.count();
  }

  get wordCount(): number | undefined {
    return this.counter.words;
  }

  /** The last turn's change in length (undefined before the first turn). */
  get turnWordDelta(): number | undefined {
    return this.counter.turnDelta;
  }

  /** Settles when the count after the last ended turn is done (tests wait on it). */
  whenTurnCounted(): Promise<void> {
    return this.counter.whenTurnCounted();
  }

  /** Called when a turn ended, with the files it changed. Never rejects. */
  turnEnded(changes: readonly ToolChange[]): Promise<void> {
    return this.counter.turnEnded(changes);
  }

  /** Counts the manuscript and shows the total. Never rejects (undefined on failure). */
  count(): Promise<number | undefined> {
    return this.counter.count();
  }

  /** The open novel's manuscript; an open editor's unsaved text counts rather than the file's. */
  private source(): CountSource | undefined {
    const novel = this.getNovel();
    if (!novel) return undefined;
    const disk = diskReader(novel.root.fsPath);
    return {
      root: novel.root.fsPath,
      matcher: novel.config.manuscriptMatcher,
      read: (rel) => {
        const uri = vscode.Uri.joinPath(novel.root, ...rel.split('/')).toString();
        const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri && !d.isClosed);
        return open ? Promise.resolve(open.getText()) : disk(rel);
      },
    };
  }

  render(): void {
    if (!this.getNovel()) {
      this.item.hide();
      return;
    }
    const settings = readSettings();
    this.item.text = statusText({ model: settings.model, phase: this.agent.phase, words: this.wordCount, delta: this.turnWordDelta }, translate);
    this.item.tooltip = statusTooltip(this.usage(settings), translate);
    this.item.show();
  }

  /** The open session's token usage and context budget (src/model/usage.ts), for the tooltip. */
  private usage(settings: ReturnType<typeof readSettings>): TooltipInputs {
    const session = this.agent.current()?.session;
    if (!session) return {};
    const dialect = dialectForEndpoint(settings.baseUrl, settings);
    const out: TooltipInputs = { usage: usageTotals(session.entries(), pricingOf(dialect)) };
    const tokens = nextPromptTokens(session.path());
    const window = contextWindowFor(settings.contextWindow, dialect, settings.model);
    if (tokens !== undefined && window !== undefined) out.context = { tokens, window };
    return out;
  }

  dispose(): void {
    this.counter.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
