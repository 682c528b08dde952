// Model-written text as it may appear in an injected block. Blocks are read line by line (by the
// model, and by people), so a string from a model must never add a line, reorder what is shown,
// or open like one of the block headers (【世界状态】, [Roster], 【本轮】, …).

/** Line and paragraph breaks and every other control: C0, DEL, C1 (NEL is U+0085), U+2028/2029. */
const BREAKS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029';
/** Bidi controls: ALM, LRM/RLM, embeddings and overrides, isolates. Invisible; they reorder the display. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

const HAS_UNSAFE = new RegExp(`[${BREAKS}${BIDI}]`, 'u');
const BIDI_ALL = new RegExp(`[${BIDI}]`, 'gu');

function isBreak(c: number): boolean {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029;
}

/** The 17 space separators (Unicode category Zs). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * `s` as one line: bidi controls are removed, every run of control characters (with the spaces
 * around it) becomes one space, and the result is trimmed. The one sanitiser for every
 * model-written string, at merge time and again when a block is printed. Linear: a regex such as
 * /\p{Zs}*[breaks]/ would rescan a long run of spaces from each of its positions.
 */
export function oneLine(s: string): string {
  // Most strings hold nothing to remove: one quick test spares the loop.
  if (!HAS_UNSAFE.test(s)) return s.trim();
  const t = s.replace(BIDI_ALL, '');
  let out = '';
  let kept = 0; // start of the text not yet copied to `out`
  for (let i = 0; i < t.length; i++) {
    if (!isBreak(t.charCodeAt(i))) continue;
    let end = i;
    while (end > kept && isSpace(t.charCodeAt(end - 1))) end--;
    let next = i + 1;
    while (next < t.length && (isBreak(t.charCodeAt(next)) || isSpace(t.charCodeAt(next)))) next++;
    out += `${t.slice(kept, end)} `;
    kept = next;
    i = next - 1;
  }
  return (out + t.slice(kept)).trim();
}

/** Characters the eye skips at the start of a line: spaces, controls, format and default-ignorable
 * characters (zero-width spaces and joiners, fillers), combining marks, the blank braille cell. */
const INVISIBLE_RUN = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{M}\u2800]+/u;

/**
 * What `s` visibly opens with: leading invisible characters dropped, full-width and presentation
 * forms folded (NFKC: ［ → [, ︻ → 【, ： → :), lower case. Only the first `n` characters are
 * folded, so the cost does not grow with the string.
 */
export function visibleStart(s: string, n = 16): string {
  const skip = INVISIBLE_RUN.exec(s)?.[0].length ?? 0;
  const head = s.slice(skip, skip + n).normalize('NFKC');
  return head.slice(INVISIBLE_RUN.exec(head)?.[0].length ?? 0).toLowerCase();
}

/**
 * Brackets a header opens with, and their look-alikes. Every header the program prints is
 * 【…】 or […], so the rule needs no list of headers, and covers headers added later.
 */
const HEADER_OPENER = /^[[【〖〔〘〚⟦⁅]/u;

/** Put in front of a string that opens like a header. Visible, so the string still reads as written. */
export const HEADER_MARK = '·';

/** True when `s` would open like a block header (after invisible characters, with look-alikes folded). */
export function opensLikeHeader(s: string): boolean {
  return HEADER_OPENER.test(visibleStart(s, 4));
}

/**
 * A model-written string as printed in a block: one line, with HEADER_MARK in front when it opens
 * like a header or with one of `labels` (a block's own line labels, e.g. "时间：", so a name that
 * starts a line cannot pass for the time line). The stored value is never changed: this runs
 * when the block is printed, so states stored before the rule are covered too.
 */
export function blockText(s: string, labels: readonly string[] = []): string {
  const line = oneLine(s);
  if (opensLikeHeader(line)) return HEADER_MARK + line;
  if (labels.length > 0) {
    const start = visibleStart(line);
    if (labels.some((l) => start.startsWith(l))) return HEADER_MARK + line;
  }
  return line;
}

/** Labels in the form visibleStart compares with (folded, lower case). */
export function foldLabels(labels: readonly string[]): string[] {
  return labels.map((l) => visibleStart(l.trim(), 64)).filter((l) => l !== '');
}

const JSON_UNSAFE = `[\\u007f-\\u009f\\u2028\\u2029${BIDI}]`;
const HAS_JSON_UNSAFE = new RegExp(JSON_UNSAFE, 'u');
const JSON_UNSAFE_ALL = new RegExp(JSON_UNSAFE, 'gu');

/**
 * JSON.stringify on one line. JSON escapes C0 controls but leaves DEL, C1 (NEL), U+2028/2029 and
 * bidi controls raw; they are written as \uXXXX here, so the text still parses to the same value.
 */
export function jsonLine(value: unknown): string {
  const s = JSON.stringify(value) ?? 'null';
  if (!HAS_JSON_UNSAFE.test(s)) return s;
  return s.replace(JSON_UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Multi-line model text placed under a heading (a summary): every kind of line break becomes
 * "\n", bidi controls go, and each line that opens like a header gets HEADER_MARK. Markdown
 * headings ("## 人物") are untouched.
 */
export function blockLines(text: string): string {
  return text
    .replace(BIDI_ALL, '')
    .replace(/\r\n?|[\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/g, '\n')
    .split('\n')
    .map((line) => (opensLikeHeader(line) ? HEADER_MARK + line : line))
    .join('\n');
}
