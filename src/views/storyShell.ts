// The Story of the open session, adapted to VS Code: its port (StoryHost) built from VS Code
// (settings, SecretStorage keys, the editor's file system, unsaved editors saved or the restore
// cancelled, the questions), and its events in the novelist's words. One Story per open session;
// the verbs themselves live in src/story/.
import * as vscode from 'vscode';
import type { RestoreResult } from '../checkpoints';
import { isManuscriptAt, manuscriptPathAt } from '../project/manuscript';
import { TurnBusyError, type TurnPhase, type TurnResult } from '../agent/turnTypes';
import type { ScribeStatus } from '../protocol/state';
import type { Notice } from '../protocol/chat';
import { Story, type DirtyChoice, type LiveChange, type StoryEvent, type StoryHost } from '../story';
import { eventWords, leaveTurnsWords, noticeWords, sayWords, scribeStatusWords } from '../story/words';
import { ofCount } from '../common/text';
import type { CheckpointController } from './checkpointController';
import { EditorManuscriptFs } from './editorFs';
import { waitForDocumentsToMatchDisk } from './docSync';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import { translate, type Notices } from './notices';
import { readSettings, type ApiKeys } from './settings';

export class StoryShell implements vscode.Disposable {
  private story: Story | undefined;
  private readonly changed = new vscode.EventEmitter<LiveChange>();
  private readonly turnEnded = new vscode.EventEmitter<TurnResult>();
  private readonly scribeChanged = new vscode.EventEmitter<ScribeStatus>();
  private readonly disposables: vscode.Disposable[] = [this.changed, this.turnEnded, this.scribeChanged];
  /** The chat should re-render ('render'), show streamed text ('stream'), or the phase changed. */
  readonly onDidChange = this.changed.event;
  readonly onDidEndTurn = this.turnEnded.event;
  readonly onDidChangeScribe = this.scribeChanged.event;

  constructor(
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly keys: ApiKeys,
    private readonly checkpoints: CheckpointController,
    private readonly notices: Notices,
    private readonly log: Log,
  ) {
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('worldline')) this.changed.fire('render');
    }));
  }

  /** The Story of the open session (made when the session opens; the previous one is let go). */
  current(): Story | undefined {
    const session = this.getNovel()?.session;
    if (this.story?.session === session) return this.story;
    this.story?.dispose();
    this.story = session ? new Story(this.host(), session) : undefined;
    // The book's first checkpoint (the walk that stores every chapter) starts now, in the
    // background, rather than inside the first Send.
    void this.story?.prepareCheckpoints();
    this.changed.fire('render');
    return this.story;
  }

  /** The Story, opening a first session when the novel has none; none in a folder without worldline.yaml. */
  async ensure(): Promise<Story | undefined> {
    const novel = this.getNovel();
    if (!novel) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Open the folder of your novel first (File > Open Folder).'));
      return undefined;
    }
    if (!(await novel.hasProjectFile())) {
      // Nothing goes to a model from a folder that is not a novel: the manuscript globs, the
      // language and the opening scene all come from worldline.yaml.
      this.notices.offer(
        'warning',
        vscode.l10n.t('This folder has no worldline.yaml, so it is not a Worldline novel yet and nothing was sent. Initialize it first.'),
        vscode.l10n.t('Initialize Novel'),
        () => vscode.commands.executeCommand('worldline.initializeNovel'),
      );
      return undefined;
    }
    await novel.ensureSession();
    return this.current();
  }

  get busy(): boolean { return this.story?.busy ?? false; }
  get phase(): TurnPhase { return this.story?.phase ?? 'idle'; }

  /** False, with the refusal said, while the agent is writing (switching or making sessions waits). */
  idle(action: string): boolean {
    if (!this.busy) return true;
    this.notices.notify('warning', new TurnBusyError(action, this.getNovel()?.language ?? 'en').message);
    return false;
  }

  async send(text: string): Promise<TurnResult | undefined> {
    return (await this.ensure())?.send(text);
  }

  async regenerate(entryId?: string): Promise<TurnResult | undefined> {
    return (await this.ensure())?.regenerate(entryId);
  }

  /** Resolves when the last turn's scribe, its summary and any prose following a move are done. */
  async scribeIdle(): Promise<void> {
    await this.story?.idle();
  }

  /** The Chat's notice line for the last turn. */
  notice(): Notice | undefined {
    const notice = this.current()?.notice;
    if (!notice) return undefined;
    const words = noticeWords(notice);
    return { kind: words.kind, text: sayWords(words, translate), action: words.action };
  }

  /** The Story's port, built from VS Code. */
  private host(): StoryHost {
    const novel = (): NovelWorkspace => {
      const open = this.getNovel();
      if (!open) throw new Error('the novel was closed');
      return open;
    };
    return {
      project: () => {
        const n = novel();
        return { root: n.root.fsPath, config: n.config, lang: n.language, branchOptions: n.branchOptions };
      },
      settings: () => readSettings(),
      keys: (settings) => this.keys.forRequests(settings),
      manuscriptFs: () => new EditorManuscriptFs(novel().root),
      store: () => this.checkpoints.store(),
      // In the status bar: a restore takes a second or two, and its toast follows it.
      progress: (work, kind) => Promise.resolve(vscode.window.withProgress({
        location: vscode.ProgressLocation.Window,
        title: kind === 'checkpoints' ? vscode.l10n.t('Worldline: preparing checkpoints…')
          : kind === 'restore' ? vscode.l10n.t('Worldline: restoring the prose…')
          : vscode.l10n.t('Worldline: summarising older turns…'),
      }, work)),
      changes: this.checkpoints.changes,
      saveUnsavedOrCancel: () => this.saveOrCancel(),
      saveUnsavedToDisk: () => this.saveDirtyManuscript(),
      askFollow: (changed) => askFollow(changed),
      confirmLeaveTurns: (turns) => confirmLeaveTurns(turns),
      settle: (result) => this.settle(result),
      report: (event) => this.show(event),
      log: this.log,
    };
  }

  /** The Story's events in the novelist's words (src/story/words.ts says which). */
  private show(event: StoryEvent): void {
    switch (event.kind) {
      case 'live': return this.changed.fire(event.change);
      case 'turnEnded': return this.turnEnded.fire(event.result);
      case 'scribe': return this.scribeChanged.fire(scribeStatusWords(event.status, event.problem, translate));
      case 'unavailable': return void this.notices.notify('warning', this.checkpoints.unavailableText());
      default: break;
    }
    const words = eventWords(event, this.getNovel()?.language ?? 'en');
    if (!words) return;
    const text = sayWords(words, translate);
    if (words.level !== 'error') this.log.info(text); // errors are logged by the Story as they happen
    if (words.once) return this.notices.warnOnce(text, words.once.rebuild);
    const offer = words.undo;
    if (!offer) return void this.notices.notify(words.level, text);
    const level = words.level === 'error' ? 'warning' : words.level;
    this.notices.offer(level, text, vscode.l10n.t('Undo'), () => this.current()?.undoFromOffer(offer) ?? Promise.resolve());
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
    if ((await askSaveFirst(dirty.map((d) => vscode.workspace.asRelativePath(d.uri, false)))) === 'cancel') return 'cancel';
    for (const doc of dirty) {
      if (!(await doc.save())) {
        this.notices.notify('warning', vscode.l10n.t('{0} could not be saved, so nothing was restored. Save it yourself, then try again.', vscode.workspace.asRelativePath(doc.uri, false)));
        return 'cancel';
      }
    }
    return 'save';
  }

  /** Before a checkpoint the agent's own edits are on disk already; this catches anything left. */
  private async saveDirtyManuscript(): Promise<void> {
    const novel = this.getNovel();
    for (const doc of this.dirtyManuscript()) {
      if (await saveToDisk(doc)) {
        // Told at once: the checkpoint that follows must not wait for the watcher to see it.
        const rel = novel && manuscriptPathAt(novel.config.trackedMatcher, novel.root.fsPath, doc.uri.fsPath);
        if (rel) this.checkpoints.changes.changed([rel]);
        continue;
      }
      const rel = vscode.workspace.asRelativePath(doc.uri, false);
      this.log.warn(`${rel} could not be saved before the checkpoint; its unsaved text is not in it.`);
      this.notices.warnOnce(vscode.l10n.t('{0} could not be saved before the checkpoint, so its unsaved text is not in it. Save it yourself to keep it safe.', rel), false);
    }
  }

  private dirtyManuscript(): vscode.TextDocument[] {
    const novel = this.getNovel();
    if (!novel) return [];
    return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file'
      && isManuscriptAt(novel.config.trackedMatcher, novel.root.fsPath, d.uri.fsPath)); // codex editors too: the restore writes them
  }

  dispose(): void {
    this.story?.dispose();
    this.story = undefined;
    for (const d of this.disposables) d.dispose();
  }
}

/** Unsaved chapters before a restore: save them first, or cancel (a modal). */
async function askSaveFirst(files: string[]): Promise<DirtyChoice> {
  const save = vscode.l10n.t('Save and Restore');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('These chapters have unsaved changes: {0}. Save them first? (They stay recoverable: Undo brings them back.)', files.join(', ')),
    { modal: true },
    save,
  );
  return pick === save ? 'save' : 'cancel';
}

/** "Prose follows the branch" with the setting "ask": bring the prose along? */
async function askFollow(changed: number): Promise<boolean> {
  const yes = vscode.l10n.t('Bring the Prose Along');
  const pick = await vscode.window.showInformationMessage(
    ofCount(changed,
      vscode.l10n.t('This branch has different prose ({0} file differs). Bring the manuscript to this branch? Your current text stays recoverable with Undo.', changed),
      vscode.l10n.t('This branch has different prose ({0} files differ). Bring the manuscript to this branch? Your current text stays recoverable with Undo.', changed)),
    yes,
    vscode.l10n.t('Keep the Current Prose'),
  );
  return pick === yes;
}

/** The setting that "Don't Ask Again" turns off. */
const CONFIRM_REGENERATE = 'confirmRegenerate';

/** Regenerating a reply with later turns: a modal, unless the novelist said not to ask again. */
async function confirmLeaveTurns(turns: number): Promise<boolean> {
  const config = vscode.workspace.getConfiguration('worldline');
  if (!config.get<boolean>(CONFIRM_REGENERATE, true)) return true;
  const words = leaveTurnsWords(turns);
  const [regenerate, dontAsk] = [translate(words.regenerate), translate(words.dontAskAgain)];
  const pick = await vscode.window.showWarningMessage(translate(words.question), { modal: true, detail: translate(words.detail) }, regenerate, dontAsk);
  // A setting that cannot be written (a policy) only costs the memory: this answer stands.
  if (pick === dontAsk) await Promise.resolve(config.update(CONFIRM_REGENERATE, false, vscode.ConfigurationTarget.Global)).catch(() => undefined);
  return pick === regenerate || pick === dontAsk;
}

/**
 * Saves a document and confirms the file on disk holds its text: the checkpoint reads the disk
 * next. A save can lose a race with a write VS Code has not caught up with yet; one more try after
 * a moment settles it.
 */
async function saveToDisk(doc: vscode.TextDocument): Promise<boolean> {
  const onDisk = async (text: string): Promise<boolean> => {
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(doc.uri)) === text;
    } catch {
      return false;
    }
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const text = doc.getText();
    if ((await doc.save()) && (await onDisk(text))) return true;
    await new Promise((r) => setTimeout(r, 150));
    if (!doc.isDirty && (await onDisk(text))) return true;
  }
  return false;
}
