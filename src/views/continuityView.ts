// The continuity findings of the current branch as VS Code problems (DESIGN, "Continuity"): one
// diagnostic per finding not marked as intended, on the exact substring it quotes in the chapter
// (the open document, else the file on disk), re-anchored as the document changes and dropped when
// the quote is gone; the quick fixes (Ask the Agent to Fix, Mark as Intended, Update Scene State)
// and Worldline: Check Continuity of This Chapter. The core decides; this only adapts.
import * as vscode from 'vscode';
import { anchorQuote } from '../continuity/check';
import type { Confidence, Finding } from '../continuity/types';
import { manuscriptPathAt } from '../project/manuscript';
import { fixInstruction, stateEditFor, type CheckOutcome, type ShownFinding, type Story } from '../story';
import { ofCount } from '../common/text';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import type { StateViewProvider } from './stateView';
import type { StoryShell } from './storyShell';

/** A finding placed in a document: its offsets in the text it was anchored against, and its diagnostic. */
interface Anchored {
  readonly shown: ShownFinding;
  start: number;
  end: number;
  diagnostic: vscode.Diagnostic;
}

/** What a quick fix's command gets: the finding by file, id and the state entry it is stored on (null: not stored). */
type FixArgs = [file: string, findingId: string, stateId: string | null];

const SEVERITY: Record<Confidence, vscode.DiagnosticSeverity> = {
  high: vscode.DiagnosticSeverity.Warning,
  medium: vscode.DiagnosticSeverity.Information,
  low: vscode.DiagnosticSeverity.Hint,
};

export class ContinuityView implements vscode.Disposable, vscode.CodeActionProvider {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection('worldline-continuity');
  /** Per document URI, the findings placed in it. */
  private readonly placed = new Map<string, Anchored[]>();
  /** Findings of Check This Chapter on a branch without a scene state: shown, not stored; gone when the branch's findings change. */
  private readonly unstored = new Map<string, Finding[]>();
  private readonly disposables: vscode.Disposable[] = [this.collection];
  private story: Story | undefined;
  private storyListener: { dispose(): void } | undefined;
  private generation = 0;
  private updating: Promise<void> = Promise.resolve();

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly stories: StoryShell,
    private readonly state: StateViewProvider,
    private readonly log: Log,
  ) {
    this.disposables.push(
      stories.onDidChange((what) => { if (what === 'render') this.follow(); }),
      vscode.workspace.onDidChangeTextDocument((e) => this.reanchor(e)),
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, this, { providedCodeActionKinds: ContinuityView.providedCodeActionKinds }),
      vscode.commands.registerCommand('worldline.checkContinuity', (uri?: unknown) => this.checkChapter(uri instanceof vscode.Uri ? uri : undefined)),
      vscode.commands.registerCommand('worldline.continuity.askToFix', (...args: FixArgs) => this.askToFix(args)),
      vscode.commands.registerCommand('worldline.continuity.markIntended', (...args: FixArgs) => this.markIntended(args)),
      vscode.commands.registerCommand('worldline.continuity.updateState', (...args: FixArgs) => this.updateState(args)),
    );
    this.follow();
  }

  /** The diagnostics shown for a document (tests). */
  diagnosticsFor(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }

  /** Settles when the update asked for last has been made (tests). */
  async whenUpdated(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.updating) {
      seen = this.updating;
      await seen;
    }
  }

  /** The open session's Story: listened to while it is the one (a new session brings a new Story). */
  private follow(): void {
    const story = this.getNovel()?.session ? this.stories.current() : undefined;
    if (story === this.story) return;
    this.storyListener?.dispose();
    this.story = story;
    this.storyListener = story?.onDidChangeFindings(() => {
      this.unstored.clear();
      this.refresh();
    });
    this.unstored.clear();
    this.refresh();
  }

  /** Places every shown finding again, from the Story's findings of the branch. */
  refresh(): void {
    const generation = ++this.generation;
    this.updating = this.updating.then(() => this.place(generation)).catch((err: unknown) => this.log.warn(`continuity view: ${String(err)}`));
  }

  private async place(generation: number): Promise<void> {
    const novel = this.getNovel();
    const story = this.story;
    const shown: ShownFinding[] = story ? story.shownFindings() : [];
    for (const findings of this.unstored.values()) for (const finding of findings) shown.push({ finding, stateId: undefined });
    const byFile = new Map<string, ShownFinding[]>();
    for (const s of shown) {
      const list = byFile.get(s.finding.file);
      if (list) list.push(s);
      else byFile.set(s.finding.file, [s]);
    }
    const next = new Map<string, Anchored[]>();
    if (novel) {
      for (const [file, list] of byFile) {
        const uri = vscode.Uri.joinPath(novel.root, ...file.split('/'));
        const text = await textOf(uri);
        if (generation !== this.generation) return; // a newer update follows
        if (text === undefined) continue;
        const anchored: Anchored[] = [];
        const taken = new Set<string>();
        for (const s of list) {
          const at = anchorQuote(text, s.finding.quote, s.finding.offset);
          if (!at) continue; // the quote is gone from the chapter
          const key = `${s.finding.id}\u0000${at.start}`;
          if (taken.has(key)) continue; // the same finding on two turns: one diagnostic
          taken.add(key);
          anchored.push({ shown: s, start: at.start, end: at.end, diagnostic: diagnosticOf(s.finding, rangeIn(text, at.start, at.end)) });
        }
        if (anchored.length > 0) next.set(uri.toString(), anchored);
      }
    }
    if (generation !== this.generation) return;
    this.placed.clear();
    this.collection.clear();
    for (const [key, anchored] of next) {
      this.placed.set(key, anchored);
      this.collection.set(vscode.Uri.parse(key), anchored.map((a) => a.diagnostic));
    }
  }

  /** After an edit, each finding of the document is its quote again, found nearest to where it was (shifted by edits above it). */
  private reanchor(e: vscode.TextDocumentChangeEvent): void {
    const key = e.document.uri.toString();
    const anchored = this.placed.get(key);
    if (!anchored || e.contentChanges.length === 0) return;
    const text = e.document.getText();
    const kept: Anchored[] = [];
    for (const a of anchored) {
      let shift = 0;
      for (const c of e.contentChanges) if (c.rangeOffset + c.rangeLength <= a.start) shift += c.text.length - c.rangeLength;
      const at = anchorQuote(text, a.shown.finding.quote, a.start + shift);
      if (!at) continue;
      a.start = at.start;
      a.end = at.end;
      a.diagnostic = diagnosticOf(a.shown.finding, new vscode.Range(e.document.positionAt(at.start), e.document.positionAt(at.end)));
      kept.push(a);
    }
    if (kept.length > 0) this.placed.set(key, kept);
    else this.placed.delete(key);
    this.collection.set(e.document.uri, kept.map((a) => a.diagnostic));
  }

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const novel = this.getNovel();
    if (!novel || !manuscriptPathAt(novel.config.manuscriptMatcher, novel.root.fsPath, document.uri.fsPath)) return [];
    const anchored = this.placed.get(document.uri.toString()) ?? [];
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== 'Worldline') continue;
      const a = anchored.find((x) => x.diagnostic.range.isEqual(diagnostic.range) && x.diagnostic.message === diagnostic.message && x.diagnostic.code === diagnostic.code);
      if (!a) continue;
      const { finding, stateId } = a.shown;
      const args: FixArgs = [finding.file, finding.id, stateId ?? null];
      const action = (title: string, command: string, preferred = false): vscode.CodeAction => {
        const made = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        made.diagnostics = [diagnostic];
        made.command = { title, command, arguments: args };
        if (preferred) made.isPreferred = true;
        return made;
      };
      actions.push(action(vscode.l10n.t('Ask the Agent to Fix'), 'worldline.continuity.askToFix', true));
      if (stateId !== undefined) actions.push(action(vscode.l10n.t('Mark as Intended'), 'worldline.continuity.markIntended'));
      if (finding.type !== 'misspelt-name') actions.push(action(vscode.l10n.t('Update Scene State'), 'worldline.continuity.updateState'));
    }
    return actions;
  }

  /** The finding a quick fix names, as it is placed now. */
  private findingOf([file, findingId, stateId]: FixArgs): Finding | undefined {
    for (const list of this.placed.values()) {
      const a = list.find((x) => x.shown.finding.file === file && x.shown.finding.id === findingId && (x.shown.stateId ?? null) === stateId);
      if (a) return a.shown.finding;
    }
    return undefined;
  }

  private async askToFix(args: FixArgs): Promise<void> {
    const finding = this.findingOf(args);
    if (!finding) return this.gone();
    const story = this.story;
    const stateId = args[2];
    if (story && stateId !== null) await story.askToFix(finding.id, stateId);
    else await this.stories.send(fixInstruction(finding, this.getNovel()?.language ?? 'en'));
  }

  private async markIntended(args: FixArgs): Promise<void> {
    const stateId = args[2];
    if (!this.story || stateId === null || !this.findingOf(args)) return this.gone();
    if (!(await this.story.markIntended(args[1], stateId)) && this.story.session.readOnly) {
      void vscode.window.showWarningMessage(vscode.l10n.t('This window is read-only: another VS Code window is writing this novel.'));
    }
  }

  private async updateState(args: FixArgs): Promise<void> {
    const finding = this.findingOf(args);
    const novel = this.getNovel();
    if (!finding || !novel) return this.gone();
    const state = this.story ? this.story.branch().state.state : this.state.current()?.state;
    if (!state) return;
    const edit = stateEditFor(finding, state, novel.language);
    await this.state.openYamlEdit(edit.yaml);
    if (!edit.prefilled) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The scene state is open for editing: change what the problem points at, then apply it.'));
    }
  }

  private gone(): void {
    void vscode.window.showInformationMessage(vscode.l10n.t('This continuity problem is no longer on the current branch.'));
  }

  /** Worldline: Check Continuity of This Chapter: the chapter's text (unsaved edits included) against the branch's state. */
  private async checkChapter(arg: vscode.Uri | undefined): Promise<void> {
    const novel = this.getNovel();
    const uri = arg ?? vscode.window.activeTextEditor?.document.uri;
    if (!novel || !uri) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Open a chapter of your novel first.'));
      return;
    }
    const rel = manuscriptPathAt(novel.config.manuscriptMatcher, novel.root.fsPath, uri.fsPath);
    if (!rel) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} is not part of the manuscript (worldline.yaml, manuscript), so it was not checked.', vscode.workspace.asRelativePath(uri, false)));
      return;
    }
    const story = await this.stories.ensure();
    if (!story) return;
    this.follow();
    const doc = await vscode.workspace.openTextDocument(uri);
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Worldline: checking continuity…') },
      () => story.checkChapter(rel, doc.getText()),
    );
    this.report(rel, outcome);
  }

  private report(rel: string, outcome: CheckOutcome): void {
    switch (outcome.kind) {
      case 'unstored':
        this.unstored.set(rel, [...outcome.findings]);
        this.refresh();
        return void vscode.window.showInformationMessage(countWords(outcome.findings.length, rel));
      case 'stored':
        this.refresh();
        return void vscode.window.showInformationMessage(countWords(outcome.findings.length, rel));
      case 'clean':
        this.unstored.delete(rel);
        this.refresh();
        return void vscode.window.showInformationMessage(vscode.l10n.t('No continuity problems found in {0}.', rel));
      case 'stale':
        return void vscode.window.showInformationMessage(vscode.l10n.t('The story moved to another branch during the check, so its result was dropped. Check again.'));
      case 'skipped':
        return void vscode.window.showInformationMessage(vscode.l10n.t('{0} has no prose to check.', rel));
      case 'failed':
        return void vscode.window.showWarningMessage(vscode.l10n.t('The continuity check failed: {0}', outcome.message));
    }
  }

  dispose(): void {
    this.storyListener?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function countWords(n: number, rel: string): string {
  return ofCount(n,
    vscode.l10n.t('{0} continuity problem found in {1}; see the Problems panel.', n, rel),
    vscode.l10n.t('{0} continuity problems found in {1}; see the Problems panel.', n, rel));
}

function diagnosticOf(finding: Finding, range: vscode.Range): vscode.Diagnostic {
  const d = new vscode.Diagnostic(range, finding.reason, SEVERITY[finding.confidence]);
  d.source = 'Worldline';
  d.code = finding.type;
  return d;
}

/** The open document's text, else the file's on disk; undefined when it cannot be read. */
async function textOf(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** Offsets of `text` as a range: lines end at "\n" (a "\r" before it ends the line too, as VS Code counts). */
function rangeIn(text: string, start: number, end: number): vscode.Range {
  const at = (offset: number): vscode.Position => {
    let line = 0;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return new vscode.Position(line, offset - lineStart);
  };
  return new vscode.Range(at(start), at(end));
}
