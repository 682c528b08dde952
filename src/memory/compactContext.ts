// Old turns' tool payloads, shortened to one line each. A tool result (a file read, a listing) and
// the arguments of a tool call (whole chapters passed to write_file) are the bulk of an agent's
// context, and once a turn is old their text is on disk and, after compaction, in the summary.
// Shortening rewrites bytes in the middle of the replayed prefix, so the boundary of "old" moves
// only when the prefix changes anyway: when a summary is written (the turns before it are old from
// then on, see `oldTurnsFor`). Between summaries the replay stays byte-identical and provider prompt
// caches keep hitting; if no summary comes, it still moves, in steps of many turns.
import type { ContextMessage } from '../session/entries';
import { clip } from '../state/json';
import type { Lang } from './types';

export interface ShortenOptions {
  /** Longest kept line of a result; default 120. */
  resultChars?: number;
  /** Longest kept line of an argument value; default 60. */
  argumentChars?: number;
  lang?: Lang;
}

export interface OldTurnsInput {
  /** Instructions (user messages) in the replayed context, the newest (under way) included. */
  turns: number;
  /** Instructions that lie before the branch's active summary entry: old since it was written. */
  beforeSummary: number;
  /** The recent turns a summary keeps verbatim (`keepTurns`). */
  keep: number;
  /** Without a summary the boundary still moves, this many turns at a time (one prefix change each). */
  step: number;
}

/**
 * How many turns, from the first, are old: those before the summary, or, when the summary that
 * was due has not come, whole steps of the turns before the newest beyond the kept ones. With
 * `step` the summary's N, a summary is due after the turn that makes `keep + N` finished turns
 * (plan.ts), so in a working session only summaries move the boundary.
 */
export function oldTurnsFor(input: OldTurnsInput): number {
  const turns = Math.max(0, Math.floor(input.turns));
  const before = Math.min(turns, Math.max(0, Math.floor(input.beforeSummary)));
  const keep = Math.max(0, Math.floor(input.keep));
  const step = Math.max(1, Math.floor(input.step));
  const overdue = Math.floor(Math.max(0, turns - 1 - keep) / step) * step;
  return Math.min(turns, Math.max(before, overdue));
}

/** The first `oldTurns` turns (everything before the next turn's user message) with one-line payloads. */
export function shortenOldToolPayloads(messages: readonly ContextMessage[], oldTurns: number, options: ShortenOptions = {}): ContextMessage[] {
  const userAt: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') userAt.push(i);
  });
  const old = Math.min(userAt.length, Math.max(0, Math.floor(oldTurns)));
  if (old === 0) return messages.slice();
  const end = old < userAt.length ? (userAt[old] as number) : messages.length;
  const lang = options.lang ?? 'en';
  const resultChars = options.resultChars ?? 120;
  const argChars = options.argumentChars ?? 60;
  return messages.map((m, i) => {
    if (i >= end) return m;
    if (m.role === 'tool') {
      const text = oneLine(m.text, resultChars, lang);
      return text === m.text ? m : { ...m, text };
    }
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      const toolCalls = m.toolCalls.map((c) => {
        const args = shortArguments(c.arguments, argChars, lang);
        return args === c.arguments ? c : { ...c, arguments: args };
      });
      return toolCalls.every((c, j) => c === m.toolCalls?.[j]) ? m : { ...m, toolCalls };
    }
    return m;
  });
}

/** The first non-empty line, clipped; a marker says how long the whole was. Short one-liners stay. */
export function oneLine(text: string, max: number, lang: Lang): string {
  if (text.length <= max && !text.includes('\n')) return text;
  const first = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  const head = clip(first, max);
  return `${head}${lang === 'zh' ? `…（全文 ${text.length} 字）` : `… (${text.length} chars in full)`}`;
}

/** Arguments with every long or multi-line string value reduced to one line; still a JSON object. */
export function shortArguments(args: string, max: number, lang: Lang): string {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return '{}';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '{}';
  const o = value as Record<string, unknown>;
  let changed = false;
  const out = Object.create(null) as Record<string, unknown>; // a "__proto__" key stays a plain key
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (typeof v === 'string' && (v.length > max || v.includes('\n'))) {
      out[key] = oneLine(v, max, lang);
      changed = true;
    } else {
      out[key] = v;
    }
  }
  return changed ? JSON.stringify(out) : args;
}
