// Cuts story text into recall-sized pieces. Chinese-aware: sentences end at 。！？!?… (with any
// closing quotes after them) or at a line break; an English "." ends one only before a space.
// Sentences are packed up to a target size; one longer than the maximum is cut at a comma. The
// next chunk repeats the previous chunk's last short sentence, so a line that straddles two chunks
// is still found whole. A chunk never mixes text from two entries: its nodeId is the only entry
// its text came from, which is what makes the branch filter exact.
import { clip } from '../state/json';
import type { SourceText } from './types';

export interface ChunkOptions {
  /** Preferred chunk size in characters; default 400. */
  target?: number;
  /** Hard upper size; default 500. */
  max?: number;
  /** Most characters repeated from the previous chunk; default 80. */
  overlap?: number;
  /** Shorter chunks hold nothing worth recalling; default 10. */
  minChars?: number;
}

export const CHUNK_DEFAULTS = { target: 400, max: 500, overlap: 80, minChars: 10 } as const;

const ENDS = new Set(Array.from('。！？!?…；'));
const CLOSERS = new Set(Array.from('」』”’"\'）)】》'));
const SOFT_BREAKS = new Set(Array.from('，,、；;：: '));

/** Sentences with their trailing punctuation, closing quotes and whitespace. */
export function splitSentences(text: string): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    cur += ch;
    const next = chars[i + 1];
    const isEnd = ch === '\n' || ENDS.has(ch) || (ch === '.' && (next === undefined || /\s/.test(next) || CLOSERS.has(next)));
    if (!isEnd) continue;
    while (i + 1 < chars.length && (ENDS.has(chars[i + 1] as string) || CLOSERS.has(chars[i + 1] as string) || /\s/.test(chars[i + 1] as string))) {
      cur += chars[++i] as string;
    }
    out.push(cur);
    cur = '';
  }
  if (cur !== '') out.push(cur);
  return out;
}

/** Pieces of at most `max` characters, cut after a comma when one is near the end. */
function hardSplit(sentence: string, max: number): string[] {
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > max) {
    let piece = clip(rest, max);
    const chars = Array.from(piece);
    for (let j = chars.length - 1; j >= Math.floor(chars.length / 2); j--) {
      if (SOFT_BREAKS.has(chars[j] as string)) {
        piece = chars.slice(0, j + 1).join('');
        break;
      }
    }
    out.push(piece);
    rest = rest.slice(piece.length);
  }
  if (rest !== '') out.push(rest);
  return out;
}

export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const max = Math.max(20, options.max ?? CHUNK_DEFAULTS.max);
  const target = Math.min(max, Math.max(10, options.target ?? CHUNK_DEFAULTS.target));
  const overlap = Math.max(0, Math.min(options.overlap ?? CHUNK_DEFAULTS.overlap, Math.floor(target / 2)));
  const minChars = options.minChars ?? CHUNK_DEFAULTS.minChars;
  const sentences = splitSentences(text).flatMap((s) => (s.length > max ? hardSplit(s, max) : [s]));

  const chunks: string[] = [];
  let cur: string[] = [];
  let curLen = 0;
  let fresh = 0; // sentences in `cur` that are not overlap
  const emit = (): void => {
    const t = cur.join('').trim();
    if (fresh > 0 && t.length >= minChars) chunks.push(t);
    // Carry the last sentence over when it is short: the overlap.
    const last = cur[cur.length - 1];
    cur = last !== undefined && last.trim().length <= overlap && fresh > 0 ? [last] : [];
    curLen = cur.length > 0 ? (cur[0] as string).length : 0;
    fresh = 0;
  };
  for (const s of sentences) {
    const fits = curLen + s.length <= target || (curLen < target / 2 && curLen + s.length <= max);
    if (!fits && fresh > 0) emit();
    if (curLen + s.length > max) {
      cur = [];
      curLen = 0;
    }
    cur.push(s);
    curLen += s.length;
    fresh++;
  }
  if (fresh > 0) emit();
  return chunks;
}

/** Chunks each source on its own, so every chunk keeps the nodeId of the one entry it came from. */
export function chunkSources(sources: readonly SourceText[], options: ChunkOptions = {}): SourceText[] {
  const out: SourceText[] = [];
  for (const s of sources) {
    for (const text of chunkText(s.text, options)) out.push({ nodeId: s.nodeId, role: s.role, text });
  }
  return out;
}
