// Save points and worldlines in VS Code: the flows of src/worldline/saveFlows.ts (Save Point…, Load
// Save…, Rename Worldline…, Delete Save, Compare Saves…, Export Worldline as Manuscript and as…) over the
// quick pick, the diff editor, the save dialog and the file system, and the worldline-state:
// documents Compare Saves shows. Both views read `view()` and re-render on `onDidChangeView`.
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { CheckpointDocument, SceneStateDocument } from '../protocol/diff';
import type { SaveEntry } from '../session/entries';
import type { WorldlineView } from '../worldline';
import type { ExportFormat } from '../worldline/exporters/formats';
import { stateDocumentAt } from '../worldline/compare';
import { SaveFlows } from '../worldline/saveFlows';
import { checkpointUri, type CheckpointController } from './checkpointController';
import type { Log } from './log';
import { exists, type NovelWorkspace } from './novel';
import { translate } from './notices';
import { vscodePrompter } from './prompter';
import type { StoryShell } from './storyShell';

export const STATE_SCHEME = 'worldline-state';

export class WorldlineController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stateDocChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [this.changed, this.stateDocChanged];
  private readonly flows: SaveFlows<vscode.Uri>;
  /** Fires when saves, renames, deletes or the leaf changed: both views re-render. */
  readonly onDidChangeView = this.changed.event;
  readonly onDidChange = this.stateDocChanged.event;

  constructor(private readonly getNovel: () => NovelWorkspace | undefined, stories: StoryShell, checkpoints: CheckpointController, log: Log) {
    const uri = (doc: CheckpointDocument | SceneStateDocument): vscode.Uri => (doc.kind === 'sceneState'
      ? vscode.Uri.from({ scheme: STATE_SCHEME, path: `/${doc.name.replace(/[\\/]/g, '_')}/${doc.entryId}.yaml` })
      : checkpointUri(doc.commit, doc.path));
    this.flows = new SaveFlows<vscode.Uri>({
      prompter: vscodePrompter,
      log,
      open: () => {
        const novel = getNovel();
        return novel?.session && { root: novel.root.fsPath, title: novel.config.title, lang: novel.language, session: novel.session };
      },
      ensureStory: () => stories.ensure(),
      currentStory: () => stories.current(),
      store: () => checkpoints.store(),
      showDiff: (left, right, title, preview) => vscode.commands.executeCommand('vscode.diff', uri(left), uri(right), translate(title), { preview }),
      chooseTarget: (title, defaultPath) => vscode.window.showSaveDialog({ title: translate(title), defaultUri: vscode.Uri.file(defaultPath), filters: { Markdown: ['md'] } }),
      writeFile: (target, text) => vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text)),
      nameOf: (target) => path.basename(target.fsPath),
      openDocument: (target) => vscode.window.showTextDocument(target),
      progress: (title, work) => vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: translate(title) }, work),
      changed: () => this.changed.fire(),
      exportTo: {
        chooseFile: (title, defaultPath, filter) => vscode.window.showSaveDialog({ title: translate(title), defaultUri: vscode.Uri.file(defaultPath), filters: { [filter.name]: [filter.extension] } }),
        chooseFolder: async (title, defaultPath) => (await vscode.window.showOpenDialog({
          title: translate(title), defaultUri: vscode.Uri.file(defaultPath), canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: vscode.l10n.t('Export Here'),
        }))?.[0],
        child: (folder, name) => vscode.Uri.joinPath(folder, name),
        pathOf: (target) => target.fsPath,
        exists,
        makeFolder: (target) => vscode.workspace.fs.createDirectory(target),
        writeFile: (target, bytes) => vscode.workspace.fs.writeFile(target, bytes),
        reveal: (target) => vscode.commands.executeCommand('revealFileInOS', target),
        now: () => new Date(),
      },
    });
    this.disposables.push(vscode.workspace.registerTextDocumentContentProvider(STATE_SCHEME, this));
  }

  /** Called by the wiring when the session or its tree changed. */
  refresh(): void {
    this.changed.fire();
  }

  view(): Promise<WorldlineView | undefined> { return this.flows.view(); }
  savePoint(name?: string): Promise<SaveEntry | undefined> { return this.flows.savePoint(name); }
  loadSave(saveId?: string): Promise<boolean> { return this.flows.loadSave(saveId); }
  renameWorldline(worldlineId?: string, name?: string): Promise<boolean> { return this.flows.renameWorldline(worldlineId, name); }
  deleteSave(saveId?: string): Promise<boolean> { return this.flows.deleteSave(saveId); }
  compareSaves(firstId?: string, secondId?: string, file?: string): Promise<{ files: number } | undefined> { return this.flows.compareSaves(firstId, secondId, file); }
  exportWorldline(saveId?: string, target?: vscode.Uri): Promise<vscode.Uri | undefined> { return this.flows.exportWorldline(saveId, target); }
  exportWorldlineAs(saveId?: string, format?: ExportFormat, target?: vscode.Uri): Promise<vscode.Uri | undefined> { return this.flows.exportWorldlineAs(saveId, format, target); }

  /** worldline-state:/<name>/<entryId>.yaml — the scene state at a save, read-only, for Compare Saves. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const novel = this.getNovel();
    const session = novel?.session;
    return novel && session ? stateDocumentAt(session, novel.branchOptions, path.posix.basename(uri.path, '.yaml')) : '';
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
