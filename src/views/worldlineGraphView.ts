// The worldline graph (webview): one lane per worldline, saves as points in the order they were
// written, fork edges from the save each line branched at, "you are here", and story written after
// the last save. Clicking a point loads that save.
import * as vscode from 'vscode';
import { WebviewHost, type PageSpec } from './webviewHost';
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
    return {
      title: vscode.l10n.t('Worldline Graph'),
      name: 'graph',
      labels: {
        empty: vscode.l10n.t('No save points yet. Save Point… marks where the story is; going back to a save and writing on starts a new worldline.'),
        savePoint: vscode.l10n.t('Save Point…'),
        here: vscode.l10n.t('you are here'),
        after: vscode.l10n.t('story after the last save'),
        load: vscode.l10n.t('Load save "{0}"', '{0}'),
        graph: vscode.l10n.t('Worldline graph'),
      },
    };
  }

  async onMessage(m: FromGraphPage): Promise<void> {
    if (m.type === 'ready') await this.refresh();
    else if (m.type === 'load') await vscode.commands.executeCommand('worldline.loadSave', m.saveId);
    else await vscode.commands.executeCommand('worldline.savePoint');
  }

  async refresh(): Promise<void> {
    if (!this.view) return;
    const data = await this.controller.view();
    this.post({ type: 'render', view: data ?? { worldlines: [], current: { storyAfterLastSave: false }, deleted: [] } });
  }
}
