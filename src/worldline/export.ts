// "Export Worldline as Manuscript": the manuscript as it stood at a save, as one Markdown file.
// Pure: the caller reads the files at the save's checkpoint (see `checkpointAtSave`) and writes
// the result. The prose itself is copied unchanged apart from line endings and a leading BOM.

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

function titleBlock(input: ExportManuscriptInput): string {
  const title = cleanName(input.title) || (input.lang === 'zh' ? '未命名小说' : 'Untitled Novel');
  const line = cleanName(input.worldlineName);
  const save = cleanName(input.saveName);
  const where = input.lang === 'zh' ? `世界线「${line}」 · 存档「${save}」` : `Worldline "${line}" · save "${save}"`;
  return `# ${title}\n\n> ${where}`;
}

/**
 * One Markdown document: a title block, then every file in reading order ("2" before "10",
 * "第二章" before "第十章"). Each file is introduced by an HTML comment with its path (invisible when
 * rendered, there to trace a passage back to its file). A file that opens with its own heading
 * keeps it and gets no other; a file without one gets its file name as a heading, at the level the
 * other chapters use (2 when none has a heading, under the title).
 */
export function exportManuscript(input: ExportManuscriptInput): string {
  const files = [...input.files].sort((a, b) => compareReadingOrder(a.path, b.path)).map((f) => ({ path: f.path, text: normalize(f.text) }));
  const levels = files.map((f) => leadingHeadingLevel(f.text)).filter((l): l is number => l !== undefined);
  const headingLevel = levels.length > 0 ? Math.min(...levels) : 2;

  const parts = [titleBlock(input)];
  for (const f of files) {
    const block = [`<!-- ${commentSafe(f.path)} -->`];
    if (leadingHeadingLevel(f.text) === undefined) block.push(`${'#'.repeat(headingLevel)} ${cleanName(stem(f.path)) || f.path}`);
    if (f.text !== '') block.push(f.text);
    parts.push(block.join('\n\n'));
  }
  return `${parts.join('\n\n')}\n`;
}
