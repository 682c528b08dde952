// Export Worldline as Manuscript, minus the dialogs: the book as it stood at a save, read from the
// checkpoint store at the save's checkpoint, as one Markdown document (export.ts), with the name
// the file is offered under. Plain TypeScript over the shadow repo (src/checkpoints).
import { CheckpointError, type CheckpointErrorKind, type ShadowRepo } from '../checkpoints';
import type { ProjectLanguage } from '../project/config';
import type { SaveEntry } from '../session/entries';
import { exportManuscript, type ManuscriptFile } from './export';
import { checkpointAtSave, savesOf, type SaveTree } from './saves';
import { displaySaveName, displayWorldlineName, type WorldlineSidecar } from './sidecar-data';

/** What reading old manuscript versions needs of the checkpoint store. */
export type ManuscriptHistory = Pick<ShadowRepo, 'filesAt' | 'readAt'>;

/** Every manuscript file at `commit`, with its text (a file that cannot be read there is left out). */
export async function manuscriptAt(repo: ManuscriptHistory, commit: string): Promise<ManuscriptFile[]> {
  const files: ManuscriptFile[] = [];
  for (const p of await repo.filesAt(commit)) {
    const text = await repo.readAt(commit, p);
    if (text !== undefined) files.push({ path: p, text });
  }
  return files;
}

export interface ExportSaveInput {
  tree: SaveTree;
  sidecar: WorldlineSidecar;
  save: SaveEntry;
  /** Undefined when checkpoints are off or unavailable: nothing can be exported. */
  repo: ManuscriptHistory | undefined;
  /** worldline.yaml's title ('' when it has none). */
  title: string;
  /** The book folder's name: the document's title when worldline.yaml has none. */
  folderName: string;
  lang: ProjectLanguage;
}

/** Why a save's manuscript cannot be read (every export format says the same). */
export type SaveUnreadable =
  /** The save has no checkpoint of the manuscript (or the store is unavailable). */
  | { ok: false; reason: 'no-checkpoint' }
  /** The save's checkpoint is no longer in the store (it was lost or rebuilt since). */
  | { ok: false; reason: 'lost' }
  /** The store could not be read (`kind`: why; src/story/problemWords.ts words it). */
  | { ok: false; reason: 'store'; kind: CheckpointErrorKind };

export type SaveExport =
  | { ok: true; markdown: string; files: number; worldlineName: string; saveName: string; fileName: string }
  | SaveUnreadable;

/** The manuscript at a save with the names an export shows: what every format starts from. */
export type SaveManuscript =
  | { ok: true; files: ManuscriptFile[]; worldlineName: string; saveName: string; title: string; lang: ProjectLanguage; baseName: string }
  | SaveUnreadable;

/** The manuscript files at the save's checkpoint, and the export's names (`baseName`: the file name without extension). */
export async function readSaveManuscript(input: ExportSaveInput): Promise<SaveManuscript> {
  const checkpoint = checkpointAtSave(input.tree, input.save.saveId);
  if (!checkpoint || !input.repo) return { ok: false, reason: 'no-checkpoint' };
  let files: ManuscriptFile[];
  try {
    files = await manuscriptAt(input.repo, checkpoint.commit);
  } catch (err) {
    if (!(err instanceof CheckpointError)) throw err;
    return err.kind === 'notFound' ? { ok: false, reason: 'lost' } : { ok: false, reason: 'store', kind: err.kind };
  }
  const worldlineName = lineName(input.tree, input.sidecar, input.save);
  const saveName = displaySaveName(input.sidecar, input.save);
  const baseName = safeFileName(`${input.title || 'novel'}-${worldlineName}-${saveName}`);
  return { ok: true, files, worldlineName, saveName, title: input.title || input.folderName, lang: input.lang, baseName };
}

export async function exportSave(input: ExportSaveInput): Promise<SaveExport> {
  const read = await readSaveManuscript(input);
  if (!read.ok) return read;
  const { files, worldlineName, saveName } = read;
  const markdown = exportManuscript({ files, title: read.title, saveName, worldlineName, lang: read.lang });
  return { ok: true, markdown, files: files.length, worldlineName, saveName, fileName: `${read.baseName}.md` };
}

/** The line's display name: the sidecar's rename, else the name its first save was written with (as the view shows it). */
function lineName(tree: SaveTree, sidecar: WorldlineSidecar, save: SaveEntry): string {
  const first = savesOf(tree).find((s) => s.worldlineId === save.worldlineId);
  return displayWorldlineName(sidecar, save.worldlineId, first?.worldlineName ?? save.worldlineName);
}

/** A file name every common file system accepts: no separators, reserved or control characters, at most 120 characters. */
export function safeFileName(name: string): string {
  return name.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').replace(/\s+/g, ' ').trim().slice(0, 120) || 'export';
}
