// The first words of a text, for a one-line choice (a picker item, a tree row's tooltip): line
// breaks, controls and runs of spaces become one space, bidi controls go (they reorder what is
// shown), and it is cut at about `width` columns with an ellipsis. A CJK character is as wide as
// two Latin letters in the editor's fonts, so it counts two columns: 40 columns hold 40 letters
// or 20 汉字. Grapheme clusters are never split (an emoji with its modifiers, a letter with its
// accents). Bounded work: only the head of a long chapter is read.

/** Controls (C0, DEL, C1) and the line/paragraph separators: each becomes a space. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;
/** Bidi controls: invisible, and they reorder the display. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const SPACES = /\s+/gu;
/** East Asian wide and fullwidth characters, and emoji pictographs: two columns. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60\uffe0-\uffe6\p{Extended_Pictographic}]/u;

const ELLIPSIS = '…';

let segmenter: Intl.Segmenter | undefined;

export interface FirstWordsOptions {
  /** Columns to fill, the ellipsis included; default 40. */
  readonly width?: number;
}

/** `text` as one short line: its first words, with "…" when something was cut. '' for blank text. */
export function firstWords(text: string, options: FirstWordsOptions = {}): string {
  const width = Math.max(2, options.width ?? 40);
  // Each column is at most a few UTF-16 units (a cluster), and spaces collapse: a head this long
  // is always enough to fill the width and to know whether anything follows.
  const head = text.slice(0, width * 16 + 64);
  const line = head.replace(BIDI, '').replace(CONTROLS, ' ').replace(SPACES, ' ').trim();
  const cut = head.length < text.length && /\S/u.test(text.slice(head.length));
  const kept: { segment: string; w: number }[] = [];
  let used = 0;
  /** The first segment left out, once something is. */
  let next: string | undefined;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(line)) {
    const w = WIDE.test(segment) ? 2 : 1;
    if (used + w > width) {
      next = segment;
      break;
    }
    used += w;
    kept.push({ segment, w });
  }
  if (next === undefined && !cut) return kept.map((k) => k.segment).join('');
  // Something is left over: make room for the ellipsis (one column).
  while (kept.length > 0 && used + 1 > width) {
    const dropped = kept.pop() as { segment: string; w: number };
    used -= dropped.w;
    next = dropped.segment;
  }
  return `${trimCut(kept.map((k) => k.segment).join(''), next)}${ELLIPSIS}`;
}

/**
 * A cut inside a word of a spaced language goes back to the last space when one is near (in the
 * last third), so the line ends on a whole word; CJK text has no spaces and is cut where it ends.
 */
function trimCut(s: string, next: string | undefined): string {
  const t = s.trimEnd();
  if (t.length < s.length || next === ' ') return t; // the cut fell between words
  const space = t.lastIndexOf(' ');
  return space > (t.length * 2) / 3 ? t.slice(0, space) : t;
}
