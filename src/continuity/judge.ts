// The model layer: one side-model call confirms or rejects every candidate the rules found, with
// an exact quote and a reason. The prompt is fixed text (prompts/zh.ts, en.ts) plus this turn's
// state, prose and candidates; the answer is read the house way (see state/scribeParse.ts):
// fences, prose and <think> blocks around the JSON are tolerated, work is bounded, nothing throws,
// and a verdict whose quote is not in the prose or whose candidate is unknown is dropped.
import { clip, isPlainObject } from '../state/json';
import type { SceneState } from '../state/types';
import { wordsFor } from './view';
import type { CheckWords } from './prompts/words';
import type { AddedProse, Candidate, CheckInput, Verdict } from './types';

export interface JudgePrompt {
  system: string;
  user: string;
}

/** Prose shown to the judge, in all files together; the rest is cut (the rules saw all of it). */
export const JUDGE_MAX_PROSE = 16_000;
const MAX_REASON = 400;

function stateBlock(w: CheckWords, s: SceneState): string {
  const lines = [`${w.time}${w.colon}${s.time}`, `${w.location}${w.colon}${s.location}`];
  for (const [name, c] of Object.entries(s.characters)) {
    const where = c.at === s.location ? w.present : w.at(c.at);
    const extra = [c.status, c.notes].filter((x) => typeof x === 'string' && x.trim() !== '').join('; ');
    lines.push(`- ${name}${w.colon}${where}${extra === '' ? '' : ` (${clip(extra, 200)})`}`);
  }
  for (const name of Object.keys(s.roster.characters)) {
    if (!Object.prototype.hasOwnProperty.call(s.characters, name)) lines.push(`- ${name}${w.colon}${w.departed}`);
  }
  const items = s.items.filter((x) => typeof x === 'string');
  lines.push(`${w.items}${w.colon}${items.length === 0 ? w.noneWord : items.join('; ')}`);
  return lines.join('\n');
}

/** The judge's prompt: fixed system text, then the states, the prose and the numbered candidates. */
export function judgePrompt(input: CheckInput, candidates: readonly Candidate[]): JudgePrompt {
  const w = wordsFor(input.lang);
  let budget = JUDGE_MAX_PROSE;
  const prose: string[] = [];
  for (const p of input.prose) {
    if (budget <= 0) break;
    const text = clip(p.text, budget);
    budget -= text.length;
    prose.push(`${w.fileLabel(p.file)}\n${text}`);
  }
  const lines = candidates.map((c, i) => w.candidateLine(i, c.type, c.subject, c.quote, c.reason));
  const user = [
    w.stateHeading, stateBlock(w, input.before), '',
    w.afterHeading, stateBlock(w, input.after), '',
    w.proseHeading, prose.join('\n\n'), '',
    w.candidatesHeading, lines.join('\n'), '',
    w.answerNow,
  ].join('\n');
  return { system: w.system, user };
}

// ---------------------------------------------------------------- reading the answer

const MAX_INPUT = 64_000;
const MAX_STARTS = 24;
const MAX_VERDICTS = 500;

/** Removes <think>…</think> blocks in one pass; an unclosed one is left as text. */
function stripThinking(text: string): string {
  const lower = text.toLowerCase();
  let out = '';
  let from = 0;
  for (;;) {
    const o = lower.indexOf('<think>', from);
    if (o < 0) break;
    const c = lower.indexOf('</think>', o + 7);
    if (c < 0) break; // no closing tag after this one, so none after any later one either
    out += text.slice(from, o);
    from = c + 8;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Index just past the bracket matching the one at `start` (strings honoured), or -1. */
function matchingEnd(text: string, start: number): number {
  const stack: number[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) stack.push(c === 0x7b ? 0x7d : 0x5d);
    else if (c === 0x7d || c === 0x5d) {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

function parseLoose(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    try {
      // Trailing commas are the commonest slip of a model writing JSON by hand.
      return JSON.parse(s.replace(/,\s*([}\]])/g, '$1'));
    } catch {
      return undefined;
    }
  }
}

/** The verdict list in the reply: {"verdicts":[…]} first, else a bare [{"candidate":…}] array. */
function verdictList(text: string): unknown[] | undefined {
  const starts: number[] = [];
  for (const re of [/\{\s*"verdicts"\s*:/g, /\[\s*\{\s*"candidate"\s*:/g]) {
    for (let m = re.exec(text); m && starts.length < MAX_STARTS; m = re.exec(text)) starts.push(m.index);
  }
  for (const start of starts) {
    const end = matchingEnd(text, start);
    if (end < 0) continue;
    const value = parseLoose(text.slice(start, end));
    if (Array.isArray(value)) return value;
    if (isPlainObject(value) && Array.isArray(value['verdicts'])) return value['verdicts'];
  }
  return undefined;
}

function asIndex(x: unknown): number | undefined {
  const n = typeof x === 'number' ? x : typeof x === 'string' && /^\s*\d+\s*$/.test(x) ? Number(x) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

function asBool(x: unknown): boolean | undefined {
  if (typeof x === 'boolean') return x;
  if (x === 'true') return true;
  if (x === 'false') return false;
  return undefined;
}

/**
 * The judge's verdicts, checked: an unknown candidate number, a missing `error`, or a quote that
 * is not an exact substring of the candidate's prose drops the verdict. A missing or empty quote
 * stands for the candidate's own. The first verdict for a candidate wins. Never throws.
 */
export function parseJudgeAnswer(text: string, candidates: readonly Candidate[], prose: string | readonly AddedProse[]): Verdict[] {
  if (typeof text !== 'string' || text.trim() === '') return [];
  const body = stripThinking(text.slice(0, MAX_INPUT));
  const list = verdictList(body);
  if (!list) return [];
  const textOf = (c: Candidate): string => {
    if (typeof prose === 'string') return prose;
    const hit = prose.find((p) => p.file === c.file);
    return hit ? hit.text : '';
  };
  const out: Verdict[] = [];
  const done = new Set<number>();
  for (const v of list.slice(0, MAX_VERDICTS)) {
    if (!isPlainObject(v)) continue;
    const n = asIndex(v['candidate']);
    if (n === undefined || n < 0 || n >= candidates.length || done.has(n)) continue;
    const error = asBool(v['error']);
    if (error === undefined) continue;
    const c = candidates[n]!;
    const given = typeof v['quote'] === 'string' ? v['quote'] : '';
    const quote = given.trim() === '' ? c.quote : given;
    const where = textOf(c);
    if (quote === '' || !where.includes(quote)) continue;
    const reason = typeof v['reason'] === 'string' ? clip(v['reason'].trim(), MAX_REASON) : '';
    done.add(n);
    out.push({ candidate: n, error, quote, reason });
  }
  return out;
}
