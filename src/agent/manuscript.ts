// Small text helpers shared by the tools, the chat view and the status bar. Pure functions: no
// file system, no `vscode`. What counts as a manuscript file is decided in src/project/manuscript.ts.
export { isReservedSegment, RESERVED_SEGMENTS } from '../project/manuscript';

export type Lang = 'zh' | 'en';

// Han ideographs and kana are counted one each (the 字数 convention); Hangul is written with spaces,
// so it is counted in words like Latin text.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const WORD = /[\p{L}\p{N}\p{M}]+(?:['’\-][\p{L}\p{N}\p{M}]+)*/gu;

/** Words for the status bar: every CJK character counts one, plus each run of letters/digits. */
export function countWords(text: string): number {
  let cjk = 0;
  const rest = text.replace(CJK, () => {
    cjk++;
    return ' ';
  });
  let words = 0;
  for (const _ of rest.matchAll(WORD)) words++;
  return cjk + words;
}

/** Length in Unicode code points, so an emoji or a rare CJK character counts as one. */
export function charCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Lines as an editor shows them: a final newline does not start an extra line; "" has 0 lines. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** "\r\n" when the text uses CRLF line endings (the first line break decides), else "\n". */
export function detectEol(text: string): '\n' | '\r\n' {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

/** Rewrites every line break in `text` to `eol`, so model text (always LF) fits a CRLF file. */
export function withEol(text: string, eol: '\n' | '\r\n'): string {
  const lf = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

/** 1204 → "1,204" (fixed format: no locale dependence in tool results or tests). */
export function formatCount(n: number): string {
  const s = String(Math.abs(Math.trunc(n)));
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

const CN_DIGITS: Record<string, number> = {
  零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9,
};
const CN_UNITS: Record<string, number> = { 十: 10, 百: 100, 千: 1000, 万: 10000 };

/** "十二" → 12, "一百零五" → 105, "二〇二" → 202; undefined when the run is not a number. */
export function parseChineseNumber(s: string): number | undefined {
  if (s === '') return undefined;
  if (![...s].some((c) => c in CN_UNITS)) {
    // Digit-by-digit form, as in "二〇二".
    let v = 0;
    for (const c of s) {
      const d = CN_DIGITS[c];
      if (d === undefined) return undefined;
      v = v * 10 + d;
    }
    return v;
  }
  let total = 0;
  let section = 0;
  let digit = -1;
  for (const c of s) {
    const d = CN_DIGITS[c];
    if (d !== undefined) {
      digit = d;
      continue;
    }
    const unit = CN_UNITS[c];
    if (unit === undefined) return undefined;
    if (unit === 10000) {
      section = (section + Math.max(digit, 0)) * unit;
      total += section;
      section = 0;
    } else {
      section += (digit < 0 ? 1 : digit) * unit; // "十二": a bare 十 means 一十
    }
    digit = -1;
  }
  return total + section + Math.max(digit, 0);
}

type Chunk = { num: number; text: string } | { num: undefined; text: string };

const CHUNK = /(\d+)|([零〇一二两三四五六七八九十百千万]+)|([^\d零〇一二两三四五六七八九十百千万]+)/gu;

function chunks(s: string): Chunk[] {
  const out: Chunk[] = [];
  for (const m of s.matchAll(CHUNK)) {
    if (m[1] !== undefined) out.push({ num: Number(m[1]), text: m[1] });
    else if (m[2] !== undefined) {
      const n = parseChineseNumber(m[2]);
      out.push(n === undefined ? { num: undefined, text: m[2] } : { num: n, text: m[2] });
    } else out.push({ num: undefined, text: m[0] });
  }
  return out;
}

function compareSegment(a: string, b: string): number {
  const ca = chunks(a);
  const cb = chunks(b);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i] as Chunk;
    const y = cb[i] as Chunk;
    if (x.num !== undefined && y.num !== undefined) {
      if (x.num !== y.num) return x.num - y.num;
      continue;
    }
    // Numbers sort before words; comparing a number's digits with letters would not be transitive.
    if (x.num !== undefined) return -1;
    if (y.num !== undefined) return 1;
    const xl = x.text.toLowerCase();
    const yl = y.text.toLowerCase();
    if (xl !== yl) return xl < yl ? -1 : 1;
  }
  if (ca.length !== cb.length) return ca.length - cb.length;
  return a < b ? -1 : a > b ? 1 : 0; // deterministic tie-break ("01" vs "1", letter case)
}

/**
 * Reading order for manuscript paths: folder by folder, numbers compared by value, so "2.md" comes
 * before "10.md" and "第二章.md" before "第十章.md".
 */
export function compareReadingOrder(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const c = compareSegment(sa[i] as string, sb[i] as string);
    if (c !== 0) return c;
  }
  return sa.length - sb.length;
}

/** Start offsets of every occurrence of `needle`, overlapping ones included (they are ambiguous too). */
export function findOccurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  if (needle === '') return out;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) out.push(i);
  return out;
}

/** 1-based line number of a character offset. */
export function lineAtOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function bigrams(s: string): Map<string, number> {
  const chars = [...s.replace(/\s+/gu, ' ').trim().toLowerCase()];
  const m = new Map<string, number>();
  if (chars.length === 1) m.set(chars[0] as string, 1);
  for (let i = 0; i + 1 < chars.length; i++) {
    const g = `${chars[i]}${chars[i + 1]}`;
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/**
 * How much of `probe` shows up in `line`, 0..1, by character bigrams (works for CJK, which has no
 * spaces). Dice when the lengths are alike; when the line is longer (a paragraph that contains the
 * passage), the share of the probe's bigrams found in it.
 */
export function similarity(probe: string, line: string): number {
  const x = bigrams(line);
  const y = bigrams(probe);
  let nx = 0;
  let ny = 0;
  let both = 0;
  for (const v of x.values()) nx += v;
  for (const [g, v] of y) {
    ny += v;
    both += Math.min(v, x.get(g) ?? 0);
  }
  if (ny === 0 || nx === 0) return 0;
  return nx > ny * 1.5 ? both / ny : (2 * both) / (nx + ny);
}

/**
 * The line of `text` most like the longest line of `wanted`, for "not found" hints. Undefined when
 * nothing is at least `min` similar.
 */
export function closestLine(text: string, wanted: string, min = 0.6): { line: number; text: string } | undefined {
  const probe = splitLines(wanted).reduce((a, b) => (b.trim().length > a.trim().length ? b : a), '').trim();
  if (probe === '') return undefined;
  let best: { line: number; text: string; score: number } | undefined;
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    const score = line.includes(probe) ? 1 : similarity(probe, line);
    if (score >= min && (!best || score > best.score)) best = { line: i + 1, text: line, score };
  }
  return best && { line: best.line, text: best.text };
}

/** The first `max` characters of a line for quoting in a message, with "…" when cut. */
export function snippet(s: string, max = 120): string {
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : s;
}
