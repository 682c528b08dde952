// Export Worldline as…, after the save is chosen: which format, reading and rendering with
// progress, where to (a file, or for TXT a folder the chapters go into), writing, and the notice
// that names what was written. The shell gives the dialogs and the file system (ExportPorts).
import * as path from 'node:path';
import { ofCount, type Text } from '../../common/text';
import type { PickItem, Prompter } from '../../protocol/prompter';
import type { SaveManuscript, SaveUnreadable } from '../exportSave';
import { EXPORT_FORMATS, FORMAT_NAMES, renderExport, type ExportFormat } from './formats';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** What only the editor does for an export. @typeParam Target a file or folder (the shell's URI). */
export interface ExportPorts<Target> {
  /** The save dialog, starting at `defaultPath`, offering `extension`; undefined when cancelled. */
  chooseFile(title: Text, defaultPath: string, filter: { name: string; extension: string }): PromiseLike<Target | undefined>;
  /** A folder dialog starting at `defaultPath`; undefined when cancelled. */
  chooseFolder(title: Text, defaultPath: string): PromiseLike<Target | undefined>;
  child(folder: Target, name: string): Target;
  /** The target's path on disk, to keep exports out of the novel folder. */
  pathOf(target: Target): string;
  exists(target: Target): PromiseLike<boolean>;
  makeFolder(target: Target): PromiseLike<void>;
  writeFile(target: Target, bytes: Uint8Array): PromiseLike<void>;
  /** Shows a file or folder in the system's file manager. */
  reveal(target: Target): PromiseLike<unknown>;
  now(): Date;
}

export interface ExportFlowDeps<Target> {
  readonly prompter: Prompter;
  readonly ports: ExportPorts<Target>;
  nameOf(target: Target): string;
  openDocument(target: Target): PromiseLike<unknown>;
  progress?<T>(title: Text, work: () => Promise<T>): PromiseLike<T>;
  /** Work a notification's button starts, kept by the caller for its `idle()`. */
  later(work: PromiseLike<unknown>, what: string): void;
  /** Says why the manuscript at the save cannot be read (the words Export Worldline as Manuscript uses). */
  unreadable(why: SaveUnreadable): void;
}

export const EXPORT_AS_TITLE = l10n.t('Export Worldline as…');

const FORMAT_ITEMS: readonly PickItem<ExportFormat>[] = [
  { label: literal(FORMAT_NAMES.markdown), description: literal('.md'), detail: l10n.t('One Markdown file: the whole book, as Export Worldline as Manuscript writes it'), value: 'markdown' },
  { label: literal(FORMAT_NAMES.docx), description: literal('.docx'), detail: l10n.t('One Word document: opens in Word, WPS and LibreOffice'), value: 'docx' },
  { label: literal(FORMAT_NAMES.epub), description: literal('.epub'), detail: l10n.t('An e-book for readers such as Apple Books, KOReader or Send to Kindle'), value: 'epub' },
  { label: literal(FORMAT_NAMES.txt), description: l10n.t('a folder of .txt files'), detail: l10n.t('One plain text file per chapter, as Chinese web-novel platforms take them'), value: 'txt' },
];

/** Which format; undefined when the pick was closed. */
export function pickFormat(prompter: Prompter): Promise<ExportFormat | undefined> {
  return prompter.pick(FORMAT_ITEMS.filter((i) => EXPORT_FORMATS.includes(i.value)), { title: EXPORT_AS_TITLE, matchOnDetail: true });
}

export interface ExportAsRequest<Target> {
  format: ExportFormat;
  saveName: string;
  /** The novel folder: the export goes beside it by default, never into the manuscript. */
  novelRoot: string;
  read(): Promise<SaveManuscript>;
  /** A file, or (TXT) the folder that gets the chapters' folder; asked for when undefined. */
  target?: Target;
}

/** The first of "name", "name (2)", "name (3)"… not yet in `folder`, so an earlier export is never mixed in. */
async function freshChild<Target>(ports: ExportPorts<Target>, folder: Target, name: string): Promise<Target | undefined> {
  for (let n = 1; n <= 100; n++) {
    const candidate = ports.child(folder, n === 1 ? name : `${name} (${n})`);
    if (!(await ports.exists(candidate))) return candidate;
  }
  return undefined;
}

/** True when `p` is the novel folder or inside it. */
function insideNovel(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Exports the save's manuscript in `format`; what was written (the file or the chapters' folder), or undefined. */
export async function exportAs<Target>(deps: ExportFlowDeps<Target>, request: ExportAsRequest<Target>): Promise<Target | undefined> {
  const { ports, prompter } = deps;
  const name = FORMAT_NAMES[request.format];
  const work = async () => {
    const read = await request.read();
    if (!read.ok) return { read, output: undefined };
    const input = { files: read.files, title: read.title, saveName: read.saveName, worldlineName: read.worldlineName, lang: read.lang };
    return { read, output: await renderExport(request.format, input, { now: ports.now() }) };
  };
  const progressTitle = l10n.t('Exporting "{0}" as {1}…', request.saveName, name);
  const { read, output } = await (deps.progress ? deps.progress(progressTitle, work) : work());
  if (!read.ok || !output) {
    if (!read.ok) deps.unreadable(read);
    return undefined;
  }
  if (output.chapters === 0 && request.format !== 'markdown') {
    void prompter.notify('info', l10n.t('The manuscript at this save has no chapter files, so there is nothing to export.'));
    return undefined;
  }
  const refuseInside = (): undefined => {
    // Its chapters would become manuscript files (the agent's, the checkpoints', the word count's).
    void prompter.notify('warning', l10n.t('That place is inside the novel folder, where the export would become part of the manuscript. Choose a place outside it.'));
    return undefined;
  };
  const beside = path.dirname(request.novelRoot);
  const count = output.chapters;
  try {
    if (output.kind === 'file') {
      const where = request.target ?? await ports.chooseFile(EXPORT_AS_TITLE, path.join(beside, `${read.baseName}.${output.extension}`), { name, extension: output.extension });
      if (!where) return undefined;
      if (insideNovel(request.novelRoot, ports.pathOf(where))) return refuseInside();
      await ports.writeFile(where, output.bytes);
      const file = deps.nameOf(where);
      const open = request.format === 'markdown' ? l10n.t('Open') : l10n.t('Show in Folder');
      deps.later(prompter.notify('info', ofCount(count, l10n.t('Exported {0} chapter to {1}.', count, file), l10n.t('Exported {0} chapters to {1}.', count, file)), open)
        .then((pick) => (pick?.message !== open.message ? undefined : request.format === 'markdown' ? deps.openDocument(where) : ports.reveal(where))), 'opening the export');
      return where;
    }
    const parent = request.target ?? await ports.chooseFolder(l10n.t('Export as TXT: a folder of chapters is made inside the folder you choose'), beside);
    if (!parent) return undefined;
    if (insideNovel(request.novelRoot, ports.pathOf(parent))) return refuseInside();
    const folder = await freshChild(ports, parent, read.baseName);
    if (!folder) {
      void prompter.notify('warning', l10n.t('That folder already holds 100 exports named "{0}". Choose another folder.', read.baseName));
      return undefined;
    }
    await ports.makeFolder(folder);
    for (const f of output.files) await ports.writeFile(ports.child(folder, f.name), f.bytes);
    const shown = deps.nameOf(folder);
    const reveal = l10n.t('Show in Folder');
    deps.later(prompter.notify('info', ofCount(count, l10n.t('Exported {0} chapter as a text file into the folder {1}.', count, shown), l10n.t('Exported {0} chapters as text files into the folder {1}.', count, shown)), reveal)
      .then((pick) => (pick?.message === reveal.message ? ports.reveal(folder) : undefined)), 'showing the export');
    return folder;
  } catch (err) {
    // The manuscript is untouched; only the export could not be written.
    void prompter.notify('error', l10n.t('The export could not be written: {0}. Your manuscript is unchanged; try another place.', err instanceof Error ? err.message : String(err)));
    return undefined;
  }
}
