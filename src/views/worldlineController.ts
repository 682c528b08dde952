// Save points and worldlines in VS Code: Save Point…, Load Save…, Rename Worldline…, Delete Save,
// Compare Saves…, Export Worldline as Manuscript. The data comes from the tree (save entries) and
// the sidecar (.worldline/worldlines.json: renames and soft deletes); both views read `view()`.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { deleteSave, renameWorldline, restoreSave, type SaveNode, type WorldlineSidecar, type WorldlineView } from '../worldline';
import { SessionSaves, saveRows } from '../worldline/sessionSaves';
import { exportSave } from '../worldline/exportSave';
import { changeToShow, compareSaves, stateDocumentAt } from '../worldline/compare';
import type { SaveEntry } from '../session/entries';
import type { Session } from '../session/session';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { StoryShell } from './storyShell';
import type { CheckpointController } from './checkpointController';
import { checkpointUri } from './checkpointController';

export const STATE_SCHEME = 'worldline-state';

export class WorldlineController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly saves = new SessionSaves(() => {
    const novel = this.getNovel();
    return novel?.session && { root: novel.root.fsPath, session: novel.session };
  }, (problem) => {
    this.log.warn(problem);
    void vscode.window.showWarningMessage(problem);
  });
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateDocChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [this.changed, this.stateDocChanged];
  /** Fires when saves, renames, deletes or the leaf changed: both views re-render. */
  readonly onDidChangeView = this.changed.event;
  readonly onDidChange = this.stateDocChanged.event;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly stories: StoryShell,
    private readonly checkpoints: CheckpointController,
    private readonly log: Log,
  ) {
    this.disposables.push(vscode.workspace.registerTextDocumentContentProvider(STATE_SCHEME, this));
  }

  /** Called by the wiring when the session or its tree changed. */
  refresh(): void {
    this.changed.fire();
  }

  private get session(): Session | undefined {
    return this.getNovel()?.session;
  }

  view(): Promise<WorldlineView | undefined> {
    return this.saves.view();
  }

  private async change(update: (s: WorldlineSidecar) => WorldlineSidecar): Promise<void> {
    if (await this.saves.change(update)) this.changed.fire();
  }

  /** Save Point… (the Story writes it after the scribe, so it carries that turn's state). */
  async savePoint(name?: string): Promise<SaveEntry | undefined> {
    const story = await this.stories.ensure();
    // Refused before the name is asked for: while the agent writes, or in a read-only window.
    if (!story || !story.writable('save')) return undefined;
    const chosen = name ?? await vscode.window.showInputBox({
      title: vscode.l10n.t('Save Point'),
      prompt: vscode.l10n.t('A name for this point of the story (leave empty for a numbered one)'),
    });
    if (chosen === undefined) return undefined;
    const entry = await story.savePoint({ name: chosen, sidecar: await this.saves.sidecar() });
    this.changed.fire();
    return entry;
  }

  private async pickSave(title: string, placeHolder?: string, exclude?: string): Promise<SaveNode | undefined> {
    const items = saveRows(await this.view(), exclude);
    if (items.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There are no save points yet. Use Worldline: Save Point… to make one.'));
      return undefined;
    }
    return (await vscode.window.showQuickPick(items, { title, placeHolder, matchOnDescription: true }))?.save;
  }

  private async resolve(saveId: string | undefined, title: string): Promise<SaveEntry | undefined> {
    if (!this.session) return undefined;
    return this.saves.find(saveId ?? (await this.pickSave(title))?.saveId);
  }

  /** Load Save = restore prose and chat to it (with the safety commit and Undo). */
  async loadSave(saveId?: string): Promise<boolean> {
    const save = await this.resolve(saveId, vscode.l10n.t('Load Save'));
    if (!save) return false;
    const result = await this.stories.current()?.loadSave(save.id);
    if (result === 'cancelled') return false;
    this.changed.fire();
    return this.session?.leafId === save.id;
  }

  async renameWorldline(worldlineId?: string, name?: string): Promise<boolean> {
    const view = await this.view();
    let id = worldlineId;
    if (!id) {
      const pick = await vscode.window.showQuickPick((view?.worldlines ?? []).map((l) => ({ label: l.name, description: vscode.l10n.t('{0} save(s)', l.saves.length), id: l.id })), { title: vscode.l10n.t('Rename Worldline') });
      id = pick?.id;
    }
    const line = view?.worldlines.find((l) => l.id === id);
    if (!id || !line) return false;
    const newName = name ?? await vscode.window.showInputBox({
      title: vscode.l10n.t('Rename Worldline'),
      value: line.name,
      validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The name cannot be empty.')),
    });
    if (!newName || !newName.trim()) return false;
    await this.change((s) => renameWorldline(s, id!, newName.trim()));
    return true;
  }

  /** Soft delete: the save leaves the views; the tree keeps it (and Undo brings it back). */
  async deleteSave(saveId?: string): Promise<boolean> {
    const save = await this.resolve(saveId, vscode.l10n.t('Delete Save'));
    if (!save) return false;
    await this.change((s) => deleteSave(s, save.saveId));
    const undo = vscode.l10n.t('Undo');
    void vscode.window.showInformationMessage(vscode.l10n.t('Save "{0}" deleted from the list. The story itself is untouched.', save.name), undo).then((pick) => {
      if (pick === undo) void this.change((s) => restoreSave(s, save.saveId));
    });
    return true;
  }

  /** Compare Saves…: the prose in the diff editor, and the two scene states side by side. */
  async compareSaves(firstId?: string, secondId?: string, file?: string): Promise<{ files: number } | undefined> {
    const session = this.session;
    if (!session) return undefined;
    const a = await this.resolve(firstId, vscode.l10n.t('Compare Saves: the first save'));
    if (!a) return undefined;
    const b = this.saves.find(secondId ?? (await this.pickSave(vscode.l10n.t('Compare Saves: the second save'), undefined, a.saveId))?.saveId);
    if (!b) return undefined;
    await vscode.commands.executeCommand('vscode.diff', stateUri(a), stateUri(b), vscode.l10n.t('Scene state: {0} ↔ {1}', a.name, b.name), { preview: false });
    const comparison = await compareSaves(session, a.saveId, b.saveId, await this.checkpoints.store());
    if (comparison.kind === 'no-prose') return { files: 0 };
    if (comparison.kind === 'same') {
      void vscode.window.showInformationMessage(vscode.l10n.t('The manuscript is the same at both saves.'));
      return { files: 0 };
    }
    const { from, to, changes } = comparison;
    let pick = changeToShow(changes, file);
    if (pick === 'ask') {
      pick = (await vscode.window.showQuickPick(changes.map((c) => ({ label: c.path, description: c.status, c })), { title: vscode.l10n.t('Compare Saves: which file?') }))?.c;
    }
    if (pick) {
      await vscode.commands.executeCommand('vscode.diff', checkpointUri(from.commit, pick.path), checkpointUri(to.commit, pick.path),
        `${pick.path}: ${a.name} ↔ ${b.name}`, { preview: false });
    }
    return { files: changes.length };
  }

  /** Export Worldline as Manuscript: the book as it stood at a save, in reading order, one Markdown file. */
  async exportWorldline(saveId?: string, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
    const novel = this.getNovel();
    const session = this.session;
    if (!novel || !session) return undefined;
    const save = await this.resolve(saveId, vscode.l10n.t('Export Worldline as Manuscript'));
    if (!save) return undefined;
    const made = await exportSave({
      tree: session, sidecar: await this.saves.sidecar(), save, repo: await this.checkpoints.store(),
      title: novel.config.title, folderName: path.basename(novel.root.fsPath), lang: novel.language,
    });
    if (!made.ok) {
      void vscode.window.showWarningMessage(vscode.l10n.t('This save has no checkpoint of the manuscript, so there is nothing to export.'));
      return undefined;
    }
    const uri = target ?? await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Export Worldline as Manuscript'),
      // Outside the novel folder by default, so the export never becomes part of the manuscript.
      defaultUri: vscode.Uri.file(path.join(path.dirname(novel.root.fsPath), made.fileName)),
      filters: { Markdown: ['md'] },
    });
    if (!uri) return undefined;
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(made.markdown));
    const open = vscode.l10n.t('Open');
    void vscode.window.showInformationMessage(vscode.l10n.t('Exported {0} file(s) as {1}.', made.files, path.basename(uri.fsPath)), open).then((pick) => {
      if (pick === open) void vscode.window.showTextDocument(uri);
    });
    return uri;
  }

  /** worldline-state:/<entryId>.yaml — the scene state at a save, read-only, for Compare Saves. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const novel = this.getNovel();
    const session = this.session;
    if (!novel || !session) return '';
    return stateDocumentAt(session, novel.branchOptions, path.posix.basename(uri.path, '.yaml'));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function stateUri(save: SaveEntry): vscode.Uri {
  return vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${save.name.replace(/[\\/]/g, '_')}/${save.id}.yaml` });
}
