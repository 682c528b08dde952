// The book as DOCX, EPUB and TXT see it: the title, the line saying which save, and each chapter as
// headings, paragraphs and scene breaks. What the chapters are, their order, their headings and
// the headings' levels are the Markdown export's decisions (manuscriptBook in ../export.ts); this
// only splits each chapter's Markdown into blocks.
//
// Paragraphs: a blank line ends one (Markdown). A line that opens with a full-width space (the
// Chinese paragraph indent 　　) also begins one, and in a .txt chapter every line is one, as a
// writer of plain text means it. Other lines of one paragraph are joined as Markdown joins them:
// with a space, or with nothing where Chinese or Japanese meets (no stray spaces in Chinese).
// The prose is never changed otherwise: full-width punctuation and the leading 　 stay as text.
import { CHAPTER_LEVEL, manuscriptBook, type ExportManuscriptInput } from '../export';

export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string; quote: boolean }
  /** A scene break (---, *** or ___ on its own line). */
  | { kind: 'break' };

export interface Chapter {
  /** POSIX path of the manuscript file, relative to the novel folder. */
  path: string;
  /** The chapter's heading text (its first heading, or its file name when it opens without one). */
  title: string;
  /** Begins with the chapter's heading. */
  blocks: Block[];
}

export interface Book {
  title: string;
  /** Which worldline and save, in the book's language. */
  where: string;
  lang: ExportManuscriptInput['lang'];
  chapters: Chapter[];
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const QUOTE = /^ {0,3}> ?/;
const LIST = /^ {0,3}(?:[-+*][ \t]|\d{1,9}[.)][ \t])/;
const COMMENT = /^[ \t]*<!--.*-->[ \t]*$/;
/** Scripts written without spaces between words, and the full-width punctuation and spaces. */
const CLOSE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef\u2018-\u201f\u2026\u2014]/u;

/** Only ASCII blanks: trimEnd() would also take the full-width space a paragraph opens with. */
const stripEnd = (s: string): string => s.replace(/[ \t]+$/, '');

function joinLines(lines: readonly string[]): string {
  let out = '';
  for (const line of lines) {
    if (out === '') {
      out = line;
      continue;
    }
    const next = line.replace(/^[ \t]+/, '');
    out += CLOSE.test(out.slice(-1)) || CLOSE.test(next.charAt(0)) ? next : ` ${next}`;
  }
  return out;
}

/** The blocks of one chapter's Markdown (already normalized, its headings at their export levels). */
export function chapterBlocks(body: string, options: { linePerParagraph: boolean }): Block[] {
  const blocks: Block[] = [];
  let lines: string[] = [];
  let quote = false;
  const flush = (): void => {
    if (lines.length > 0) blocks.push({ kind: 'paragraph', text: joinLines(lines), quote });
    lines = [];
    quote = false;
  };
  let fence: string | undefined;
  for (const raw of body.split('\n')) {
    const f = FENCE.exec(raw);
    if (fence !== undefined) {
      if (f && (f[1] as string)[0] === fence[0] && (f[1] as string).length >= fence.length) fence = undefined;
      // Fenced text (rare in a novel: a letter, a sign) keeps its lines, one paragraph each.
      else if (raw.trim() !== '') blocks.push({ kind: 'paragraph', text: stripEnd(raw), quote: false });
      continue;
    }
    if (f) {
      flush();
      fence = f[1] as string;
      continue;
    }
    if (raw.trim() === '' || COMMENT.test(raw)) {
      flush();
      continue;
    }
    const atx = ATX.exec(raw);
    if (atx) {
      flush();
      blocks.push({ kind: 'heading', level: (atx[1] as string).length, text: atx[2] ?? '' });
      continue;
    }
    if (BREAK.test(raw)) {
      flush();
      blocks.push({ kind: 'break' });
      continue;
    }
    const q = QUOTE.exec(raw);
    const line = stripEnd(q ? raw.slice(q[0].length) : raw.replace(/^[ \t]+/, ''));
    if (line === '') {
      flush();
      continue;
    }
    // A quote and the prose around it are separate paragraphs, as are list items.
    if (lines.length > 0 && (quote !== (q !== null) || options.linePerParagraph || line.startsWith('\u3000') || LIST.test(raw))) flush();
    quote = q !== null;
    lines.push(line);
  }
  flush();
  return blocks;
}

/** The book: the Markdown export's title, chapters and headings, each chapter split into blocks. */
export function bookOf(input: ExportManuscriptInput): Book {
  const book = manuscriptBook(input);
  const chapters = book.chapters.map((c): Chapter => {
    const blocks: Block[] = c.heading !== undefined ? [{ kind: 'heading', level: CHAPTER_LEVEL, text: c.heading }] : [];
    blocks.push(...chapterBlocks(c.body, { linePerParagraph: /\.txt$/i.test(c.path) }));
    const first = blocks.find((b): b is Extract<Block, { kind: 'heading' }> => b.kind === 'heading');
    return { path: c.path, title: first?.text || c.path, blocks };
  });
  return { title: book.title, where: book.where, lang: input.lang, chapters };
}

/** Text that XML 1.0 can hold: control characters and lone surrogates dropped (they cannot be written). */
export function xmlSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
}
