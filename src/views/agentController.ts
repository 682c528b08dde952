// Runs the agent for the open novel: builds the model clients from the settings and the key in
// SecretStorage, one TurnRunner per open session, and routes its events to the views and the
// status bar. Every action a view or command asks for comes through here.
import * as vscode from 'vscode';
import { TurnRunner } from '../agent/turnRunner';
import { createScribeHook } from '../agent/scribeHook';
import { createStreamingClient } from '../model/streaming';
import { createChatClient } from '../model/chatClient';
import type { TurnEvent, TurnPhase, TurnResult } from '../agent/turnTypes';
import { isTurnBusyError, TurnBusyError } from '../agent/turnTypes';
import { replyBranchCopy } from '../agent/replyBranch';
import { isStaleLeafError } from '../session/session';
import type { ToolContext } from '../agent/tools';
import { stateAt } from '../state/stateAt';
import type { Session } from '../session/session';
import { EditorManuscriptFs } from './editorFs';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { StateViewProvider } from './stateView';
import type { CheckpointController } from './checkpointController';
import type { MemoryController } from './memoryController';
import { ApiKeys, readSettings, type WorldlineSettings } from './settings';
import { endpointOrigin, scribeHasOwnEndpoint, type RequestKeys } from '../model/keys';

export const DEMO_MODEL = 'worldline-demo';
// Settings and keys live in ./settings; re-exported for the views that read them from here.

export function isDemoModel(model: string): boolean {
  return model === DEMO_MODEL || model.startsWith(`${DEMO_MODEL}-`);
}

export interface StreamView {
  text: string;
  tools: { text: string; path?: string; isError: boolean }[];
}

export interface Notice {
  kind: 'error' | 'info';
  text: string;
  action?: 'setKey' | 'retry' | 'selectModel';
}

/**
 * Characters of the injected state block. Full rosters (100/100/60/60) format to about 6,400; at
 * this budget the first-seen times go and every name stays, so the block is bounded.
 */
const STATE_BLOCK_BUDGET = 5500;

export class AgentController implements vscode.Disposable {
  private runner: TurnRunner | undefined;
  private runnerSession: Session | undefined;
  private phaseValue: TurnPhase = 'idle';
  private streamValue: StreamView | undefined;
  private noticeValue: Notice | undefined;
  private readonly changed = new vscode.EventEmitter<'render' | 'stream' | 'phase'>();
  /** Background work (Save Point, Compact Now) started while no runner existed for the session. */
  private unqueued: Promise<unknown> | undefined;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** Fires when the chat should re-render ('render'), show streamed text ('stream'), or the phase changed. */
  readonly onDidChange = this.changed.event;
  /** Set by the extension: called with each finished turn (status bar word count, checkpoints …). */
  onTurnEnd: ((result: TurnResult) => void) | undefined;

  constructor(
    private readonly keys: ApiKeys,
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly stateView: StateViewProvider,
    private readonly checkpoints: CheckpointController,
    private readonly memory: MemoryController,
    private readonly log: Log,
  ) {
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('worldline')) this.changed.fire('render');
    }));
  }

  get phase(): TurnPhase { return this.phaseValue; }
  get busy(): boolean { return this.runner?.busy ?? false; }
  get stream(): StreamView | undefined { return this.streamValue; }
  get notice(): Notice | undefined { return this.noticeValue; }
  get canRetry(): boolean { return !this.busy && this.runner?.retryTarget !== undefined && this.runner === this.runnerFor(this.getNovel()?.session); }

  private runnerFor(session: Session | undefined): TurnRunner | undefined {
    return session && session === this.runnerSession ? this.runner : undefined;
  }

  /** Refuses an action while a turn runs (the core refuses too; this gives the novelist a message). */
  guard(action: string): boolean {
    try {
      this.runner?.guard(action);
      return true;
    } catch (err) {
      void vscode.window.showWarningMessage(err instanceof Error ? err.message : String(err));
      return false;
    }
  }

  private async ensureRunner(): Promise<TurnRunner | undefined> {
    const novel = this.getNovel();
    if (!novel) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Open the folder of your novel first (File > Open Folder).'));
      return undefined;
    }
    const session = await novel.ensureSession();
    const settings = readSettings();
    if (!settings.model) {
      this.setNotice({ kind: 'error', text: vscode.l10n.t('Choose a model first (Worldline: Select Model), and set your API key if the endpoint needs one.'), action: 'selectModel' });
      return undefined;
    }
    const keys = await this.keys.forRequests(settings);
    if (!this.keysUsable(keys, settings)) return undefined;
    const apiKey = keys.main;
    const lang = novel.language;
    const root = novel.root;
    const toolContext: ToolContext = {
      fs: new EditorManuscriptFs(root),
      root: root.fsPath,
      globs: novel.config.manuscript,
      getState: () => stateAt(session.path(), novel.config.opening, { lang }).state,
      lang,
    };
    const scribeClient = createChatClient({ baseURL: settings.scribeBaseUrl, apiKey: keys.scribe, model: settings.scribeModel });
    const deps = {
      client: createStreamingClient({ baseURL: settings.baseUrl, apiKey, model: settings.model }),
      toolContext,
      lang,
      style: novel.config.style,
      title: novel.config.title,
      maxSteps: settings.maxToolSteps,
      temperature: settings.temperature,
      model: settings.model,
      opening: novel.config.opening,
      stateBudget: STATE_BLOCK_BUDGET,
      extraTools: [this.memory.searchTool(session)],
      transformContext: this.memory.transformContext(),
      hooks: {
        recall: ({ userEntryId, instruction }: { userEntryId: string; instruction: string }) => this.memory.recall(session, userEntryId, instruction),
        beforeTurn: async ({ kind, userEntryId }: { kind: string; userEntryId: string }) => {
          if (kind !== 'send') await this.checkpoints.beforeRerun(session, userEntryId);
        },
        checkpoint: ({ userEntryId }: { userEntryId: string }) => this.checkpoints.afterTurn(session, userEntryId),
        // Every N turns the older ones become a summary (after the scribe, leaf-guarded).
        afterScribe: ({ signal }: { signal: AbortSignal }) => this.memory.compact(session, false, signal),
        scribe: createScribeHook({
          session, client: scribeClient, model: settings.scribeModel, opening: novel.config.opening, lang,
          hasVariables: Object.keys(novel.config.variables).length > 0,
        }),
      },
      onEvent: (e: TurnEvent) => this.onEvent(e),
    };
    if (this.runner && this.runnerSession === session) {
      this.runner.update(deps);
      return this.runner;
    }
    this.runner?.dispose();
    this.runner = new TurnRunner({ session, ...deps }, this.unqueued);
    this.unqueued = undefined;
    this.runnerSession = session;
    return this.runner;
  }

  /**
   * A key set for another endpoint than the current one is not sent (the core's rule). The writing
   * model's key stops the turn with a word to the novelist, since the endpoint changed under it;
   * the scribe's is logged and the scribe goes without. Only origins are logged, never keys.
   */
  private keysUsable(keys: RequestKeys, settings: WorldlineSettings): boolean {
    // Origins only: an endpoint setting may carry user info (https://user:secret@host).
    for (const w of keys.withheld) this.log.warn(`api key: the ${w.role} key was set for ${w.setFor}, not sent to ${endpointOrigin(w.endpoint) ?? 'a non-http(s) address'}`);
    const main = keys.withheld.find((w) => w.role === 'main');
    if (!main) return true;
    this.setNotice({
      kind: 'error',
      text: vscode.l10n.t('Your API key was set for {0}, but worldline.baseUrl now points to {1}, so it was not sent. Run Set API Key for the new endpoint (an empty key removes the old one), or change the setting back.', main.setFor, settings.baseUrl),
      action: 'setKey',
    });
    return false;
  }

  private onEvent(e: TurnEvent): void {
    switch (e.type) {
      case 'phase':
        this.phaseValue = e.phase;
        if (e.phase === 'writing' && !this.streamValue) this.streamValue = { text: '', tools: [] };
        if (e.phase === 'scribe') this.stateView.setScribeStatus({ running: true, last: this.stateView.scribeStatus.last });
        this.changed.fire('phase');
        break;
      case 'delta':
        this.streamValue = { text: (this.streamValue?.text ?? '') + e.text, tools: this.streamValue?.tools ?? [] };
        this.changed.fire('stream');
        break;
      case 'toolEnd': {
        const tools = [...(this.streamValue?.tools ?? []), { text: e.summary ?? (e.result.split('\n')[0] ?? e.name), isError: e.isError }];
        this.streamValue = { text: this.streamValue?.text ?? '', tools };
        this.changed.fire('stream');
        break;
      }
      case 'entry':
        // A new assistant entry starts a new streamed block; the written entries render from the tree.
        if (e.entry.type === 'assistant') this.streamValue = { text: '', tools: [] };
        this.changed.fire('render');
        break;
      case 'error':
        this.log.error(e.message);
        break;
      case 'warning':
        this.log.warn(e.message);
        break;
      default:
        break;
    }
  }

  private setNotice(notice: Notice | undefined): void {
    this.noticeValue = notice;
    this.changed.fire('render');
  }

  /** Runs one action of the runner and reports its result to the views. */
  private async runTurn(action: (runner: TurnRunner) => Promise<TurnResult>): Promise<TurnResult | undefined> {
    const runner = await this.ensureRunner();
    if (!runner) return undefined;
    this.setNotice(undefined);
    this.streamValue = { text: '', tools: [] };
    let result: TurnResult;
    try {
      result = await action(runner);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isTurnBusyError(err)) void vscode.window.showWarningMessage(message);
      else this.setNotice({ kind: 'error', text: message });
      return undefined;
    } finally {
      this.streamValue = undefined;
    }
    if (result.status === 'error') {
      const auth = /API key|401|auth/i.test(result.error ?? '');
      this.setNotice({ kind: 'error', text: result.error ?? vscode.l10n.t('The turn failed.'), action: auth ? 'setKey' : 'retry' });
    } else if (result.status === 'aborted') {
      this.setNotice({ kind: 'info', text: vscode.l10n.t('Stopped. The partial reply is kept; Retry writes the turn again.'), action: 'retry' });
    } else {
      this.setNotice(undefined);
    }
    this.log.info(`turn ${result.status}: ${result.changes.length} file change(s)`);
    this.onTurnEnd?.(result);
    if (result.scribeDone) {
      void result.scribeDone.then((outcome) => {
        const at = new Date().toISOString();
        if (outcome) {
          const last = outcome.kind === 'applied'
            ? { kind: outcome.kind, warnings: outcome.warnings, at }
            : outcome.kind === 'failed'
              ? { kind: outcome.kind, warnings: [], error: outcome.error.message, at }
              : { kind: outcome.kind, warnings: [], at };
          this.log.info(`scribe: ${outcome.kind}`);
          this.stateView.setScribeStatus({ running: false, last });
        } else {
          this.stateView.setScribeStatus({ running: false, last: this.stateView.scribeStatus.last });
        }
        this.changed.fire('render');
      });
    }
    this.changed.fire('render');
    return result;
  }

  /** Resolves when the last turn's scribe (and any summary after it) has finished. */
  async scribeIdle(): Promise<void> {
    await this.runner?.idle();
  }

  /**
   * Work that appends to the session (Save Point, Compact Now): it waits for the scribe and the
   * summary, and the next turn waits for it, so its entries never land inside a turn. Refused (a
   * warning, undefined) while a turn is writing.
   */
  async background<T>(action: string, task: () => Promise<T>): Promise<T | undefined> {
    const runner = this.runner && this.runnerSession === this.getNovel()?.session ? this.runner : undefined;
    if (!runner) {
      // No runner for this session yet: queued here, and the runner made for the next turn waits.
      const run = (this.unqueued ?? Promise.resolve()).then(task);
      this.unqueued = run.then(() => undefined, () => undefined);
      return run;
    }
    try {
      return await runner.background(action, task);
    } catch (err) {
      if (!(err instanceof TurnBusyError)) throw err;
      void vscode.window.showWarningMessage(err.message);
      return undefined;
    }
  }

  /** Compact Now: refused while a turn runs. */
  async compactNow(): Promise<unknown> {
    const session = this.getNovel()?.session;
    if (!session || !this.guard(vscode.l10n.t('compact'))) return undefined;
    return this.background(vscode.l10n.t('compact'), () => this.memory.compact(session, true));
  }

  send(text: string): Promise<TurnResult | undefined> {
    return this.runTurn(async (r) => {
      // The manuscript as it is before the instruction (the novelist may have edited by hand).
      const session = this.getNovel()?.session;
      if (session && !r.busy) await this.checkpoints.beforeSend(session);
      return r.send(text);
    });
  }

  regenerate(entryId?: string): Promise<TurnResult | undefined> {
    const session = this.getNovel()?.session;
    const target = entryId ?? session?.lastOnPath('assistant')?.id ?? session?.lastOnPath('user')?.id;
    if (!target) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There is no reply to regenerate yet.'));
      return Promise.resolve(undefined);
    }
    return this.runTurn((r) => r.regenerate(target));
  }

  retry(): Promise<TurnResult | undefined> {
    return this.runTurn((r) => r.retry());
  }

  editAsBranch(userEntryId: string, text: string): Promise<TurnResult | undefined> {
    return this.runTurn((r) => r.editAndBranch(userEntryId, text));
  }

  /**
   * Edit as a new branch, for an agent reply: the turn is copied beside the original with the new
   * text (same tool work, checkpoint and state, so the prose stays as it is); ◀ ▶ goes back.
   * Waits for the turn's scribe, so its state is part of the copy.
   */
  async editReplyAsBranch(firstId: string, editId: string, text: string): Promise<boolean> {
    const session = this.getNovel()?.session;
    if (!session || session.readOnly || !this.guard(vscode.l10n.t('edit'))) return false;
    const done = await this.background(vscode.l10n.t('edit'), async () => {
      const first = session.get(firstId);
      const copy = first ? replyBranchCopy(session.path(), firstId, editId, text) : undefined;
      if (!first || !copy || copy.length === 0) return false;
      const leafBefore = session.leafId;
      await this.checkpoints.moveWithoutFollowing(session, first.parentId);
      // Each part goes exactly under the one before: a click on ◀ ▶ meanwhile stops the copy
      // rather than scattering it over another branch.
      let expected = first.parentId;
      try {
        for (const e of copy) expected = (await session.append(e, { guard: (leaf) => leaf === expected })).id;
      } catch (err) {
        if (!isStaleLeafError(err)) throw err;
        void vscode.window.showWarningMessage(vscode.l10n.t('The branch changed while the edited reply was being copied, so the copy stops there.'));
        return false;
      } finally {
        await session.flush();
      }
      // Editing an older reply moves the story back to that turn: the prose follows, as for ◀ ▶.
      await this.checkpoints.followBranch(session, leafBefore);
      return true;
    });
    this.changed.fire('render');
    return done ?? false;
  }

  stop(): boolean {
    return this.runner?.stop() ?? false;
  }

  /**
   * Set API Key: the main endpoint's key, or, when the scribe has an endpoint of its own, the
   * scribe's (asked which). The key is bound to that endpoint and goes nowhere else. An empty key
   * removes it.
   */
  async setApiKey(key?: string, target?: 'main' | 'scribe'): Promise<boolean> {
    const settings = readSettings();
    let which = target;
    if (which === undefined && scribeHasOwnEndpoint(settings.endpoints)) {
      const picked = await vscode.window.showQuickPick(
        [
          { label: vscode.l10n.t('The writing model'), description: settings.baseUrl, which: 'main' as const },
          { label: vscode.l10n.t('The scribe and summaries'), description: settings.scribeBaseUrl, which: 'scribe' as const },
        ],
        { title: vscode.l10n.t('Set API Key'), placeHolder: vscode.l10n.t('The scribe has an endpoint of its own: which key?') },
      );
      if (!picked) return false;
      which = picked.which;
    }
    const role = which ?? 'main';
    const value = key ?? await vscode.window.showInputBox({
      title: role === 'scribe' ? vscode.l10n.t('Set API Key for the Scribe') : vscode.l10n.t('Set API Key'),
      prompt: vscode.l10n.t('The key for {0}. It is kept in VS Code\'s secret storage, never in settings or logs, and is sent to this endpoint only.', role === 'scribe' ? settings.scribeBaseUrl : settings.baseUrl),
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return false;
    const stored = await this.keys.set(role, value, settings);
    if (!stored.ok) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The key was not stored: {0} is not an http(s) address, so there is no endpoint to bind it to. Fix the setting first.', stored.endpoint));
      return false;
    }
    this.setNotice(undefined);
    return true;
  }

  async selectModel(model?: string): Promise<string | undefined> {
    let chosen = model;
    if (!chosen) {
      const settings = readSettings();
      const known = await this.listModels(settings);
      const items: (vscode.QuickPickItem & { id?: string })[] = known.map((id) => ({ label: id, description: isDemoModel(id) ? vscode.l10n.t('demo model (scripted, offline)') : undefined, id }));
      items.push({ label: vscode.l10n.t('Enter a model name…') });
      const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Select Model'), placeHolder: settings.model || settings.baseUrl });
      if (!pick) return undefined;
      chosen = pick.id ?? await vscode.window.showInputBox({ title: vscode.l10n.t('Select Model'), prompt: vscode.l10n.t('Model name, e.g. gpt-4o or deepseek-chat'), value: settings.model });
    }
    if (!chosen || !chosen.trim()) return undefined;
    await vscode.workspace.getConfiguration('worldline').update('model', chosen.trim(), vscode.ConfigurationTarget.Workspace);
    this.setNotice(undefined);
    return chosen.trim();
  }

  private async listModels(settings: WorldlineSettings): Promise<string[]> {
    try {
      const key = (await this.keys.forRequests(settings)).main;
      const res = await fetch(`${settings.baseUrl.replace(/\/+$/, '')}/models`, {
        headers: key ? { Authorization: `Bearer ${key}` } : {},
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) return [];
      const body = (await res.json()) as { data?: { id?: unknown }[] };
      return (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').sort();
    } catch {
      return [];
    }
  }

  /** The session changed under us (switch, new, restore): drop the old runner once it is idle. */
  sessionChanged(): void {
    if (this.runner && !this.runner.busy && this.runnerSession !== this.getNovel()?.session) {
      this.runner.dispose();
      this.runner = undefined;
      this.runnerSession = undefined;
    }
    this.noticeValue = undefined;
    this.changed.fire('render');
  }

  dispose(): void {
    this.runner?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
