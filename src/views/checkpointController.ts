// Checkpoints in VS Code: the adapter of the Story's restore verbs (src/story/story.ts decides
// restore prose only / prose and chat, load save, undo, prose follows the branch, the checkpoint
// at a turn's edges). Here: the StoryHost built from VS Code (unsaved editors saved or the restore
// cancelled, the questions, the setting), the Story's events as notifications, and what is VS Code
// only: opening the store (Restricted Mode, health, rebuild) and Show Turn Changes in the diff editor.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { ShadowRepo, isCheckpointProblem, type RestoreResult } from '../checkpoints';
import { isManuscriptAt } from '../project/manuscript';
import { TurnBusyError } from '../agent/turnTypes';
import type { CheckpointEntry } from '../session/entries';
import type { Session } from '../session/session';
import {
  Story, checkpointFor, openingOf,
  type ChatVerb, type DirtyChoice, type FollowSetting, type RestoreOutcome, type StaleReason, type StoryEvent, type StoryHost,
  type UndoAction, type UndoOffer, type UndoResult,
} from '../story';
import type { NovelWorkspace } from './novel';
import { waitForDocumentsToMatchDisk } from './docSync';
import type { Log } from './log';

export const CHECKPOINT_SCHEME = 'worldline-checkpoint';

export type { DirtyChoice, FollowSetting, UndoAction, UndoResult };
/** Asks the novelist what to do with unsaved manuscript editors (a modal; tests replace it). */
export type DirtyPrompt = (files: string[]) => Promise<DirtyChoice>;

export class CheckpointController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private repo: ShadowRepo | undefined;
  private opening: Promise<ShadowRepo | undefined> | undefined;
  private unavailable: string | undefined;
  /** The Restricted Mode word was shown in this window. */
  private explainedRestricted = false;
  /** The Story of the open novel: the chat-tree verbs are called on it directly (the Chat view adapts them); the restore verbs are adapted here. */
  readonly story: Story;
  /** Warnings already shown in this window (each distinct problem once; writing is never blocked). */
  private readonly warned = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.contentChanged.event;
  prompt: DirtyPrompt = defaultDirtyPrompt;
  /** Asks whether the prose should follow a branch change (setting "ask"); tests replace it. */
  followPrompt: (changed: number) => Promise<boolean> = defaultFollowPrompt;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly log: Log,
    private readonly isBusy: () => boolean,
  ) {
    this.story = new Story(this.host());
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
      const manage = vscode.l10n.t('Manage Workspace Trust');
      this.background(vscode.window.showInformationMessage(restrictedText(), manage).then(async (pick) => {
        if (pick === manage) await vscode.commands.executeCommand('workbench.trust.manage');
      }), 'managing workspace trust');
    }
    return true;
  }

  /** The folder was trusted: checkpoints start now (a store that could not open is tried again). */
  private trustGranted(): void {
    this.unavailable = undefined;
    this.log.info('checkpoints: the folder is trusted now; starting them');
    this.background(this.checkHealth(), 'starting checkpoints');
  }

  private unavailableText(): string {
    if (!vscode.workspace.isTrusted) return restrictedText();
    return this.unavailable ?? vscode.l10n.t('Checkpoints are not available.');
  }

  /** Opens the shadow repo once; later calls reuse it. Undefined when checkpoints are off. */
  async store(): Promise<ShadowRepo | undefined> {
    if (this.restricted()) return undefined;
    if (this.repo) return this.repo;
    if (this.unavailable) return undefined;
    const novel = this.getNovel();
    if (!novel) return undefined;
    this.opening ??= (async () => {
      const opened = await ShadowRepo.open(novel.root.fsPath, { globs: novel.config.manuscript, log: (m) => this.log.info(m) });
      if (isCheckpointProblem(opened)) {
        this.unavailable = opened.message;
        this.log.warn(opened.message);
        this.warnOnce(opened.message, opened.kind === 'corrupt');
        return undefined;
      }
      this.repo = opened;
      return opened;
    })().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /**
   * On start: a damaged store, or a store that was lost (open started a new one while the session
   * still refers to checkpoints), is reported once with the way out. Never blocks activation.
   */
  async checkHealth(): Promise<void> {
    const novel = this.getNovel();
    if (!novel || !(await novel.hasProjectFile())) return;
    const repo = await this.store();
    if (!repo) return;
    const session = novel.session;
    const recorded = session ? session.entries().flatMap((e) => (e.type === 'checkpoint' ? [e.commit] : [])) : [];
    if (repo.created && recorded.length === 0) return; // a first store: nothing to check yet
    const health = await repo.health(recorded);
    if (health.ok) return;
    this.log.warn(health.problem);
    if (this.warned.has(health.problem)) return;
    this.warned.add(health.problem);
    const rebuild = vscode.l10n.t('Rebuild Checkpoints');
    const pick = await vscode.window.showWarningMessage(health.problem, rebuild);
    if (pick === rebuild) await this.rebuild();
  }

  async rebuild(): Promise<boolean> {
    const novel = this.getNovel();
    if (!novel) return false;
    if (!vscode.workspace.isTrusted) {
      this.notify('info', restrictedText()); // asked for: said again, however often
      return false;
    }
    try {
      this.repo = await ShadowRepo.rebuild(novel.root.fsPath, { globs: novel.config.manuscript, log: (m) => this.log.info(m) });
      this.unavailable = undefined;
      this.story.forgetUndo(); // the new store has no undo stack
      const aside = this.repo.movedAside ? path.relative(novel.root.fsPath, this.repo.movedAside) : undefined;
      this.notify('info', aside
        ? vscode.l10n.t('Checkpoints rebuilt from the current manuscript. The old store was kept in {0}.', aside)
        : vscode.l10n.t('Checkpoints rebuilt from the current manuscript.'));
      return true;
    } catch (err) {
      const message = errorText(err);
      this.log.error(message);
      this.notify('error', message);
      return false;
    }
  }

  setGlobs(globs: string[]): void {
    try {
      this.repo?.setGlobs(globs);
    } catch (err) {
      this.log.warn(`checkpoints: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Appends a `checkpoint` entry for the manuscript as it is now (the Story decides; see
   * `Story.checkpoint`). Never throws.
   */
  record(session: Session, turnId: string, onlyIfChanged: boolean): Promise<CheckpointEntry | undefined> {
    return this.story.checkpoint(session, turnId, onlyIfChanged);
  }

  /** The turn's end: the hook the TurnRunner awaits before the scribe. */
  async afterTurn(session: Session, userEntryId: string): Promise<void> {
    await this.record(session, userEntryId, false);
  }

  /** Before a new instruction: pins the manuscript as it is, when it moved since the last checkpoint. */
  async beforeSend(session: Session): Promise<void> {
    await this.record(session, `before-${Date.now().toString(36)}`, true);
  }

  /** Regenerate / edit-as-branch / retry: the prose goes back to the checkpoint before that turn. */
  async beforeRerun(session: Session, userEntryId: string): Promise<void> {
    const result = await this.story.resetProseForRerun(session, userEntryId);
    if (result === 'cancelled') throw new Error(vscode.l10n.t('Regenerate was cancelled: unsaved changes in a chapter were kept.'));
  }

  /** Restore Prose Only (withChat false) or Restore Prose and Chat (withChat true). */
  restore(checkpointEntryId: string | undefined, withChat: boolean): Promise<RestoreOutcome> {
    return withChat ? this.story.restoreProseAndChat(checkpointEntryId) : this.story.restoreProse(checkpointEntryId);
  }

  /** Loading a save (see `Story.loadSave`). */
  load(entryId: string): Promise<RestoreOutcome> {
    return this.story.loadSave(entryId);
  }

  /** Undo Last Restore; with `expected` (an Undo button) only when that is still the newest. */
  undo(expected?: UndoAction): Promise<UndoResult> {
    return expected ? this.story.undoFromOffer({ action: expected, asked: undefined }) : this.story.undoLastRestore();
  }

  /** "Prose follows the branch" after the leaf moved (see `Story.followBranch`). */
  followBranch(session: Session, previousLeaf: string | null): Promise<void> {
    return this.story.followBranch(session, previousLeaf);
  }

  /** Moves the leaf as a step of another verb, without the prose following: the caller keeps the prose right. */
  moveWithoutFollowing(session: Session, leafId: string | null): Promise<void> {
    return this.story.moveLeaf(session, leafId);
  }

  /** The Story's port, built from VS Code. */
  private host(): StoryHost {
    return {
      session: () => this.getNovel()?.session,
      branchOptions: () => {
        const novel = this.getNovel();
        const lang = novel?.language ?? 'en';
        return { opening: openingOf(novel?.config.opening ?? {}, lang), lang };
      },
      store: () => this.store(),
      isBusy: () => this.isBusy(),
      followSetting: () => vscode.workspace.getConfiguration('worldline').get<FollowSetting>('proseFollowsBranch', 'ask'),
      saveUnsavedOrCancel: () => this.saveOrCancel(),
      saveUnsavedToDisk: () => this.saveDirtyManuscript(),
      askFollow: (changed) => this.followPrompt(changed),
      settle: (result) => this.settle(result),
      report: (event) => this.show(event),
      log: this.log,
    };
  }

  /** The Story's events in the novelist's words. */
  private show(event: StoryEvent): void {
    const undo = vscode.l10n.t('Undo');
    switch (event.kind) {
      case 'noCheckpoint':
        return this.notify('info', vscode.l10n.t('There is no checkpoint to restore yet: one is taken at the end of every agent turn.'));
      case 'busy':
        return this.notify('warning', vscode.l10n.t('Wait until the agent has finished writing, or stop it, before restoring.'));
      case 'busyVerb':
        // The words the turn runner's guard uses, so every busy refusal reads the same.
        return this.notify('warning', new TurnBusyError(chatVerbText(event.verb), this.getNovel()?.language ?? 'en').message);
      case 'unavailable':
        return this.notify('warning', this.unavailableText());
      case 'restored': {
        const { result, withChat } = event;
        // Which files, not only how many: the first few by name (a "−" marks a removed one).
        const names = [...result.written, ...result.deleted.map((f) => `−${f}`)];
        const which = names.length === 0 ? '' : ` (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`;
        const text = (withChat
          ? vscode.l10n.t('Prose and chat restored: {0} file(s) written, {1} removed.', result.written.length, result.deleted.length)
          : vscode.l10n.t('Prose restored: {0} file(s) written, {1} removed. The chat stays where it is.', result.written.length, result.deleted.length)) + which;
        this.log.info(`${text} written: ${result.written.join(', ') || '-'}; removed: ${result.deleted.join(', ') || '-'}`);
        return this.offerUndo(vscode.window.showInformationMessage(text, ...(event.undo ? [undo] : [])), undo, event.undo);
      }
      case 'chatOnlyLoad': {
        const text = vscode.l10n.t('This save was made before any checkpoint, so its prose cannot be restored: only the chat went back to it, and the manuscript stays as it is. Undo moves the chat back.');
        this.log.info(text);
        return this.offerUndo(vscode.window.showWarningMessage(text, undo), undo, event.undo);
      }
      case 'restoreFailed':
        return this.notify('error', event.message);
      case 'followBlocked':
        return this.notify('warning', event.message);
      case 'staleAnswer':
        return this.notify('info', staleAnswerText(event.reason));
      case 'staleUndoButton':
        return this.notify('info', vscode.l10n.t('The story moved on since that restore, so this Undo button no longer applies and nothing was changed. To take the restore back anyway, run "Worldline: Undo Last Restore".'));
      case 'undone':
        return this.notify('info', event.chatStays
          ? vscode.l10n.t('Restore undone: {0} file(s) written, {1} removed. That restore was made before this window opened, so the chat stays where it is.', event.result.written.length, event.result.deleted.length)
          : vscode.l10n.t('Restore undone: {0} file(s) written, {1} removed.', event.result.written.length, event.result.deleted.length));
      case 'undoneChatOnly':
        return this.notify('info', vscode.l10n.t('The chat is back where it was. The prose was not touched.'));
      case 'undoNotNewest':
        return this.notify('info', vscode.l10n.t('Only the most recent restore can be undone, and this one is not the most recent any more.'));
      case 'undoGone':
        return this.notify('warning', vscode.l10n.t('The last restore can no longer be undone: the checkpoint store changed since. Nothing was changed.'));
      case 'nothingToUndo':
        return this.notify('info', vscode.l10n.t('There is no restore to undo.'));
      case 'undoFailed':
        return this.notify('error', vscode.l10n.t('Undo failed: {0}', event.message));
      case 'checkpointSkipped':
        return this.warnOnce(vscode.l10n.t('No checkpoint was taken; your writing goes on as usual. {0}', event.message), event.corrupt);
    }
  }

  /** Open editors of restored files are unmodified (saved first): let VS Code load the new text. */
  private async settle(result: RestoreResult): Promise<void> {
    const novel = this.getNovel();
    if (!novel) return;
    await waitForDocumentsToMatchDisk([...result.written, ...result.deleted].map((p) => vscode.Uri.joinPath(novel.root, ...p.split('/'))));
  }

  /** Manuscript documents with unsaved changes: ask, then save them all, or cancel. */
  private async saveOrCancel(): Promise<DirtyChoice> {
    const dirty = this.dirtyManuscript();
    if (dirty.length === 0) return 'save';
    const choice = await this.prompt(dirty.map((d) => vscode.workspace.asRelativePath(d.uri, false)));
    if (choice === 'cancel') return 'cancel';
    for (const doc of dirty) {
      if (!(await doc.save())) {
        this.notify('warning', vscode.l10n.t('{0} could not be saved, so nothing was restored. Save it yourself, then try again.', vscode.workspace.asRelativePath(doc.uri, false)));
        return 'cancel';
      }
    }
    return 'save';
  }

  /** Before a checkpoint the agent's own edits are on disk already; this catches anything left. */
  private async saveDirtyManuscript(): Promise<void> {
    for (const doc of this.dirtyManuscript()) {
      if (await saveToDisk(doc)) continue;
      const rel = vscode.workspace.asRelativePath(doc.uri, false);
      this.log.warn(`${rel} could not be saved before the checkpoint; its unsaved text is not in it.`);
      this.warnOnce(vscode.l10n.t('{0} could not be saved before the checkpoint, so its unsaved text is not in it. Save it yourself to keep it safe.', rel), false);
    }
  }

  private dirtyManuscript(): vscode.TextDocument[] {
    const novel = this.getNovel();
    if (!novel) return [];
    return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file' && this.isManuscript(novel, d.uri));
  }

  private isManuscript(novel: NovelWorkspace, uri: vscode.Uri): boolean {
    return isManuscriptAt(novel.config.manuscriptMatcher, novel.root.fsPath, uri.fsPath);
  }

  /**
   * An Undo button on a notification: it can be clicked long after (the notification waits in the
   * bell). The Story drops a click that comes after the story moved on.
   */
  private offerUndo(shown: Thenable<string | undefined>, undo: string, offer: UndoOffer | undefined): void {
    this.background(shown.then((pick) => (pick === undo && offer ? this.story.undoFromOffer(offer) : undefined)), 'undo');
  }

  /** A warning shown at most once per distinct text in this window; `offerRebuild` adds the way out. */
  private warnOnce(text: string, offerRebuild: boolean): void {
    if (this.warned.has(text)) return;
    this.warned.add(text);
    const rebuild = vscode.l10n.t('Rebuild Checkpoints');
    this.background(vscode.window.showWarningMessage(text, ...(offerRebuild ? [rebuild] : [])).then(async (pick) => {
      if (pick === rebuild) await vscode.commands.executeCommand('worldline.rebuildCheckpoints');
    }), 'rebuilding checkpoints');
  }

  private notify(level: 'info' | 'warning' | 'error', text: string): void {
    const shown = level === 'info' ? vscode.window.showInformationMessage(text) : level === 'warning' ? vscode.window.showWarningMessage(text) : vscode.window.showErrorMessage(text);
    this.background(shown, 'a notification');
  }

  /** Work that nobody awaits (a notification and what its button starts): failures are logged, never unhandled. */
  private background(work: Thenable<unknown>, what: string): void {
    Promise.resolve(work).catch((err: unknown) => this.log.warn(`${what} failed: ${errorText(err)}`));
  }

  /** Show Turn Changes: the turn's checkpoint against the one before it, in the diff editor. */
  /**
   * Show Turn Changes (`against` 'previous': this checkpoint against the one before it), or
   * Compare with Current Prose ('working': the checkpoint against the files as they are now, the
   * right side editable).
   */
  async showChanges(checkpointEntryId: string | undefined, file?: string, against: 'previous' | 'working' = 'previous'): Promise<number> {
    const novel = this.getNovel();
    const session = novel?.session;
    if (!novel || !session) return 0;
    const target = checkpointFor(session, checkpointEntryId);
    const repo = await this.store();
    if (!target || !repo) {
      this.notify('info', vscode.l10n.t('There is no checkpoint to compare yet: one is taken at the end of every agent turn.'));
      return 0;
    }
    const working = against === 'working';
    const previous = working ? undefined : session.lastOnPath('checkpoint', target.parentId);
    const changes = working
      ? await repo.changedFiles(target.commit)
      : previous ? await repo.changedFiles(previous.commit, target.commit) : target.changed.map((p) => ({ path: p, status: 'A' as const }));
    if (changes.length === 0) {
      this.notify('info', working
        ? vscode.l10n.t('The manuscript is exactly as it was at this checkpoint.')
        : vscode.l10n.t('This turn changed no manuscript file.'));
      return 0;
    }
    let pick = file ? changes.find((c) => c.path === file) : changes.length === 1 ? changes[0] : undefined;
    if (!pick) {
      const chosen = await vscode.window.showQuickPick(changes.map((c) => ({ label: c.path, description: c.status, change: c })), { title: vscode.l10n.t('Show Turn Changes') });
      pick = chosen?.change;
    }
    if (!pick) return changes.length;
    if (working) {
      const left = checkpointUri(target.commit, pick.path);
      const right = pick.status === 'D' ? checkpointUri('empty', pick.path) : vscode.Uri.joinPath(novel.root, ...pick.path.split('/'));
      await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} (checkpoint ↔ now)', pick.path), { preview: true });
      return changes.length;
    }
    const left = previous ? checkpointUri(previous.commit, pick.path) : checkpointUri('empty', pick.path);
    const right = checkpointUri(target.commit, pick.path);
    await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} (this turn\'s changes)', pick.path), { preview: true });
    return changes.length;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const [, commit, ...rest] = uri.path.split('/');
    const file = decodeURIComponent(rest.join('/'));
    if (!commit || commit === 'empty') return '';
    const repo = await this.store();
    return (repo && (await repo.readAt(commit, file))) ?? '';
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function staleAnswerText(reason: StaleReason): string {
  return reason === 'busy'
    ? vscode.l10n.t('The agent started writing while this question was waiting, so nothing was restored: the prose stays as it is.')
    : vscode.l10n.t('The story moved on while this question was waiting, so nothing was restored: the prose stays as it is. Choose again from where you are now.');
}

function restrictedText(): string {
  return vscode.l10n.t('This folder is open in Restricted Mode, so checkpoints are off: Worldline runs no Git on a folder you have not trusted. Your writing is saved as usual. To turn checkpoints on, trust the folder.');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function checkpointUri(commit: string, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${commit}/${file.split('/').map(encodeURIComponent).join('/')}` });
}

async function defaultDirtyPrompt(files: string[]): Promise<DirtyChoice> {
  const save = vscode.l10n.t('Save and Restore');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('These chapters have unsaved changes: {0}. Save them first? (They stay recoverable: Undo brings them back.)', files.join(', ')),
    { modal: true },
    save,
  );
  return pick === save ? 'save' : 'cancel';
}

async function defaultFollowPrompt(changed: number): Promise<boolean> {
  const yes = vscode.l10n.t('Bring the Prose Along');
  const pick = await vscode.window.showInformationMessage(
    vscode.l10n.t('This branch has different prose ({0} file(s) differ). Bring the manuscript to this branch? Your current text stays recoverable with Undo.', changed),
    yes,
    vscode.l10n.t('Keep the Current Prose'),
  );
  return pick === yes;
}

/**
 * Saves a document and confirms the file on disk holds its text: the checkpoint reads the disk
 * next. A save can lose a race with a write VS Code has not caught up with yet; one more try after
 * a moment settles it.
 */
async function saveToDisk(doc: vscode.TextDocument): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const text = doc.getText();
    if (await doc.save()) {
      try {
        if (new TextDecoder().decode(await vscode.workspace.fs.readFile(doc.uri)) === text) return true;
      } catch {
        return false;
      }
    }
    await new Promise((r) => setTimeout(r, 150));
    if (!doc.isDirty) {
      try {
        if (new TextDecoder().decode(await vscode.workspace.fs.readFile(doc.uri)) === text) return true;
      } catch {
        return false;
      }
    }
  }
  return false;
}

/** A chat-tree verb in the novelist's language, as the busy refusal names it. */
function chatVerbText(verb: ChatVerb): string {
  switch (verb) {
    case 'switch variants': return vscode.l10n.t('switch variants');
    case 'hide': return vscode.l10n.t('hide');
    case 'edit': return vscode.l10n.t('edit');
    case 'branch': return vscode.l10n.t('branch');
  }
}
