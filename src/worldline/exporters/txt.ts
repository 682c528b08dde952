// TXT per chapter, as Chinese web-novel platforms take a book: one UTF-8 file per chapter, its
// heading on the first line, then the paragraphs, a blank line between them. Each paragraph keeps
// the indent the chapter gives it (the leading 　　 stays; none is added where the chapter has
// none). The files are numbered so that a folder listing keeps the reading order.
import { safeFileName } from '../exportSave';
import type { Book, Chapter } from './chapters';

export interface TextFile {
  /** A file name (no folder), unique within the export. */
  name: string;
  text: string;
}

export const SCENE_BREAK = '* * *';

/** One chapter as plain text: every heading a line of its own, no Markdown marks left. */
export function chapterText(chapter: Chapter): string {
  const lines = chapter.blocks.map((b) => (b.kind === 'break' ? SCENE_BREAK : b.text));
  return `${lines.join('\n\n')}\n`;
}

/** The chapters as files "01 第一章 雨夜.txt", "02 …", in reading order. */
export function exportTxt(book: Book): TextFile[] {
  const width = Math.max(2, String(book.chapters.length).length);
  return book.chapters.map((c, i) => {
    const number = String(i + 1).padStart(width, '0');
    // safeFileName cuts at 120 characters; the number and extension stay.
    return { name: `${number} ${safeFileName(c.title).slice(0, 100)}.txt`, text: chapterText(c) };
  });
}
