// The turn runner: one per open session. It owns "one turn at a time" (a second turn, regenerate,
// switch, compaction or restore is refused with TurnBusyError while one runs), the order of the end
// of a turn (flush → checkpoint → scribe) and the way a turn is started (send, regenerate, edit as
// a new branch, retry).
//
// Timing, decided:
//  - `busy` covers the model part only. `send` resolves right after the checkpoint, with the
//    scribe still running behind `result.scribeDone`, so the input frees up quickly.
//  - Navigation (switch, restore) may proceed while the scribe runs: the scribe is leaf-guarded and
//    drops its result when the branch moved.
//  - The next turn, however started, first waits for that scribe, so the new instruction gets the
//    fresh ledger and the state entry lands before the new user entry, not inside the next turn.
//    The same holds for the work after the scribe (`afterScribe`: the summary) and for work queued
//    with `background()` (Save Point, Compact Now): none of their entries can land inside a turn.
//  - A failed or stopped turn gets no checkpoint and no scribe; its user entry becomes the retry
//    target. A stop before the turn started (while waiting for the scribe, or while Send pins the
//    hand edits) records nothing: the turn ends 'aborted' with no user entry, and `cancelWaiting`
//    stops only such a turn, one that has written nothing yet.
import type { Session } from '../session/session';
import type { AssistantEntry, UserEntry } from '../session/entries';
import type { StreamingClient } from '../model/streaming';
import type { ScribeOutcome } from '../state/scribeRun';
import type { Lang } from './manuscript';
import { buildSystemPrompt } from './prompt';
import { proseAdded } from './proseAdded';
import { toolSchemas, type ToolContext } from './tools';
import { runToolLoop } from './turn';
import { TurnBusyError, type ExtraTool, type ScribeInfo, type TurnEvent, type TurnHooks, type TurnKind, type TurnResult } from './turnTypes';
import { SentBlocks, type BlockSettings, type ContextTransform } from './sentBlocks';

export interface TurnRunnerDeps {
  session: Session;
  client: Pick<StreamingClient, 'stream'>;
  toolContext: ToolContext;
  lang: Lang;
  /** worldline.yaml `style` and `title`. */
  style: string;
  title: string;
  /** Model calls per turn at most (setting `worldline.maxToolSteps`). */
  maxSteps: number;
  temperature?: number;
  maxTokens?: number;
  /** The main model's name, recorded on assistant entries. */
  model: string;
  /** worldline.yaml `opening` (or a SceneState): the state before any `state` entry. */
  opening: unknown;
  /** Character budget of the injected state block (formatState). */
  stateBudget?: number;
  hooks?: TurnHooks;
  onEvent?(e: TurnEvent): void;
  /** memory_search and any other non-file tools. */
  extraTools?: readonly ExtraTool[];
  /** Applied to the replayed branch before each request. */
  transformContext?: ContextTransform;
}

/** The settings a running app may change between turns (model, style, limits, hooks …). */
export type TurnRunnerUpdate = Partial<Omit<TurnRunnerDeps, 'session'>>;

export class TurnRunner {
  private deps: TurnRunnerDeps;
  private active: AbortController | undefined;
  /** The active turn has written nothing yet (it waits for the scribe, or pins hand edits). */
  private untouched = false;
  private scribing: Promise<unknown> | undefined;
  private readonly lifetime = new AbortController();
  private failedUserId: string | undefined;
  /** The blocks in front of the instructions, re-derived from the branch: a cache only. */
  private readonly sent: SentBlocks;

  /** `pending`: work started before this runner existed (a save, a summary) that turns must wait for. */
  constructor(deps: TurnRunnerDeps, pending?: Promise<unknown>) {
    this.deps = { ...deps };
    this.sent = new SentBlocks(deps.session);
    if (pending) this.track(pending.catch(() => undefined));
  }

  /** True while a turn's model part runs (or waits to start). */
  get busy(): boolean {
    return this.active !== undefined;
  }

  /** True while a turn has been asked for but has written nothing yet (its instruction waits). */
  get waiting(): boolean {
    return this.active !== undefined && this.untouched;
  }

  /** True while the last turn's scribe (or work queued behind it) is still running. */
  get scribeRunning(): boolean {
    return this.scribing !== undefined;
  }

  /** Resolves once the scribe and everything queued behind it have finished. */
  async idle(): Promise<void> {
    while (this.scribing) await this.scribing;
  }

  /**
   * Work that appends to the session and must never interleave with a turn (Save Point, Compact
   * Now): it runs after the scribe and anything queued before it, and the next turn waits for it.
   * Refused while a turn is writing.
   */
  background<T>(action: string, task: () => Promise<T>): Promise<T> {
    if (this.active) return Promise.reject(new TurnBusyError(action, this.deps.lang));
    const run = (this.scribing ?? Promise.resolve()).then(() => task());
    this.track(run.then(() => undefined, () => undefined));
    return run;
  }

  private track(work: Promise<unknown>): void {
    const tracked: Promise<unknown> = work.finally(() => {
      if (this.scribing === tracked) {
        this.scribing = undefined;
        if (!this.active) this.emit({ type: 'phase', phase: 'idle' });
      }
    });
    this.scribing = tracked;
  }

  /** The user entry of the last failed or stopped turn, which `retry()` runs again. */
  get retryTarget(): string | undefined {
    return this.failedUserId;
  }

  /** Throws TurnBusyError when a turn runs. Callers of switch, compaction and restore use it. */
  guard(action: string): void {
    if (this.active) throw new TurnBusyError(action, this.deps.lang);
  }

  /** Takes effect from the next turn. */
  update(changes: TurnRunnerUpdate): void {
    this.deps = { ...this.deps, ...changes };
  }

  /** Appends the novelist's instruction under the current leaf and runs the turn. */
  send(text: string): Promise<TurnResult> {
    if (text.trim() === '' && !this.active) return Promise.reject(this.emptyInstruction());
    return this.start('send', 'send a message', async (begin) => {
      await this.deps.hooks?.beforeInstruction?.().catch((err: unknown) => this.emit({ type: 'warning', message: messageOf(err) }));
      if (!begin()) return undefined;
      const entry = await this.append({ type: 'user', text });
      return entry.id;
    });
  }

  /** Runs the turn containing `entryId` again; the new reply becomes a sibling of the old one. */
  regenerate(entryId: string): Promise<TurnResult> {
    return this.rerun('regenerate', entryId);
  }

  /** Runs the last failed or stopped turn again (a regenerate of it). */
  retry(): Promise<TurnResult> {
    if (this.failedUserId === undefined) {
      if (this.active) return Promise.reject(new TurnBusyError('retry', this.deps.lang));
      return Promise.reject(new Error(this.deps.lang === 'zh' ? '没有可以重试的失败回合。' : 'There is no failed turn to retry.'));
    }
    return this.rerun('retry', this.failedUserId);
  }

  /** "Edit as a new branch": a sibling user entry with `newText` under the same parent, then the turn. */
  editAndBranch(userEntryId: string, newText: string): Promise<TurnResult> {
    if (this.active) return Promise.reject(new TurnBusyError('edit', this.deps.lang));
    if (newText.trim() === '') return Promise.reject(this.emptyInstruction());
    const entry = this.deps.session.get(userEntryId);
    if (!entry || entry.type !== 'user') {
      return Promise.reject(new Error(`Entry ${userEntryId} is not an instruction of this session; only instructions can be edited as a new branch.`));
    }
    return this.start('edit', 'edit', async (begin) => {
      if (!begin()) return undefined;
      await this.deps.session.navigate(entry.parentId);
      const written = await this.append({ type: 'user', text: newText });
      return written.id;
    });
  }

  /** Stops the running turn: the partial reply is recorded with finish 'aborted'. */
  stop(): boolean {
    if (!this.active) return false;
    this.active.abort();
    return true;
  }

  /**
   * Drops the turn that waits to start (for the scribe, or the pin of hand edits) before anything of
   * it is written: it ends 'aborted' with no user entry. False when no turn waits, or it has begun.
   */
  cancelWaiting(): boolean {
    if (!this.waiting || !this.active) return false;
    this.active.abort();
    return true;
  }

  /** Stops everything (turn and scribe) and refuses new turns. */
  dispose(): void {
    this.active?.abort();
    this.lifetime.abort();
  }

  // ------------------------------------------------------------------------------------------

  private rerun(kind: TurnKind, entryId: string): Promise<TurnResult> {
    if (this.active) return Promise.reject(new TurnBusyError(kind, this.deps.lang));
    let target: string;
    try {
      target = this.deps.session.regenerateTarget(entryId);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.start(kind, kind, async (begin) => {
      if (!begin()) return undefined;
      await this.deps.session.navigate(target);
      return target;
    });
  }

  private emptyInstruction(): Error {
    return new Error(this.deps.lang === 'zh' ? '指令是空的：请先写下要助手做什么。' : 'The instruction is empty: write what the agent should do first.');
  }

  private async append(entry: { type: 'user'; text: string }): Promise<UserEntry> {
    const written = (await this.deps.session.append(entry)) as UserEntry;
    this.emit({ type: 'entry', entry: written });
    return written;
  }

  /**
   * `prepare` writes the turn's start (the instruction, or the leaf move) and returns its user entry;
   * it calls `begin()` right before its first write, and returns undefined when that says the turn
   * was stopped first (nothing is written then).
   */
  private start(kind: TurnKind, action: string, prepare: Prepare): Promise<TurnResult> {
    // Decided synchronously, so two clicks in the same tick cannot both start a turn.
    if (this.active) return Promise.reject(new TurnBusyError(action, this.deps.lang));
    if (this.lifetime.signal.aborted) return Promise.reject(new Error('This session was closed; open it again to continue.'));
    const controller = new AbortController();
    this.active = controller;
    this.untouched = true;
    return this.run(kind, prepare, controller).finally(() => {
      if (this.active === controller) this.active = undefined;
    });
  }

  private async run(kind: TurnKind, prepare: Prepare, controller: AbortController): Promise<TurnResult> {
    const deps = this.deps;
    const signal = controller.signal;
    const empty = { changes: [], proseAdded: '' };
    let userEntryId: string | undefined;
    try {
      if (this.scribing) {
        this.emit({ type: 'phase', phase: 'scribe' });
        await untilAborted(this.scribing, signal);
      }
      if (signal.aborted) return this.end({ status: 'aborted', ...empty });

      // Decided synchronously with the write that follows: a cancel either comes first (nothing is
      // written) or finds the turn begun.
      const begin = (): boolean => {
        if (signal.aborted) return false;
        this.untouched = false;
        return true;
      };
      try {
        userEntryId = await prepare(begin);
        if (userEntryId === undefined) return this.end({ status: 'aborted', ...empty });
        await deps.hooks?.beforeTurn?.({ kind, userEntryId });
      } catch (err) {
        return this.end(await this.failBeforeModel(userEntryId, err));
      }

      const session = deps.session;
      const blocks: BlockSettings = { opening: deps.opening, lang: deps.lang, ...(deps.stateBudget === undefined ? {} : { budget: deps.stateBudget }) };
      let recalled: string | undefined;
      if (deps.hooks?.recall) {
        try {
          recalled = await deps.hooks.recall({ userEntryId, instruction: session.textOf(userEntryId) });
        } catch (err) {
          this.emit({ type: 'warning', message: `Recall failed: ${messageOf(err)}` });
        }
      }
      let codex: { text: string; paths: readonly string[] } | undefined;
      if (deps.hooks?.codex) {
        try {
          codex = await deps.hooks.codex({ userEntryId, instruction: session.textOf(userEntryId) });
        } catch (err) {
          this.emit({ type: 'warning', message: `The codex could not be looked at: ${messageOf(err)}` });
        }
      }
      // Looked at once here, so a corrupt state entry above the instruction is said once.
      const warnings: string[] = [];
      const stateBlock = this.sent.fullBlock(userEntryId, blocks, warnings);
      const turnEntryId = userEntryId;
      for (const w of warnings) this.emit({ type: 'warning', message: w });
      const loop = await runToolLoop({
        session,
        client: deps.client,
        toolContext: deps.toolContext,
        tools: toolSchemas(deps.lang),
        lang: deps.lang,
        system: buildSystemPrompt({ lang: deps.lang, title: deps.title, style: deps.style }),
        stateBlock,
        blocks: (messages, oldTurns) => this.sent.blocks(messages, oldTurns, blocks, { current: turnEntryId }),
        ...(recalled ? { recall: recalled } : {}),
        ...(codex && codex.text !== '' ? { codex } : {}),
        maxSteps: Math.max(1, Math.floor(deps.maxSteps)),
        model: deps.model,
        temperature: deps.temperature,
        maxTokens: deps.maxTokens,
        signal,
        emit: (e) => this.emit(e),
        ...(deps.extraTools ? { extraTools: deps.extraTools } : {}),
        ...(deps.transformContext ? { transformContext: deps.transformContext } : {}),
      });
      const prose = proseAdded(loop.changes);
      const result: TurnResult = { status: loop.status, userEntryId, changes: loop.changes, proseAdded: prose };
      if (loop.assistantId !== undefined) result.assistantId = loop.assistantId;
      if (loop.error !== undefined) result.error = loop.error;
      if (loop.retryable !== undefined && loop.status !== 'done') result.retryable = loop.retryable;

      await this.flush();
      if (loop.status !== 'done') {
        this.failedUserId = userEntryId;
        return this.end(result);
      }
      this.failedUserId = undefined;
      try {
        await deps.hooks?.checkpoint?.({ userEntryId, assistantId: loop.assistantId as string, changes: loop.changes });
      } catch (err) {
        this.emit({ type: 'warning', message: `The checkpoint for this turn failed: ${messageOf(err)}` });
      }
      const scribe = deps.hooks?.scribe;
      if (scribe) {
        result.scribeDone = this.startScribe(scribe, {
          userEntryId,
          instruction: session.textOf(userEntryId),
          proseAdded: prose,
          reply: replyText(loop.replies),
          leafBefore: session.leafId,
        });
      }
      return this.end(result, scribe !== undefined);
    } catch (err) {
      // Nothing above should throw; if something does, the turn still ends cleanly.
      if (userEntryId !== undefined) this.failedUserId = userEntryId;
      const message = messageOf(err);
      this.emit({ type: 'error', message, retryable: userEntryId !== undefined });
      return this.end({ status: 'error', ...empty, error: message, retryable: userEntryId !== undefined, ...(userEntryId ? { userEntryId } : {}) });
    }
  }

  /** prepare/beforeTurn failed: record the failure on the turn when there is one. */
  private async failBeforeModel(userEntryId: string | undefined, err: unknown): Promise<TurnResult> {
    const message = messageOf(err);
    const result: TurnResult = { status: 'error', changes: [], proseAdded: '', error: message, retryable: userEntryId !== undefined };
    if (userEntryId !== undefined) {
      result.userEntryId = userEntryId;
      this.failedUserId = userEntryId;
      try {
        const entry = (await this.deps.session.append({ type: 'assistant', text: '', model: this.deps.model, finish: 'error', error: message })) as AssistantEntry;
        this.emit({ type: 'entry', entry });
        result.assistantId = entry.id;
      } catch {
        // The session refuses writes: the message says why already.
      }
      await this.flush();
    }
    this.emit({ type: 'error', message, retryable: result.retryable ?? false });
    return result;
  }

  private startScribe(scribe: NonNullable<TurnHooks['scribe']>, info: Omit<ScribeInfo, 'signal'>): Promise<ScribeOutcome | void> {
    this.emit({ type: 'phase', phase: 'scribe' });
    // A signal per run, linked to the runner's lifetime: HTTP clients add listeners to the signal
    // they get, and a long-lived one would collect a listener per turn.
    const controller = new AbortController();
    const onDispose = (): void => controller.abort();
    this.lifetime.signal.addEventListener('abort', onDispose, { once: true });
    const scribed: Promise<ScribeOutcome | void> = Promise.resolve()
      .then(() => scribe({ ...info, signal: controller.signal }))
      .then(
        (outcome) => {
          if (outcome && outcome.kind === 'failed') this.emit({ type: 'warning', message: outcome.error.message });
          return outcome;
        },
        (err: unknown) => {
          this.emit({ type: 'warning', message: `The scribe failed: ${messageOf(err)}` });
          return undefined;
        },
      );
    // The work after the scribe (a summary) belongs to the same turn end: the next turn waits for it.
    const afterScribe = this.deps.hooks?.afterScribe;
    this.track(
      scribed
        .then(async (outcome) => {
          if (afterScribe && !controller.signal.aborted) await afterScribe({ userEntryId: info.userEntryId, outcome, signal: controller.signal });
        })
        .catch((err: unknown) => this.emit({ type: 'warning', message: `The work after the scribe failed: ${messageOf(err)}` }))
        .finally(() => this.lifetime.signal.removeEventListener('abort', onDispose)),
    );
    return scribed;
  }

  /** Frees the runner before the caller sees the result, so it can start the next turn at once. */
  private end(result: TurnResult, scribeStarted = false): TurnResult {
    this.active = undefined;
    this.untouched = false;
    if (!scribeStarted) this.emit({ type: 'phase', phase: 'idle' });
    return result;
  }

  private async flush(): Promise<void> {
    try {
      await this.deps.session.flush();
    } catch (err) {
      this.emit({ type: 'warning', message: `The session could not be synced to disk: ${messageOf(err)}` });
    }
  }

  private emit(e: TurnEvent): void {
    try {
      this.deps.onEvent?.(e);
    } catch {
      // A view that throws must not break the turn.
    }
  }
}

/** Writes a turn's start; `begin()` right before the first write (false: stopped, write nothing, return undefined). */
type Prepare = (begin: () => boolean) => Promise<string | undefined>;

/** Resolves when `p` settles or `signal` fires, whichever comes first; never rejects. */
function untilAborted(p: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done, done);
  });
}

function replyText(replies: readonly AssistantEntry[]): string {
  return replies.map((r) => r.text.trim()).filter((s) => s !== '').join('\n\n');
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
