// The editor's writing tools (Rewrite, Expand, Shrink, Describe, Continue from Cursor, Send
// Selection to Chat), decided in the core: where the selection is in the file (1-based lines), a
// little text on either side so the new words fit, and the instruction the turn sends, in the
// project's language (it goes to the model as the novelist's words). The agent replaces exactly
// that passage with edit_file (src/agent/tools.ts: path, old_text, new_text). Pure.
import type { Lang } from '../state/types';

export type SelectionTool = 'rewrite' | 'expand' | 'shrink' | 'describe' | 'continue';

/** The selection in a document: the whole text and UTF-16 offsets, as the editor gives them. */
export interface SelectionInput {
  /** The manuscript file, relative to the novel folder, with "/" between folders. */
  readonly file: string;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** The passage a tool works on and its place in the file. */
export interface Passage {
  readonly file: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
  /** Up to CONTEXT_CHARS of the text right before and after it (for the seams only). */
  readonly before: string;
  readonly after: string;
  /**
   * Continue from Cursor: the new text goes after the passage ('after'), before it (the cursor is
   * above any text: 'before'), or the file holds no text at all ('empty').
   */
  readonly anchor: 'after' | 'before' | 'empty';
}

export type PassageResult = { ok: true; passage: Passage } | { ok: false; reason: 'emptySelection' };

/** Characters of context on either side: enough for the seam, not the chapter. */
export const CONTEXT_CHARS = 200;

/**
 * The passage of a selection. Rewrite, Expand, Shrink and Describe need selected text (not only
 * blanks); Continue from Cursor takes the selection, or with none the cursor's line (the nearest
 * line with text above it when that one is blank).
 */
export function passageOf(input: SelectionInput, tool: SelectionTool): PassageResult {
  const { text } = input;
  let start = clamp(Math.min(input.start, input.end), text.length);
  let end = clamp(Math.max(input.start, input.end), text.length);
  let anchor: Passage['anchor'] = 'after';
  if (text.slice(start, end).trim() === '') {
    if (tool !== 'continue') return { ok: false, reason: 'emptySelection' };
    const line = anchorLine(text, start);
    if (!line) return { ok: true, passage: { file: input.file, startLine: 1, endLine: 1, text: '', before: '', after: '', anchor: 'empty' } };
    ({ start, end } = line);
    anchor = line.above ? 'after' : 'before';
  }
  const startLine = lineAt(text, start);
  // A selection that ends at the start of a line (a whole line picked) ends on the line before.
  const endLine = lineAt(text, end > start ? end - 1 : end);
  return {
    ok: true,
    passage: {
      file: input.file, startLine, endLine, text: text.slice(start, end),
      before: text.slice(safeCut(text, Math.max(0, start - CONTEXT_CHARS), 1), start),
      after: text.slice(end, safeCut(text, Math.min(text.length, end + CONTEXT_CHARS), -1)),
      anchor,
    },
  };
}

/** "lines 3–5" / "第 3–5 行" (one line: "line 3" / "第 3 行"). */
export function linesLabel(passage: Pick<Passage, 'startLine' | 'endLine'>, lang: Lang): string {
  const one = passage.startLine === passage.endLine;
  if (lang === 'zh') return one ? `第 ${passage.startLine} 行` : `第 ${passage.startLine}–${passage.endLine} 行`;
  return one ? `line ${passage.startLine}` : `lines ${passage.startLine}–${passage.endLine}`;
}

/** What each tool asks for, in the words the model reads. */
const ASKS: Record<SelectionTool, Record<Lang, string>> = {
  rewrite: {
    zh: '请改写这段文字：保留发生的事和在场的人物，换一种写法。',
    en: 'Rewrite this passage: keep what happens and who is in it, and write it anew.',
  },
  expand: {
    zh: '请扩写这段文字，写到原来的两倍左右：加入细节、动作、神态与对话，不要推进到后文的情节。',
    en: 'Expand this passage to about twice its length: add detail, gesture, expression and dialogue, without moving on to what comes after it.',
  },
  shrink: {
    zh: '请精简这段文字，缩到原来的一半左右：保留关键的情节与对话，去掉重复与拖沓。',
    en: 'Tighten this passage to about half its length: keep the key events and lines of dialogue, cut repetition and slack.',
  },
  describe: {
    zh: '请为这段文字加入感官描写（所见、所闻、气味、触感、滋味），让场景可感；情节与对白不变。',
    en: 'Add sensory description to this passage (sight, sound, smell, touch, taste) so the scene can be felt; keep the events and the dialogue as they are.',
  },
  continue: {
    zh: '请从这段文字之后接着往下写一段，与前文衔接，文风一致。',
    en: 'Continue the story from the end of this passage with a new stretch of prose that follows on from it in the same style.',
  },
};

/**
 * The instruction of a tool on a passage: what to do, the passage quoted with its place and a
 * little text either side, and how to write it back (edit_file on exactly that passage, the rest
 * of the file unchanged). `note`: the novelist's own words for Rewrite (empty: a plain rewrite).
 */
export function selectionInstruction(tool: SelectionTool, passage: Passage, lang: Lang, note?: string): string {
  const extra = note?.trim() ?? '';
  const zh = lang === 'zh';
  const ask = ASKS[tool][lang] + (extra === '' ? '' : zh ? `要求：${extra}` : ` The novelist asks: ${extra}`);
  const where = zh ? `${passage.file} ${linesLabel(passage, lang)}` : `${passage.file}, ${linesLabel(passage, lang)}`;
  const parts: string[] = [];
  if (passage.anchor === 'empty') {
    parts.push(zh ? `${ask}\n${passage.file} 还没有正文：用 append_file 把新写的文字写进这个文件（path 为 "${passage.file}"）。` : `${ask}\n${passage.file} has no text yet: write the new prose into it with append_file (path "${passage.file}").`);
    return parts.join('\n');
  }
  parts.push(zh ? `${ask}\n位置：${where}。` : `${ask}\nWhere: ${where}.`);
  parts.push(zh ? '【原文开始】' : '--- passage ---', passage.text, zh ? '【原文结束】' : '--- end of passage ---');
  if (passage.before.trim() !== '') parts.push(zh ? '【前文，仅供衔接，不要修改】' : '--- text just before it (for the seam only; do not change it) ---', `…${passage.before}`);
  if (passage.after.trim() !== '') parts.push(zh ? '【后文，仅供衔接，不要修改】' : '--- text just after it (for the seam only; do not change it) ---', `${passage.after}…`);
  parts.push(howToWrite(tool, passage, lang));
  return parts.join('\n');
}

/** The edit_file call the instruction asks for: old_text the passage exactly, new_text the new words. */
function howToWrite(tool: SelectionTool, passage: Passage, lang: Lang): string {
  const file = passage.file;
  if (lang === 'zh') {
    const newText = tool !== 'continue' ? '改写后的文字'
      : passage.anchor === 'before' ? '新写的文字加上原文（原文一字不改）' : '原文（一字不改）加上新写的文字';
    return `用 edit_file 写回：path 为 "${file}"，old_text 为【原文开始】与【原文结束】之间的全部文字（逐字一致，包括标点和换行），new_text 为${newText}。`
      + '若这段文字在文件里出现不止一次，把紧挨着的前后句也放进 old_text 和 new_text。只改这一处，文件其余部分保持原样；新文字要与前后文自然衔接。';
  }
  const newText = tool !== 'continue' ? 'the new version of the passage'
    : passage.anchor === 'before' ? 'the new prose followed by the passage, unchanged' : 'the passage, unchanged, followed by the new prose';
  return `Write it back with edit_file: path "${file}", old_text exactly the text between the passage markers (every character, punctuation and line breaks included), new_text ${newText}. `
    + 'If that text occurs more than once in the file, include the neighbouring sentence in both old_text and new_text. Change only this place and leave the rest of the file as it is; the new words should join the text around them.';
}

/** Send Selection to Chat: the passage quoted with its place, ready for the novelist's words after it. */
export function chatQuote(passage: Passage, lang: Lang): string {
  const head = lang === 'zh' ? `${passage.file} ${linesLabel(passage, lang)}：` : `${passage.file}, ${linesLabel(passage, lang)}:`;
  const quoted = passage.text.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n').map((l) => (l === '' ? '>' : `> ${l}`));
  return `${head}\n${quoted.join('\n')}\n\n`;
}

/** The 1-based line of an offset: one more than the line breaks before it. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The cursor's line when it has text, else the nearest one with text above (`above`), else below; none in a blank file. */
function anchorLine(text: string, offset: number): { start: number; end: number; above: boolean } | undefined {
  const lines = linesOf(text);
  const at = lineAt(text, offset) - 1;
  for (let i = at; i >= 0; i--) if (lines[i]!.text.trim() !== '') return { ...lines[i]!, above: true };
  for (let i = at + 1; i < lines.length; i++) if (lines[i]!.text.trim() !== '') return { ...lines[i]!, above: false };
  return undefined;
}

/** Each line's offsets, without its line break (a CRLF's \r stays out too). */
function linesOf(text: string): { start: number; end: number; text: string }[] {
  const out: { start: number; end: number; text: string }[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const stop = nl < 0 ? text.length : nl;
    const end = stop > start && text[stop - 1] === '\r' ? stop - 1 : stop;
    out.push({ start, end, text: text.slice(start, end) });
    if (nl < 0) return out;
    start = nl + 1;
  }
}

function clamp(offset: number, length: number): number {
  return Math.max(0, Math.min(length, Number.isFinite(offset) ? Math.floor(offset) : 0));
}

/** A cut that does not split a surrogate pair (an emoji, a rare CJK character): moved by `by` off its low half, so the context only shrinks. */
function safeCut(text: string, at: number, by: 1 | -1): number {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff ? at + by : at;
}
