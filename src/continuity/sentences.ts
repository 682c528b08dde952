// Prose cut into sentences with their offsets, and where its quotations are. A sentence ends at
// 。！？…； or a line break, or at an English . ! ? followed by space (not after Mr, Dr, St… or
// an initial). A quotation (「」『』“”, or "…" within a paragraph) stays inside its sentence, and
// so does the attribution after it: 「你来了。」青梧道。 is one sentence, as is "Go," Elara said.
// A line break always ends a sentence, so an unclosed quote cannot swallow the chapter.

export interface Sentence {
  /** Exactly `text.slice(start, end)` of the prose it came from; never empty or only space. */
  text: string;
  start: number;
  end: number;
  /** Index of its paragraph (line-break separated) in the prose. */
  paragraph: number;
}

const OPEN_CLOSE: Readonly<Record<string, string>> = { '「': '」', '『': '』', '“': '”', '‘': '’', '《': '》' };
const CLOSERS = new Set(['」', '』', '”', '’', '》', '"', ')', '）', "'"]);
const ZH_END = new Set(['。', '！', '？', '；', '…', '!', '?', '．']);
/** Words whose full stop does not end an English sentence. */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'sr', 'jr', 'prof', 'capt', 'col', 'gen', 'lt', 'sgt', 'mt', 'vs', 'etc', 'no', 'rev', 'fr', 'hon', 'e.g', 'i.e', 'cf', 'approx', 'dept', 'ft', 'sq', 'ave']);

/**
 * Which code units are inside a quotation (the marks themselves included): 1 inside, 0 outside.
 * Nested CJK quotes are tracked with a stack; ASCII " toggles; both reset at each line break.
 */
export function quoteMask(text: string): Uint8Array {
  const mask = new Uint8Array(text.length);
  const stack: number[] = [];
  let ascii = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      stack.length = 0;
      ascii = false;
      continue;
    }
    if (c >= 0x2018) {
      const close = c === 0x300c ? 0x300d : c === 0x300e ? 0x300f : c === 0x201c ? 0x201d : c === 0x300a ? 0x300b : 0;
      if (close !== 0) {
        stack.push(close);
        mask[i] = 1;
        continue;
      }
      if (stack.length > 0 && c === stack[stack.length - 1]) {
        stack.pop();
        mask[i] = 1;
        continue;
      }
    }
    if (c === 0x22) {
      ascii = !ascii;
      mask[i] = 1;
      continue;
    }
    if (stack.length > 0 || ascii) mask[i] = 1;
  }
  return mask;
}

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\u3000' || ch === '\u00a0';
}

/** Whether the '.' at `i` ends an English sentence. */
function periodEnds(text: string, i: number): boolean {
  const next = text[i + 1];
  if (next === undefined) return true;
  if (next === '.') return false; // an ellipsis "..." ends at its last dot
  if (!isSpace(next) && next !== '\n' && !CLOSERS.has(next)) return false; // 3.14, e.g., a.m.
  let w = i;
  while (w > 0 && /[A-Za-z.]/.test(text[w - 1]!)) w--;
  const word = text.slice(w, i).toLowerCase();
  if (ABBREVIATIONS.has(word)) return false;
  if (/^[a-z]$/i.test(word) && /[A-Z]/.test(text[w] ?? '')) return false; // an initial: J. R. Tolkien
  return true;
}

/** The sentences of `text`, in order, each with its offsets; leading and trailing space left out. */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  const mask = quoteMask(text);
  let paragraph = 0;
  let start = 0;
  const emit = (end: number): void => {
    let s = start;
    let e = end;
    while (s < e && (isSpace(text[s]) || text[s] === '\n')) s++;
    while (e > s && (isSpace(text[e - 1]) || text[e - 1] === '\n')) e--;
    if (e > s) out.push({ text: text.slice(s, e), start: s, end: e, paragraph });
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      emit(i);
      start = i + 1;
      paragraph++;
      continue;
    }
    if (mask[i] === 1) {
      // The end of a quotation: an opening quote right after starts the next sentence (「走吧。」「好。」).
      if (CLOSERS.has(ch) && (ZH_END.has(text[i - 1] ?? '') || text[i - 1] === '.')) {
        let j = i + 1;
        while (j < text.length && isSpace(text[j])) j++;
        const next = text[j];
        if (next !== undefined && (OPEN_CLOSE[next] !== undefined || (next === '"' && mask[j] === 1 && ch === '"'))) emit(i + 1);
      }
      continue;
    }
    let end = -1;
    if (ZH_END.has(ch)) {
      end = i + 1;
      while (end < text.length && (ZH_END.has(text[end]!) || text[end] === '.')) end++;
    } else if (ch === '.' && periodEnds(text, i)) end = i + 1;
    if (end === -1) continue;
    while (end < text.length && CLOSERS.has(text[end]!) && mask[end] === 0) end++;
    emit(end);
    i = end - 1;
  }
  emit(text.length);
  return out;
}

/** Clauses of one sentence (split at ，,、：; outside quotes), offsets in the prose. */
export function splitClauses(text: string, sentence: Sentence, mask: Uint8Array): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let s = sentence.start;
  for (let i = sentence.start; i < sentence.end; i++) {
    const ch = text[i]!;
    if (mask[i] === 0 && (ch === '，' || ch === ',' || ch === '、' || ch === '：' || ch === ';' || ch === ':')) {
      if (i + 1 > s) out.push({ start: s, end: i + 1 });
      s = i + 1;
    }
  }
  if (sentence.end > s) out.push({ start: s, end: sentence.end });
  return out;
}
