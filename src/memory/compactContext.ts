// Old turns' tool payloads, shortened to one line each. A tool result (a file read, a listing) and
// the arguments of a tool call (whole chapters passed to write_file) are the bulk of an agent's
// context, and once a turn is old their text is on disk and, after compaction, in the summary.
// The boundary of "old" moves in steps of `step` turns, not every turn: between steps the replayed
// prefix stays byte-identical, so provider prompt caches keep hitting.
import type { ContextMessage } from '../session/entries';
import { clip } from '../state/json';
import type { Lang } from './types';

export interface ShortenOptions {
  /** The boundary moves this many turns at a time; default `keepRecentTurns` (at least 1). */
  step?: number;
  /** Longest kept line of a result; default 120. */
  resultChars?: number;
  /** Longest kept line of an argument value; default 60. */
  argumentChars?: number;
  lang?: Lang;
}

export function shortenOldToolPayloads(messages: readonly ContextMessage[], keepRecentTurns: number, options: ShortenOptions = {}): ContextMessage[] {
  const keep = Math.max(0, Math.floor(keepRecentTurns));
  const step = Math.max(1, Math.floor(options.step ?? (keep || 1)));
  const userAt: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') userAt.push(i);
  });
  const oldTurns = Math.floor(Math.max(0, userAt.length - keep) / step) * step;
  if (oldTurns === 0) return messages.slice();
  const end = oldTurns < userAt.length ? (userAt[oldTurns] as number) : messages.length;
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
