// The Scene State view: the state at the current leaf (the last `state` entry on the branch, else
// the opening scene), the last scribe run, and the novelist's edits. An edit is validated in the
// core and appended as a `state` entry {by:"user"}; invalid input changes nothing.
import * as vscode from 'vscode';
import { stringify } from 'yaml';
import { stateAt } from '../state/stateAt';
import { departedCharacters } from '../state/roster';
import { userEdit } from '../state/userEdit';
import { parseStateYaml } from '../state/stateYaml';
import { WebviewHost, type PageSpec } from './webviewHost';
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
    return { title: vscode.l10n.t('Scene State'), name: 'state', labels: stateLabels() };
  }

  /** The state at the current leaf, as the agent and the scribe see it. */
  current(): ReturnType<typeof stateAt> | undefined {
    const novel = this.getNovel();
    if (!novel) return undefined;
    const path = novel.session ? novel.session.path() : [];
    return stateAt(path, novel.config.opening, { lang: novel.language });
  }

  get scribeStatus(): ScribeStatus {
    return this.scribe;
  }

  setScribeStatus(status: ScribeStatus): void {
    this.scribe = status;
    this.refresh();
  }

  refresh(): void {
    const model = this.model();
    if (model) this.post({ type: 'render', model });
  }

  private model(): StateViewModel | undefined {
    const novel = this.getNovel();
    const at = this.current();
    if (!novel || !at) return undefined;
    return {
      state: at.state,
      yaml: stringify(at.state, { lineWidth: 0 }),
      departed: departedCharacters(at.state),
      source: { by: at.by, entryId: at.entryId, warnings: at.lastWarnings },
      readWarnings: at.warnings,
      scribe: this.scribe,
      readOnly: novel.session?.readOnly ?? false,
      hasSession: novel.session !== undefined,
    };
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
    const result = userEdit(at.state, input, { lang: novel.language });
    if (!result.ok) return this.reply({ ok: false, error: result.error });
    try {
      const session = await novel.ensureSession();
      if (session.readOnly) return this.reply({ ok: false, error: vscode.l10n.t('This window is read-only: another VS Code window is writing this novel.') });
      await session.append({ type: 'state', state: result.state, by: 'user', warnings: result.warnings });
      await session.flush();
      this.log.info(`scene state edited by the novelist (${result.warnings.length} warning(s))`);
      this.refresh();
      return this.reply({ ok: true, warnings: result.warnings });
    } catch (err) {
      return this.reply({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private reply(r: EditResult): EditResult {
    this.post({ type: 'editResult', ...r });
    return r;
  }
}

function stateLabels(): Record<string, string> {
  return {
    time: vscode.l10n.t('Time'),
    place: vscode.l10n.t('Place'),
    present: vscode.l10n.t('present'),
    at: vscode.l10n.t('at: {0}', '{0}'),
    departed: vscode.l10n.t('departed'),
    characters: vscode.l10n.t('Characters'),
    affinity: vscode.l10n.t('Affinity'),
    status: vscode.l10n.t('Status'),
    notes: vscode.l10n.t('Notes'),
    location: vscode.l10n.t('Location'),
    items: vscode.l10n.t('Items'),
    facts: vscode.l10n.t('Facts'),
    threads: vscode.l10n.t('Threads'),
    roster: vscode.l10n.t('Roster'),
    rosterCharacters: vscode.l10n.t('Characters'),
    rosterLocations: vscode.l10n.t('Locations'),
    rosterItems: vscode.l10n.t('Items'),
    rosterThreads: vscode.l10n.t('Threads'),
    filter: vscode.l10n.t('Filter'),
    firstSeen: vscode.l10n.t('first seen'),
    edit: vscode.l10n.t('Edit'),
    save: vscode.l10n.t('Save'),
    cancel: vscode.l10n.t('Cancel'),
    editYaml: vscode.l10n.t('Edit as YAML'),
    applyYaml: vscode.l10n.t('Apply'),
    addCharacter: vscode.l10n.t('Add character'),
    removeCharacter: vscode.l10n.t('Remove from scene'),
    newCharacterName: vscode.l10n.t('Name of the character'),
    onePerLine: vscode.l10n.t('One per line'),
    empty: vscode.l10n.t('(none)'),
    scribe: vscode.l10n.t('Scribe'),
    scribeRunning: vscode.l10n.t('The scribe is updating the scene state…'),
    scribeNever: vscode.l10n.t('The scribe has not run in this window yet.'),
    outcome_applied: vscode.l10n.t('applied'),
    outcome_stale: vscode.l10n.t('dropped as stale (the branch changed during the call)'),
    outcome_failed: vscode.l10n.t('failed'),
    outcome_skipped: vscode.l10n.t('skipped'),
    source_opening: vscode.l10n.t('Opening scene from worldline.yaml'),
    source_scribe: vscode.l10n.t('Written by the scribe'),
    source_user: vscode.l10n.t('Edited by you'),
    source_import: vscode.l10n.t('Imported'),
    warnings: vscode.l10n.t('Warnings'),
    saved: vscode.l10n.t('Saved to the current branch.'),
    readOnly: vscode.l10n.t('Read-only window'),
  };
}
