// Checkpoints in VS Code: opening the store (Restricted Mode, health, rebuild), Show Turn Changes
// and Compare with Current Prose in the diff editor, and the checkpoint: documents they show. The
// verbs over checkpoints (restores, undo, prose follows the branch, the checkpoint at a turn's
// edges) are the Story's (src/story/story.ts).
import * as vscode from 'vscode';
import type { ShadowRepo } from '../checkpoints';
import { StoreHandle, documentPath } from '../checkpoints/storeHandle';
import { diffSides, turnChanges, type ChangesAgainst } from '../checkpoints/turnChanges';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { Notices } from './notices';

export const CHECKPOINT_SCHEME = 'worldline-checkpoint';

export class CheckpointController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly handle: StoreHandle;
  /** The Restricted Mode word was shown in this window. */
  private explainedRestricted = false;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.contentChanged.event;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly notices: Notices,
    private readonly log: Log,
  ) {
    this.handle = new StoreHandle({
      restricted: () => this.restricted(),
      book: () => { const novel = this.getNovel(); return novel && { root: novel.root.fsPath, globs: novel.config.manuscript }; },
      failed: (problem) => this.notices.warnOnce(problem.message, problem.kind === 'corrupt'),
      log,
    });
    this.disposables.push(
      this.contentChanged,
      vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, this),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.trustGranted()),
    );
  }

  /**
   * Restricted Mode: a folder the novelist has not trusted may come from someone else, so no git
   * runs on its store at all (checkpoints off; writing goes on). Said once, with the way out.
   */
  private restricted(): boolean {
    if (vscode.workspace.isTrusted) return false;
    if (!this.explainedRestricted) {
      this.explainedRestricted = true;
      this.log.info('checkpoints are off: the folder is not trusted (Restricted Mode)');
      this.notices.offer('info', restrictedText(), vscode.l10n.t('Manage Workspace Trust'), () => vscode.commands.executeCommand('workbench.trust.manage'));
    }
    return true;
  }

  /** The folder was trusted: checkpoints start now (a store that could not open is tried again). */
  private trustGranted(): void {
    this.handle.forgetFailure();
    this.log.info('checkpoints: the folder is trusted now; starting them');
    this.notices.background(this.checkHealth(), 'starting checkpoints');
  }

  /** Why checkpoints are off, for the novelist. */
  unavailableText(): string {
    if (!vscode.workspace.isTrusted) return restrictedText();
    return this.handle.failure ?? vscode.l10n.t('Checkpoints are not available.');
  }

  /** The shadow repo, opened once (src/checkpoints/storeHandle.ts). Undefined when checkpoints are off. */
  store(): Promise<ShadowRepo | undefined> {
    return this.handle.store();
  }

  /**
   * On start: a damaged store, or a store that was lost (open started a new one while the session
   * still refers to checkpoints), is reported once with the way out. Never blocks activation.
   */
  async checkHealth(): Promise<void> {
    const novel = this.getNovel();
    if (!novel || !(await novel.hasProjectFile())) return;
    const problem = await this.handle.problem(novel.session?.entries());
    if (!problem) return;
    this.log.warn(problem);
    if (!this.notices.once(problem)) return;
    const rebuild = vscode.l10n.t('Rebuild Checkpoints');
    const pick = await vscode.window.showWarningMessage(problem, rebuild);
    if (pick === rebuild) await this.rebuild();
  }

  /** Rebuild Checkpoints: a new store from the manuscript as it is (the old one kept aside); the caller drops its Undo. */
  async rebuild(): Promise<boolean> {
    if (!this.getNovel()) return false;
    if (!vscode.workspace.isTrusted) {
      this.notices.notify('info', restrictedText()); // asked for: said again, however often
      return false;
    }
    try {
      const rebuilt = await this.handle.rebuild();
      if (!rebuilt) return false;
      this.notices.notify('info', rebuilt.aside
        ? vscode.l10n.t('Checkpoints rebuilt from the current manuscript. The old store was kept in {0}.', rebuilt.aside)
        : vscode.l10n.t('Checkpoints rebuilt from the current manuscript.'));
      return true;
    } catch (err) {
      const message = errorText(err);
      this.log.error(message);
      this.notices.notify('error', message);
      return false;
    }
  }

  setGlobs(globs: string[]): void {
    this.handle.setGlobs(globs);
  }

  /**
   * Show Turn Changes (`against` 'previous': this checkpoint against the one before it), or
   * Compare with Current Prose ('working': the checkpoint against the files as they are now, the
   * right side editable).
   */
  async showChanges(checkpointEntryId: string | undefined, file?: string, against: ChangesAgainst = 'previous'): Promise<number> {
    const novel = this.getNovel();
    const session = novel?.session;
    if (!novel || !session) return 0;
    const found = await turnChanges(session, await this.store(), checkpointEntryId, against, file);
    if (found.kind === 'none') {
      this.notices.notify('info', vscode.l10n.t('There is no checkpoint to compare yet: one is taken at the end of every agent turn.'));
      return 0;
    }
    const { changes } = found;
    if (changes.length === 0) {
      this.notices.notify('info', against === 'working'
        ? vscode.l10n.t('The manuscript is exactly as it was at this checkpoint.')
        : vscode.l10n.t('This turn changed no manuscript file.'));
      return 0;
    }
    const items = changes.map((c) => ({ label: c.path, description: c.status, change: c }));
    const pick = found.pick ?? (await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Show Turn Changes') }))?.change;
    if (!pick) return changes.length;
    const sides = diffSides(found, pick);
    const uri = (side: string) => (side === 'working' ? vscode.Uri.joinPath(novel.root, ...pick.path.split('/')) : checkpointUri(side, pick.path));
    const title = against === 'working' ? vscode.l10n.t('{0} (checkpoint ↔ now)', pick.path) : vscode.l10n.t('{0} (this turn\'s changes)', pick.path);
    await vscode.commands.executeCommand('vscode.diff', uri(sides.left), uri(sides.right), title, { preview: true });
    return changes.length;
  }

  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    return this.handle.document(uri.path);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function restrictedText(): string {
  return vscode.l10n.t('This folder is open in Restricted Mode, so checkpoints are off: Worldline runs no Git on a folder you have not trusted. Your writing is saved as usual. To turn checkpoints on, trust the folder.');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function checkpointUri(commit: string, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: documentPath(commit, file) });
}
