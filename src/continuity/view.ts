// One file of this turn's prose as the rules read it: sentences, quotations blanked, name
// mentions per sentence, and which sentences hold a marker (memory, call, letter, dream), an
// arrival or a leaving. Also the confidence scale and the candidate list the rules share.
import type { Lang } from '../state/types';
import { alternation, EN_ARRIVAL, EN_LEAVE, EN_MARKERS, ZH_ARRIVAL, ZH_LEAVE, ZH_MARKERS } from './lexicon';
import type { NameMention, NameTable } from './names';
import { EN } from './prompts/en';
import type { CheckWords } from './prompts/words';
import { ZH } from './prompts/zh';
import { quoteMask, splitSentences, type Sentence } from './sentences';
import type { Candidate, CheckInput, Confidence } from './types';

export function wordsFor(lang: Lang): CheckWords {
  return lang === 'zh' ? ZH : EN;
}

const ZH_MARKER_RE = new RegExp(alternation(ZH_MARKERS));
/** Markers that open a span of other time (a flashback, a dream) that may run on for paragraphs; calls and letters do not. */
const SPAN_MARKER_RE = /想起|回忆|回想|忆起|当年|那年|那时|从前|小时候|梦见|梦里|梦中|梦到|多年前|年前|昔日|往事|彼时|\b(?:remembered|recalled|years ago|back then|long ago|in those days|dreamed|dreamt|dream|memory|memories)\b/i;
const ZH_ARRIVAL_RE = new RegExp(alternation(ZH_ARRIVAL));
const ZH_LEAVE_RE = new RegExp(alternation(ZH_LEAVE));
/** "if" only opening a clause: "ask if she wanted…" is no wish. */
const EN_MARKER_RE = new RegExp(`\\b(?:${alternation(EN_MARKERS)})\\b|(?:^|[,;:—]\\s*|\\bwhat\\s+)if\\b`, 'i');
const EN_ARRIVAL_RE = new RegExp(`\\b(?:${alternation(EN_ARRIVAL)})\\b`, 'i');
const EN_LEAVE_RE = new RegExp(`\\b(?:${alternation(EN_LEAVE)})\\b`, 'i');
/** 插了进来 is butting into a talk, not coming in. */
const NOT_ARRIVAL = /插了?进来|插话进来|想到了|说到了|听到了|看到了|做到了|找到了|得到了|遇到了|感到了|受到了/g;
const SAID_ARRIVAL = /我回来了|我到了|我来了|我来晚了|I['’]m back|I['’]m home|I['’]m here|I made it/i;

/** Text of `text` between start and end with everything inside quotation marks blanked out. */
function outsideQuotes(text: string, mask: Uint8Array, start: number, end: number): string {
  if (!mask.subarray(start, end).includes(1)) return text.slice(start, end);
  const parts: string[] = [];
  let from = start;
  for (let i = start; i < end; i++) {
    if (mask[i] !== 1) continue;
    parts.push(text.slice(from, i), ' ');
    from = i + 1;
  }
  parts.push(text.slice(from, end));
  return parts.join('');
}

export interface FileView {
  file: string;
  text: string;
  mask: Uint8Array;
  sentences: Sentence[];
  /** Each sentence with its quotations blanked, for marker and verb searches. */
  plain: string[];
  mentions: NameMention[];
  /** Sentence index of each mention. */
  mentionSentence: number[];
  /** Sentences holding a memory/call/letter/dream marker outside quotes. */
  marker: boolean[];
  /** Sentences holding a marker that opens a flashback or a dream. */
  spanMarker: boolean[];
  /** Sentences holding a word for arriving, and for leaving, outside quotes. */
  arrival: boolean[];
  leave: boolean[];
  /** Indexes into `mentions` per sentence. */
  bySentence: number[][];
}

export function sentenceIndexOf(sentences: readonly Sentence[], offset: number): number {
  let lo = 0;
  let hi = sentences.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = sentences[mid]!;
    if (offset < s.start) hi = mid - 1;
    else if (offset >= s.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

export function viewOf(file: string, text: string, table: NameTable, itemNames: readonly string[]): FileView {
  const mask = quoteMask(text);
  const sentences = splitSentences(text);
  const plain = sentences.map((s) => outsideQuotes(text, mask, s.start, s.end));
  const mentions = table.mentions(text);
  const mentionSentence = mentions.map((m) => sentenceIndexOf(sentences, m.start));
  // An item's own name is no marker (旧日记本 holds 日记, "the old diary" holds diary).
  const withoutItems = (p: string): string => itemNames.reduce((acc, n) => (n !== '' && acc.includes(n) ? acc.split(n).join(' ') : acc), p);
  const marker = plain.map((p) => {
    const q = itemNames.length > 0 ? withoutItems(p) : p;
    return ZH_MARKER_RE.test(q) || EN_MARKER_RE.test(q);
  });
  const spanMarker = plain.map((p, i) => marker[i] === true && SPAN_MARKER_RE.test(p));
  // An arrival may be said: 「我回来了。」, "I'm back."
  const arrival = plain.map((p, i) => ZH_ARRIVAL_RE.test(p.replace(NOT_ARRIVAL, '')) || EN_ARRIVAL_RE.test(p) || SAID_ARRIVAL.test(sentences[i]!.text));
  const leave = plain.map((p) => ZH_LEAVE_RE.test(p) || EN_LEAVE_RE.test(p));
  const bySentence: number[][] = sentences.map(() => []);
  mentionSentence.forEach((si, k) => {
    if (si >= 0) bySentence[si]!.push(k);
  });
  return { file, text, mask, sentences, plain, mentions, mentionSentence, marker, spanMarker, arrival, leave, bySentence };
}

/** 'low' when a marker is in the sentence, earlier in its paragraph or the sentence after; 'medium' when one is earlier in the prose. */
export function markerLevel(v: FileView, si: number): 'none' | 'near' | 'earlier' {
  const para = v.sentences[si]!.paragraph;
  if (v.marker[si]) return 'near';
  for (let j = si - 1; j >= 0 && v.sentences[j]!.paragraph === para; j--) if (v.marker[j]) return 'near';
  const next = v.sentences[si + 1];
  if (next && next.paragraph === para && v.marker[si + 1]) return 'near';
  // A flashback or dream may open a paragraph or two before: such a marker in the first sentence of one.
  for (let j = si - 1; j >= 0 && v.sentences[j]!.paragraph >= para - 2; j--) {
    if (v.spanMarker[j] && (j === 0 || v.sentences[j - 1]!.paragraph !== v.sentences[j]!.paragraph)) return 'earlier';
  }
  return 'none';
}

export function confidenceOf(strength: number, level: 'none' | 'near' | 'earlier'): Confidence {
  if (level === 'near') return 'low';
  if (level === 'earlier') return strength >= 2 ? 'medium' : 'low';
  return strength >= 2 ? 'high' : 'medium';
}

/** What every rule reads and writes. */
export interface Ctx {
  input: CheckInput;
  words: CheckWords;
  views: FileView[];
  out: Candidate[];
  seen: Set<string>;
}

export function push(ctx: Ctx, v: FileView, si: number, c: Omit<Candidate, 'file' | 'quote' | 'offset'>): void {
  const s = v.sentences[si]!;
  const key = `${c.type}\u0000${c.type === 'time-backwards' ? '' : c.subject}\u0000${v.file}\u0000${s.start}`;
  if (ctx.seen.has(key)) return;
  ctx.seen.add(key);
  const reason = c.confidence === 'low' ? `${c.reason} (${ctx.words.reasons.markerNear})` : c.reason;
  ctx.out.push({ ...c, reason, file: v.file, quote: s.text, offset: s.start });
}

/** An own property of a record (never the prototype's). */
export function own<T>(o: Record<string, T>, k: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}


/** The last name outside quotes in sentence `si` that ends before `offset`. */
export function nameBefore(v: FileView, si: number, offset: number): NameMention | undefined {
  let best: NameMention | undefined;
  for (const k of v.bySentence[si]!) {
    const m = v.mentions[k]!;
    if (v.mask[m.start] === 0 && m.end <= offset) best = m;
  }
  return best;
}

/** The first name outside quotes in sentence `si` that starts after `offset`. */
export function nameAfter(v: FileView, si: number, offset: number): NameMention | undefined {
  for (const k of v.bySentence[si]!) {
    const m = v.mentions[k]!;
    if (v.mask[m.start] === 0 && m.start > offset) return m;
  }
  return undefined;
}
