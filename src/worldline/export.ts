// "Export Worldline as Manuscript": the manuscript as it stood at a save, as one Markdown file: the
// book's title the one H1, each chapter an H2.
// Pure: the caller reads the files at the save's checkpoint (see `checkpointAtSave`) and writes
// the result. The prose itself is copied unchanged apart from line endings, a leading BOM and the
// levels of its headings.

import { compareReadingOrder } from '../agent/manuscript';
import type { ProjectLanguage } from '../project/config';
import { cleanName } from './names';

export interface ManuscriptFile {
  /** POSIX path relative to the novel folder. */
  path: string;
  text: string;
}

export interface ExportManuscriptInput {
  files: readonly ManuscriptFile[];
  title: string;
  saveName: string;
  worldlineName: string;
  lang: ProjectLanguage;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/** The level of the heading the text starts with (ATX or setext), or undefined. */
export function leadingHeadingLevel(text: string): number | undefined {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.trim() !== '');
  if (i < 0) return undefined;
  const atx = ATX.exec(lines[i] as string);
  if (atx) return (atx[1] as string).length;
  // A paragraph line underlined with === or --- is a heading; indented 4+ it would be code.
  const under = SETEXT.exec(lines[i + 1] ?? '');
  if (under && !/^ {4}/.test(lines[i] as string)) return (under[1] as string).startsWith('=') ? 1 : 2;
  return undefined;
}

function normalize(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return noBom.replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** "chapters/第二章.md" → "第二章": what a headless file is called in the export. */
function stem(p: string): string {
  const base = p.split('/').pop() ?? p;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** A path inside an HTML comment; "--" could end or break the comment. */
function commentSafe(p: string): string {
  return p.replace(/--/g, '-\u2010');
}

/** The book's title and the line under it saying which save (every format shows both). */
function titleAndWhere(input: ExportManuscriptInput): { title: string; where: string } {
  const title = cleanName(input.title) || (input.lang === 'zh' ? '未命名小说' : 'Untitled Novel');
  const line = cleanName(input.worldlineName);
  const save = cleanName(input.saveName);
  const where = input.lang === 'zh' ? `世界线「${line}」 · 存档「${save}」` : `Worldline "${line}" · save "${save}"`;
  return { title, where };
}

/** The level every chapter's heading has in the export: one under the book's title. */
export const CHAPTER_LEVEL = 2;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that cannot go on a paragraph: a list item, a quote, a table row begins its own block. */
const NOT_PARAGRAPH = /^ {0,3}(?:[-+*][ \t]|\d{1,9}[.)][ \t]|>|\|)/;
/** A thematic break (a scene break): ---, *** or ___ on a line of its own. */
const BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * Every heading of `text` moved `delta` levels and kept within CHAPTER_LEVEL..6, so that none
 * reaches the title's level (a stray H1 further down a chapter becomes an H2 even when `delta` is
 * 0). ATX headings get more or fewer `#`; a setext heading (a paragraph underlined with === or
 * ---) becomes an ATX heading of its text. Fenced code is left alone.
 */
export function shiftHeadings(text: string, delta: number): string {
  const level = (n: number) => Math.min(6, Math.max(CHAPTER_LEVEL, n + delta));
  const out: string[] = [];
  let fence: string | undefined;
  /** How many of the last lines in `out` are one paragraph (a setext underline makes them a heading). */
  let paragraph = 0;
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (fence !== undefined) {
      if (f && (f[1] as string)[0] === fence[0] && (f[1] as string).length >= fence.length) fence = undefined;
      out.push(line);
      continue;
    }
    if (f) {
      fence = f[1] as string;
      paragraph = 0;
      out.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const rest = line.slice(atx[0].length);
      out.push(`${'#'.repeat(level((atx[1] as string).length))}${rest === '' ? '' : ` ${rest}`}`);
      paragraph = 0;
      continue;
    }
    const under = SETEXT.exec(line);
    if (under && paragraph > 0) {
      const words = out.splice(out.length - paragraph, paragraph).map((l) => l.trim()).join(' ');
      out.push(`${'#'.repeat(level((under[1] as string).startsWith('=') ? 1 : 2))} ${words}`);
      paragraph = 0;
      continue;
    }
    if (line.trim() === '' || NOT_PARAGRAPH.test(line) || BREAK.test(line)) paragraph = 0;
    // An indented line goes on a paragraph; it does not begin one (that is code).
    else if (paragraph > 0 || !/^ {4}/.test(line)) paragraph++;
    out.push(line);
  }
  return out.join('\n');
}

/**
 * One Markdown document: the book's title as the one H1 with a line saying which save, then every
 * file in reading order ("2" before "10", "第二章" before "第十章"), each a chapter at H2. Each file
 * is introduced by an HTML comment with its path (invisible when rendered, there to trace a
 * passage back to its file). A file that opens with its own heading keeps it and gets no other;
 * a file without one gets its file name as its heading. The chapters' headings are moved together,
 * so the highest of them lands at H2 and each file keeps its inner levels.
 */
export function exportManuscript(input: ExportManuscriptInput): string {
  const book = manuscriptBook(input);
  const parts = [`# ${book.title}\n\n> ${book.where}`];
  for (const c of book.chapters) {
    const block = [`<!-- ${commentSafe(c.path)} -->`];
    if (c.heading !== undefined) block.push(`${'#'.repeat(CHAPTER_LEVEL)} ${c.heading}`);
    if (c.body !== '') block.push(c.body);
    parts.push(block.join('\n\n'));
  }
  return `${parts.join('\n\n')}\n`;
}

/** One manuscript file as every export format lays it out (src/worldline/exporters reads the same). */
export interface BookChapter {
  /** POSIX path relative to the novel folder. */
  path: string;
  /** The heading the export gives a file that opens without one (its file name); undefined when it has its own. */
  heading: string | undefined;
  /** The file's text without BOM, CRs and blank lines around it, its headings moved as `exportManuscript` says. */
  body: string;
}

export interface ManuscriptBook {
  title: string;
  /** Which worldline and save, in the book's language. */
  where: string;
  chapters: BookChapter[];
}

/** The decisions of `exportManuscript` (reading order, headings and their levels, the title) before any format. */
export function manuscriptBook(input: ExportManuscriptInput): ManuscriptBook {
  const files = [...input.files].sort((a, b) => compareReadingOrder(a.path, b.path)).map((f) => ({ path: f.path, text: normalize(f.text) }));
  const levels = files.map((f) => leadingHeadingLevel(f.text)).filter((l): l is number => l !== undefined);
  const delta = levels.length > 0 ? CHAPTER_LEVEL - Math.min(...levels) : 0;
  const chapters = files.map((f) => ({
    path: f.path,
    heading: leadingHeadingLevel(f.text) === undefined ? cleanName(stem(f.path)) || f.path : undefined,
    body: f.text === '' ? '' : shiftHeadings(f.text, delta),
  }));
  return { ...titleAndWhere(input), chapters };
}
