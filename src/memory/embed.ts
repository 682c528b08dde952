// Embedders. The interface is what the store and recall need; `localEmbedder` is the built-in one:
// no network, no download, deterministic. It hashes character n-grams into 65,536 buckets (a
// sparse vector, see vector.ts) and L2-normalises. For CJK, where words are not separated, the
// features are character bigrams (a two-character name is exactly one; single characters add
// nothing but noise and size, except in a run of one character); for other scripts, whole words. Counts are damped (square root). Recall then
// weighs the query's n-grams by how rare they are among the stored rows (docFreq.ts), so the
// names in an instruction count for more than its filler words.
import { normalize, sparseFrom, type Vector } from './vector';
import type { Result } from './types';

export interface Embedder {
  /** Stored in the memory file's header: rows embedded by another embedder are re-embedded. */
  readonly id: string;
  /** Vector length; 0 until known (a remote model reveals it with its first answer). */
  readonly dims: number;
  /** One L2-normalised vector per text, in order. Never throws: failures are values. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Result<Vector[]>>;
}

export const LOCAL_DIMS = 0x10000;

export function localEmbedder(): Embedder {
  return {
    id: 'local-ngram-v1',
    dims: LOCAL_DIMS,
    embed: (texts) => Promise.resolve({ ok: true, value: texts.map((t) => hashEmbed(t)) }),
  };
}

const STOP_WORDS = new Set(
  'the a an and or of to in on at by for with from as is was were be been are it its he she his her him they them their i you we me my your our that this these those not but had has have do did so then there here into up out'.split(' '),
);

const W_UNI = 0.2;
const W_BI = 1;
const W_WORD = 1;
const W_STOP = 0.1;

/** The local embedding of one text: deterministic, O(length). */
export function hashEmbed(text: string): Vector {
  const features = new Map<number, number>();
  const add = (h: number, w: number): void => {
    const bucket = h & (LOCAL_DIMS - 1);
    features.set(bucket, (features.get(bucket) ?? 0) + w);
  };
  for (const run of runs(text.normalize('NFKC').toLowerCase())) {
    if (run.cjk) addCjk(run.chars, add);
    else addWord(run.chars, add);
  }
  for (const [bucket, w] of features) features.set(bucket, Math.sqrt(w));
  return normalize(sparseFrom(LOCAL_DIMS, features));
}

type Add = (hash: number, weight: number) => void;

function addCjk(chars: readonly number[], add: Add): void {
  if (chars.length === 1) add(hash(1, chars, 0, 1), W_UNI);
  for (let i = 0; i + 1 < chars.length; i++) add(hash(2, chars, i, 2), W_BI);
}

function addWord(chars: readonly number[], add: Add): void {
  const word = String.fromCodePoint(...chars);
  add(hash(4, chars, 0, chars.length), STOP_WORDS.has(word) ? W_STOP : W_WORD);
}

/** FNV-1a over code points, seeded by the feature kind, with a final avalanche. */
function hash(kind: number, chars: readonly number[], start: number, n: number): number {
  let h = Math.imul(0x811c9dc5 ^ kind, 0x01000193);
  for (let i = start; i < start + n; i++) {
    const c = chars[i] as number;
    h = Math.imul(h ^ (c & 0xffff), 0x01000193);
    if (c > 0xffff) h = Math.imul(h ^ (c >>> 16), 0x01000193);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

interface Run {
  cjk: boolean;
  chars: number[];
}

/** Splits text into runs of CJK characters and runs of letters/digits; everything else separates. */
function runs(text: string): Run[] {
  const out: Run[] = [];
  let current: Run | undefined;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    const kind = classify(cp, ch);
    if (kind === 'sep') {
      current = undefined;
      continue;
    }
    const cjk = kind === 'cjk';
    if (!current || current.cjk !== cjk) {
      current = { cjk, chars: [] };
      out.push(current);
    }
    current.chars.push(cp);
  }
  return out;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function classify(cp: number, ch: string): 'cjk' | 'word' | 'sep' {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a) ? 'word' : 'sep';
  if (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2fa1f) ||
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0xac00 && cp <= 0xd7af)
  ) {
    return 'cjk';
  }
  return LETTER_OR_DIGIT.test(ch) ? 'word' : 'sep';
}
