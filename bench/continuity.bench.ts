// Continuity checker (issue 17) against the labelled set in bench/continuity/ (README.md there):
// 240 items, half zh half en, errors seeded by type, over a third hard negatives.
// Four layers are scored, each per type and per language:
//  - rules, every candidate (what the judge is shown);
//  - rules alone, high confidence only (what shows without a side model);
//  - rules + a scripted judge that answers every candidate from the gold labels: the judge's
//    prompt is the real one (judgePrompt, checked to be built and in the item's language), its
//    reply is strict JSON as the prompt asks. This is the pipeline's ceiling given perfect judgement:
//    a gold error no candidate overlaps stays missed, whatever the judge;
//  - the same judge wrong on a deterministic pseudo-random 10% of candidates (hash of item id, type,
//    subject and quote), so the figure is not only the ceiling.
// Matching: a finding matches a gold finding of the same item when the types are equal and the
// finding's quote range overlaps the gold quote's range in the prose (at least one code unit).
// Recall = gold findings matched / gold findings; precision = findings matching some gold finding
// of their type / findings; false-alarm rate = hard-negative items with any finding / hard negatives.
// Goal (issue 17): recall ≥ 90% and precision ≥ 90% per type, false alarms ≤ 10% on hard negatives.
// Also timed: one item through the rules, and through the whole check with the scripted judge.
// WL_BENCH_WRITE_ANSWERS=1 writes the scripted judge's answers to bench/continuity/judge-answers.json;
// WL_BENCH_VERBOSE=1 lists every miss and false alarm.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkContinuity } from '../src/continuity/check';
import type { JudgePrompt } from '../src/continuity/judge';
import { findCandidates } from '../src/continuity/rules';
import { FINDING_TYPES, type Candidate, type CheckInput, type FindingType } from '../src/continuity/types';
import type { Lang } from '../src/state/types';
import { evalSetDir, goldOffset, loadEvalSet, type EvalItem, type GoldFinding } from './continuity/evalSet';
import { percent, summarize, table, verdict, withSpread } from './lib/stats';

const GOAL_RECALL = 90;
const GOAL_PRECISION = 90;
const GOAL_FALSE_ALARMS = 10;
const JUDGE_ERROR_RATE = 0.1;
const TIMING_RUNS = 5;
const VERBOSE = process.env['WL_BENCH_VERBOSE'] === '1';
const FILE = 'chapter.md';

interface Found {
  type: FindingType;
  subject: string;
  quote: string;
  offset: number;
}

function inputOf(item: EvalItem): CheckInput {
  return { prose: [{ file: FILE, text: item.prose }], before: item.before, after: item.after, lang: item.lang };
}

function overlaps(aStart: number, aLen: number, bStart: number, bLen: number): boolean {
  return aStart < bStart + bLen && bStart < aStart + aLen;
}

/** The gold finding `f` matches: same type, overlapping quote. */
function goldFor(item: EvalItem, f: { type: FindingType; offset: number; quote: string }): GoldFinding | undefined {
  return item.gold.find((g) => g.type === f.type && overlaps(f.offset, f.quote.length, goldOffset(item, g), g.quote.length));
}

// ---------------------------------------------------------------- the scripted judge

/** A hash of a string in [0, 1): the deterministic coin of the imperfect judge. */
function coin(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // murmur3's finaliser: FNV alone leaves the last characters' bits poorly mixed into the top.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

const CJK = /[\u3400-\u9fff]/g;

/** Why the prompt is not what the judge should get (empty: fine). */
function promptProblems(item: EvalItem, prompt: JudgePrompt, candidates: readonly Candidate[]): string[] {
  const p: string[] = [];
  const cjk = (s: string): number => (s.match(CJK) ?? []).length;
  if (item.lang === 'zh' && cjk(prompt.system) < 40) p.push('system prompt is not in Chinese');
  if (item.lang === 'en' && cjk(prompt.system) > prompt.system.length * 0.05) p.push('system prompt is not in English');
  if (!/json/i.test(prompt.system)) p.push('system prompt does not ask for JSON');
  if (!prompt.user.includes(item.prose)) p.push('the prose is not in the prompt');
  for (const c of candidates) if (!prompt.user.includes(c.quote)) p.push(`candidate quote missing: ${c.quote.slice(0, 30)}`);
  if (!prompt.user.includes(item.before.time) || !prompt.user.includes(item.after.location)) p.push('the states are not in the prompt');
  return p;
}

interface Answer {
  candidate: number;
  type: FindingType;
  subject: string;
  candidateQuote: string;
  error: boolean;
  quote: string;
  reason: string;
}

/** What a careful judge answers for each candidate, from the gold; `errorRate` of them flipped. */
function answersFor(item: EvalItem, candidates: readonly Candidate[], errorRate: number): Answer[] {
  return candidates.map((c, i) => {
    const g = goldFor(item, c);
    let error = g !== undefined;
    if (errorRate > 0 && coin(`${item.id}\u0000${c.type}\u0000${c.subject}\u0000${c.quote}`) < errorRate) error = !error;
    const quote = error && g ? g.quote : c.quote;
    const reason = error
      ? (item.lang === 'zh' ? '正文里确有此矛盾，且没有回忆、通话或交接的交代。' : 'The prose does contradict the state here; no memory, call or hand-over explains it.')
      : (item.lang === 'zh' ? '不是错误：上下文交代了缘由。' : 'Not an error: the context accounts for it.');
    return { candidate: i, type: c.type, subject: c.subject, candidateQuote: c.quote, error, quote, reason };
  });
}

interface JudgeLog {
  calls: number;
  promptProblems: string[];
  /** Candidates answered, and those the imperfect judge got wrong (to "error", to "no error"). */
  answered: number;
  flippedToError: number;
  flippedToClear: number;
}

/** The judge for one item. `candidates` are the rules' (deterministic, so the same list the check passes on). */
function scriptedJudge(item: EvalItem, candidates: readonly Candidate[], errorRate: number, log: JudgeLog): (prompt: JudgePrompt) => Promise<string> {
  return async (prompt) => {
    log.calls++;
    for (const problem of promptProblems(item, prompt, candidates)) log.promptProblems.push(`${item.id}: ${problem}`);
    const answers = answersFor(item, candidates, errorRate);
    const right = answersFor(item, candidates, 0);
    log.answered += answers.length;
    answers.forEach((a, i) => {
      if (a.error && !right[i]!.error) log.flippedToError++;
      if (!a.error && right[i]!.error) log.flippedToClear++;
    });
    const verdicts = answers.map((a) => ({ candidate: a.candidate, error: a.error, quote: a.quote, reason: a.reason }));
    return JSON.stringify({ verdicts });
  };
}

// ---------------------------------------------------------------- scoring

interface Cell {
  gold: number;
  hit: number;
  found: number;
  right: number;
}

interface Score {
  name: string;
  cells: Record<FindingType, Record<Lang, Cell>>;
  /** Hard-negative items, and those with any finding, per language and per tempted type. */
  hn: Record<Lang, { items: number; alarmed: number }>;
  hnByType: Record<FindingType, { items: number; alarmed: number }>;
  clean: { items: number; alarmed: number };
  misses: string[];
  falseAlarms: string[];
}

function newScore(name: string): Score {
  const cell = (): Cell => ({ gold: 0, hit: 0, found: 0, right: 0 });
  return {
    name,
    cells: Object.fromEntries(FINDING_TYPES.map((t) => [t, { zh: cell(), en: cell() }])) as Score['cells'],
    hn: { zh: { items: 0, alarmed: 0 }, en: { items: 0, alarmed: 0 } },
    hnByType: Object.fromEntries(FINDING_TYPES.map((t) => [t, { items: 0, alarmed: 0 }])) as Score['hnByType'],
    clean: { items: 0, alarmed: 0 },
    misses: [],
    falseAlarms: [],
  };
}

function score(s: Score, item: EvalItem, found: readonly Found[]): void {
  for (const g of item.gold) {
    const cell = s.cells[g.type][item.lang];
    cell.gold++;
    const at = goldOffset(item, g);
    if (found.some((f) => f.type === g.type && overlaps(f.offset, f.quote.length, at, g.quote.length))) cell.hit++;
    else s.misses.push(`${item.id} ${g.type}: ${g.quote}`);
  }
  for (const f of found) {
    const cell = s.cells[f.type][item.lang];
    cell.found++;
    if (goldFor(item, f)) cell.right++;
    else s.falseAlarms.push(`${item.id} ${f.type} [${f.subject}]: ${f.quote.slice(0, 60)}`);
  }
  if (item.kind === 'hard-negative') {
    const alarmed = found.length > 0 ? 1 : 0;
    s.hn[item.lang].items++;
    s.hn[item.lang].alarmed += alarmed;
    if (item.tempts) {
      s.hnByType[item.tempts].items++;
      s.hnByType[item.tempts].alarmed += alarmed;
    }
  } else if (item.kind === 'clean') {
    s.clean.items++;
    s.clean.alarmed += found.length > 0 ? 1 : 0;
  }
}

function pct(num: number, den: number): number | undefined {
  return den === 0 ? undefined : (100 * num) / den;
}

function show(n: number | undefined): string {
  return n === undefined ? 'n/a' : percent(n);
}

function sum(cells: readonly Cell[]): Cell {
  return cells.reduce((a, c) => ({ gold: a.gold + c.gold, hit: a.hit + c.hit, found: a.found + c.found, right: a.right + c.right }), { gold: 0, hit: 0, found: 0, right: 0 });
}

function report(s: Score): void {
  console.log(`\n--- ${s.name} ---`);
  const rows: string[][] = [];
  const line = (label: string, cz: Cell, ce: Cell): string[] => {
    const all = sum([cz, ce]);
    return [label, String(all.gold), show(pct(cz.hit, cz.gold)), show(pct(ce.hit, ce.gold)), show(pct(all.hit, all.gold)),
      show(pct(cz.right, cz.found)), show(pct(ce.right, ce.found)), show(pct(all.right, all.found)), `${all.right}/${all.found}`];
  };
  for (const t of FINDING_TYPES) rows.push(line(t, s.cells[t].zh, s.cells[t].en));
  rows.push(line('overall', sum(FINDING_TYPES.map((t) => s.cells[t].zh)), sum(FINDING_TYPES.map((t) => s.cells[t].en))));
  table(['type', 'gold', 'recall zh', 'recall en', 'recall', 'prec. zh', 'prec. en', 'precision', 'right/found'], rows);
  const hnAll = { items: s.hn.zh.items + s.hn.en.items, alarmed: s.hn.zh.alarmed + s.hn.en.alarmed };
  console.log(`false alarms on hard negatives: ${show(pct(hnAll.alarmed, hnAll.items))} (${hnAll.alarmed}/${hnAll.items}; zh ${show(pct(s.hn.zh.alarmed, s.hn.zh.items))}, en ${show(pct(s.hn.en.alarmed, s.hn.en.items))}); clean items with a finding: ${s.clean.alarmed}/${s.clean.items}`);
  console.log(`  by the type they tempt: ${FINDING_TYPES.map((t) => `${t} ${s.hnByType[t].alarmed}/${s.hnByType[t].items}`).join(', ')}`);

  const recalls = FINDING_TYPES.map((t) => ({ t, v: pct(sum([s.cells[t].zh, s.cells[t].en]).hit, sum([s.cells[t].zh, s.cells[t].en]).gold) ?? 0 }));
  const precisions = FINDING_TYPES.map((t) => ({ t, v: pct(sum([s.cells[t].zh, s.cells[t].en]).right, sum([s.cells[t].zh, s.cells[t].en]).found) ?? 0 }));
  const worst = (xs: { t: FindingType; v: number }[]): { t: FindingType; v: number } => xs.reduce((a, b) => (b.v < a.v ? b : a));
  const r = worst(recalls);
  const p = worst(precisions);
  console.log(`recall, lowest type (${r.t}): ${verdict({ label: `≥ ${GOAL_RECALL}% per type`, figure: r.v, bound: GOAL_RECALL, direction: 'atLeast', unit: percent })}`);
  console.log(`precision, lowest type (${p.t}): ${verdict({ label: `≥ ${GOAL_PRECISION}% per type`, figure: p.v, bound: GOAL_PRECISION, direction: 'atLeast', unit: percent })}`);
  console.log(`false alarms on hard negatives: ${verdict({ label: `≤ ${GOAL_FALSE_ALARMS}%`, figure: pct(hnAll.alarmed, hnAll.items) ?? 0, bound: GOAL_FALSE_ALARMS, unit: percent })}`);
  const listing = (label: string, xs: string[]): void => {
    if (xs.length === 0) return;
    const shown = VERBOSE ? xs : xs.slice(0, 8);
    console.log(`${label} (${xs.length}${VERBOSE || xs.length <= 8 ? '' : ', first 8; WL_BENCH_VERBOSE=1 for all'}):`);
    for (const x of shown) console.log(`  ${x.replace(/\n/g, ' ')}`);
  };
  listing('missed', s.misses);
  listing('found with no gold', s.falseAlarms);
}

function fromCandidates(cs: readonly Candidate[]): Found[] {
  return cs.map((c) => ({ type: c.type, subject: c.subject, quote: c.quote, offset: c.offset }));
}

async function checked(item: EvalItem, judge?: (p: JudgePrompt) => Promise<string>): Promise<{ found: Found[]; problems: string[] }> {
  const r = await checkContinuity(inputOf(item), judge ? { judge } : {});
  return {
    found: r.findings.map((f) => ({ type: f.type, subject: f.subject, quote: f.quote, offset: f.offset ?? item.prose.indexOf(f.quote) })),
    problems: r.problems,
  };
}

export async function main(): Promise<void> {
  const items = loadEvalSet();
  const counts = { zh: items.filter((i) => i.lang === 'zh').length, en: items.filter((i) => i.lang === 'en').length };
  const hn = items.filter((i) => i.kind === 'hard-negative').length;
  console.log(`${items.length} items (zh ${counts.zh}, en ${counts.en}); ${items.filter((i) => i.kind === 'error').length} with errors, ${hn} hard negatives, ${items.filter((i) => i.kind === 'clean').length} clean`);
  console.log('match: same type and overlapping quote range; recall per gold finding, precision per finding, false alarm per hard-negative item');

  const all = newScore('rules, every candidate (what the judge sees)');
  const high = newScore('rules alone, high confidence (shown without a side model)');
  const ceiling = newScore('rules + scripted judge answering from the gold (ceiling: perfect judgement)');
  const noisy = newScore(`rules + scripted judge wrong on ${JUDGE_ERROR_RATE * 100}% of candidates`);
  const log: JudgeLog = { calls: 0, promptProblems: [], answered: 0, flippedToError: 0, flippedToClear: 0 };
  const noisyLog: JudgeLog = { calls: 0, promptProblems: [], answered: 0, flippedToError: 0, flippedToClear: 0 };
  const checkProblems: string[] = [];
  const answers: Record<string, Answer[]> = {};
  for (const item of items) {
    const candidates = findCandidates(inputOf(item));
    score(all, item, fromCandidates(candidates));
    const h = await checked(item);
    score(high, item, h.found);
    const c = await checked(item, scriptedJudge(item, candidates, 0, log));
    score(ceiling, item, c.found);
    const n = await checked(item, scriptedJudge(item, candidates, JUDGE_ERROR_RATE, noisyLog));
    score(noisy, item, n.found);
    for (const p of [...h.problems, ...c.problems, ...n.problems]) checkProblems.push(`${item.id}: ${p}`);
    if (candidates.length > 0) answers[item.id] = answersFor(item, candidates, 0);
  }
  for (const s of [all, high, ceiling, noisy]) report(s);
  const promptProblemList = [...log.promptProblems, ...noisyLog.promptProblems];
  console.log(`\njudge calls: ${log.calls + noisyLog.calls}; prompt problems: ${promptProblemList.length === 0 ? 'none (built, in the item\'s language, prose, states and every candidate quote present)' : promptProblemList.slice(0, 5).join('; ')}`);
  console.log(`imperfect judge: wrong on ${noisyLog.flippedToError + noisyLog.flippedToClear} of ${noisyLog.answered} candidates (${noisyLog.flippedToError} wrongly confirmed, ${noisyLog.flippedToClear} wrongly rejected)`);
  if (checkProblems.length > 0) console.log(`check problems: ${checkProblems.length} (${checkProblems.slice(0, 3).join('; ')})`);

  if (process.env['WL_BENCH_WRITE_ANSWERS'] === '1') {
    const file = path.join(evalSetDir(), 'judge-answers.json');
    fs.writeFileSync(file, JSON.stringify(answers, null, 1) + '\n');
    console.log(`wrote ${path.relative(process.cwd(), file)} (${Object.keys(answers).length} items)`);
  }

  // Time per item: the rules alone, and the whole check with the (instant) scripted judge.
  const perItem = async (fn: (item: EvalItem) => unknown): Promise<number[]> => {
    const out: number[] = [];
    for (const item of items) {
      const runs: number[] = [];
      for (let r = 0; r < TIMING_RUNS; r++) {
        const start = process.hrtime.bigint();
        await fn(item);
        runs.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      out.push(summarize(runs).median);
    }
    return out;
  };
  const quiet: JudgeLog = { calls: 0, promptProblems: [], answered: 0, flippedToError: 0, flippedToClear: 0 };
  const rulesTime = summarize(await perItem((item) => findCandidates(inputOf(item))));
  const candidatesOf = new Map(items.map((item) => [item.id, findCandidates(inputOf(item))]));
  const checkTime = summarize(await perItem((item) => checkContinuity(inputOf(item), { judge: scriptedJudge(item, candidatesOf.get(item.id) ?? [], 0, quiet) })));
  const byLang = (lang: Lang): string => withSpread(summarize(items.filter((i) => i.lang === lang).map((i) => i.prose.length)), (n) => n.toFixed(0));
  console.log(`\nprose length in characters: zh ${byLang('zh')}; en ${byLang('en')}`);
  console.log(`time per item, rules (findCandidates): ${withSpread(rulesTime)}`);
  console.log(`time per item, check with the scripted judge (prompt, parse, findings; no model latency): ${withSpread(checkTime)}`);
}
