// Save points and worldlines as the novelist meets them: Save Point's name, Load Save, Rename
// Worldline, Delete Save with its Undo, Compare Saves (the two saves, the scene states, which file)
// and Export Worldline as Manuscript and as… (its checks, where to, the notice). What to ask, in what order,
// what an answer means and what to say is decided here; the shell gives the Prompter and the few
// things only the editor does (the diff editor, the save dialog, writing and opening a file).
import * as path from 'node:path';
import type { ShadowRepo } from '../checkpoints';
import { ofCount, type Text } from '../common/text';
import type { ProjectLanguage } from '../project/config';
import type { CheckpointDocument, SceneStateDocument, ShowDiff } from '../protocol/diff';
import type { Prompter } from '../protocol/prompter';
import type { SaveEntry } from '../session/entries';
import type { Session } from '../session/session';
import { checkpointReason } from '../story/problemWords';
import type { RestoreOutcome } from '../story/story';
import { changeToShow, compareSaves } from './compare';
import { exportSave, readSaveManuscript, type SaveUnreadable } from './exportSave';
import { EXPORT_AS_TITLE, exportAs, pickFormat, type ExportPorts } from './exporters/exportFlow';
import type { ExportFormat } from './exporters/formats';
import { savePickItems, savesCount } from './savePicks';
import { SessionSaves } from './sessionSaves';
import { deleteSave, renameWorldline, restoreSave, type WorldlineSidecar } from './sidecar-data';
import type { SaveNode, WorldlineView } from './view';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** What the flows need of the Story (src/story/story.ts). */
export interface SaveStory {
  /** False, with the refusal reported, while a turn writes or in a read-only window. */
  writable(verb: 'save'): boolean;
  savePoint(opts: { name: string; sidecar: WorldlineSidecar }): Promise<SaveEntry | undefined>;
  loadSave(saveEntryId: string): Promise<RestoreOutcome>;
}

/** The open novel: its folder, worldline.yaml's title, its language, and the session. */
export interface OpenNovel {
  readonly root: string;
  readonly title: string;
  readonly lang: ProjectLanguage;
  readonly session: Session;
}

/** @typeParam Target where an export is written (the shell's URI). */
export interface SaveFlowHost<Target> {
  readonly prompter: Prompter;
  readonly log: { warn(message: string): void };
  /** The open novel with its session; undefined when no session is open. */
  open(): OpenNovel | undefined;
  /** The Story, opening a first session when the novel has none; undefined (the reason told) when there can be none. */
  ensureStory(): Promise<SaveStory | undefined>;
  /** The open session's Story, if any. */
  currentStory(): SaveStory | undefined;
  /** The checkpoint store; undefined when checkpoints are off. */
  store(): Promise<Pick<ShadowRepo, 'changedFiles' | 'filesAt' | 'readAt'> | undefined>;
  readonly showDiff: ShowDiff<CheckpointDocument | SceneStateDocument>;
  /** The save dialog, starting at `defaultPath`; undefined when cancelled. */
  chooseTarget(title: Text, defaultPath: string): PromiseLike<Target | undefined>;
  writeFile(target: Target, text: string): PromiseLike<void>;
  /** A target's file name, for the notice. */
  nameOf(target: Target): string;
  openDocument(target: Target): PromiseLike<unknown>;
  /** Work the novelist should see going on (reading the book out of the checkpoint store for an export). */
  progress?<T>(title: Text, work: () => Promise<T>): PromiseLike<T>;
  /** Saves, names, deletes or the leaf changed: both views re-render. */
  changed(): void;
  /** The dialogs and file system Export Worldline as… needs (DOCX, EPUB, a folder of TXT); without them it is not offered. */
  readonly exportTo?: ExportPorts<Target>;
}

export class SaveFlows<Target> {
  private readonly saves: SessionSaves;
  /** Work a notification's button started, perhaps long after the command returned. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly host: SaveFlowHost<Target>) {
    this.saves = new SessionSaves(() => host.open(), (problem) => {
      host.log.warn(problem);
      void host.prompter.notify('warning', literal(problem));
    });
  }

  /** The worldlines as both views show them; undefined when no session is open. */
  view(): Promise<WorldlineView | undefined> {
    return this.saves.view();
  }

  /** Resolves when what the buttons clicked so far started has finished. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Save Point… (the Story writes it after the scribe, so it carries that turn's state). */
  async savePoint(name?: string): Promise<SaveEntry | undefined> {
    const story = await this.host.ensureStory();
    // Refused before the name is asked for: while the agent writes, or in a read-only window.
    if (!story || !story.writable('save')) return undefined;
    const chosen = name ?? await this.host.prompter.ask({
      title: l10n.t('Save Point'),
      prompt: l10n.t('A name for this point of the story (leave empty for a numbered one)'),
    });
    if (chosen === undefined) return undefined;
    const entry = await story.savePoint({ name: chosen, sidecar: await this.saves.sidecar() });
    this.host.changed();
    return entry;
  }

  /** Load Save = restore prose and chat to it (with the safety commit and Undo); true when the leaf is at the save. */
  async loadSave(saveId?: string): Promise<boolean> {
    const save = await this.resolve(saveId, l10n.t('Load Save'));
    if (!save) return false;
    const result = await this.host.currentStory()?.loadSave(save.id);
    if (result === 'cancelled') return false;
    this.host.changed();
    return this.host.open()?.session.leafId === save.id;
  }

  async renameWorldline(worldlineId?: string, name?: string): Promise<boolean> {
    const view = await this.view();
    let id = worldlineId;
    if (!id) {
      const lines = view?.worldlines ?? [];
      if (lines.length === 0) return this.noSaves();
      id = await this.host.prompter.pick(
        lines.map((l) => ({ label: literal(l.name), description: savesCount(l.saves.length), value: l.id })),
        { title: l10n.t('Rename Worldline') },
      );
    }
    const line = view?.worldlines.find((l) => l.id === id);
    if (!line) return false;
    const newName = name ?? await this.host.prompter.ask({
      title: l10n.t('Rename Worldline'),
      value: line.name,
      validate: (v) => (v.trim() ? undefined : l10n.t('The name cannot be empty.')),
    });
    if (!newName || !newName.trim()) return false;
    await this.change((s) => renameWorldline(s, line.id, newName.trim()));
    return true;
  }

  /** Soft delete: the save leaves the views; the tree keeps it (and Undo brings it back). */
  async deleteSave(saveId?: string): Promise<boolean> {
    const save = await this.resolve(saveId, l10n.t('Delete Save'));
    if (!save) return false;
    await this.change((s) => deleteSave(s, save.saveId));
    const undo = l10n.t('Undo');
    this.later(this.host.prompter.notify('info', l10n.t('Save "{0}" deleted from the list. The story itself is untouched.', save.name), undo)
      .then((pick) => (pick?.message === undo.message ? this.change((s) => restoreSave(s, save.saveId)) : undefined)), 'Undo of a deleted save');
    return true;
  }

  /** Compare Saves…: the two scene states side by side, and the prose of a file that differs. */
  async compareSaves(firstId?: string, secondId?: string, file?: string): Promise<{ files: number } | undefined> {
    const a = await this.resolve(firstId, l10n.t('Compare Saves: the first save'));
    if (!a) return undefined;
    const b = this.saves.find(secondId ?? (await this.pickSave(l10n.t('Compare Saves: the second save'), a.saveId))?.saveId);
    const session = this.host.open()?.session;
    if (!b || !session) return undefined;
    const state = (save: SaveEntry): SceneStateDocument => ({ kind: 'sceneState', entryId: save.id, name: save.name });
    await this.host.showDiff(state(a), state(b), l10n.t('Scene state: {0} ↔ {1}', a.name, b.name), false);
    const comparison = await compareSaves(session, a.saveId, b.saveId, await this.host.store());
    if (comparison.kind === 'no-prose') return { files: 0 };
    if (comparison.kind === 'lost' || comparison.kind === 'store') {
      void this.host.prompter.notify('warning', comparison.kind === 'lost'
        ? l10n.t('The prose of one of these saves is no longer in the checkpoint store (the store was lost or rebuilt since), so only their scene states can be compared.')
        : checkpointReason(comparison.error));
      return { files: 0 };
    }
    if (comparison.kind === 'same') {
      void this.host.prompter.notify('info', l10n.t('The manuscript is the same at both saves.'));
      return { files: 0 };
    }
    const { from, to, changes } = comparison;
    let pick = changeToShow(changes, file);
    if (pick === 'ask') {
      pick = await this.host.prompter.pick(changes.map((c) => ({ label: literal(c.path), description: literal(c.status), value: c })), { title: l10n.t('Compare Saves: which file?') });
    }
    if (pick) {
      const at = (commit: string): CheckpointDocument => ({ kind: 'checkpoint', commit, path: pick.path });
      await this.host.showDiff(at(from.commit), at(to.commit), literal(`${pick.path}: ${a.name} ↔ ${b.name}`), false);
    }
    return { files: changes.length };
  }

  /** Export Worldline as Manuscript: the book as it stood at a save, in reading order, one Markdown file. */
  async exportWorldline(saveId?: string, target?: Target): Promise<Target | undefined> {
    const save = await this.resolve(saveId, l10n.t('Export Worldline as Manuscript'));
    const novel = this.host.open();
    if (!save || !novel) return undefined;
    const input = {
      tree: novel.session, sidecar: await this.saves.sidecar(), save, repo: await this.host.store(),
      title: novel.title, folderName: path.basename(novel.root), lang: novel.lang,
    };
    const made = await (this.host.progress ? this.host.progress(l10n.t('Reading the manuscript at "{0}"…', save.name), () => exportSave(input)) : exportSave(input));
    if (!made.ok) {
      this.unreadable(made);
      return undefined;
    }
    // Outside the novel folder by default, so the export never becomes part of the manuscript.
    const where = target ?? await this.host.chooseTarget(l10n.t('Export Worldline as Manuscript'), path.join(path.dirname(novel.root), made.fileName));
    if (!where) return undefined;
    await this.host.writeFile(where, made.markdown);
    const open = l10n.t('Open');
    const name = this.host.nameOf(where);
    const done = ofCount(made.files, l10n.t('Exported {0} chapter to {1}.', made.files, name), l10n.t('Exported {0} chapters to {1}.', made.files, name));
    this.later(this.host.prompter.notify('info', done, open)
      .then((pick) => (pick?.message === open.message ? this.host.openDocument(where) : undefined)), 'opening the export');
    return where;
  }

  /**
   * Export Worldline as…: the book at a save as Markdown, DOCX, EPUB or a folder of TXT, one per
   * chapter (src/worldline/exporters). The same manuscript, order and headings as the Markdown export.
   */
  async exportWorldlineAs(saveId?: string, format?: ExportFormat, target?: Target): Promise<Target | undefined> {
    const ports = this.host.exportTo;
    if (!ports) return undefined;
    const save = await this.resolve(saveId, EXPORT_AS_TITLE);
    const novel = this.host.open();
    if (!save || !novel) return undefined;
    const chosen = format ?? await pickFormat(this.host.prompter);
    if (!chosen) return undefined;
    const sidecar = await this.saves.sidecar();
    const repo = await this.host.store();
    return exportAs({
      prompter: this.host.prompter,
      ports,
      nameOf: (t) => this.host.nameOf(t),
      openDocument: (t) => this.host.openDocument(t),
      progress: this.host.progress?.bind(this.host),
      later: (work, what) => this.later(work, what),
      unreadable: (why) => this.unreadable(why),
    }, {
      format: chosen, saveName: save.name, novelRoot: novel.root, target,
      read: () => readSaveManuscript({ tree: novel.session, sidecar, save, repo, title: novel.title, folderName: path.basename(novel.root), lang: novel.lang }),
    });
  }

  /** Why the manuscript at a save cannot be exported, in words. */
  private unreadable(why: SaveUnreadable): void {
    void this.host.prompter.notify('warning', why.reason === 'lost'
      ? l10n.t('The checkpoint of this save is no longer in the checkpoint store (the store was lost or rebuilt since), so its manuscript cannot be exported. Your manuscript files are as they were.')
      : why.reason === 'store' ? checkpointReason(why.kind)
        : l10n.t('This save has no checkpoint of the manuscript, so there is nothing to export.'));
  }

  private async change(update: (s: WorldlineSidecar) => WorldlineSidecar): Promise<void> {
    if (await this.saves.change(update)) this.host.changed();
  }

  /** The save with this id, or the one picked (none without a session). */
  private async resolve(saveId: string | undefined, title: Text): Promise<SaveEntry | undefined> {
    if (!this.host.open()) return undefined;
    return this.saves.find(saveId ?? (await this.pickSave(title))?.saveId);
  }

  private async pickSave(title: Text, exclude?: string): Promise<SaveNode | undefined> {
    const items = savePickItems(await this.view(), exclude);
    if (items.length === 0) return void this.noSaves();
    return this.host.prompter.pick(items, { title, matchOnDescription: true, matchOnDetail: true });
  }

  private noSaves(): false {
    void this.host.prompter.notify('info', l10n.t('There are no save points yet. Use Worldline: Save Point… to make one.'));
    return false;
  }

  /** Work nobody awaits: kept for `idle()`, its failure logged. */
  private later(work: PromiseLike<unknown>, what: string): void {
    const p: Promise<unknown> = Promise.resolve(work).catch((err: unknown) => this.host.log.warn(`${what} failed: ${err instanceof Error ? err.message : String(err)}`));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }
}
