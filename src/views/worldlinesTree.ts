// The Worldlines view: a native tree of worldlines and their saves. A click loads a save; the
// context menu renames the line, deletes or compares saves and exports the manuscript.
import * as vscode from 'vscode';
import type { SaveNode, WorldlineNode, WorldlineView } from '../worldline';
import type { WorldlineController } from './worldlineController';

type Node =
  | { kind: 'line'; line: WorldlineNode }
  | { kind: 'save'; save: SaveNode; line: WorldlineNode }
  /** Story written since the current save, not saved yet; `forks` when later saves exist on the line. */
  | { kind: 'after'; from: SaveNode; forks: boolean };

export class WorldlinesTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: WorldlineView | undefined;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly controller: WorldlineController) {
    this.disposables.push(controller.onDidChangeView(() => this.changed.fire(undefined)));
  }

  async getChildren(parent?: Node): Promise<Node[]> {
    if (!parent) {
      this.view = await this.controller.view();
      const lines: Node[] = (this.view?.worldlines ?? []).map((line) => ({ kind: 'line', line }));
      return lines;
    }
    if (parent.kind === 'line') {
      const saves: Node[] = parent.line.saves.map((save) => ({ kind: 'save', save, line: parent.line }));
      // Unsaved story goes right under the save it grew from: after a loaded save in the middle
      // of a line it sits between that save and the later ones (saving it forks a new line).
      const at = parent.line.saves.findIndex((s) => s.isCurrent);
      if (parent.line.isCurrent && this.view?.current.storyAfterLastSave && at >= 0) {
        saves.splice(at + 1, 0, { kind: 'after', from: parent.line.saves[at] as SaveNode, forks: at < parent.line.saves.length - 1 });
      }
      return saves;
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'line') {
      const item = new vscode.TreeItem(node.line.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `line:${node.line.id}`;
      item.iconPath = new vscode.ThemeIcon('git-branch', node.line.isCurrent ? new vscode.ThemeColor('charts.blue') : undefined);
      item.description = node.line.forkFrom
        ? vscode.l10n.t('from "{0}" · {1} save(s)', node.line.forkFrom.name, node.line.saves.length)
        : vscode.l10n.t('{0} save(s)', node.line.saves.length);
      item.contextValue = 'worldline';
      item.tooltip = node.line.originalName !== node.line.name ? `${node.line.name} (${node.line.originalName})` : node.line.name;
      return item;
    }
    if (node.kind === 'after') {
      const item = new vscode.TreeItem(
        node.forks ? vscode.l10n.t('Story written after "{0}", not saved', node.from.name) : vscode.l10n.t('Story written after the last save'),
        vscode.TreeItemCollapsibleState.None,
      );
      item.id = 'after-last-save';
      item.iconPath = new vscode.ThemeIcon('edit');
      item.description = vscode.l10n.t('you are here');
      item.tooltip = node.forks
        ? vscode.l10n.t('This story went another way than the later saves of this line. Save Point… keeps it as a new worldline.')
        : vscode.l10n.t('Save Point… keeps it.');
      return item;
    }
    const s = node.save;
    const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
    item.id = `save:${s.saveId}`;
    item.iconPath = new vscode.ThemeIcon(s.isCurrent ? 'location' : s.onCurrentBranch ? 'circle-filled' : 'circle-outline');
    item.description = [s.isCurrent && !this.view?.current.storyAfterLastSave ? vscode.l10n.t('you are here') : '', new Date(s.ts).toLocaleString()].filter(Boolean).join(' · ');
    item.tooltip = vscode.l10n.t('Click to load this save (prose and chat; Undo Last Restore returns).');
    item.contextValue = 'save';
    item.command = { command: 'worldline.loadSave', title: vscode.l10n.t('Load Save'), arguments: [s.saveId] };
    return item;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Commands from the tree's context menu receive the node; the palette passes nothing. */
export function saveIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'kind' in arg) {
    const node = arg as Node;
    if (node.kind === 'save') return node.save.saveId;
  }
  return undefined;
}

export function worldlineIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'kind' in arg) {
    const node = arg as Node;
    if (node.kind === 'line') return node.line.id;
    if (node.kind === 'save') return node.line.id;
  }
  return undefined;
}
