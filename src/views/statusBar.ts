// The status bar item: model, turn phase, and the manuscript's length with this turn's delta
// (CJK characters count one each, Latin words one each).
import * as vscode from 'vscode';
import { countWords, isManuscriptFile } from '../agent/manuscript';
import { isDemoModel, readSettings, type AgentController } from './agentController';
import type { NovelWorkspace } from './novel';

export class WorldlineStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('worldline.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private words: number | undefined;
  private delta: number | undefined;
  private recount: NodeJS.Timeout | undefined;
  private wordsAtTurnStart: number | undefined;
  private lastPhase = 'idle';

  constructor(private readonly getNovel: () => NovelWorkspace | undefined, private readonly agent: AgentController) {
    this.item.name = 'Worldline';
    this.item.command = 'worldline.chat.focus';
    this.disposables.push(
      agent.onDidChange((what) => {
        if (what === 'stream') return;
        // The delta spans the model part of a turn: from leaving idle to the next count after it.
        if (this.lastPhase === 'idle' && agent.phase === 'writing') this.wordsAtTurnStart = this.words;
        this.lastPhase = agent.phase;
        this.render();
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        const novel = this.getNovel();
        if (novel && isManuscriptFile(vscode.workspace.asRelativePath(doc.uri, false), novel.config.manuscript)) this.scheduleCount();
      }),
    );
    void this.count();
  }

  get wordCount(): number | undefined {
    return this.words;
  }

  /** Called when a turn ended: the delta is the change across the turn. */
  async turnEnded(): Promise<void> {
    const before = this.wordsAtTurnStart;
    await this.count();
    if (before !== undefined && this.words !== undefined) this.delta = this.words - before;
    this.render();
  }

  private scheduleCount(): void {
    if (this.recount) clearTimeout(this.recount);
    this.recount = setTimeout(() => void this.count(), 500);
  }

  async count(): Promise<number | undefined> {
    const novel = this.getNovel();
    if (!novel) return undefined;
    let total = 0;
    const seen = new Set<string>();
    for (const glob of novel.config.manuscript) {
      const files = await vscode.workspace.findFiles(new vscode.RelativePattern(novel.root, glob), '{**/.git/**,**/.worldline/**,**/node_modules/**}', 20000);
      for (const uri of files) {
        if (seen.has(uri.toString())) continue;
        seen.add(uri.toString());
        const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
        total += countWords(text);
      }
    }
    this.words = total;
    this.render();
    return total;
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

function phaseText(phase: string): string {
  if (phase === 'writing') return vscode.l10n.t('writing');
  if (phase === 'tool') return vscode.l10n.t('writing');
  if (phase === 'scribe') return vscode.l10n.t('scribe');
  return vscode.l10n.t('idle');
}
