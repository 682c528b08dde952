// The worldline graph (webview): one lane per worldline, saves as points in the order they were
// written, fork edges from the save each line branched at, "you are here", and story written after
// the last save. Clicking a point loads that save.
import * as vscode from 'vscode';
import { buildPage, mediaRoots } from './webviewHtml';
import type { WorldlineController } from './worldlineController';
import type { NovelWorkspace } from './novel';

type FromPage = { type: 'ready' } | { type: 'load'; saveId: string } | { type: 'command'; command: 'savePoint' };

export class WorldlineGraphViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly controller: WorldlineController,
  ) {
    this.disposables.push(controller.onDidChangeView(() => void this.refresh()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: mediaRoots(this.extensionUri) };
    view.webview.html = buildPage(view.webview, this.extensionUri, {
      title: vscode.l10n.t('Worldline Graph'),
      scripts: ['dom.js', 'graph.js'],
      styles: ['common.css', 'graph.css'],
      lang: this.getNovel()?.language === 'zh' ? 'zh-CN' : 'en',
      bootstrap: {
        labels: {
          empty: vscode.l10n.t('No save points yet. Save Point… marks where the story is; going back to a save and writing on starts a new worldline.'),
          savePoint: vscode.l10n.t('Save Point…'),
          here: vscode.l10n.t('you are here'),
          after: vscode.l10n.t('story after the last save'),
          load: vscode.l10n.t('Load save "{0}"', '{0}'),
          graph: vscode.l10n.t('Worldline graph'),
        },
      },
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: FromPage) => {
        if (!m || typeof m !== 'object') return;
        if (m.type === 'ready') void this.refresh();
        else if (m.type === 'load' && typeof m.saveId === 'string') void vscode.commands.executeCommand('worldline.loadSave', m.saveId);
        else if (m.type === 'command') void vscode.commands.executeCommand('worldline.savePoint');
      }),
      view.onDidChangeVisibility(() => view.visible && void this.refresh()),
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
  }

  async refresh(): Promise<void> {
    if (!this.view) return;
    const data = await this.controller.view();
    void this.view.webview.postMessage({ type: 'render', view: data ?? { worldlines: [], current: { storyAfterLastSave: false }, deleted: [] } });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
