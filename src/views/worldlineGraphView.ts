// The worldline graph (webview): one lane per worldline, saves as points in the order they were
// written, fork edges from the save each line branched at, "you are here", and story written after
// the last save. Clicking a point loads that save. Drawn again only when the view changed, at most
// once a frame and not while a turn is being written.
import * as vscode from 'vscode';
import { WebviewHost, translateLabels, type OncePerTurn, type PageSpec } from './webviewHost';
import { LastShown, TurnCoalescer } from '../protocol/coalesce';
import { perChangeOf, type PerChange } from '../protocol/perChange';
import type { WorldlineView } from '../worldline/view';
import { GRAPH_LABELS } from '../protocol/graphLabels';
import { emptyWorldlineView } from '../worldline/sessionSaves';
import { decodeFromGraphPage, type FromGraphPage, type ToGraphPage } from '../protocol/graph';
import type { WorldlineController } from './worldlineController';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

export class WorldlineGraphViewProvider extends WebviewHost<ToGraphPage, FromGraphPage> {
  private readonly updates: TurnCoalescer;
  /** The view the page shows, as sent. */
  private readonly shownView = new LastShown();
  /** The view computed once per change, shared with the Worldlines tree. */
  private readonly views: PerChange<WorldlineView | undefined>;

  constructor(
    extensionUri: vscode.Uri,
    getNovel: () => NovelWorkspace | undefined,
    private readonly controller: WorldlineController,
    log: Log,
    options: OncePerTurn = {},
  ) {
    super(extensionUri, getNovel, log, decodeFromGraphPage);
    this.views = perChangeOf(controller);
    this.updates = new TurnCoalescer({ run: () => this.flush(), turns: options.turns, onError: (err) => log.warn(`worldline graph: ${String(err)}`) });
    this.disposables.push(controller.onDidChangeView(() => this.refresh()), this.updates);
  }

  protected page(): PageSpec {
    return { title: vscode.l10n.t('Worldline Graph'), name: 'graph', labels: translateLabels(GRAPH_LABELS) };
  }

  async onMessage(m: FromGraphPage): Promise<void> {
    if (m.type === 'ready') {
      this.shownView.forget();
      this.views.changed();
      await this.updates.now();
    }
    else if (m.type === 'load') await vscode.commands.executeCommand('worldline.loadSave', m.saveId);
    else await vscode.commands.executeCommand('worldline.savePoint');
  }

  protected override pageLetGo(): void {
    this.shownView.forget();
  }

  /** Asks for an update of the page (computed afresh); a burst of requests makes one. */
  refresh(): void {
    this.views.changed();
    this.updates.request();
  }

  private async flush(): Promise<void> {
    if (!this.shown) return this.pageLetGo();
    const view = (await this.views.get(() => this.controller.view())) ?? emptyWorldlineView();
    if (this.shownView.differs(view)) this.post({ type: 'render', view });
  }
}
