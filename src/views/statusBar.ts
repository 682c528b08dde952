// The status bar item: model, turn phase, and the manuscript's length with this turn's delta. The
// figures come from the core counter (project/wordCount.ts), the words from protocol/statusLine.ts.
// The counter keeps a count per file: it walks the book once at open and then reads only what
// changed (the turn's files, saves, unsaved edits, and the manuscript change feed when given).
import * as vscode from 'vscode';
import { WordCounter, diskReader, type ChangeFeed, type CountSource } from '../project/wordCount';
import { manuscriptPathAt } from '../project/manuscript';
import type { ToolChange } from '../agent/tools';
import { EndpointPricing, SessionUsage, contextWindowFor, nextPromptTokens } from '../model/usage';
import { Coalescer } from '../protocol/coalesce';
import { statusText, statusTooltip, type TooltipInputs } from '../protocol/statusLine';
import type { StoryShell } from './storyShell';
import { readSettings } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';
import { GoalStatus } from './goalStatus';

export interface StatusBarOptions {
  /** The manuscript change feed (restores, undo, loads, the file watcher): those files are counted again. */
  changes?: ChangeFeed;
}

export class WorldlineStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('worldline.status', vscode.StatusBarAlignment.Left, 50);
  private readonly counter: WordCounter;
  private readonly renders: Coalescer;
  private readonly disposables: vscode.Disposable[] = [this.item];
  /** The session's usage totals, summed once per appended entry rather than on every render. */
  private readonly totals = new SessionUsage();
  private readonly pricing = new EndpointPricing();
  /** The word-count goals and the day history, fed each new length (src/views/goalStatus.ts). */
  private readonly goals: GoalStatus;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly agent: StoryShell,
    log: Log,
    options: StatusBarOptions = {},
  ) {
    this.item.name = 'Worldline';
    this.item.command = 'worldline.chat.focus';
    this.renders = new Coalescer({ run: () => this.render(), onError: (err) => log.warn(`status bar: ${String(err)}`) });
    this.goals = new GoalStatus(getNovel, log, () => this.renders.request());
    this.disposables.push(this.goals);
    this.counter = new WordCounter({
      source: () => this.source(),
      changed: () => this.renders.request(),
      warn: (m) => log.warn(m),
      ...(options.changes ? { feed: options.changes } : {}),
    });
    const unsaved = (doc: vscode.TextDocument): void => {
      const rel = this.manuscriptPath(doc);
      if (rel !== undefined) this.counter.later(rel);
    };
    this.disposables.push(
      agent.onDidChange((what) => {
        if (what !== 'stream') this.renders.request();
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.scheme === 'file') this.counter.fileSaved(doc.uri.fsPath);
      }),
      // Unsaved text counts: typing is counted once it pauses, and closing without saving brings back the file's.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) unsaved(e.document);
      }),
      vscode.workspace.onDidCloseTextDocument(unsaved),
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

  /** A restore, undo or load changed the prose: the last turn's change is not shown any more. */
  restored(): void {
    this.counter.forgetTurn();
  }

  /** Called when a turn ended, with the files it changed. Never rejects. */
  turnEnded(changes: readonly ToolChange[]): Promise<void> {
    return this.counter.turnEnded(changes);
  }

  /** Walks and counts the whole manuscript and shows the total. Never rejects (undefined on failure). */
  count(): Promise<number | undefined> {
    return this.counter.count();
  }

  /** The relative path of a manuscript document of the open novel; undefined for any other. */
  private manuscriptPath(doc: vscode.TextDocument): string | undefined {
    const novel = this.getNovel();
    if (!novel || doc.uri.scheme !== 'file') return undefined;
    return manuscriptPathAt(novel.config.manuscriptMatcher, novel.root.fsPath, doc.uri.fsPath);
  }

  /**
   * The open novel's manuscript; an open editor's unsaved text counts rather than the file's. An
   * editor without unsaved changes holds what is on disk, or is about to (VS Code reloads it a
   * little after a restore wrote the file), so the disk is read for it.
   */
  private source(): CountSource | undefined {
    const novel = this.getNovel();
    if (!novel) return undefined;
    const disk = diskReader(novel.root.fsPath);
    const unsaved = new Map<string, vscode.TextDocument>();
    for (const d of vscode.workspace.textDocuments) if (d.isDirty && !d.isClosed) unsaved.set(d.uri.toString(), d);
    return {
      root: novel.root.fsPath,
      matcher: novel.config.manuscriptMatcher,
      read: (rel) => {
        if (unsaved.size > 0) {
          const open = unsaved.get(vscode.Uri.joinPath(novel.root, ...rel.split('/')).toString());
          if (open && !open.isClosed) return Promise.resolve(open.getText());
        }
        return disk(rel);
      },
    };
  }

  render(): void {
    if (!this.getNovel()) {
      this.item.hide();
      return;
    }
    const settings = readSettings();
    this.goals.reading(this.wordCount, this.agent.current()?.session?.header.id);
    this.item.text = statusText({ model: settings.model, phase: this.agent.phase, words: this.wordCount, delta: this.turnWordDelta }, translate) + this.goals.statusText();
    this.item.tooltip = this.goals.tooltip(statusTooltip(this.usage(settings), translate));
    this.item.show();
  }

  /** The open session's token usage and context budget (src/model/usage.ts), for the tooltip. */
  private usage(settings: ReturnType<typeof readSettings>): TooltipInputs {
    const story = this.agent.current();
    const session = story?.session;
    if (!story || !session) return {};
    const { dialect, pricing } = this.pricing.of(settings);
    const out: TooltipInputs = { usage: this.totals.totals(session, pricing) };
    const tokens = nextPromptTokens(story.branch().path);
    const window = contextWindowFor(settings.contextWindow, dialect, settings.model);
    if (tokens !== undefined && window !== undefined) out.context = { tokens, window };
    return out;
  }

  dispose(): void {
    this.counter.dispose();
    this.renders.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
