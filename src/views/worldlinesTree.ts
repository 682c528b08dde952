// The Worldlines view: a native tree of worldlines and their saves. A click selects; Load is the
// row's inline button and context menu, which also renames the line, deletes or compares saves and
// exports the manuscript. What each node shows is decided in the core (src/worldline/treeItems.ts);
// this file makes the tree items, and the Markdown tooltip when one is hovered (so "5 minutes ago"
// is said at that moment).
// The tree is redrawn only when the view changed, at most once a frame and not while a turn is
// being written.
import * as vscode from 'vscode';
import type { WorldlineView } from '../worldline';
import { treeChildren, treeItem, treeTooltip, type TreeNode } from '../worldline/treeItems';
import type { WorldlineController } from './worldlineController';
import { translate } from './notices';
import { LastShown, TurnCoalescer } from '../protocol/coalesce';
import { perChangeOf, type PerChange } from '../protocol/perChange';
import type { OncePerTurn } from './webviewHost';

export { saveIdOf, worldlineIdOf } from '../worldline/treeItems';

export class WorldlinesTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: WorldlineView | undefined;
  /** The view the tree shows, and the next one when it differs. */
  private readonly shownView = new LastShown();
  private nextView: { view: WorldlineView | undefined } | undefined;
  private readonly updates: TurnCoalescer;
  /** The view computed once per change, shared with the worldline graph. */
  private readonly views: PerChange<WorldlineView | undefined>;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly controller: WorldlineController, options: OncePerTurn = {}) {
    this.views = perChangeOf(controller);
    this.updates = new TurnCoalescer({ run: () => this.flush(), turns: options.turns, onError: () => this.changed.fire(undefined) });
    this.disposables.push(controller.onDidChangeView(() => { this.views.changed(); this.updates.request(); }), this.updates);
  }

  /** Settles when the update asked for has been made (tests). */
  whenUpdated(): Promise<void> {
    return this.updates.idle();
  }

  private async flush(): Promise<void> {
    const view = await this.views.get(() => this.controller.view());
    if (this.shownView.matches(view)) return;
    this.nextView = { view };
    this.changed.fire(undefined);
  }

  async getChildren(parent?: TreeNode): Promise<TreeNode[]> {
    if (!parent) {
      const next = this.nextView;
      this.nextView = undefined;
      this.view = next ? next.view : await this.views.get(() => this.controller.view());
      this.shownView.remember(this.view);
    }
    return treeChildren(this.view, parent);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const shown = treeItem(node, translate);
    const item = new vscode.TreeItem(shown.label, shown.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = shown.id;
    item.iconPath = new vscode.ThemeIcon(shown.icon, shown.highlight ? new vscode.ThemeColor('charts.blue') : undefined);
    item.description = shown.description;
    item.accessibilityInformation = { label: shown.accessibleLabel };
    if (shown.contextValue) item.contextValue = shown.contextValue;
    return item;
  }

  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    const tooltip = new vscode.MarkdownString(treeTooltip(node, translate, Date.now()));
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    return item;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
