// The writing tools in the editor (Rewrite, Expand, Shrink, Describe, Continue from Cursor, Send
// Selection to Chat) and the review of their versions: VS Code's diff editor between the file as it
// was before the turn (a checkpoint: document) and the file, with Accept, Previous / Next and
// Discard as editor title actions and a status bar item. The passage, the instruction and the
// review are the core's (src/story/selectionTools.ts, versionReview.ts, versionRun.ts).
import * as vscode from 'vscode';
import { manuscriptPathAt } from '../project/manuscript';
import type { Story } from '../story';
import { chatQuote, passageOf, selectionInstruction, type Passage, type SelectionTool } from '../story/selectionTools';
import { positionOf, type VersionReview } from '../story/versionReview';
import { MAX_VERSIONS, VersionReviews, type VersionRun } from '../story/versionRun';
import type { ChatViewProvider } from './chatView';
import { CHECKPOINT_SCHEME, checkpointUri } from './checkpointController';
import type { NovelWorkspace } from './novel';
import type { StoryShell } from './storyShell';

/** The passage of the active editor, with the file it is in. */
interface Picked {
  readonly passage: Passage;
  readonly uri: vscode.Uri;
}

export class EditorTools implements vscode.Disposable {
  private reviews: { story: Story; reviews: VersionReviews } | undefined;
  private readonly item = vscode.window.createStatusBarItem('worldline.versions', vscode.StatusBarAlignment.Left, 49);
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.item, this.changed];
  /** Whether a review is open changed (the context key follows it). */
  readonly onDidChange = this.changed.event;
  private shown: string | undefined;
  /** The titles of the review diffs opened, so that only those are closed. */
  private readonly titles = new Set<string>();

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly stories: StoryShell,
    private readonly chat: ChatViewProvider,
  ) {
    this.item.name = vscode.l10n.t('Worldline Versions');
    this.item.command = 'worldline.versions.actions';
    // The Chat's ◀ ▶ moves the same variants; another branch ends the review.
    this.disposables.push(stories.onDidChange((what) => { if (what === 'render') this.render(); }));
    const novel = getNovel();
    if (novel) this.disposables.push(novel.onDidChangeTree(() => this.render()));
  }

  /** A review is open (the `worldline.reviewingVersions` context key). */
  get reviewing(): boolean {
    return this.review() !== undefined;
  }

  /** The open review as the tree has it now (tests read it too). */
  review(): VersionReview | undefined {
    const story = this.stories.current();
    return story && this.reviews?.story === story ? this.reviews.reviews.current : undefined;
  }

  commands(): vscode.Disposable[] {
    const tool = (name: SelectionTool) => (note?: unknown) => this.runTool(name, typeof note === 'string' ? note : undefined);
    return [
      vscode.commands.registerCommand('worldline.rewrite', tool('rewrite')),
      vscode.commands.registerCommand('worldline.expand', tool('expand')),
      vscode.commands.registerCommand('worldline.shrink', tool('shrink')),
      vscode.commands.registerCommand('worldline.describe', tool('describe')),
      vscode.commands.registerCommand('worldline.continueFromCursor', tool('continue')),
      vscode.commands.registerCommand('worldline.sendSelectionToChat', () => this.sendToChat()),
      vscode.commands.registerCommand('worldline.versions.previous', () => this.step(-1)),
      vscode.commands.registerCommand('worldline.versions.next', () => this.step(1)),
      vscode.commands.registerCommand('worldline.versions.accept', () => this.accept()),
      vscode.commands.registerCommand('worldline.versions.discard', () => this.discard()),
      // The status bar item's menu (not in the palette: the four above are).
      vscode.commands.registerCommand('worldline.versions.actions', () => this.actions()),
    ];
  }

  /**
   * A tool on the active editor's selection: its instruction as a turn, as many versions as the
   * setting says, then the review. Rewrite asks for the novelist's own words first (Escape
   * cancels; empty is a plain rewrite); `note` given (tests, keybindings' args) skips the box.
   */
  async runTool(tool: SelectionTool, note?: string): Promise<VersionRun | undefined> {
    const novel = this.getNovel();
    const picked = this.pick(tool);
    if (!novel || !picked) return undefined;
    if (this.stories.busy) {
      void vscode.window.showWarningMessage(vscode.l10n.t('The agent is writing. Wait for it to finish, or stop it, then try again.'));
      return undefined;
    }
    if (tool === 'rewrite' && note === undefined) {
      note = await vscode.window.showInputBox({
        title: vscode.l10n.t('Rewrite'),
        prompt: vscode.l10n.t('How should it be rewritten? Leave empty for a plain rewrite.'),
        placeHolder: vscode.l10n.t('e.g. more tension, shorter sentences, from her point of view'),
      });
      if (note === undefined) return undefined;
    }
    // The agent reads the file from disk: the editor's text goes there first, so the lines agree.
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === picked.uri.toString());
    if (doc?.isDirty && !(await doc.save())) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} could not be saved, so nothing was sent. Save it yourself, then try again.', picked.passage.file));
      return undefined;
    }
    const story = await this.stories.ensure();
    if (!story) return undefined;
    const reviews = this.reviewsOf(story);
    // A review still open is settled as it stands: its version stays (as Accept would).
    reviews.accept();
    await this.closeDiff();
    const versions = versionSetting();
    const run = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Window,
      title: versions > 1 ? vscode.l10n.t('Worldline: writing {0} versions…', versions) : vscode.l10n.t('Worldline: writing…'),
    }, () => reviews.run({ instruction: selectionInstruction(tool, picked.passage, novel.language, note), file: picked.passage.file, versions }));
    if (run.kind === 'noTurn') {
      // The Chat's notice has the cause; the editor says where to look, with the way there.
      const show = vscode.l10n.t('Show Chat');
      void vscode.window.showWarningMessage(vscode.l10n.t('Nothing was written to {0}: the turn did not finish. The Chat says why.', picked.passage.file), show)
        .then((answer) => (answer === show ? vscode.commands.executeCommand('worldline.chat.focus') : undefined));
    }
    if (run.kind === 'noOriginal') void vscode.window.showInformationMessage(vscode.l10n.t('The new version is in the chapter. Checkpoints are off, so there is no original to compare it with or go back to.'));
    if (run.kind === 'review') await this.showDiff(run.review);
    this.render();
    return run;
  }

  /** Send Selection to Chat: the passage quoted with its place in the Chat's input box; no turn starts. */
  async sendToChat(): Promise<string | undefined> {
    const novel = this.getNovel();
    // No selection: the cursor's line, as Continue from Cursor takes it.
    const picked = this.pick('continue');
    if (!novel || !picked || picked.passage.anchor === 'empty') return undefined;
    const quote = chatQuote(picked.passage, novel.language);
    await vscode.commands.executeCommand('worldline.chat.focus');
    this.chat.focusInput(quote, { append: true });
    return quote;
  }

  async step(delta: -1 | 1): Promise<VersionReview | undefined> {
    const reviews = this.openReviews();
    if (!reviews) return undefined;
    const review = await reviews.step(delta);
    if (review) await this.showDiff(review);
    this.render();
    return review;
  }

  /** Accept: this version stays on the branch; the diff gives way to the chapter. */
  async accept(): Promise<VersionReview | undefined> {
    const reviews = this.openReviews();
    const review = reviews?.accept();
    if (!review) return undefined;
    await this.closeDiff();
    await vscode.window.showTextDocument(this.fileUri(review.file), { preview: false });
    this.render();
    return review;
  }

  /** Discard: the original comes back through the checkpoint before the turn (undoable); the versions stay as variants. */
  async discard(): Promise<boolean> {
    const reviews = this.openReviews();
    const review = reviews?.current;
    if (!reviews || !review) return false;
    const outcome = await reviews.discard();
    const done = outcome !== undefined && outcome !== 'cancelled';
    if (done) {
      await this.closeDiff();
      await vscode.window.showTextDocument(this.fileUri(review.file), { preview: false });
    }
    this.render();
    return done;
  }

  private async actions(): Promise<void> {
    const review = this.review();
    if (!review) return;
    const { n, m } = positionOf(review);
    const items: (vscode.QuickPickItem & { run: () => Promise<unknown> })[] = [
      { label: `$(check) ${vscode.l10n.t('Accept This Version')}`, run: () => this.accept() },
      ...(n > 1 ? [{ label: `$(chevron-left) ${vscode.l10n.t('Previous Version')}`, run: () => this.step(-1) }] : []),
      ...(n < m ? [{ label: `$(chevron-right) ${vscode.l10n.t('Next Version')}`, run: () => this.step(1) }] : []),
      { label: `$(discard) ${vscode.l10n.t('Discard All Versions (Back to the Original)')}`, run: () => this.discard() },
    ];
    const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Version {0} of {1}', n, m) });
    await chosen?.run();
  }

  /** The status bar item and the context key follow the review. */
  render(): void {
    const review = this.review();
    const key = review ? `${review.userEntryId}:${review.index}:${review.replies.length}` : undefined;
    if (review) {
      const { n, m } = positionOf(review);
      this.item.text = `$(versions) ◀ ${n}/${m} ▶`;
      this.item.tooltip = vscode.l10n.t('Worldline: version {0} of {1} of {2}. Click to accept, step or discard.', n, m, review.file);
      this.item.show();
    } else {
      this.item.hide();
    }
    if (key !== this.shown) {
      const opened = (key === undefined) !== (this.shown === undefined);
      this.shown = key;
      if (opened) this.changed.fire();
    }
  }

  private async showDiff(review: VersionReview): Promise<void> {
    // No n/m in the title: VS Code keeps the tab (and its title) of the same two files; the status bar counts.
    const title = vscode.l10n.t('{0}: the original ↔ this version (Worldline)', review.file);
    this.titles.add(title);
    await vscode.commands.executeCommand('vscode.diff', checkpointUri(review.original.commit, review.file), this.fileUri(review.file), title, { preview: false });
  }

  /** Closes the review's diff editors (the original is a checkpoint: document). */
  private async closeDiff(): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === CHECKPOINT_SCHEME
      && this.titles.has(t.label));
    this.titles.clear();
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
  }

  /** The selection of the active editor when it is a manuscript file; else said why, and undefined. */
  private pick(tool: SelectionTool): Picked | undefined {
    const novel = this.getNovel();
    const editor = vscode.window.activeTextEditor;
    if (!novel) return undefined;
    const file = editor && editor.document.uri.scheme === 'file'
      ? manuscriptPathAt(novel.config.manuscriptMatcher, novel.root.fsPath, editor.document.uri.fsPath)
      : undefined;
    if (!editor || !file) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Open a chapter of the manuscript and select a passage first.'));
      return undefined;
    }
    const doc = editor.document;
    const result = passageOf({ file, text: doc.getText(), start: doc.offsetAt(editor.selection.start), end: doc.offsetAt(editor.selection.end) }, tool);
    if (!result.ok) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Select the passage to work on first.'));
      return undefined;
    }
    return { passage: result.passage, uri: doc.uri };
  }

  private reviewsOf(story: Story): VersionReviews {
    if (this.reviews?.story !== story) this.reviews = { story, reviews: new VersionReviews(story) };
    return this.reviews.reviews;
  }

  private openReviews(): VersionReviews | undefined {
    const story = this.stories.current();
    return story && this.reviews?.story === story ? this.reviews.reviews : undefined;
  }

  private fileUri(file: string): vscode.Uri {
    const root = this.getNovel()?.root;
    if (!root) throw new Error('the novel was closed');
    return vscode.Uri.joinPath(root, ...file.split('/'));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** worldline.rewrite.versions: how many versions a tool writes (1 to MAX_VERSIONS). */
function versionSetting(): number {
  const n = vscode.workspace.getConfiguration('worldline').get<number>('rewrite.versions', 1);
  return Number.isFinite(n) ? Math.max(1, Math.min(MAX_VERSIONS, Math.floor(n))) : 1;
}
