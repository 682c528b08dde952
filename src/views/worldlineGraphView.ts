// The worldline graph (webview): one lane per worldline, saves as points in the order they were
// written, fork edges from the save each line branched at, "you are here", and story written after
// the last save. Clicking a point loads that save.
import * as vscode from 'vscode';
import { WebviewHost, translateLabels, type PageSpec } from './webviewHost';
import { GRAPH_LABELS } from '../protocol/graphLabels';
import { emptyWorldlineView } from '../worldline/sessionSaves';
import { decodeFromGraphPage, type FromGraphPage, type ToGraphPage } from '../protocol/graph';
import type { WorldlineController } from './worldlineController';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

export class WorldlineGraphViewProvider extends WebviewHost<ToGraphPage, FromGraphPage> {
  constructor(
    extensionUri: vscode.Uri,
    getNovel: () => NovelWorkspace | undefined,
    private readonly controller: WorldlineController,
    log: Log,
  ) {
    super(extensionUri, getNovel, log, decodeFromGraphPage);
    this.disposables.push(controller.onDidChangeView(() => void this.refresh()));
  }

  protected page(): PageSpec {
    return { title: vscode.l10n.t('Worldline Graph'), name: 'graph', labels: translateLabels(GRAPH_LABELS) };
  }

  async onMessage(m: FromGraphPage): Promise<void> {
    if (m.type === 'ready') await this.refresh();
    else if (m.type === 'load') await vscode.commands.executeCommand('worldline.loadSave', m.saveId);
    else await vscode.commands.executeCommand('worldline.savePoint');
  }

  async refresh(): Promise<void> {
    if (!this.view) return;
    this.post({ type: 'render', view: (await this.controller.view()) ?? emptyWorldlineView() });
  }
}
