// The Scene State view: the state at the current leaf (the last `state` entry on the branch, else
// the opening scene), the last scribe run, and the novelist's edits. An edit is validated in the
// core and appended as a `state` entry {by:"user"}; invalid input changes nothing. The page is
// rendered again only when what it shows changed (another state entry, the session, read-only),
// at most once a frame and not while a turn is being written; the scribe's status goes alone.
import * as vscode from 'vscode';
import { stateAt, type StateAtResult } from '../state/stateAt';
import { applyUserEdit, sceneStateView } from '../state/viewModel';
import { parseStateYaml } from '../state/stateYaml';
import { WebviewHost, translateLabels, type OncePerTurn, type PageSpec } from './webviewHost';
import { TurnCoalescer } from '../protocol/coalesce';
import { STATE_LABELS } from '../protocol/labels';
import { decodeFromStatePage, type EditResult, type FromStatePage, type ScribeStatus, type StateViewModel, type ToStatePage } from '../protocol/state';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

export type { ScribeOutcomeKind, ScribeStatus, StateViewModel } from '../protocol/state';

export class StateViewProvider extends WebviewHost<ToStatePage, FromStatePage> {
  private scribe: ScribeStatus = { running: false };
  private readonly updates: TurnCoalescer;
  /** What the page shows: the state's key (see `stateKey`) and the scribe's status; undefined: nothing known. */
  private shownKey: string | undefined;
  private shownScribe: ScribeStatus | undefined;

  constructor(extensionUri: vscode.Uri, getNovel: () => NovelWorkspace | undefined, log: Log, options: OncePerTurn = {}) {
    super(extensionUri, getNovel, log, decodeFromStatePage);
    this.updates = new TurnCoalescer({ run: () => this.flush(), turns: options.turns, onError: (err) => log.warn(`scene state view: ${String(err)}`) });
    this.disposables.push(this.updates);
  }

  protected page(): PageSpec {
    return { title: vscode.l10n.t('Scene State'), name: 'state', labels: translateLabels(STATE_LABELS) };
  }

  /** The state at the current leaf, as the agent and the scribe see it (shared: do not change it). */
  current(): StateAtResult | undefined {
    const novel = this.getNovel();
    if (!novel) return undefined;
    const branch = novel.branch();
    if (branch) return branch.state;
    const { opening, lang } = novel.branchOptions;
    return stateAt([], opening, { lang });
  }

  get scribeStatus(): ScribeStatus {
    return this.scribe;
  }

  setScribeStatus(status: ScribeStatus): void {
    this.scribe = status;
    this.refresh();
  }

  protected override pageLetGo(): void {
    this.shownKey = undefined;
    this.shownScribe = undefined;
  }

  /** Asks for an update of the page; a burst of requests makes one. */
  refresh(): void {
    this.updates.request();
  }

  /** Settles when the update asked for has been sent (tests). */
  whenUpdated(): Promise<void> {
    return this.updates.idle();
  }

  private flush(): void {
    if (!this.shown) return this.pageLetGo();
    const novel = this.getNovel();
    const at = this.current();
    if (!novel || !at) return;
    const readOnly = novel.session?.readOnly ?? false;
    const hasSession = novel.session !== undefined;
    const key = stateKey(at, { session: novel.session?.header.id, readOnly, hasSession });
    if (key !== this.shownKey) {
      const model: StateViewModel = { ...sceneStateView(at), scribe: this.scribe, readOnly, hasSession };
      this.post({ type: 'render', model });
    } else if (this.scribe !== this.shownScribe) {
      this.post({ type: 'scribe', scribe: this.scribe });
    }
    this.shownKey = key;
    this.shownScribe = this.scribe;
  }

  /** A prefilled YAML edit waiting for the page (Update Scene State), until a page has it. */
  private pendingYaml: string | undefined;

  /** Opens the page's YAML editor with `text` (Update Scene State: the fix prefilled), revealing the view first. */
  async openYamlEdit(text: string): Promise<void> {
    this.pendingYaml = text;
    await vscode.commands.executeCommand('worldline.state.focus');
    if (this.shown) this.postPendingYaml();
  }

  private postPendingYaml(): void {
    const text = this.pendingYaml;
    if (text === undefined || !this.view) return;
    const message: ToStatePage = { type: 'openYaml', text };
    void this.view.webview.postMessage(message).then((delivered) => {
      if (delivered && this.pendingYaml === text) this.pendingYaml = undefined;
    }, () => undefined);
  }

  async onMessage(m: FromStatePage): Promise<void> {
    if (m.type === 'ready') {
      this.shownKey = undefined;
      await this.updates.now();
      this.postPendingYaml(); // after the render: the page opens its editor over the state it shows
      return;
    }
    if (m.type === 'patch') {
      await this.edit(m.patch);
      return;
    }
    const parsed = parseStateYaml(m.text, this.getNovel()?.language);
    if (!parsed.ok) {
      this.reply({ ok: false, error: parsed.error });
      return;
    }
    await this.edit(parsed.value);
  }

  /** Validates and appends the novelist's edit; exported for commands and tests. */
  async edit(input: unknown): Promise<EditResult> {
    const novel = this.getNovel();
    const at = this.current();
    if (!novel || !at) return this.reply({ ok: false, error: vscode.l10n.t('Open the folder of your novel first (File > Open Folder).') });
    const outcome = await applyUserEdit(() => novel.ensureSession(), at.state, input, novel.language);
    if (!outcome.ok) {
      return this.reply({ ok: false, error: outcome.reason === 'read-only' ? vscode.l10n.t('This window is read-only: another VS Code window is writing this novel.') : outcome.error });
    }
    this.log.info(`scene state edited by the novelist (${outcome.warnings.length} warning(s))`);
    await this.updates.now();
    return this.reply({ ok: true, warnings: outcome.warnings });
  }

  private reply(r: EditResult): EditResult {
    this.post({ type: 'editResult', ...r });
    return r;
  }
}

/**
 * What the rendered page depends on besides the scribe's status. A state entry never changes once
 * written, so its id stands for its state; the opening state (no entry yet) is compared whole.
 */
function stateKey(at: StateAtResult, page: { session: string | undefined; readOnly: boolean; hasSession: boolean }): string {
  return JSON.stringify([page.session, page.readOnly, page.hasSession, at.entryId ?? at.state, at.by, at.warnings, at.lastWarnings]);
}
