// The Worldlines view: a native tree of worldlines and their saves. A click loads a save; the
// context menu renames the line, deletes or compares saves and exports the manuscript. What each
// node shows is decided in the core (src/worldline/treeItems.ts); this file makes the tree items.
import * as vscode from 'vscode';
import type { WorldlineView } from '../worldline';
import { treeChildren, treeItem, type TreeNode } from '../worldline/treeItems';
import type { WorldlineController } from './worldlineController';
import { translate } from './notices';

export { saveIdOf, worldlineIdOf } from '../worldline/treeItems';

export class WorldlinesTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: WorldlineView | undefined;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly controller: WorldlineController) {
    this.disposables.push(controller.onDidChangeView(() => this.changed.fire(undefined)));
  }

  async getChildren(parent?: TreeNode): Promise<TreeNode[]> {
    if (!parent) this.view = await this.controller.view();
    return treeChildren(this.view, parent);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const shown = treeItem(node, translate);
    const item = new vscode.TreeItem(shown.label, shown.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = shown.id;
    item.iconPath = new vscode.ThemeIcon(shown.icon, shown.highlight ? new vscode.ThemeColor('charts.blue') : undefined);
    item.description = shown.description;
    item.tooltip = shown.tooltip;
    if (shown.contextValue) item.contextValue = shown.contextValue;
    if (shown.loads) item.command = { command: 'worldline.loadSave', title: vscode.l10n.t('Load Save'), arguments: [shown.loads] };
    return item;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
