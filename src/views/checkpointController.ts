// Checkpoints in VS Code: opening the store (Restricted Mode, health, rebuild), Show Turn Changes
// and Compare with Current Prose (src/checkpoints/changesFlow.ts) in the diff editor, and the
// checkpoint: documents they show. The verbs over checkpoints (restores, undo, prose follows the
// branch, the checkpoint at a turn's edges) are the Story's (src/story/story.ts).
import * as vscode from 'vscode';
import type { CheckpointProblem, ShadowRepo } from '../checkpoints';
import { StoreHandle, documentPath } from '../checkpoints/storeHandle';
import type { ChangesAgainst } from '../checkpoints/turnChanges';
import { showChanges } from '../checkpoints/changesFlow';
import { MANAGE_TRUST, NEEDS_ATTENTION, RESTRICTED_WORDS, UNAVAILABLE_WORDS, rebuiltWords } from '../checkpoints/words';
import type { Text } from '../common/text';
import { checkpointProblemWords, sayWords } from '../story/problemWords';
import type { CheckpointDocument, WorkingDocument } from '../protocol/diff';
import { ManuscriptChanges } from '../project/manuscriptChanges';
import type { ManuscriptSpec } from '../project/manuscript';
import { ManuscriptWatch } from './manuscriptWatch';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { translate, type Notices } from './notices';
import { vscodePrompter } from './prompter';

export const CHECKPOINT_SCHEME = 'worldline-checkpoint';

export class CheckpointController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  /**
   * The window's manuscript change feed: the Story's tool writes and restores, the editor's saves
   * and the file watcher. The store stages from it (only what changed); the word count can follow it.
   */
  readonly changes = new ManuscriptChanges();
  private readonly watch = new ManuscriptWatch(this.changes);
  private readonly handle: StoreHandle;
  /** The Restricted Mode word was shown in this window. */
  private explainedRestricted = false;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.contentChanged.event;
  private readonly rebuilt = new vscode.EventEmitter<void>();
  private readonly restored = new vscode.EventEmitter<void>();
  /** The store was rebuilt: the session's older checkpoints are not in it. */
  readonly onDidRebuild = this.rebuilt.event;
  /** A restore or an undo changed the manuscript (the files went to the change feed too). */
  readonly onDidRestore = this.restored.event;

  constructor(private readonly getNovel: () => NovelWorkspace | undefined, private readonly notices: Notices, private readonly log: Log) {
    this.handle = new StoreHandle({
      restricted: () => this.restricted(),
      book: () => { const novel = this.getNovel(); return novel && { root: novel.root.fsPath, globs: novel.config.trackedMatcher }; },
      failed: (problem) => this.notices.warnOnce(problemText(UNAVAILABLE_WORDS, problem), problem.kind === 'corrupt'),
      log,
      options: { changes: this.changes, onRestored: () => this.restored.fire() },
    });
    this.disposables.push(
      this.watch,
      this.handle,
      this.contentChanged,
      this.rebuilt,
      this.restored,
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
      this.notices.offer('info', translate(RESTRICTED_WORDS), translate(MANAGE_TRUST), () => vscode.commands.executeCommand('workbench.trust.manage'));
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
    if (!vscode.workspace.isTrusted) return translate(RESTRICTED_WORDS);
    const failure = this.handle.failure;
    return failure ? problemText(UNAVAILABLE_WORDS, failure) : translate(UNAVAILABLE_WORDS);
  }

  /** The shadow repo, opened once (src/checkpoints/storeHandle.ts). Undefined when checkpoints are off. */
  store(): Promise<ShadowRepo | undefined> {
    // The watcher follows the open novel's folder before the store stages from what it reports.
    this.watch.follow(this.getNovel()?.root);
    return this.handle.store();
  }

  /**
   * On start: a damaged store, or a store that was lost (open started a new one while the session
   * still refers to checkpoints), is reported once with the way out (the Rebuild Checkpoints
   * command, which also drops the Undo the old store held). Never blocks activation.
   */
  async checkHealth(): Promise<void> {
    const novel = this.getNovel();
    if (!novel || !(await novel.hasProjectFile())) return;
    const problem = await this.handle.problem(novel.session?.entries());
    if (!problem) return;
    this.log.warn(problem.message);
    this.notices.warnOnce(problemText(NEEDS_ATTENTION, problem), true);
  }

  /** Rebuild Checkpoints: a new store from the manuscript as it is (the old one kept aside); the caller drops its Undo. */
  async rebuild(): Promise<boolean> {
    if (!this.getNovel()) return false;
    if (!vscode.workspace.isTrusted) {
      this.notices.notify('info', translate(RESTRICTED_WORDS)); // asked for: said again, however often
      return false;
    }
    try {
      const entries = this.getNovel()?.session?.entries() ?? [];
      const rebuilt = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Rebuilding checkpoints from the manuscript…') },
        () => this.handle.rebuild(entries),
      );
      if (!rebuilt) return false;
      this.rebuilt.fire();
      this.notices.notify('info', rebuiltWords(rebuilt.report).map(translate).join(' '));
      return true;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log.error(message);
      this.notices.notify('error', message);
      return false;
    }
  }

  setGlobs(globs: ManuscriptSpec): void { this.handle.setGlobs(globs); }

  /** Show Turn Changes ('previous') or Compare with Current Prose ('working'): src/checkpoints/changesFlow.ts. */
  async showChanges(checkpointEntryId: string | undefined, file?: string, against: ChangesAgainst = 'previous'): Promise<number> {
    const novel = this.getNovel();
    if (!novel) return 0;
    const uri = (doc: CheckpointDocument | WorkingDocument) => (doc.kind === 'working' ? vscode.Uri.joinPath(novel.root, ...doc.path.split('/')) : checkpointUri(doc.commit, doc.path));
    return showChanges({ prompter: vscodePrompter, session: () => novel.session, store: () => this.store(),
      showDiff: (left, right, title, preview) => vscode.commands.executeCommand('vscode.diff', uri(left), uri(right), translate(title), { preview }) }, checkpointEntryId, file, against);
  }

  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    return this.handle.document(uri.path);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

export function checkpointUri(commit: string, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: documentPath(commit, file) });
}

/** A store problem in the novelist's words: what happened, why, and the store's own detail where it names things. */
function problemText(lead: Text, problem: CheckpointProblem): string {
  return sayWords(checkpointProblemWords(lead, problem.kind, problem.message), translate);
}
