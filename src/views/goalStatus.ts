// The goals' part of the status bar item: feeds the core tracker (src/project/goalTracker.ts) each
// new manuscript length, finds the active chapter, reads the `worldline.goals.*` settings, and
// hands the status bar the words from src/project/goalText.ts. Decides nothing itself.
import * as vscode from 'vscode';
import { countWords } from '../agent/manuscript';
import { manuscriptPathAt } from '../project/manuscript';
import { dayKey, resolveGoals, type Goals } from '../project/goals';
import { GoalTracker } from '../project/goalTracker';
import { goalStatusText, goalTooltipMarkdown, statusTooltipMarkdown, type GoalView } from '../project/goalText';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';

/** Days of history in the tooltip. */
const SHOWN_DAYS = 14;
/** After the manuscript globs change, the next new length within this time is a recount, not writing. */
const REBASE_WINDOW_MS = 15_000;

export class GoalStatus implements vscode.Disposable {
  private tracker: GoalTracker | undefined;
  private root: string | undefined;
  /** The manuscript globs of the last reading (any edit of worldline.yaml makes a new matcher; only other globs count). */
  private globs: string | undefined;
  private rebaseUntil = 0;
  private lastTotal: number | undefined;
  /** The last manuscript document that was the active editor, and its count at a version. */
  private chapterDoc: vscode.TextDocument | undefined;
  private chapterCount: { uri: string; version: number; words: number } | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly log: Log,
    private readonly changed: () => void,
  ) {
    this.disposables.push(vscode.window.onDidChangeActiveTextEditor(() => this.changed()));
  }

  /** A new reading of the manuscript's length (the status bar's counter). */
  reading(total: number | undefined, session: string | undefined): void {
    const novel = this.getNovel();
    const tracker = this.trackerFor(novel);
    if (!novel || !tracker || total === undefined) return;
    const globs = JSON.stringify(novel.config.manuscriptMatcher.globs);
    if (globs !== this.globs) {
      // The first globs are the opening count, not a change.
      if (this.globs !== undefined) this.rebaseUntil = Date.now() + REBASE_WINDOW_MS;
      this.globs = globs;
    }
    const rebase = total !== this.lastTotal && Date.now() < this.rebaseUntil && this.lastTotal !== undefined;
    if (rebase) this.rebaseUntil = 0;
    this.lastTotal = total;
    tracker.reading({ total, session, rebase });
  }

  /** " · today 1,200/2,000 …" for the item's text; '' without goals. */
  statusText(): string {
    const view = this.view();
    return view ? goalStatusText(view, translate) : '';
  }

  /** The item's tooltip: its plain lines, then the goals and the days. */
  tooltip(plain: string): vscode.MarkdownString | string {
    const view = this.view();
    return view ? new vscode.MarkdownString(statusTooltipMarkdown(plain, goalTooltipMarkdown(view, translate))) : plain;
  }

  private view(): GoalView | undefined {
    const novel = this.getNovel();
    const tracker = this.trackerFor(novel);
    if (!novel || !tracker) return undefined;
    const chapter = this.chapter(novel);
    return {
      goals: resolveGoals(novel.config.goals ?? {}, settingGoals()),
      today: tracker.today(),
      session: tracker.session(),
      ...(chapter ? { chapter } : {}),
      days: tracker.days(SHOWN_DAYS),
      todayKey: dayKey(new Date()),
    };
  }

  /** The active manuscript editor (or the last one, while it is open), counted once per version. */
  private chapter(novel: NovelWorkspace): { path: string; words: number } | undefined {
    const active = vscode.window.activeTextEditor?.document;
    if (active && this.pathOf(novel, active) !== undefined) this.chapterDoc = active;
    const doc = this.chapterDoc;
    if (!doc || doc.isClosed) return undefined;
    const rel = this.pathOf(novel, doc);
    if (rel === undefined) return undefined;
    const uri = doc.uri.toString();
    if (this.chapterCount?.uri !== uri || this.chapterCount.version !== doc.version) {
      this.chapterCount = { uri, version: doc.version, words: countWords(doc.getText()) };
    }
    return { path: rel, words: this.chapterCount.words };
  }

  private pathOf(novel: NovelWorkspace, doc: vscode.TextDocument): string | undefined {
    if (doc.uri.scheme !== 'file') return undefined;
    return manuscriptPathAt(novel.config.manuscriptMatcher, novel.root.fsPath, doc.uri.fsPath);
  }

  /** The open book's tracker; another folder gets its own (the old one writes what it has). */
  private trackerFor(novel: NovelWorkspace | undefined): GoalTracker | undefined {
    const root = novel?.root.fsPath;
    if (root !== this.root) {
      void this.tracker?.dispose();
      this.tracker = undefined;
      this.root = root;
      this.globs = undefined;
      this.lastTotal = undefined;
      if (root !== undefined) {
        this.tracker = new GoalTracker({ root, warn: (m) => this.log.warn(m), changed: () => this.changed() });
      }
    }
    return this.tracker;
  }

  dispose(): void {
    void this.tracker?.dispose();
    this.tracker = undefined;
    for (const d of this.disposables) d.dispose();
  }
}

/** The `worldline.goals.*` settings (worldline.yaml's `goals:` wins over each). */
function settingGoals(): Goals {
  const c = vscode.workspace.getConfiguration('worldline.goals');
  return { day: c.get<number>('day', 0), session: c.get<number>('session', 0), chapter: c.get<number>('chapter', 0) };
}
