// The Story: one per open session, every verb of DESIGN as a method (DESIGN, "Story and Branch").
// Here the restore verbs (restore prose only, restore prose and chat, load a save, undo the last
// restore, prose follows the branch, the prose reset before a rerun, the checkpoint at a turn's
// edges) and the chat-tree verbs (switch variant, hide / unhide, branch here, edit in place: their
// moves are the novelist's, so the prose follows them); the turn verbs (send, regenerate, retry,
// edit as a new branch, stop, save point, compact now) are in ./turns.ts. It decides; the host
// carries out what only the editor can (unsaved editors, questions) and words the events.
import { RestoreBlockedError, isCheckpointProblem, type RestoreResult } from '../checkpoints';
import { LostCheckpoints } from '../checkpoints/lostCheckpoints';
import type { CheckpointEntry } from '../session/entries';
import type { Session } from '../session/session';
import { answerStillCurrent, markBranch, type BranchMark } from './answer';
import { branchOf, type Branch } from './branch';
import type { ChatVerb, StoryHost, TurnNotice, UndoAction, UndoOffer } from './host';
import type { TranscriptMessage } from '../agent/transcript';
import type { TurnPhase, TurnResult } from '../agent/turnTypes';
import type { CompactOutcome } from '../memory/sessionMemory';
import type { ScribeStatus } from '../protocol/state';
import type { SaveEntry } from '../session/entries';
import type { WorldlineSidecar } from '../worldline';
import { proseAndChatLanding, proseToFollow, saveLanding } from './landing';
import { checkpointCodeOf } from './problemWords';
import { StoryTurns, type PendingInstruction, type StreamView } from './turns';
import type { CheckOutcome, ShownFinding, TurnFindings } from './continuity';
import { fixInstruction } from './continuityFix';

/** What a restore verb did: the restore, 'cancelled' (unsaved editors kept), or nothing. */
export type RestoreOutcome = RestoreResult | 'cancelled' | undefined;
/** What Undo did: the prose restore it undid, 'chatOnly' (the chat moved back, no prose), or nothing. */
export type UndoResult = RestoreResult | 'chatOnly' | 'cancelled' | undefined;

/** Branch here: where the leaf went, and (from an instruction) the text to put back in the input box. */
export interface BranchHereResult {
  readonly leafId: string | null;
  readonly input?: string;
}

/** A leaf move the Story makes itself: prose follows the branch must not react to it. */
interface OwnMove {
  readonly from: string | null;
  readonly to: string | null;
}

export class Story {
  private readonly undoStack: UndoAction[] = [];
  /**
   * Leaf moves the Story is making itself, until the session has told of them. `followBranch`
   * recognises one by from and to, and leaves the prose alone: the verb keeps it right.
   */
  private readonly ownMoves: OwnMove[] = [];
  private readonly turns: StoryTurns;
  private readonly listener: { dispose(): void };
  /** "Prose follows the branch" runs started by leaf moves, until they settle. */
  private readonly follows = new Set<Promise<void>>();

  constructor(readonly host: StoryHost, readonly session: Session) {
    this.turns = new StoryTurns({
      host, session,
      branch: () => this.branch(),
      message: (id) => this.message(id),
      resetProseForRerun: async (userEntryId) => (await this.resetProseForRerun(userEntryId)) !== 'cancelled',
      checkpoint: (turnId, onlyIfChanged, changed) => this.checkpoint(turnId, onlyIfChanged, changed),
      moveLeaf: (leafId) => this.moveLeaf(leafId),
      followBranch: (previousLeaf) => this.followBranch(previousLeaf),
    });
    // Every move of the leaf that is not an append (a variant, branch here, a restore, a load)
    // may bring the prose along; the Story's own moves are recognised and left alone.
    let leaf = session.leafId;
    this.listener = session.onDidChange((change) => {
      const from = leaf;
      leaf = session.leafId;
      if (change.kind !== 'navigate' || from === leaf) return;
      this.trackFollow(this.followBranch(from));
    });
  }

  /** A turn is running (its model part). */
  get busy(): boolean { return this.turns.busy; }
  get phase(): TurnPhase { return this.turns.phase; }
  /** The reply being written, while a turn runs. */
  get stream(): StreamView | undefined { return this.turns.stream; }
  /** Why the last turn did not end well, until the next one starts. */
  get notice(): TurnNotice | undefined { return this.turns.notice; }
  get scribe(): ScribeStatus { return this.turns.scribe; }
  get canRetry(): boolean { return this.turns.canRetry; }
  /** The instruction waiting for the scribe (or a save, a summary) to finish; undefined when none waits. */
  get pending(): PendingInstruction | undefined { return this.turns.pending; }
  /** Drops the waiting instruction before it reaches the session (its send settles undefined); false when none waits. */
  cancelPending(): boolean { return this.turns.cancelPending(); }
  /**
   * The checkpoint commits on this session that the store no longer has (it was rebuilt or lost):
   * their turns cannot be restored or compared. Empty until the store has been checked.
   */
  get lostCheckpoints(): ReadonlySet<string> { return this.lost.commits; }
  private readonly lost = new LostCheckpoints();
  /**
   * Checks this session's checkpoints against the store in one batched lookup: when the store
   * opens and after a rebuild, never per render. A change redraws the views. Never throws.
   */
  async checkCheckpoints(): Promise<void> {
    try {
      const repo = await this.host.store();
      if (repo && (await this.lost.check(repo, this.session.entries()))) {
        this.host.log.info(`checkpoints: ${this.lost.commits.size} of this session's checkpoints are not in the store`);
        this.host.report({ kind: 'live', change: 'render' });
      }
    } catch (err) {
      this.host.log.warn(`checkpoints: could not check which checkpoints the store holds: ${errorText(err)}`);
    }
  }

  /** The world of the current leaf: context, scene state, prose, saves, memory ids. */
  branch(): Branch {
    return branchOf(this.session, this.host.project().branchOptions);
  }

  send(text: string): Promise<TurnResult | undefined> { return this.turns.send(text); }
  regenerate(entryId?: string): Promise<TurnResult | undefined> { return this.turns.regenerate(entryId); }
  retry(): Promise<TurnResult | undefined> { return this.turns.retry(); }
  /** Edit as a new branch, an instruction (a new turn) or a reply (a copy beside it). */
  editAsNewBranch(messageId: string, text: string): Promise<TurnResult | boolean | undefined> { return this.turns.editAsNewBranch(messageId, text); }
  stop(): boolean { return this.turns.stop(); }
  /** The notice line goes (the novelist fixed what it asked for: a key, a model). */
  clearNotice(): void { this.turns.clearNotice(); }
  savePoint(opts: { name: string; sidecar: WorldlineSidecar }): Promise<SaveEntry | undefined> { return this.turns.savePoint(opts); }
  compactNow(): Promise<CompactOutcome | undefined> { return this.turns.compactNow(); }
  /** False, with the refusal reported, while a turn is writing or in a read-only window (asked before a name is). */
  writable(verb: ChatVerb): boolean { return this.turns.writable(verb); }

  /** Resolves when the scribe, the summary and any prose following a move have finished. */
  async idle(): Promise<void> {
    await this.turns.idle();
    while (this.follows.size > 0) await Promise.all([...this.follows]);
  }

  /** The continuity findings on the current branch, one record per state entry that has any, root first. */
  findings(): readonly TurnFindings[] { return this.turns.continuity.findings(); }
  /** The branch's findings the views show: not marked as intended, newest turn first. */
  shownFindings(): ShownFinding[] { return this.turns.continuity.shown(); }
  /** Fired when the branch's findings change: a branch move, new findings, a mark. */
  onDidChangeFindings(listener: () => void): { dispose(): void } { return this.turns.continuity.onDidChange(listener); }
  /** Mark as Intended: recorded on the tree, so the finding does not come back on this branch. */
  markIntended(findingId: string, stateId?: string): Promise<boolean> { return this.turns.continuity.markIntended(findingId, stateId); }
  /** Check Continuity of This Chapter: hand-written prose, the whole chapter against the branch's state. */
  checkChapter(file: string, text: string): Promise<CheckOutcome> { return this.turns.continuity.checkChapter(file, text); }
  /**
   * Ask the Agent to Fix: a turn whose instruction names the finding (quote, reason, file), in the
   * project's language. Undefined when the branch has no such finding or the turn did not start.
   */
  askToFix(findingId: string, stateId?: string): Promise<TurnResult | undefined> {
    const found = this.turns.continuity.find(findingId, stateId);
    if (!found) return Promise.resolve(undefined);
    return this.send(fixInstruction(found.finding, this.host.project().lang));
  }

  /** The memory of this session (recall, its filter), for the views that show it. */
  get memory(): StoryTurns['memory'] { return this.turns.memory; }

  dispose(): void {
    this.listener.dispose();
    this.turns.dispose();
  }

  /** Restore Prose Only: the manuscript goes back to that checkpoint (default: the branch's); the chat stays. */
  restoreProse(checkpointId?: string): Promise<RestoreOutcome> {
    return this.restore(checkpointId, false);
  }

  /** Restore Prose and Chat: the prose, and the leaf at the end of that turn (after its state and save). */
  restoreProseAndChat(checkpointId?: string): Promise<RestoreOutcome> {
    return this.restore(checkpointId, true);
  }

  /**
   * Load Save: the prose returns to the last checkpoint on the save's path and the leaf moves to
   * the save, with the same safety commit and Undo as any restore. A save made before any
   * checkpoint: only the chat moves, and Undo moves it back.
   */
  async loadSave(saveEntryId: string): Promise<RestoreOutcome> {
    const session = this.session;
    if (!session.get(saveEntryId)) return undefined;
    const landing = saveLanding(this.branch(), saveEntryId);
    if (!landing) return undefined;
    if (landing.checkpoint) return this.restoreAt(landing.checkpoint, () => landing.leafId, this.mark());
    if (this.busy) return this.refuseBusy();
    const action: UndoAction = { kind: 'chat', leafBefore: session.leafId };
    await this.moveLeaf(landing.leafId);
    this.undoStack.push(action);
    this.host.report({ kind: 'chatOnlyLoad', undo: this.offer(action) });
    return undefined;
  }

  /**
   * Undo Last Restore: takes back the newest restore (prose, and the chat when it moved) or the
   * newest chat-only load. Never throws: a failure is reported.
   */
  undoLastRestore(): Promise<UndoResult> {
    return this.undo(undefined);
  }

  /**
   * An Undo button on a report, clicked perhaps long after: dropped when the story moved on since
   * it was offered, or when that restore is not the newest any more.
   */
  undoFromOffer(offer: UndoOffer): Promise<UndoResult> {
    if (offer.asked && !answerStillCurrent(offer.asked, this.mark(), this.session).current) {
      this.host.log.info('an Undo button was clicked after the branch changed; nothing was undone');
      this.host.report({ kind: 'staleUndoButton' });
      return Promise.resolve(undefined);
    }
    return this.undo(offer.action);
  }

  /** The store was rebuilt: its undo stack is gone, so is ours. */
  forgetUndo(): void {
    this.undoStack.length = 0;
  }

  /**
   * "Prose follows the branch": after the leaf moved from `previousLeaf` (a variant, branch here,
   * an edit), bring the manuscript to the last checkpoint on the new path: always, never, or after
   * asking. Moves the Story made itself are not followed. An answer that comes after the branch
   * moved restores nothing.
   */
  async followBranch(previousLeaf: string | null): Promise<void> {
    if (this.consumeOwnMove(previousLeaf)) return;
    const result = await this.followProse(previousLeaf);
    if (result) this.reportRestored(result, false, this.pushRestore(result, undefined));
  }

  /** The prose of the branch after a move from `previousLeaf`, per the setting; the restore, or undefined when it stayed. */
  private async followProse(previousLeaf: string | null): Promise<RestoreResult | undefined> {
    if (this.busy || this.session.readOnly) return;
    const setting = this.host.settings().proseFollowsBranch;
    if (setting === 'never') return;
    const asked = this.mark();
    const now = proseToFollow(this.branch(), previousLeaf);
    if (!now) return;
    const repo = await this.host.store();
    if (!repo) return;
    const changed = await repo.changedFiles(now.commit).catch(() => []);
    if (changed.length === 0) return;
    // Without a question (setting "always") a newer move brings its own prose: dropped quietly.
    const tell = setting === 'ask';
    if (tell && !(await this.host.askFollow(changed.length))) return;
    if (!this.stillCurrent(asked, tell)) return;
    let result: RestoreOutcome;
    try {
      result = await this.restoreCommit(now.commit, { quiet: false, undoable: true, asked: { mark: asked, tell } });
    } catch (err) {
      // Refused whole (something not ours in the way): the novelist is told why the prose stayed.
      if (!(err instanceof RestoreBlockedError)) throw err;
      this.host.log.warn(err.message);
      this.host.report({ kind: 'followBlocked', message: err.message, code: 'blocked' });
      return;
    }
    return result && result !== 'cancelled' ? result : undefined;
  }

  /**
   * ◀ ▶: the leaf goes to the tip (newest leaf) of the neighbouring sibling's branch. At either end
   * nothing moves. A novelist's move: the prose follows the branch as for any navigation.
   */
  async switchVariant(entryId: string, delta: number, opts: { bringProse?: boolean } = {}): Promise<boolean> {
    const session = this.chatSession('switch variants');
    if (!session || !session.get(entryId)) return false;
    const { siblings, index } = session.variants(entryId);
    const target = siblings[index + delta];
    if (!target) return false;
    if (opts.bringProse) return this.switchWithProse(session.tipOf(target.id));
    await session.navigate(session.tipOf(target.id));
    return true;
  }

  /**
   * A variant step of a version review (the editor's Previous / Next): the prose comes along
   * without the question, whatever the follow setting, since looking at a version means its text.
   * Not undoable on its own (every version has its checkpoint, and a safety checkpoint is kept);
   * when the novelist keeps unsaved editors, the leaf goes back and nothing changed.
   */
  private async switchWithProse(tip: string): Promise<boolean> {
    const from = this.session.leafId;
    await this.moveLeaf(tip);
    const now = proseToFollow(this.branch(), from);
    if (!now) return true;
    try {
      const result = await this.restoreCommit(now.commit, { quiet: false, undoable: false });
      if (result !== 'cancelled') return true;
    } catch (err) {
      const message = errorText(err);
      this.host.log.warn(`version step: the prose did not follow: ${message}`);
      this.host.report({ kind: 'restoreFailed', message, ...checkpointCodeOf(err) });
    }
    await this.moveLeaf(from);
    return false;
  }

  /** Hide a message (every entry of it) from the model; the novelist still sees it. */
  hide(messageId: string): Promise<boolean> {
    return this.setHidden(messageId, true);
  }

  /** Unhide a message: it is back in the model's context. */
  unhide(messageId: string): Promise<boolean> {
    return this.setHidden(messageId, false);
  }

  /**
   * Branch from a message: on a reply, the leaf goes to the end of that turn and the story goes on
   * from there; on an instruction, the leaf goes before it and its text is handed back for the
   * input box, ready to be changed. A novelist's move: the prose follows.
   */
  async branchHere(messageId: string): Promise<BranchHereResult | undefined> {
    const session = this.chatSession('branch');
    const msg = session && this.message(messageId);
    if (!session || !msg) return undefined;
    if (msg.role === 'user') {
      const leafId = session.get(msg.id)?.parentId ?? null;
      await this.branchTo(leafId);
      return { leafId, input: session.textOf(msg.id) };
    }
    const path = session.path();
    const start = path.findIndex((e) => e.id === msg.id);
    let end = start;
    while (end + 1 < path.length && path[end + 1]!.type !== 'user') end++;
    const leafId = path[end]!.id;
    await this.branchTo(leafId);
    return { leafId };
  }

  /**
   * Branch here's move, with an Undo: the leaf moves (the Story's own move), the prose follows as
   * for any navigation (in the background: a question may be open), and then one report says how
   * many turns left the branch; its Undo moves the chat back, and the prose too when it followed.
   * No Undo is offered once the story moved on meanwhile.
   */
  private async branchTo(leafId: string | null): Promise<void> {
    const leafBefore = this.session.leafId;
    if (leafBefore === leafId) return;
    const path = this.session.path();
    const laterTurns = path.slice(path.findIndex((e) => e.id === leafId) + 1).filter((e) => e.type === 'user').length;
    await this.moveLeaf(leafId);
    this.trackFollow(this.followProse(leafBefore).then((restored) => {
      if (this.session.leafId !== leafId && !restored) return this.host.log.info('branch here: the story moved on before the prose was settled; no Undo offered');
      const action: UndoAction = restored?.undo ? { kind: 'prose', undoRef: restored.undo, leafBefore } : { kind: 'chat', leafBefore };
      this.undoStack.push(action);
      this.host.report({ kind: 'branched', laterTurns, ...(restored ? { restored } : {}), undo: this.offer(action) });
    }));
  }

  /** "Prose follows the branch" work, waited for by `idle()`; a failure is logged. */
  private trackFollow(work: Promise<void>): void {
    const follow = work.catch((err: unknown) => this.host.log.warn(`prose did not follow the branch: ${errorText(err)}`));
    this.follows.add(follow);
    void follow.finally(() => this.follows.delete(follow));
  }

  /**
   * Edit in place: an `edit` side entry, seen by every branch through that message. A reply may be
   * several assistant entries (text, tool calls, more text); the edit box showed their texts joined.
   * The saved text goes on the reply's edit entry (its last part with text) and every other part's
   * text is emptied, so the message reads, and the model gets, exactly what was saved: once. An
   * unchanged text appends nothing. False when refused or nothing was written.
   */
  async editInPlace(messageId: string, text: string): Promise<boolean> {
    const session = this.chatSession('edit');
    const msg = session && this.message(messageId);
    if (!session || !msg) return false;
    if (msg.role === 'assistant') {
      if (text === msg.text) return false; // saved unchanged
      const others = msg.entryIds.filter((id) => id !== msg.editId && session.get(id)?.type === 'assistant' && session.textOf(id) !== '');
      for (const id of others) await session.appendSide({ type: 'edit', targetId: id, text: '' });
      if (text !== session.textOf(msg.editId)) await session.appendSide({ type: 'edit', targetId: msg.editId, text });
      return true;
    }
    if (text === session.textOf(msg.editId)) return false;
    await session.appendSide({ type: 'edit', targetId: msg.editId, text });
    return true;
  }

  private async setHidden(messageId: string, hidden: boolean): Promise<boolean> {
    const session = this.chatSession('hide');
    const msg = session && this.message(messageId);
    if (!session || !msg) return false;
    for (const id of msg.entryIds) await session.appendSide({ type: 'hide', targetId: id, hidden });
    return true;
  }

  /** The open session for a chat-tree verb; undefined (and refused, said) while the agent is writing. */
  private chatSession(verb: ChatVerb): Session | undefined {
    if (this.busy) {
      this.host.report({ kind: 'busyVerb', verb });
      return undefined;
    }
    return this.session;
  }

  /** Moves the leaf as a step of another verb (the caller keeps the prose right): not followed. */
  async moveLeaf(leafId: string | null): Promise<void> {
    const session = this.session;
    if (session.leafId === leafId) return; // no move, no navigation event to match
    const move: OwnMove = { from: session.leafId, to: leafId };
    this.ownMoves.push(move);
    try {
      await session.navigate(leafId);
    } finally {
      // The session tells its listeners before `navigate` resolves: by now the move was seen (or
      // never happened, when a queued write got there first). Either way it is no longer pending.
      this.dropOwnMove(move);
    }
  }

  /**
   * Regenerate / edit as a branch / retry: the prose goes back to the checkpoint before that turn,
   * so every variant starts from the same text. Part of the rerun, not a restore: a safety
   * checkpoint is kept but nothing goes on the undo stack. 'cancelled': unsaved editors were kept.
   */
  async resetProseForRerun(userEntryId: string): Promise<RestoreOutcome> {
    const entry = this.session.get(userEntryId);
    if (!entry) return undefined;
    const before = this.session.lastOnPath('checkpoint', entry.parentId);
    if (!before) return undefined;
    return this.restoreCommit(before.commit, { quiet: true, undoable: false });
  }

  /**
   * The first checkpoint of the book, at open and in the background (with progress): the store
   * walks the whole manuscript, which the first time means storing every chapter (seconds for a
   * big book), so that no turn does it in front of the novelist. A turn that comes first waits in
   * the store's queue for this and nothing else. Never throws: a failure is logged.
   */
  async prepareCheckpoints(): Promise<void> {
    try {
      if (this.session.readOnly) return; // the window that owns the novel does it
      const repo = await this.host.store();
      if (!repo) return;
      const prepared = await this.host.progress(() => repo.prepare(), 'checkpoints');
      this.host.log.info(`checkpoints: ${prepared.files} manuscript file(s) walked; ${prepared.changed} differ from the last checkpoint`);
    } catch (err) {
      this.host.log.warn(`checkpoints: the first walk of the book failed: ${errorText(err)}`);
    }
  }

  /**
   * Appends a `checkpoint` entry for the manuscript as it is now: at the end of a turn, and
   * (`onlyIfChanged`) before an instruction or a save when the manuscript moved since the last
   * checkpoint on the branch. `changed`: the files the turn's tools wrote, reported to the change
   * feed first. Never throws: a failure is logged and reported, writing goes on.
   */
  async checkpoint(turnId: string, onlyIfChanged: boolean, changed: readonly string[] = []): Promise<CheckpointEntry | undefined> {
    const session = this.session;
    if (changed.length > 0) this.host.changes?.changed(changed);
    try {
      const repo = await this.host.store();
      if (!repo || session.readOnly) return undefined;
      await this.host.saveUnsavedToDisk();
      // With no checkpoint on this branch yet, one is always taken: the branch needs its own
      // baseline, even if the store already holds the same text from another session.
      const previous = session.lastOnPath('checkpoint')?.commit;
      const result = onlyIfChanged && previous !== undefined
        ? await repo.checkpointIfChanged(turnId, session.header.id, previous)
        : await repo.checkpoint(turnId, session.header.id);
      if (result === null) return undefined;
      if (isCheckpointProblem(result)) {
        this.host.log.warn(`checkpoint skipped: ${result.message}`);
        this.host.report({ kind: 'checkpointSkipped', message: result.message, corrupt: result.kind === 'corrupt', code: result.kind });
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
      this.host.log.warn(`checkpoint failed: ${message}`);
      this.host.report({ kind: 'checkpointSkipped', message, corrupt: false, ...checkpointCodeOf(err) });
      return undefined;
    }
  }

  private async restore(checkpointId: string | undefined, withChat: boolean): Promise<RestoreOutcome> {
    const target = checkpointFor(this.session, checkpointId);
    if (!target) {
      this.host.report({ kind: 'noCheckpoint' });
      return undefined;
    }
    // With the chat, the leaf goes to the end of that turn (after its state and save), decided
    // once the prose is back, so a scene state the scribe wrote meanwhile is counted.
    const land = withChat ? () => proseAndChatLanding(this.branch(), target.id)?.leafId ?? target.id : undefined;
    return this.restoreAt(target, land, this.mark());
  }

  /**
   * The manuscript becomes `target`'s; with `land` the leaf moves too. `asked` is the branch the
   * restore was chosen on: if it moved while a question was open, nothing happens.
   */
  private async restoreAt(target: CheckpointEntry, land: (() => string) | undefined, asked: BranchMark): Promise<RestoreOutcome> {
    if (this.busy) return this.refuseBusy();
    let result: RestoreOutcome;
    try {
      result = await this.restoreCommit(target.commit, { quiet: false, undoable: true, asked: { mark: asked, tell: true } });
    } catch (err) {
      const message = errorText(err);
      this.host.log.error(`restore failed: ${message}`);
      this.host.report({ kind: 'restoreFailed', message, ...checkpointCodeOf(err) });
      return undefined;
    }
    if (result === 'cancelled' || result === undefined) return result;
    const leafTo = land?.();
    const action = this.pushRestore(result, leafTo !== undefined ? this.session.leafId : undefined);
    if (leafTo !== undefined) await this.moveLeaf(leafTo);
    this.reportRestored(result, leafTo !== undefined, action);
    return result;
  }

  /**
   * The manuscript becomes `commit`'s; unsaved manuscript editors are saved first, or nothing
   * happens. With `asked`, the restore is dropped when the branch moved since it was chosen.
   */
  private async restoreCommit(
    commit: string,
    opts: { quiet: boolean; undoable: boolean; asked?: { mark: BranchMark; tell: boolean } },
  ): Promise<RestoreOutcome> {
    const repo = await this.host.store();
    if (!repo) {
      if (!opts.quiet) this.host.report({ kind: 'unavailable' });
      return undefined;
    }
    if ((await this.host.saveUnsavedOrCancel()) === 'cancel') return 'cancelled';
    if (opts.asked && !this.stillCurrent(opts.asked.mark, opts.asked.tell)) return undefined;
    return this.host.progress(async () => {
      const result = await repo.restore(commit, { undoable: opts.undoable });
      this.reportFiles(result);
      await this.host.settle(result);
      return result;
    }, 'restore');
  }

  private async undo(expected: UndoAction | undefined): Promise<UndoResult> {
    try {
      return await this.undoNewest(expected);
    } catch (err) {
      const message = errorText(err);
      this.host.log.error(`undo failed: ${message}`);
      this.host.report({ kind: 'undoFailed', message, ...checkpointCodeOf(err) });
      return undefined;
    }
  }

  private async undoNewest(expected: UndoAction | undefined): Promise<UndoResult> {
    if (this.busy) return this.refuseBusy();
    const top = this.undoStack.at(-1);
    if (expected && top !== expected) {
      this.host.report({ kind: 'undoNotNewest' });
      return undefined;
    }
    if (top?.kind === 'chat') {
      this.undoStack.pop();
      const from = this.session.leafId;
      await this.moveLeaf(top.leafBefore);
      // Turns written since (after Branch Here, after a chat-only load) may have changed the
      // prose: it follows the branch back, as for any move.
      const followed = await this.followProse(from);
      if (followed) this.reportRestored(followed, false, this.pushRestore(followed, undefined));
      this.host.report({ kind: 'undoneChatOnly' });
      return 'chatOnly';
    }
    const repo = await this.host.store();
    if (!repo) {
      this.host.report({ kind: 'unavailable' });
      return undefined;
    }
    const asked = this.mark();
    if ((await this.host.saveUnsavedOrCancel()) === 'cancel') return 'cancelled';
    if (!this.stillCurrent(asked, true)) return undefined;
    // Without a restore of this window on record, the newest one in the store (made before the
    // window opened) is undone: its prose only, since where the chat was is not known.
    const result = await this.host.progress(async () => {
      const undone = await repo.undoLastRestore(top?.undoRef);
      if (undone) {
        this.reportFiles(undone);
        await this.host.settle(undone);
      }
      return undone;
    }, 'restore');
    if (!result) {
      if (top) {
        this.undoStack.length = 0;
        this.host.report({ kind: 'undoGone' });
      } else {
        this.host.report({ kind: 'nothingToUndo' });
      }
      return undefined;
    }
    if (top) this.undoStack.pop();
    if (top?.leafBefore !== undefined) await this.moveLeaf(top.leafBefore);
    this.host.report({ kind: 'undone', result, chatStays: !top });
    return result;
  }

  /** The files a restore wrote or deleted, for the change feed (the word count follows them). */
  private reportFiles(result: RestoreResult): void {
    this.host.changes?.changed([...result.written, ...result.deleted]);
  }

  private pushRestore(result: RestoreResult, leafBefore: string | null | undefined): UndoAction | undefined {
    if (!result.undo) return undefined;
    const action: UndoAction = { kind: 'prose', undoRef: result.undo, leafBefore };
    this.undoStack.push(action);
    return action;
  }

  private reportRestored(result: RestoreResult, withChat: boolean, action: UndoAction | undefined): void {
    this.host.report(action ? { kind: 'restored', withChat, result, undo: this.offer(action) } : { kind: 'restored', withChat, result });
  }

  /** An Undo for `action`, marked with the branch as it is now (after the move). */
  private offer(action: UndoAction): UndoOffer {
    return { action, asked: this.mark() };
  }

  private refuseBusy(): undefined {
    this.host.report({ kind: 'busy' });
    return undefined;
  }

  /** An answer to a question asked on `asked` still applies to the branch now; if not, it is dropped (and said when `tell`). */
  private stillCurrent(asked: BranchMark, tell: boolean): boolean {
    const check = answerStillCurrent(asked, this.mark(), this.session);
    if (check.current) return true;
    this.host.log.info(`an answer came after the branch changed (${check.reason}); nothing was restored`);
    if (tell) this.host.report({ kind: 'staleAnswer', reason: check.reason });
    return false;
  }

  private consumeOwnMove(previousLeaf: string | null): boolean {
    const i = this.ownMoves.findIndex((m) => m.from === previousLeaf && m.to === this.session.leafId);
    if (i < 0) return false;
    this.ownMoves.splice(i, 1);
    return true;
  }

  private dropOwnMove(move: OwnMove): void {
    const i = this.ownMoves.indexOf(move);
    if (i >= 0) this.ownMoves.splice(i, 1);
  }

  /** A message of the current branch, as the Chat shows it (a reply gathers several entries). */
  message(id: string): TranscriptMessage | undefined {
    return this.branch().transcript.find((m) => m.id === id);
  }

  private mark(): BranchMark {
    return markBranch(this.session, this.busy);
  }
}

/** The checkpoint entry to restore: the given one (it must be a checkpoint), or the branch's newest. */
export function checkpointFor(session: Session, entryId: string | undefined): CheckpointEntry | undefined {
  if (!entryId) return session.lastOnPath('checkpoint');
  const entry = session.get(entryId);
  return entry?.type === 'checkpoint' ? entry : undefined;
}


function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
