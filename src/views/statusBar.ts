// The status bar item: model, turn phase, and the manuscript's length with this turn's delta
// (CJK characters count one each, Latin words one each).
import * as vscode from 'vscode';
import { countWords } from '../agent/manuscript';
import { walkManuscript } from '../checkpoints';
import { isManuscriptAt } from '../project/manuscript';
import { turnWordDelta } from '../agent/wordDelta';
import type { ToolChange } from '../agent/tools';
import { isDemoModel, type AgentController } from './agentController';
import { readSettings } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

/** A manuscript of more files than this is not counted (the walk stops and the count is left out). */
const MAX_COUNTED_FILES = 20_000;

export class WorldlineStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('worldline.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private words: number | undefined;
  private delta: number | undefined;
  private recount: NodeJS.Timeout | undefined;
  /** Counts started so far, and the latest started one whose result is shown: an older count never overwrites a newer one. */
  private counts = 0;
  private shownCount = 0;
  private lastTurnCounted: Promise<void> = Promise.resolve();

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly agent: AgentController,
    private readonly log: Log,
  ) {
    this.item.name = 'Worldline';
    this.item.command = 'worldline.chat.focus';
    this.disposables.push(
      agent.onDidChange((what) => {
        if (what !== 'stream') this.render();
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        const novel = this.getNovel();
        if (novel && doc.uri.scheme === 'file' && isManuscriptAt(novel.config.manuscriptMatcher, novel.root.fsPath, doc.uri.fsPath)) this.scheduleCount();
      }),
    );
    void this.count();
  }

  get wordCount(): number | undefined {
    return this.words;
  }

  /** The last turn's change in length (undefined before the first turn). */
  get turnWordDelta(): number | undefined {
    return this.delta;
  }

  /** Settles when the count after the last ended turn is done (tests wait on it). */
  whenTurnCounted(): Promise<void> {
    return this.lastTurnCounted;
  }

  /**
   * Called when a turn ended, with the files it changed: the delta is what those changes added
   * (see agent/wordDelta.ts), then the manuscript is counted again. Never rejects.
   */
  turnEnded(changes: readonly ToolChange[]): Promise<void> {
    const done = (async () => {
      this.delta = turnWordDelta(changes);
      this.render();
      await this.count();
    })().catch((err: unknown) => {
      this.log.warn(`could not count the turn's words: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.lastTurnCounted = done;
    return done;
  }

  private scheduleCount(): void {
    if (this.recount) clearTimeout(this.recount);
    this.recount = setTimeout(() => void this.count(), 500);
  }

  /**
   * Counts the manuscript and shows the total. Never rejects: a file that disappears while it is
   * counted is skipped; any other failure is logged and gives undefined.
   */
  async count(): Promise<number | undefined> {
    const novel = this.getNovel();
    if (!novel) return undefined;
    const seq = ++this.counts;
    try {
      let total = 0;
      // The checkpoints' own walk with the project's one matcher: counted ⇔ tracked ⇔ the agent's.
      const { files } = await walkManuscript(novel.root.fsPath, novel.config.manuscriptMatcher, MAX_COUNTED_FILES);
      for (const rel of files) {
        const text = await readText(vscode.Uri.joinPath(novel.root, ...rel.split('/')));
        if (text !== undefined) total += countWords(text);
      }
      if (seq > this.shownCount) {
        this.shownCount = seq;
        this.words = total;
        this.render();
      }
      return total;
    } catch (err) {
      this.log.warn(`could not count the manuscript's words: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  render(): void {
    if (!this.getNovel()) {
      this.item.hide();
      return;
    }
    const settings = readSettings();
    const model = isDemoModel(settings.model) ? vscode.l10n.t('demo model') : settings.model || vscode.l10n.t('no model selected');
    const phase = this.agent.phase === 'idle' ? '' : ` · ${phaseText(this.agent.phase)}`;
    const icon = this.agent.phase === 'idle' ? '$(book)' : '$(sync~spin)';
    const words = this.words === undefined ? '' : ` · ${vscode.l10n.t('{0} words', this.words.toLocaleString())}`;
    const delta = this.delta ? ` (${this.delta > 0 ? '+' : ''}${this.delta.toLocaleString()})` : '';
    this.item.text = `${icon} ${model}${phase}${words}${delta}`;
    this.item.tooltip = vscode.l10n.t('Worldline: model, what the agent is doing, and the manuscript length (CJK characters count one each) with the last turn\'s change.');
    this.item.show();
  }

  dispose(): void {
    if (this.recount) clearTimeout(this.recount);
    for (const d of this.disposables) d.dispose();
  }
}

/** An open document's text (unsaved edits included), else the file's; undefined when it is gone. */
async function readText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString() && !d.isClosed);
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch (err) {
    const code = (err as { code?: unknown } | undefined)?.code;
    if (code === 'FileNotFound' || code === 'EntryNotFound' || code === 'ENOENT') return undefined;
    throw err;
  }
}

function phaseText(phase: string): string {
  if (phase === 'writing') return vscode.l10n.t('writing');
  if (phase === 'tool') return vscode.l10n.t('writing');
  if (phase === 'scribe') return vscode.l10n.t('scribe');
  return vscode.l10n.t('idle');
}
