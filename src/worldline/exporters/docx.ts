// DOCX through the `docx` library. The book's title is a Heading 1 and each chapter's heading a
// Heading 2, as in the Markdown export (deeper headings follow), so Word's navigation pane lists
// the chapters; each chapter begins on a new page. The paragraph indent stays what the chapter
// has: a leading 　　 is kept as text, two full-width spaces wide in any font, and no first-line
// indent is added on top (a chapter written without one stays without one).
import type { Paragraph as DocxParagraph } from 'docx';
import { xmlSafe, type Block, type Book } from './chapters';
import { SCENE_BREAK } from './txt';

type DocxLibrary = typeof import('./docxLibrary');

function paragraphOf(lib: DocxLibrary, block: Block, chapterStart: boolean): DocxParagraph {
  const { AlignmentType, HeadingLevel, Paragraph, TextRun } = lib;
  if (block.kind === 'heading') {
    const levels = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6] as const;
    const heading = levels[Math.min(6, Math.max(1, block.level)) - 1];
    return new Paragraph({ heading, pageBreakBefore: chapterStart, children: [new TextRun(xmlSafe(block.text))] });
  }
  if (block.kind === 'break') return new Paragraph({ alignment: AlignmentType.CENTER, pageBreakBefore: chapterStart, children: [new TextRun(SCENE_BREAK)] });
  return new Paragraph({ pageBreakBefore: chapterStart, indent: block.quote ? { left: 720 } : undefined, children: [new TextRun(xmlSafe(block.text))] });
}

/** The .docx file's bytes. */
export async function exportDocx(book: Book): Promise<Uint8Array> {
  const lib = await import('./docxLibrary');
  const { Document, HeadingLevel, Packer, Paragraph, TextRun } = lib;
  const children: DocxParagraph[] = [
    new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(xmlSafe(book.title))] }),
    new Paragraph({ children: [new TextRun({ text: xmlSafe(book.where), italics: true })] }),
  ];
  for (const chapter of book.chapters) {
    chapter.blocks.forEach((b, i) => children.push(paragraphOf(lib, b, i === 0)));
  }
  const zh = book.lang === 'zh';
  const doc = new Document({
    title: xmlSafe(book.title),
    creator: 'Worldline',
    styles: { default: { document: { run: { language: { value: zh ? 'zh-CN' : 'en-US', eastAsia: 'zh-CN' } } } } },
    sections: [{ children }],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}
