// The Codex view: a native tree of the codex entries by kind, the entries injected at the newest
// turn marked, and the roster names with no entry. What each row shows is decided in the core
// (src/codex/tree.ts); this file loads the entries, makes the tree items and reloads when a codex
// file changes, a turn ends or the branch moves. A click opens the entry's file.
import * as vscode from 'vscode';
import { loadCodex } from '../codex/load';
import { lastInjected } from '../codex/injected';
import { missingNames } from '../codex/missing';
import { codexFolderOf } from '../codex/entryFile';
import { codexChildren, codexItem, codexTooltip, type CodexNode, type CodexTreeInput } from '../codex/tree';
import type { CodexEntry } from '../codex/types';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate } from './notices';

export class CodexTreeProvider implements vscode.TreeDataProvider<CodexNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CodexNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private input: CodexTreeInput = { entries: [], injected: new Set(), missing: [] };
  private watcher: vscode.Disposable | undefined;
  private watched: string | undefined;
  private loading: Promise<void> | undefined;
  private again = false;
  private shown: string | undefined;
  private shownEntries: readonly CodexEntry[] | undefined;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly getNovel: () => NovelWorkspace | undefined, private readonly log: Log) {
    void this.reload();
  }

  /** The codex folder of the open novel (worldline.yaml `codex:`). */
  folder(): string {
    return codexFolderOf(this.getNovel()?.config ?? {});
  }

  entries(): readonly CodexEntry[] {
    return this.input.entries;
  }

  /** Loads the entries again and redraws; calls during a load make one more load after it. */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = this.load().finally(() => {
      this.loading = undefined;
      if (this.again) {
        this.again = false;
        void this.reload();
      }
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const novel = this.getNovel();
    if (!novel) return;
    const folder = this.folder();
    this.watch(novel, folder);
    try {
      const { entries } = await loadCodex(novel.root.fsPath, folder);
      this.input = { ...this.input, entries };
    } catch (err) {
      this.log.warn(`codex view: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.branchMoved();
  }

  /** The badge and the missing names again, from the entries already loaded (the branch moved, a turn was written). */
  branchMoved(): void {
    const novel = this.getNovel();
    if (!novel) return;
    const branch = novel.branch();
    const state = branch?.state.state ?? novel.branchOptions.opening;
    const injected = branch ? lastInjected(branch.path)?.paths ?? [] : [];
    const missing = missingNames(state.roster, this.input.entries);
    // Every append moves the tree; the view is redrawn only when what it shows changed.
    const shown = JSON.stringify([injected, missing]);
    if (shown === this.shown && this.input.entries === this.shownEntries) return;
    this.shown = shown;
    this.shownEntries = this.input.entries;
    this.input = { entries: this.input.entries, injected: new Set(injected), missing };
    this.changed.fire(undefined);
  }

  /** One watcher on the codex folder, made again when the folder setting changes. */
  private watch(novel: NovelWorkspace, folder: string): void {
    if (this.watched === folder && this.watcher) return;
    this.watcher?.dispose();
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.joinPath(novel.root, folder), '**/*.md'));
    const reload = () => void this.reload();
    this.watcher = vscode.Disposable.from(w, w.onDidChange(reload), w.onDidCreate(reload), w.onDidDelete(reload));
    this.watched = folder;
  }

  getChildren(parent?: CodexNode): CodexNode[] {
    return codexChildren(this.input, parent);
  }

  getTreeItem(node: CodexNode): vscode.TreeItem {
    const shown = codexItem(node, translate);
    const item = new vscode.TreeItem(shown.label, shown.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = shown.id;
    item.iconPath = new vscode.ThemeIcon(shown.icon, shown.highlight ? new vscode.ThemeColor('charts.green') : undefined);
    item.description = shown.description;
    item.accessibilityInformation = { label: shown.accessibleLabel };
    if (shown.contextValue) item.contextValue = shown.contextValue;
    const novel = this.getNovel();
    if (shown.open && novel) {
      const uri = vscode.Uri.joinPath(novel.root, shown.open);
      item.command = { command: 'vscode.open', title: vscode.l10n.t('Open'), arguments: [uri] };
    }
    return item;
  }

  resolveTreeItem(item: vscode.TreeItem, node: CodexNode): vscode.TreeItem {
    const tooltip = new vscode.MarkdownString(codexTooltip(node, translate));
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    return item;
  }

  dispose(): void {
    this.watcher?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
