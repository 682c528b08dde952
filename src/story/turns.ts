// The Story's turn verbs (DESIGN, "Agent mode", "Story and Branch"): send, regenerate, retry, edit
// as a new branch (instructions and replies), stop, save point and compact now, over the session's
// one TurnRunner. Here the model clients are built from one settings snapshot and the keys the
// core's rule allows, the runner's events become what the views show (phase, streamed text, the
// notice line, the scribe), and background work (a save, a summary) goes through the runner's one
// queue, so none of it lands inside a turn.
import { createScribeHook } from '../agent/scribeHook';
import { replyBranchCopy } from '../agent/replyBranch';
import type { TranscriptMessage } from '../agent/transcript';
import { TurnRunner } from '../agent/turnRunner';
import { TurnBusyError, type TurnEvent, type TurnHooks, type TurnPhase, type TurnResult } from '../agent/turnTypes';
import { embedderFor, SessionMemory, sideChatClient, summaryModelFor, type CompactOutcome } from '../memory';
import { dialectForEndpoint } from '../model/dialects';
import { ErrorTap } from '../model/problem';
import { contextPressure, contextWindowFor } from '../model/usage';
import { endpointOrigin, type RequestKeys } from '../model/keys';
import type { WorldlineSettings } from '../model/settings';
import { createStreamingClient, type StreamingClient } from '../model/streaming';
import { requestOptions } from '../model/requestOptions';
import type { ScribeStatus } from '../protocol/state';
import type { SaveEntry, UserEntry } from '../session/entries';
import { isStaleLeafError, type Session } from '../session/session';
import { planNewSave } from '../worldline/plan';
import type { WorldlineSidecar } from '../worldline';
import type { Branch } from './branch';
import { CodexCache, stateNames } from '../codex/story';
import { DEFAULT_CODEX_FOLDER } from '../project/codexFolder';
import type { CodexAccess, ToolChange } from '../agent/tools';
import { StoryContinuity } from './continuity';
import type { ChatVerb, ContextRecovery, LiveChange, ScribeProblem, StoryHost, TurnNotice } from './host';

/**
 * Characters of the injected state block. Full rosters (100/100/60/60) format to about 6,400; at
 * this budget the first-seen times go and every name stays, so the block is bounded.
 */
const STATE_BLOCK_BUDGET = 5500;

/** The reply being written, as the Chat's streaming block shows it. */
export interface StreamView {
  text: string;
  tools: { text: string; isError: boolean }[];
  /** The model's reasoning text for this step, where the provider streams it (shown collapsed). */
  reasoning?: string;
  /** When this step began waiting for the model (epoch ms): the thinking indicator counts from it. */
  since?: number;
}

/** An instruction the novelist sent while the last turn's scribe (or a save, a summary) still runs: it waits, shown as pending. */
export interface PendingInstruction {
  text: string;
  /** When it was sent (epoch ms). */
  since: number;
}

/** The waiting instruction, and whether the runner has taken it (it waits there for the scribe). */
interface PendingRun {
  readonly view: PendingInstruction;
  inRunner: boolean;
}

/** What the turn verbs need from the Story they belong to. */
export interface TurnOwner {
  readonly host: StoryHost;
  readonly session: Session;
  branch(): Branch;
  /** A message of the current branch, as the Chat shows it. */
  message(id: string): TranscriptMessage | undefined;
  /** The prose back to the checkpoint before the turn; false when the novelist kept unsaved editors. */
  resetProseForRerun(userEntryId: string): Promise<boolean>;
  /** `changed`: the files the turn's tools wrote (reported to the change feed first). */
  checkpoint(turnId: string, onlyIfChanged: boolean, changed?: readonly string[]): Promise<unknown>;
  /** Moves the leaf as a step of a verb (the prose is kept right by the verb). */
  moveLeaf(leafId: string | null): Promise<void>;
  followBranch(previousLeaf: string | null): Promise<void>;
}

/**
 * What came of a context-length refusal: the host's `ContextRecovery` for the notice, `recovered`
 * (the second try went through), or `cancelled` (the novelist kept unsaved editors: not retried).
 */
type Recovery = ContextRecovery | 'recovered' | 'cancelled';

/** Thrown by the rerun's first step when the novelist kept unsaved editors: the turn ends before the model. */
export class RerunCancelledError extends Error {
  constructor(lang: 'zh' | 'en') {
    super(lang === 'zh'
      ? '重新生成已取消：章节里未保存的修改被保留了。'
      : 'Regenerate was cancelled: unsaved changes in a chapter were kept.');
    this.name = 'RerunCancelledError';
  }
}

export class StoryTurns {
  readonly runner: TurnRunner;
  readonly memory: SessionMemory;
  /** The book's codex, read again only when its files change: injected each turn, read by codex_lookup. */
  readonly codex: CodexCache;
  private phaseValue: TurnPhase = 'idle';
  private streamValue: StreamView | undefined;
  private noticeValue: TurnNotice | undefined;
  private scribeValue: ScribeStatus = { running: false };
  private pendingRun: PendingRun | undefined;
  private readonly baseHooks: TurnHooks;
  /**
   * The last model failure of each client, with its code (the turn loop, the scribe and the
   * summariser keep only the message): what the notice words, and what tells a context-length
   * refusal from any other.
   */
  private readonly agentErrors = new ErrorTap();
  private readonly scribeErrors = new ErrorTap();
  private readonly summaryErrors = new ErrorTap();
  /** The continuity checker of this session: after each turn's scribe, and the verbs on its findings. */
  readonly continuity: StoryContinuity;
  /** The files the last turn's tools changed (told at its checkpoint), for the continuity check after its scribe. */
  private lastTurn: { userEntryId: string; changes: readonly ToolChange[]; stateId?: string } | undefined;

  constructor(private readonly owner: TurnOwner) {
    const { host, session } = owner;
    const project = host.project();
    this.codex = new CodexCache({ root: project.root, folder: () => codexFolderOf(host.project()), warn: (m) => host.log.warn(m) });
    this.continuity = new StoryContinuity({ host, session, codexEntries: () => this.codex.entries() });
    this.memory = new SessionMemory({
      root: project.root,
      session,
      branchOptions: () => host.project().branchOptions,
      settings: () => host.settings(),
      embedder: async () => {
        const settings = host.settings();
        return embedderFor(settings, await host.keys(settings));
      },
      summaryModel: async () => {
        const settings = host.settings();
        const model = summaryModelFor(settings, await host.keys(settings));
        return { ...model, client: this.summaryErrors.completer(model.client) };
      },
      log: host.log,
      progress: (work) => host.progress(work),
    });
    // The hooks that do not depend on the settings; the scribe's is added per turn (`prepare`).
    const hooks: TurnHooks = {
      // The manuscript as it is before the instruction (the novelist may have edited by hand):
      // with nothing reported changed since the last checkpoint, this runs no git at all.
      beforeInstruction: async () => {
        await owner.checkpoint(`before-${Date.now().toString(36)}`, true);
      },
      recall: ({ userEntryId, instruction }) => this.memory.recall(userEntryId, instruction),
      codex: ({ userEntryId, instruction }) => this.codex.inject({
        instruction,
        // The branch as the model is sent it (edits applied, hidden messages out), the instruction itself left out.
        recent: owner.session.contextWithSummary().messages.filter((m) => m.role !== 'tool' && m.entryId !== userEntryId).map((m) => m.text),
        stateNames: stateNames(owner.branch().state.state),
      }, { lang: host.project().lang }),
      beforeTurn: async ({ kind, userEntryId }) => {
        if (kind !== 'send' && !(await owner.resetProseForRerun(userEntryId))) throw new RerunCancelledError(host.project().lang);
      },
      // The files the tools wrote are known here: the store looks at those, not at the whole book.
      checkpoint: async ({ userEntryId, changes }) => {
        this.lastTurn = { userEntryId, changes };
        await owner.checkpoint(userEntryId, false, changes.map((c) => c.path));
      },
      // Every N turns the older ones become a summary (after the scribe, leaf-guarded), or sooner
      // when the last request filled most of the model's context window (memory/plan.ts).
      // The continuity check of the turn's prose runs beside it (it only adds a side entry; it never fails the turn).
      afterScribe: async ({ signal, userEntryId }) => {
        const pressure = this.contextPressure();
        const turn = this.lastTurn;
        const checked = turn?.userEntryId === userEntryId && turn.stateId !== undefined
          ? this.continuity.afterTurn({ userEntryId, stateId: turn.stateId, changes: turn.changes, signal })
          : undefined;
        const compacted = this.memory.compact({ manual: false, signal, ...(pressure !== undefined ? { pressure } : {}) });
        const [outcome] = await Promise.all([compacted, checked]);
        return outcome;
      },
    };
    this.baseHooks = hooks;
    // The clients are made from the settings at each turn (`prepare`); until then none is usable.
    const notPrepared: Pick<StreamingClient, 'stream'> = { stream: () => Promise.reject(new Error('the model client was not prepared')) };
    this.runner = new TurnRunner({
      session, client: notPrepared, lang: project.lang, style: '', title: '', maxSteps: 1, model: '', opening: project.branchOptions.opening,
      toolContext: { fs: host.manuscriptFs(), root: project.root, globs: project.config.manuscriptMatcher, getState: () => owner.branch().state.state, lang: project.lang, codex: this.codexAccess(false) },
      stateBudget: STATE_BLOCK_BUDGET,
      hooks,
      extraTools: [this.memory.searchTool()],
      transformContext: this.memory.transformContext(),
      onEvent: (e) => this.onEvent(e),
    });
  }

  get busy(): boolean { return this.runner.busy; }
  get phase(): TurnPhase { return this.phaseValue; }
  get stream(): StreamView | undefined { return this.streamValue; }
  get notice(): TurnNotice | undefined { return this.noticeValue; }
  get scribe(): ScribeStatus { return this.scribeValue; }
  get canRetry(): boolean { return !this.busy && this.runner.retryTarget !== undefined; }
  /** The instruction sent but not yet in the session (the scribe, a save or a summary still runs). */
  get pending(): PendingInstruction | undefined { return this.pendingRun?.view; }

  /**
   * Appends the novelist's instruction under the leaf and runs the turn. From Send until the
   * instruction is appended it is `pending` (the scribe of the last turn may still run); a second
   * Send meanwhile is refused. Undefined when refused, or cancelled before it was appended.
   */
  send(text: string): Promise<TurnResult | undefined> {
    if (this.pendingRun) {
      this.owner.host.report({ kind: 'instructionWaiting' });
      return Promise.resolve(undefined);
    }
    // An empty instruction is refused by the runner at once: it never waits.
    return this.runTurn('send a message', (r) => r.send(text), text.trim() === '' ? undefined : text);
  }

  /**
   * Drops the waiting instruction before anything of it is written (the pin of hand edits that
   * Send takes first may already be there: it only records the manuscript). False when none waits,
   * or its turn has begun writing.
   */
  cancelPending(): boolean {
    const run = this.pendingRun;
    if (!run) return false;
    if (run.inRunner && !this.runner.cancelWaiting()) return false;
    this.setPending(undefined);
    this.owner.host.log.info('send: the waiting instruction was cancelled before it was written');
    return true;
  }

  /**
   * A sibling of that reply (default: the last one on the branch), from the same prose. When later
   * turns on the branch would leave it, the novelist is asked once (they stay as a variant).
   */
  async regenerate(entryId?: string): Promise<TurnResult | undefined> {
    const { session, host } = this.owner;
    const target = entryId ?? session.lastOnPath('assistant')?.id ?? session.lastOnPath('user')?.id;
    if (!target) {
      host.report({ kind: 'nothingToRegenerate' });
      return undefined;
    }
    if (this.busy) {
      host.report({ kind: 'busyVerb', verb: 'regenerate' });
      return undefined;
    }
    const later = laterTurns(session.path(), target);
    if (later > 0 && !(await host.confirmLeaveTurns(later))) {
      host.log.info(`regenerate: cancelled by the novelist (later turns that would have left the branch: ${later})`);
      return undefined;
    }
    return this.runTurn('regenerate', (r) => r.regenerate(target));
  }

  /** The last failed or stopped turn, again. */
  retry(): Promise<TurnResult | undefined> {
    return this.runTurn('retry', (r) => r.retry());
  }

  /**
   * Edit as a new branch. An instruction: a sibling instruction with the new words, and a turn
   * for it. A reply: the turn is copied beside the original with the new text (same tool work,
   * checkpoint and state, so the prose stays); ◀ ▶ goes back. An unchanged reply writes nothing.
   */
  async editAsNewBranch(messageId: string, text: string): Promise<TurnResult | boolean | undefined> {
    const msg = this.owner.message(messageId);
    if (!msg) return undefined;
    if (msg.role === 'user') return this.runTurn('edit', (r) => r.editAndBranch(msg.id, text));
    if (text === msg.text) return false;
    return this.copyReplyAsBranch(msg.id, msg.editId, text);
  }

  /** Stops the running turn; an instruction still waiting is cancelled instead (nothing is written). */
  stop(): boolean {
    return this.cancelPending() || this.runner.stop();
  }

  clearNotice(): void {
    if (this.noticeValue) this.setNotice(undefined);
  }

  /** Resolves when the last turn's scribe (and any summary after it) has finished. */
  idle(): Promise<void> {
    return this.runner.idle();
  }

  /**
   * Save Point: after the scribe (the save carries that turn's state), never inside a turn. The
   * prose is pinned first when it moved (hand edits included), so loading the save brings it back.
   */
  async savePoint(opts: { name: string; sidecar: WorldlineSidecar }): Promise<SaveEntry | undefined> {
    const { session, host } = this.owner;
    if (!this.writable('save')) return undefined;
    const saved = await this.background('save', async () => {
      await this.owner.checkpoint(`save-${Date.now().toString(36)}`, true);
      const plan = planNewSave({ name: opts.name, lang: host.project().lang, tree: session, sidecar: opts.sidecar });
      const entry = (await session.append(plan)) as SaveEntry;
      await session.flush();
      return { entry, fork: plan.kind === 'fork' };
    });
    if (!saved) return undefined;
    host.log.info(`saved "${saved.entry.name}" on ${saved.entry.worldlineName}${saved.fork ? ' (a new worldline)' : ''}`);
    host.report({ kind: 'saved', ...saved });
    this.changed('render');
    return saved.entry;
  }

  /** Compact Now: the older turns become a summary on this branch, at a lower threshold than the automatic one. */
  async compactNow(): Promise<CompactOutcome | undefined> {
    if (!this.writable('compact')) return undefined;
    this.summaryErrors.clear();
    const outcome = await this.background('compact', () => this.memory.compact({ manual: true }));
    const problem = outcome?.kind === 'failed' ? this.summaryErrors.problemFor(outcome.error.message) : undefined;
    if (outcome) this.owner.host.report({ kind: 'compacted', outcome, ...(problem ? { problem } : {}) });
    this.changed('render');
    return outcome;
  }

  /** What the agent's tools may do with the codex: read always, write when the setting allows it. */
  private codexAccess(mayWrite: boolean): CodexAccess {
    return { folder: codexFolderOf(this.owner.host.project()), mayWrite: () => mayWrite, entries: () => this.codex.entries() };
  }

  dispose(): void {
    this.continuity.dispose();
    this.codex.dispose();
    this.runner.dispose();
    void this.memory.close();
  }

  /** Refused, and said, while a turn is writing or when another window owns the novel. */
  writable(verb: ChatVerb): boolean {
    if (this.busy) {
      this.owner.host.report({ kind: 'busyVerb', verb });
      return false;
    }
    if (this.owner.session.readOnly) {
      this.owner.host.report({ kind: 'readOnly' });
      return false;
    }
    return true;
  }

  /** Work that appends to the session, queued behind the scribe; undefined when a turn started first. */
  private async background<T>(verb: ChatVerb, task: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.runner.background(verb, task);
    } catch (err) {
      if (!(err instanceof TurnBusyError)) throw err;
      this.owner.host.report({ kind: 'busyVerb', verb });
      return undefined;
    }
  }

  /** The copy of an edited reply, entry by entry under a guard: a click on ◀ ▶ meanwhile stops it. */
  private async copyReplyAsBranch(firstId: string, editId: string, text: string): Promise<boolean> {
    const { session, host } = this.owner;
    if (!this.writable('edit')) return false;
    const done = await this.background('edit', async () => {
      const first = session.get(firstId);
      const copy = first ? replyBranchCopy(session.path(), firstId, editId, text) : undefined;
      if (!first || !copy || copy.length === 0) return false;
      const leafBefore = session.leafId;
      await this.owner.moveLeaf(first.parentId);
      let expected = first.parentId;
      try {
        for (const e of copy) expected = (await session.append(e, { guard: (leaf) => leaf === expected })).id;
      } catch (err) {
        if (!isStaleLeafError(err)) throw err;
        host.report({ kind: 'replyCopyStopped' });
        return false;
      } finally {
        await session.flush();
      }
      // Editing an older reply moves the story back to that turn: the prose follows, as for ◀ ▶.
      await this.owner.followBranch(leafBefore);
      return true;
    });
    this.changed('render');
    return done ?? false;
  }

  /** The clients for this turn from one settings snapshot; false (with the notice) when no turn can run. */
  private async prepare(): Promise<boolean> {
    const { host } = this.owner;
    const settings = host.settings();
    if (!settings.model) {
      this.setNotice({ kind: 'noModel' });
      return false;
    }
    const keys = await host.keys(settings);
    // Origins only: an endpoint setting may carry user info (https://user:secret@host).
    for (const w of keys.withheld) host.log.warn(`api key: the ${w.role} key was set for ${w.setFor}, not sent to ${endpointOrigin(w.endpoint) ?? 'a non-http(s) address'}`);
    const main = keys.withheld.find((w) => w.role === 'main');
    if (main) {
      this.setNotice({ kind: 'keyWithheld', setFor: main.setFor, endpoint: settings.baseUrl });
      return false;
    }
    if (this.runner.busy) return true; // the runner refuses the second turn itself
    const project = host.project();
    const lang = project.lang;
    this.runner.update({
      client: this.agentErrors.streaming(createStreamingClient({
        baseURL: settings.baseUrl, apiKey: keys.main, model: settings.model,
        dialect: dialectForEndpoint(settings.baseUrl, settings), thinking: settings.thinking ?? 'auto', dialectOptions: { providerPin: settings.providerPin ?? [] },
        ...requestOptions(settings, settings.baseUrl, 'stream'),
      })),
      maxTokens: settings.maxOutputTokens,
      toolContext: { fs: host.manuscriptFs(), root: project.root, globs: project.config.manuscriptMatcher, getState: () => this.owner.branch().state.state, lang, codex: this.codexAccess(settings.codexAgentMayWrite === true) },
      lang,
      style: project.config.style,
      title: project.config.title,
      maxSteps: settings.maxToolSteps,
      temperature: settings.temperature,
      model: settings.model,
      opening: project.branchOptions.opening,
      hooks: { ...this.baseHooks, scribe: this.scribeHook(settings, keys.scribe) },
    });
    return true;
  }

  private scribeHook(settings: WorldlineSettings, apiKey: RequestKeys['scribe']): TurnHooks['scribe'] {
    const project = this.owner.host.project();
    return createScribeHook({
      session: this.owner.session,
      client: this.scribeErrors.completer(sideChatClient(settings, { scribe: apiKey })),
      model: settings.scribeModel,
      opening: project.branchOptions.opening,
      lang: project.lang,
      hasVariables: Object.keys(project.config.variables).length > 0,
      onAppended: (entry, info) => {
        if (this.lastTurn?.userEntryId === info.userEntryId) this.lastTurn.stateId = entry.id;
      },
    });
  }

  /**
   * Runs one turn and turns its result into the notice line and the scribe's status. `pending`: the
   * instruction of a Send, shown as waiting until the runner appends it.
   */
  private async runTurn(verb: ChatVerb, action: (runner: TurnRunner) => Promise<TurnResult>, pending?: string): Promise<TurnResult | undefined> {
    const { host } = this.owner;
    // Refused before anything changes: the running turn keeps its streamed text and its notice.
    if (this.busy) {
      host.report({ kind: 'busyVerb', verb });
      return undefined;
    }
    const run: PendingRun | undefined = pending === undefined ? undefined : { view: { text: pending, since: Date.now() }, inRunner: false };
    if (run) this.setPending(run);
    try {
      return await this.runPrepared(verb, action, run);
    } finally {
      if (run && this.pendingRun === run) this.setPending(undefined);
    }
  }

  private async runPrepared(verb: ChatVerb, action: (runner: TurnRunner) => Promise<TurnResult>, run: PendingRun | undefined): Promise<TurnResult | undefined> {
    const { host } = this.owner;
    if (!(await this.prepare())) return undefined;
    if (run && this.pendingRun !== run) return undefined; // cancelled while the clients were made
    this.setNotice(undefined);
    let result = await this.attempt(verb, action, run);
    if (!result) return undefined;
    // Stopped (or cancelled) before the turn began: nothing was written, there is nothing to tell.
    if (result.status === 'aborted' && result.userEntryId === undefined) {
      host.log.info(`turn: stopped before it began (${verb}); nothing was written`);
      return undefined;
    }
    let recovery: Recovery | undefined;
    // A "context too long" refusal: the older turns are summarised and the turn runs once more.
    if (result.status === 'error' && this.agentErrors.problemFor(result.error)?.code === 'contextLength') {
      const again = await this.compactAndRetry(verb, result);
      result = again.result;
      recovery = again.recovery;
    }
    this.endNotice(result, recovery);
    host.log.info(`turn ${result.status}: ${result.changes.length} file change(s)`);
    host.report({ kind: 'turnEnded', result });
    if (result.scribeDone) {
      this.scribeErrors.clear();
      void result.scribeDone.then((outcome) => {
        const at = new Date().toISOString();
        const last = !outcome ? this.scribeValue.last
          : outcome.kind === 'applied' ? { kind: outcome.kind, warnings: outcome.warnings, at }
          : outcome.kind === 'failed' ? { kind: outcome.kind, warnings: [], error: outcome.error.message, at }
          : { kind: outcome.kind, warnings: [], at };
        if (outcome) host.log.info(`scribe: ${outcome.kind}`);
        const problem: ScribeProblem | undefined = outcome?.kind !== 'failed' ? undefined
          : outcome.error.kind === 'model'
            ? ((model) => (model ? { stage: 'model', model } : { stage: 'model' }))(this.scribeErrors.problemFor(outcome.error.message))
            : { stage: outcome.error.kind };
        this.setScribe(last ? { running: false, last } : { running: false }, problem);
        this.changed('render');
      });
    }
    this.changed('render');
    return result;
  }

  /** One run of the runner; undefined (with the notice or the refusal said) when it did not start. */
  private async attempt(verb: ChatVerb, action: (runner: TurnRunner) => Promise<TurnResult>, run?: PendingRun): Promise<TurnResult | undefined> {
    // No streaming block until a model step starts (phase 'writing'): a turn waiting for the
    // scribe shows as its pending instruction, not as an empty reply.
    this.streamValue = undefined;
    this.agentErrors.clear();
    try {
      const wasBusy = this.runner.busy;
      const turn = action(this.runner);
      // The runner took the turn synchronously (it is busy now and was not): the waiting
      // instruction is in its hands, and only the runner can still drop it.
      if (run && !wasBusy && this.runner.busy) run.inRunner = true;
      return await turn;
    } catch (err) {
      if (err instanceof TurnBusyError) this.owner.host.report({ kind: 'busyVerb', verb });
      else this.setNotice({ kind: 'failed', message: err instanceof Error ? err.message : String(err), auth: false });
      return undefined;
    } finally {
      this.streamValue = undefined;
    }
  }

  /**
   * After a context-length refusal, once: the leaf goes back before the failed instruction, the
   * older turns are summarised there as under full context pressure, and the instruction is sent
   * again under the summary (a new branch beside the failed one, which stays in the tree). When
   * nothing could be summarised, the leaf goes back to the failed turn and nothing else changed.
   * The prose is reset to the checkpoint before the turn only once the summary exists, as Retry does.
   */
  private async compactAndRetry(verb: ChatVerb, failed: TurnResult): Promise<{ result: TurnResult; recovery: Recovery }> {
    const { session, host } = this.owner;
    const notCompacted = { result: failed, recovery: 'notCompacted' as const };
    const user = failed.userEntryId !== undefined ? session.get(failed.userEntryId) : undefined;
    if (!user || user.type !== 'user' || session.readOnly) return notCompacted;
    const text = session.textOf(user.id);
    host.log.warn(`turn: the model refused the conversation as too long; summarising the older turns and sending the instruction again`);
    this.setNotice({ kind: 'compacting' });
    const ready = await this.background(verb, async (): Promise<'ready' | 'no' | 'cancelled'> => {
      const leafBefore = session.leafId;
      await this.owner.moveLeaf((user as UserEntry).parentId);
      this.summaryErrors.clear();
      const outcome = await this.memory.compact({ manual: false, pressure: 1 });
      host.log.info(`turn: summary before the second try: ${outcome.kind}`);
      if (outcome.kind === 'applied' && (await this.owner.resetProseForRerun(user.id))) return 'ready';
      await this.owner.moveLeaf(leafBefore);
      return outcome.kind === 'applied' ? 'cancelled' : 'no';
    }).catch((err: unknown) => {
      host.log.warn(`turn: the summary before the second try failed: ${err instanceof Error ? err.message : String(err)}`);
      return 'no' as const;
    });
    if (ready === 'cancelled') return { result: failed, recovery: 'cancelled' };
    if (ready !== 'ready') return notCompacted;
    const again = await this.attempt(verb, (r) => r.send(text));
    if (!again) return { result: failed, recovery: 'notCompacted' };
    const refusedAgain = again.status === 'error' && this.agentErrors.problemFor(again.error)?.code === 'contextLength';
    return { result: again, recovery: refusedAgain ? 'retried' : 'recovered' };
  }

  /** The notice line for how the turn ended. */
  private endNotice(result: TurnResult, recovery: Recovery | undefined): void {
    if (recovery === 'cancelled') {
      this.setNotice({ kind: 'failed', message: new RerunCancelledError(this.owner.host.project().lang).message, auth: false });
    } else if (result.status === 'error') {
      const problem = this.agentErrors.problemFor(result.error);
      const window = problem?.code === 'contextLength' ? this.contextWindow() : undefined;
      this.setNotice({
        kind: 'failed',
        ...(result.error ? { message: result.error } : {}),
        auth: problem ? problem.code === 'auth' || problem.code === 'noKey' : /API key|401|auth/i.test(result.error ?? ''),
        ...(problem ? { problem } : {}),
        ...(problem?.code === 'contextLength' && (recovery === 'retried' || recovery === 'notCompacted') ? { recovery } : {}),
        ...(window ? { contextWindow: window } : {}),
      });
    } else if (result.status === 'aborted') {
      this.setNotice({ kind: 'stopped', kept: this.keptOf(result) });
    } else {
      this.setNotice(recovery === 'recovered' ? { kind: 'compacted' } : undefined);
    }
  }

  /** Something of a stopped turn stayed: a file it wrote, or reply text. */
  private keptOf(result: TurnResult): boolean {
    if (result.changes.length > 0) return true;
    const path = this.owner.session.path();
    const at = path.findIndex((e) => e.id === result.userEntryId);
    return at >= 0 && path.slice(at + 1).some((e) => e.type === 'assistant' && e.text.trim() !== '');
  }

  /** The writing model's context window under the current settings, when known. */
  private contextWindow(): number | undefined {
    const settings = this.owner.host.settings();
    return contextWindowFor(settings.contextWindow, dialectForEndpoint(settings.baseUrl, settings), settings.model);
  }

  /** How full the window will be at the branch's next request (memory/plan.ts decides what follows). */
  private contextPressure(): number | undefined {
    return contextPressure(this.owner.session.path(), this.contextWindow());
  }

  private onEvent(e: TurnEvent): void {
    const { host } = this.owner;
    switch (e.type) {
      case 'phase':
        this.phaseValue = e.phase;
        // A model step starts waiting: the thinking indicator counts from here.
        if (e.phase === 'writing') this.streamValue = { ...(this.streamValue ?? { text: '', tools: [] }), since: Date.now() };
        if (e.phase === 'scribe') this.setScribe(this.scribeValue.last ? { running: true, last: this.scribeValue.last } : { running: true });
        this.changed('phase');
        return;
      case 'delta':
        this.streamValue = { ...this.streamNow(), text: (this.streamValue?.text ?? '') + e.text };
        this.changed('stream');
        return;
      case 'reasoning':
        this.streamValue = { ...this.streamNow(), reasoning: (this.streamValue?.reasoning ?? '') + e.text };
        this.changed('stream');
        return;
      case 'toolEnd':
        this.streamValue = {
          ...this.streamNow(),
          tools: [...(this.streamValue?.tools ?? []), { text: e.summary ?? (e.result.split('\n')[0] ?? e.name), isError: e.isError }],
        };
        this.changed('stream');
        return;
      case 'entry':
        // A new assistant entry starts a new streamed block (a new step, waiting again); the written
        // entries render from the tree.
        if (e.entry.type === 'assistant') this.streamValue = { text: '', tools: [], since: Date.now() };
        // The waiting instruction is in the session now: it shows as the message it is.
        if (e.entry.type === 'user' && this.pendingRun?.inRunner) this.pendingRun = undefined;
        this.changed('render');
        return;
      case 'error':
        host.log.error(e.message);
        return;
      case 'warning':
        host.log.warn(e.message);
        return;
      default:
        return;
    }
  }

  private streamNow(): StreamView {
    return this.streamValue ?? { text: '', tools: [] };
  }

  private setPending(run: PendingRun | undefined): void {
    this.pendingRun = run;
    this.changed('render');
  }

  private setScribe(status: ScribeStatus, problem?: ScribeProblem): void {
    this.scribeValue = status;
    this.owner.host.report({ kind: 'scribe', status, ...(problem ? { problem } : {}) });
  }

  private setNotice(notice: TurnNotice | undefined): void {
    this.noticeValue = notice;
    this.changed('render');
  }

  private changed(change: LiveChange): void {
    this.owner.host.report({ kind: 'live', change });
  }
}

/** How many instructions come after `entryId` on the branch: the turns a rerun from it leaves behind. */
export function laterTurns(path: readonly { readonly id: string; readonly type: string }[], entryId: string): number {
  const at = path.findIndex((e) => e.id === entryId);
  if (at < 0) return 0;
  return path.slice(at + 1).filter((e) => e.type === 'user').length;
}

/** worldline.yaml `codex:` (a project made without it, as older callers do, has the default). */
function codexFolderOf(project: { config: { codex?: string } }): string {
  return project.config.codex ?? DEFAULT_CODEX_FOLDER;
}
