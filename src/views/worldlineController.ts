// Save points and worldlines in VS Code: Save Point…, Load Save…, Rename Worldline…, Delete Save,
// Compare Saves…, Export Worldline as Manuscript. The data comes from the tree (save entries) and
// the sidecar (.worldline/worldlines.json: renames and soft deletes); both views read `view()`.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { stringify } from 'yaml';
import {
  buildWorldlineView, checkpointAtSave, deleteSave, exportManuscript, findSave, planNewSave, readSidecar,
  renameWorldline, restoreSave, sidecarFor, sidecarPath, updateSidecar, emptySidecar,
  type SaveNode, type WorldlineSidecar, type WorldlineView,
} from '../worldline';
import { stateAt } from '../state/stateAt';
import type { SaveEntry } from '../session/entries';
import type { Session } from '../session/session';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { AgentController } from './agentController';
import type { CheckpointController } from './checkpointController';
import { checkpointUri } from './checkpointController';

export const STATE_SCHEME = 'worldline-state';

export class WorldlineController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private sidecarCache: { sessionId: string; sidecar: WorldlineSidecar } | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateDocChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [this.changed, this.stateDocChanged];
  /** Fires when saves, renames, deletes or the leaf changed: both views re-render. */
  readonly onDidChangeView = this.changed.event;
  readonly onDidChange = this.stateDocChanged.event;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly agent: AgentController,
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

  private async sidecar(): Promise<WorldlineSidecar> {
    const novel = this.getNovel();
    const session = this.session;
    if (!novel || !session) return emptySidecar();
    if (this.sidecarCache?.sessionId === session.header.id) return this.sidecarCache.sidecar;
    const read = await readSidecar(sidecarPath(novel.root.fsPath));
    if (read.problem) {
      this.log.warn(read.problem);
      void vscode.window.showWarningMessage(read.problem);
    }
    const sidecar = sidecarFor(read.data, session.header.id);
    this.sidecarCache = { sessionId: session.header.id, sidecar };
    return sidecar;
  }

  async view(): Promise<WorldlineView | undefined> {
    const session = this.session;
    if (!session) return undefined;
    return buildWorldlineView(session, await this.sidecar(), session.leafId);
  }

  private async change(update: (s: WorldlineSidecar) => WorldlineSidecar): Promise<void> {
    const novel = this.getNovel();
    const session = this.session;
    if (!novel || !session) return;
    const { sidecar, problem } = await updateSidecar(sidecarPath(novel.root.fsPath), session.header.id, update);
    if (problem) {
      this.log.warn(problem);
      void vscode.window.showWarningMessage(problem);
    }
    this.sidecarCache = { sessionId: session.header.id, sidecar };
    this.changed.fire();
  }

  /** Save Point…: written after the scribe of the turn has finished, so it carries that turn's state. */
  async savePoint(name?: string): Promise<SaveEntry | undefined> {
    const novel = this.getNovel();
    if (!novel) return undefined;
    if (!this.agent.guard(vscode.l10n.t('save'))) return undefined;
    const session = await novel.ensureSession();
    if (session.readOnly) {
      void vscode.window.showWarningMessage(vscode.l10n.t('This window is read-only: another VS Code window is writing this novel.'));
      return undefined;
    }
    const chosen = name ?? await vscode.window.showInputBox({
      title: vscode.l10n.t('Save Point'),
      prompt: vscode.l10n.t('A name for this point of the story (leave empty for a numbered one)'),
    });
    if (chosen === undefined) return undefined;
    // After the scribe (the save carries that turn's state), never inside a turn.
    const saved = await this.agent.background(vscode.l10n.t('save'), async () => {
      // The prose as it is now, hand edits included, so loading this save brings exactly it back.
      try {
        await this.checkpoints.record(session, `save-${Date.now().toString(36)}`, true);
      } catch (err) {
        this.log.warn(`checkpoint before the save failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      const plan = planNewSave({ name: chosen, lang: novel.language, tree: session, sidecar: await this.sidecar() });
      const entry = (await session.append(plan)) as SaveEntry;
      await session.flush();
      return { plan, entry };
    });
    if (!saved) return undefined;
    const { plan, entry } = saved;
    const how = plan.kind === 'fork'
      ? vscode.l10n.t('Saved "{0}". The story went another way here, so a new worldline begins: {1}.', entry.name, entry.worldlineName)
      : vscode.l10n.t('Saved "{0}" on {1}.', entry.name, entry.worldlineName);
    this.log.info(how);
    void vscode.window.showInformationMessage(how);
    this.changed.fire();
    return entry;
  }

  private async pickSave(title: string, placeHolder?: string, exclude?: string): Promise<SaveNode | undefined> {
    const view = await this.view();
    const items = (view?.worldlines ?? []).flatMap((line) => line.saves
      .filter((s) => s.saveId !== exclude)
      .map((s) => ({
        label: `${s.isCurrent ? '$(location) ' : ''}${s.name}`,
        description: line.name,
        detail: new Date(s.ts).toLocaleString(),
        save: s,
      })));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There are no save points yet. Use Worldline: Save Point… to make one.'));
      return undefined;
    }
    return (await vscode.window.showQuickPick(items, { title, placeHolder, matchOnDescription: true }))?.save;
  }

  private async resolve(saveId: string | undefined, title: string): Promise<SaveEntry | undefined> {
    const session = this.session;
    if (!session) return undefined;
    const id = saveId ?? (await this.pickSave(title))?.saveId;
    return id ? findSave(session, id) : undefined;
  }

  /** Load Save = restore prose and chat to it (with the safety commit and Undo). */
  async loadSave(saveId?: string): Promise<boolean> {
    const save = await this.resolve(saveId, vscode.l10n.t('Load Save'));
    if (!save) return false;
    const result = await this.checkpoints.load(save.id);
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
    const bId = secondId ?? (await this.pickSave(vscode.l10n.t('Compare Saves: the second save'), undefined, a.saveId))?.saveId;
    const b = bId ? findSave(session, bId) : undefined;
    if (!b) return undefined;
    await vscode.commands.executeCommand('vscode.diff', stateUri(a), stateUri(b), vscode.l10n.t('Scene state: {0} ↔ {1}', a.name, b.name), { preview: false });
    const ca = checkpointAtSave(session, a.saveId);
    const cb = checkpointAtSave(session, b.saveId);
    const repo = await this.checkpoints.store();
    if (!ca || !cb || !repo) return { files: 0 };
    const changes = await repo.changedFiles(ca.commit, cb.commit);
    if (changes.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The manuscript is the same at both saves.'));
      return { files: 0 };
    }
    let pick = file ? changes.find((c) => c.path === file) : changes.length === 1 ? changes[0] : undefined;
    if (!pick && !file) {
      pick = (await vscode.window.showQuickPick(changes.map((c) => ({ label: c.path, description: c.status, c })), { title: vscode.l10n.t('Compare Saves: which file?') }))?.c;
    }
    if (pick) {
      await vscode.commands.executeCommand('vscode.diff', checkpointUri(ca.commit, pick.path), checkpointUri(cb.commit, pick.path),
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
    const checkpoint = checkpointAtSave(session, save.saveId);
    const repo = await this.checkpoints.store();
    if (!checkpoint || !repo) {
      void vscode.window.showWarningMessage(vscode.l10n.t('This save has no checkpoint of the manuscript, so there is nothing to export.'));
      return undefined;
    }
    const files = [];
    for (const p of await repo.filesAt(checkpoint.commit)) {
      const text = await repo.readAt(checkpoint.commit, p);
      if (text !== undefined) files.push({ path: p, text });
    }
    const view = await this.view();
    const line = view?.worldlines.find((l) => l.id === save.worldlineId);
    const markdown = exportManuscript({ files, title: novel.config.title || path.basename(novel.root.fsPath), saveName: save.name, worldlineName: line?.name ?? save.worldlineName, lang: novel.language });
    const uri = target ?? await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Export Worldline as Manuscript'),
      // Outside the novel folder by default, so the export never becomes part of the manuscript.
      defaultUri: vscode.Uri.file(path.join(path.dirname(novel.root.fsPath), `${safeFileName(`${novel.config.title || 'novel'}-${line?.name ?? ''}-${save.name}`)}.md`)),
      filters: { Markdown: ['md'] },
    });
    if (!uri) return undefined;
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(markdown));
    const open = vscode.l10n.t('Open');
    void vscode.window.showInformationMessage(vscode.l10n.t('Exported {0} file(s) as {1}.', files.length, path.basename(uri.fsPath)), open).then((pick) => {
      if (pick === open) void vscode.window.showTextDocument(uri);
    });
    return uri;
  }

  /** worldline-state:/<entryId>.yaml — the scene state at a save, read-only, for Compare Saves. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const novel = this.getNovel();
    const session = this.session;
    if (!novel || !session) return '';
    const entryId = path.posix.basename(uri.path, '.yaml');
    if (!session.get(entryId)) return '';
    return stringify(stateAt(session.path(entryId), novel.config.opening, { lang: novel.language }).state, { lineWidth: 0 });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function stateUri(save: SaveEntry): vscode.Uri {
  return vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${save.name.replace(/[\\/]/g, '_')}/${save.id}.yaml` });
}

function safeFileName(name: string): string {
  return name.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').replace(/\s+/g, ' ').trim().slice(0, 120) || 'export';
}
