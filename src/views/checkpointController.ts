// Checkpoints in VS Code: a shadow-git checkpoint at the end of every agent turn, the two restores
// (prose only; prose and chat) with Undo, "prose follows the branch", and Show Turn Changes in the
// diff editor. Before anything is written to disk, manuscript editors with unsaved changes are
// saved or the restore is cancelled: nothing the novelist typed is silently overwritten.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { RestoreBlockedError, ShadowRepo, isCheckpointProblem, type RestoreResult } from '../checkpoints';
import { isManuscriptAt } from '../project/manuscript';
import type { CheckpointEntry } from '../session/entries';
import type { Session } from '../session/session';
import {
  answerStillCurrent, branchOf, markBranch, openingOf, proseAndChatLanding, proseToFollow, saveLanding,
  type Branch, type BranchMark, type StaleReason,
} from '../story';
import type { NovelWorkspace } from './novel';
import { waitForDocumentsToMatchDisk } from './docSync';
import type { Log } from './log';

export const CHECKPOINT_SCHEME = 'worldline-checkpoint';

export type DirtyChoice = 'save' | 'cancel';
/** Asks the novelist what to do with unsaved manuscript editors (a modal; tests replace it). */
export type DirtyPrompt = (files: string[]) => Promise<DirtyChoice>;
export type FollowSetting = 'ask' | 'always' | 'never';

/**
 * One thing Undo takes back, newest last. Undo always takes back the newest one, prose and chat
 * together: the prose through the store's undo stack (checked against `undoRef`, so an older,
 * unrelated restore is never undone instead), the chat by moving the leaf back.
 */
export type UndoAction =
  /** A restore of the prose; `leafBefore` is set when it moved the chat too (undefined: it did not). */
  | { kind: 'prose'; undoRef: string; session: Session; leafBefore: string | null | undefined }
  /** Only the chat moved (a save with no checkpoint on its path): the prose was not touched. */
  | { kind: 'chat'; session: Session; leafBefore: string | null };

/** What Undo did: the prose restore it undid, 'chatOnly' (the chat moved back, no prose), or nothing. */
export type UndoResult = RestoreResult | 'chatOnly' | 'cancelled' | undefined;

export class CheckpointController implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private repo: ShadowRepo | undefined;
  private opening: Promise<ShadowRepo | undefined> | undefined;
  private unavailable: string | undefined;
  /** The Restricted Mode word was shown in this window. */
  private explainedRestricted = false;
  private readonly undoStack: UndoAction[] = [];
  /** Warnings already shown in this window (each distinct problem once; writing is never blocked). */
  private readonly warned = new Set<string>();
  /** Set while we move the leaf ourselves, so "prose follows the branch" does not react to it. */
  private navigatingSelf = false;
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
      this.undoStack.length = 0; // the new store has no undo stack
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
   * Appends a `checkpoint` entry for the manuscript as it is now. Used at the end of a turn, and
   * (`onlyIfChanged`) before an instruction or a save when the manuscript changed since the last
   * checkpoint on the branch (so every turn has an exact "before"). The store writes a ref only
   * for a checkpoint that is recorded. Never throws: a failure is logged and shown once per
   * distinct problem, and writing goes on.
   */
  async record(session: Session, turnId: string, onlyIfChanged: boolean): Promise<CheckpointEntry | undefined> {
    try {
      const repo = await this.store();
      if (!repo || session.readOnly) return undefined;
      await this.saveDirtyManuscript();
      // With no checkpoint on this branch yet, one is always taken: the branch needs its own
      // baseline (the first turn's "before", an opening save), even if the store already holds
      // the same text from another session.
      const previous = session.lastOnPath('checkpoint')?.commit;
      const result = onlyIfChanged && previous !== undefined
        ? await repo.checkpointIfChanged(turnId, session.header.id, previous)
        : await repo.checkpoint(turnId, session.header.id);
      if (result === null) return undefined;
      if (isCheckpointProblem(result)) {
        this.log.warn(`checkpoint skipped: ${result.message}`);
        this.warnOnce(vscode.l10n.t('No checkpoint was taken; your writing goes on as usual. {0}', result.message), result.kind === 'corrupt');
        return undefined;
      }
      try {
        return (await session.append({ type: 'checkpoint', commit: result.commit, ref: result.ref, changed: result.changed })) as CheckpointEntry;
      } catch (err) {
        // Not recorded after all: its ref goes too (when another ref keeps the commit).
        await repo.discard(result).catch(() => false);
        throw err;
      }
    } catch (err) {
      const message = errorText(err);
      this.log.warn(`checkpoint failed: ${message}`);
      this.warnOnce(vscode.l10n.t('No checkpoint was taken; your writing goes on as usual. {0}', message), false);
      return undefined;
    }
  }

  /** The turn's end: the hook the TurnRunner awaits before the scribe. */
  async afterTurn(session: Session, userEntryId: string): Promise<void> {
    await this.record(session, userEntryId, false);
  }

  /** Before a new instruction: pins the manuscript as it is, when it moved since the last checkpoint. */
  async beforeSend(session: Session): Promise<void> {
    try {
      await this.record(session, `before-${Date.now().toString(36)}`, true);
    } catch (err) {
      this.log.warn(`checkpoint before the turn failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Regenerate / edit-as-branch / retry: the prose goes back to the checkpoint before that turn, so
   * every variant starts from the same text. No checkpoint on the path: nothing to return to. This
   * reset is part of the rerun, not a restore: it keeps a safety checkpoint but is not on the undo
   * stack, so Undo still takes back the last real restore, prose and chat together.
   */
  async beforeRerun(session: Session, userEntryId: string): Promise<void> {
    const entry = session.get(userEntryId);
    if (!entry) return;
    const before = session.lastOnPath('checkpoint', entry.parentId);
    if (!before) return;
    const result = await this.restoreCommit(before.commit, { quiet: true, undoable: false });
    if (result === 'cancelled') throw new Error(vscode.l10n.t('Regenerate was cancelled: unsaved changes in a chapter were kept.'));
  }

  /** The checkpoint entry of a turn, from any entry id of that turn (or the entry itself). */
  private checkpointFor(session: Session, entryId: string | undefined): CheckpointEntry | undefined {
    if (!entryId) return session.lastOnPath('checkpoint');
    const entry = session.get(entryId);
    if (entry?.type === 'checkpoint') return entry;
    return undefined;
  }

  /** Restore Prose Only (withChat false) or Restore Prose and Chat (withChat true). */
  async restore(checkpointEntryId: string | undefined, withChat: boolean): Promise<RestoreResult | 'cancelled' | undefined> {
    const session = this.getNovel()?.session;
    if (!session) return undefined;
    const target = this.checkpointFor(session, checkpointEntryId);
    if (!target) {
      this.notify('info', vscode.l10n.t('There is no checkpoint to restore yet: one is taken at the end of every agent turn.'));
      return undefined;
    }
    // With the chat, the leaf goes to the end of that turn (after its state and save), as the core decides.
    const land = withChat ? () => proseAndChatLanding(this.branch(session), target.id)?.leafId ?? target.id : undefined;
    return this.restoreAt(session, target, land, this.mark(session));
  }

  /**
   * Loading a save: the prose returns to the last checkpoint on the save's path and the leaf moves
   * to the save, with the same safety commit and Undo as any restore. A save made before any
   * checkpoint: only the chat moves (the novelist is told), and Undo moves it back.
   */
  async load(entryId: string): Promise<RestoreResult | 'cancelled' | undefined> {
    const session = this.getNovel()?.session;
    if (!session || !session.get(entryId)) return undefined;
    const landing = saveLanding(this.branch(session), entryId);
    if (!landing) return undefined;
    if (landing.checkpoint) return this.restoreAt(session, landing.checkpoint, () => landing.leafId, this.mark(session));
    if (this.isBusy()) return this.refuseBusy();
    const action: UndoAction = { kind: 'chat', session, leafBefore: session.leafId };
    await this.navigateQuietly(session, landing.leafId);
    this.undoStack.push(action);
    const undo = vscode.l10n.t('Undo');
    const text = vscode.l10n.t('This save was made before any checkpoint, so its prose cannot be restored: only the chat went back to it, and the manuscript stays as it is. Undo moves the chat back.');
    this.log.info(text);
    this.offerUndo(vscode.window.showWarningMessage(text, undo), undo, action);
    return undefined;
  }

  private refuseBusy(): undefined {
    this.notify('warning', vscode.l10n.t('Wait until the agent has finished writing, or stop it, before restoring.'));
    return undefined;
  }

  /** The session's Branch (one cached value per leaf and entry count). */
  private branch(session: Session): Branch {
    const novel = this.getNovel();
    const lang = novel?.language ?? 'en';
    return branchOf(session, { opening: openingOf(novel?.config.opening ?? {}, lang), lang });
  }

  private mark(session: Session): BranchMark {
    return markBranch(session, this.isBusy());
  }

  /**
   * An answer to a question asked on `asked` still applies to the branch the novelist is on now.
   * If not, the action is dropped: logged, and said when a question was asked (`tell`).
   */
  private stillCurrent(asked: BranchMark, tell: boolean): boolean {
    const session = this.getNovel()?.session;
    const check = session ? answerStillCurrent(asked, this.mark(session), session) : { current: false, reason: 'session' as const };
    if (check.current) return true;
    this.log.info(`an answer came after the branch changed (${check.reason}); nothing was restored`);
    if (tell) this.notify('info', staleAnswerText(check.reason));
    return false;
  }

  /**
   * The manuscript becomes `target`'s; with `land` the leaf moves too (prose and chat), to where
   * `land` says once the prose is back (a scene state the scribe wrote meanwhile is counted).
   * `asked` is the branch the restore was chosen on: if it moved while a question was open, nothing happens.
   */
  private async restoreAt(session: Session, target: CheckpointEntry, land: (() => string) | undefined, asked: BranchMark): Promise<RestoreResult | 'cancelled' | undefined> {
    if (this.isBusy()) return this.refuseBusy();
    let result: RestoreResult | 'cancelled' | undefined;
    try {
      result = await this.restoreCommit(target.commit, { quiet: false, undoable: true, asked: { mark: asked, tell: true } });
    } catch (err) {
      const message = errorText(err);
      this.log.error(`restore failed: ${message}`);
      this.notify('error', message);
      return undefined;
    }
    if (result === 'cancelled' || result === undefined) return result;
    const leafTo = land?.();
    const action = this.pushRestore(result, session, leafTo !== undefined ? session.leafId : undefined);
    if (leafTo !== undefined) await this.navigateQuietly(session, leafTo);
    this.report(result, leafTo !== undefined, action);
    return result;
  }

  private pushRestore(result: RestoreResult, session: Session, leafBefore: string | null | undefined): UndoAction | undefined {
    if (!result.undo) return undefined;
    const action: UndoAction = { kind: 'prose', undoRef: result.undo, session, leafBefore };
    this.undoStack.push(action);
    return action;
  }

  /**
   * Undo Last Restore: takes back the newest restore (prose, and the chat when it moved) or the
   * newest chat-only load. With `expected` (an Undo button on a notification) only when that is
   * still the newest. Never throws: a failure is shown.
   */
  async undo(expected?: UndoAction): Promise<UndoResult> {
    try {
      return await this.undoNewest(expected);
    } catch (err) {
      const message = errorText(err);
      this.log.error(`undo failed: ${message}`);
      this.notify('error', vscode.l10n.t('Undo failed: {0}', message));
      return undefined;
    }
  }

  private async undoNewest(expected: UndoAction | undefined): Promise<UndoResult> {
    if (this.isBusy()) return this.refuseBusy();
    const top = this.undoStack.at(-1);
    if (expected && top !== expected) {
      this.notify('info', vscode.l10n.t('Only the most recent restore can be undone, and this one is not the most recent any more.'));
      return undefined;
    }
    const current = this.getNovel()?.session;
    if (top?.kind === 'chat') {
      this.undoStack.pop();
      if (top.session === current) await this.navigateQuietly(top.session, top.leafBefore);
      this.notify('info', vscode.l10n.t('The chat is back where it was. The prose was not touched.'));
      return 'chatOnly';
    }
    const repo = await this.store();
    if (!repo) {
      this.notify('warning', this.unavailableText());
      return undefined;
    }
    const asked = current ? this.mark(current) : undefined;
    if ((await this.saveOrCancel()) === 'cancel') return 'cancelled';
    if (asked && !this.stillCurrent(asked, true)) return undefined;
    // Without a restore of this window on record, the newest one in the store (made before the
    // window opened) is undone: its prose only, since where the chat was is not known.
    const result = await repo.undoLastRestore(top?.undoRef);
    if (!result) {
      if (top) {
        this.undoStack.length = 0;
        this.notify('warning', vscode.l10n.t('The last restore can no longer be undone: the checkpoint store changed since. Nothing was changed.'));
      } else {
        this.notify('info', vscode.l10n.t('There is no restore to undo.'));
      }
      return undefined;
    }
    if (top) this.undoStack.pop();
    await this.settle(result);
    if (top?.leafBefore !== undefined && top.session === current) await this.navigateQuietly(top.session, top.leafBefore);
    this.notify('info', top
      ? vscode.l10n.t('Restore undone: {0} file(s) written, {1} removed.', result.written.length, result.deleted.length)
      : vscode.l10n.t('Restore undone: {0} file(s) written, {1} removed. That restore was made before this window opened, so the chat stays where it is.', result.written.length, result.deleted.length));
    return result;
  }

  /**
   * "Prose follows the branch": after the leaf moved (variant, branch here, a save), bring the
   * manuscript to the last checkpoint on the new path — always, never, or after asking.
   */
  async followBranch(session: Session, previousLeaf: string | null): Promise<void> {
    if (this.navigatingSelf || this.isBusy() || session.readOnly) return;
    const setting = vscode.workspace.getConfiguration('worldline').get<FollowSetting>('proseFollowsBranch', 'ask');
    if (setting === 'never') return;
    // The branch the question is about: an answer that comes after it moved is dropped.
    const asked = this.mark(session);
    const now = proseToFollow(this.branch(session), previousLeaf);
    if (!now) return;
    const repo = await this.store();
    if (!repo) return;
    const changed = await repo.changedFiles(now.commit).catch(() => []);
    if (changed.length === 0) return;
    // Without a question (setting "always") a newer move brings its own prose: dropped quietly.
    const tell = setting === 'ask';
    if (tell && !(await this.followPrompt(changed.length))) return;
    if (!this.stillCurrent(asked, tell)) return;
    let result: RestoreResult | 'cancelled' | undefined;
    try {
      result = await this.restoreCommit(now.commit, { quiet: false, undoable: true, asked: { mark: asked, tell } });
    } catch (err) {
      // Refused whole (something not ours in the way): the novelist is told why the prose stayed.
      if (!(err instanceof RestoreBlockedError)) throw err;
      this.log.warn(err.message);
      this.notify('warning', err.message);
      return;
    }
    if (result && result !== 'cancelled') this.report(result, false, this.pushRestore(result, session, undefined));
  }

  /** Runs `fn`, which moves the leaf, without the prose following: the caller keeps the prose right. */
  async withoutFollowing<T>(fn: () => Promise<T>): Promise<T> {
    this.navigatingSelf = true;
    try {
      return await fn();
    } finally {
      this.navigatingSelf = false;
    }
  }

  private async navigateQuietly(session: Session, leaf: string | null): Promise<void> {
    this.navigatingSelf = true;
    try {
      await session.navigate(leaf);
    } finally {
      this.navigatingSelf = false;
    }
  }

  /**
   * The manuscript becomes `commit`'s; unsaved manuscript editors are saved first, or nothing
   * happens. With `asked`, the restore is dropped (undefined) when the branch moved since it was chosen.
   */
  private async restoreCommit(
    commit: string,
    opts: { quiet: boolean; undoable: boolean; asked?: { mark: BranchMark; tell: boolean } },
  ): Promise<RestoreResult | 'cancelled' | undefined> {
    const repo = await this.store();
    if (!repo) {
      if (!opts.quiet) this.notify('warning', this.unavailableText());
      return undefined;
    }
    if ((await this.saveOrCancel()) === 'cancel') return 'cancelled';
    if (opts.asked && !this.stillCurrent(opts.asked.mark, opts.asked.tell)) return undefined;
    const result = await repo.restore(commit, { undoable: opts.undoable });
    await this.settle(result);
    return result;
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

  private report(result: RestoreResult, withChat: boolean, action: UndoAction | undefined): void {
    const undo = vscode.l10n.t('Undo');
    // Which files, not only how many: the first few by name (a "−" marks a removed one).
    const names = [...result.written, ...result.deleted.map((f) => `−${f}`)];
    const which = names.length === 0 ? '' : ` (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`;
    const text = (withChat
      ? vscode.l10n.t('Prose and chat restored: {0} file(s) written, {1} removed.', result.written.length, result.deleted.length)
      : vscode.l10n.t('Prose restored: {0} file(s) written, {1} removed. The chat stays where it is.', result.written.length, result.deleted.length)) + which;
    this.log.info(`${text} written: ${result.written.join(', ') || '-'}; removed: ${result.deleted.join(', ') || '-'}`);
    this.offerUndo(vscode.window.showInformationMessage(text, ...(action ? [undo] : [])), undo, action);
  }

  /**
   * An Undo button on a notification: it can be clicked long after (the notification waits in the
   * bell). A click after the story moved on is dropped with a word; the command still undoes.
   */
  private offerUndo(shown: Thenable<string | undefined>, undo: string, action: UndoAction | undefined): void {
    const session = this.getNovel()?.session;
    const asked = session ? this.mark(session) : undefined;
    this.background(shown.then((pick) => {
      if (pick !== undo) return undefined;
      const now = this.getNovel()?.session;
      if (asked && !(now && answerStillCurrent(asked, this.mark(now), now).current)) {
        this.log.info('an Undo button was clicked after the branch changed; nothing was undone');
        this.notify('info', vscode.l10n.t('The story moved on since that restore, so this Undo button no longer applies and nothing was changed. To take the restore back anyway, run "Worldline: Undo Last Restore".'));
        return undefined;
      }
      return this.undo(action);
    }), 'undo');
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
    const target = this.checkpointFor(session, checkpointEntryId);
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
