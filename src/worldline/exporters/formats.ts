// The formats of Export Worldline as…, and turning the manuscript at a save into one of them.
import { strToU8 } from 'fflate';
import { exportManuscript, type ExportManuscriptInput } from '../export';
import { bookOf } from './chapters';
import { exportDocx } from './docx';
import { exportEpub } from './epub';
import { exportTxt } from './txt';

export type ExportFormat = 'markdown' | 'docx' | 'epub' | 'txt';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['markdown', 'docx', 'epub', 'txt'];

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** The format's name as the novelist knows it (the same in every language). */
export const FORMAT_NAMES: Record<ExportFormat, string> = { markdown: 'Markdown', docx: 'DOCX', epub: 'EPUB', txt: 'TXT' };

/** One file, or (TXT) a folder of files. */
export type ExportOutput =
  | { kind: 'file'; extension: string; bytes: Uint8Array; chapters: number }
  | { kind: 'folder'; files: { name: string; bytes: Uint8Array }[]; chapters: number };

/** The export's bytes; `now` dates an EPUB. The Markdown is exactly what Export Worldline as Manuscript writes. */
export async function renderExport(format: ExportFormat, input: ExportManuscriptInput, options: { now: Date }): Promise<ExportOutput> {
  const chapters = input.files.length;
  switch (format) {
    case 'markdown':
      return { kind: 'file', extension: 'md', bytes: strToU8(exportManuscript(input)), chapters };
    case 'docx':
      return { kind: 'file', extension: 'docx', bytes: await exportDocx(bookOf(input)), chapters };
    case 'epub':
      return { kind: 'file', extension: 'epub', bytes: exportEpub(bookOf(input), { modified: options.now }), chapters };
    case 'txt':
      return { kind: 'folder', files: exportTxt(bookOf(input)).map((f) => ({ name: f.name, bytes: strToU8(f.text) })), chapters };
  }
}
