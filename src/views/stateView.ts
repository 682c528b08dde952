// The Scene State view: the state at the current leaf (the last `state` entry on the branch, else
// the opening scene), the last scribe run, and the novelist's edits. An edit is validated in the
// core and appended as a `state` entry {by:"user"}; invalid input changes nothing.
import * as vscode from 'vscode';
import { stateAt, type StateAtResult } from '../state/stateAt';
import { applyUserEdit, sceneStateView } from '../state/viewModel';
import { parseStateYaml } from '../state/stateYaml';
import { WebviewHost, translateLabels, type PageSpec } from './webviewHost';
import { STATE_LABELS } from '../protocol/labels';
import { decodeFromStatePage, type EditResult, type FromStatePage, type ScribeStatus, type StateViewModel, type ToStatePage } from '../protocol/state';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

export type { ScribeOutcomeKind, ScribeStatus, StateViewModel } from '../protocol/state';

export class StateViewProvider extends WebviewHost<ToStatePage, FromStatePage> {
  private scribe: ScribeStatus = { running: false };

  constructor(extensionUri: vscode.Uri, getNovel: () => NovelWorkspace | undefined, log: Log) {
    super(extensionUri, getNovel, log, decodeFromStatePage);
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

  refresh(): void {
    const novel = this.getNovel();
    const at = this.current();
    if (!novel || !at) return;
    const model: StateViewModel = {
      ...sceneStateView(at),
      scribe: this.scribe,
      readOnly: novel.session?.readOnly ?? false,
      hasSession: novel.session !== undefined,
    };
    this.post({ type: 'render', model });
  }

  async onMessage(m: FromStatePage): Promise<void> {
    if (m.type === 'ready') return this.refresh();
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
    this.refresh();
    return this.reply({ ok: true, warnings: outcome.warnings });
  }

  private reply(r: EditResult): EditResult {
    this.post({ type: 'editResult', ...r });
    return r;
  }
}
