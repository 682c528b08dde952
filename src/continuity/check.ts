// One continuity check: rules → (optionally) one judge call → findings. Without a judge, or when
// the judge fails or answers nonsense, only the rules' high-confidence candidates become findings
// (so what shows without a side model stays precise), and `problems` says why.
import { createHash } from 'node:crypto';
import { JUDGE_MAX_PROSE, judgePrompt, parseJudgeAnswer, type JudgePrompt } from './judge';
import { findCandidates, wordsFor } from './rules';
import type { Candidate, CheckInput, Finding, FindingType } from './types';

export interface CheckOptions {
  /** The side model, thinking off (the caller picks the model); resolves to its raw reply. */
  judge?: (prompt: JudgePrompt) => Promise<string>;
  signal?: AbortSignal;
}

export interface CheckResult {
  findings: Finding[];
  /** What went wrong on the way, in the project's language; empty when all went well. */
  problems: string[];
}

/** Stable id of a finding: the same error quoted the same way gets the same id (Mark as Intended finds it again). */
export function findingId(type: FindingType, subject: string, quote: string): string {
  return createHash('sha256').update(`${type}\u0000${subject}\u0000${quote}`, 'utf8').digest('hex').slice(0, 16);
}

function fromRule(c: Candidate): Finding {
  const f: Finding = { id: findingId(c.type, c.subject, c.quote), type: c.type, file: c.file, quote: c.quote, offset: c.offset, subject: c.subject, reason: c.reason, confidence: c.confidence, by: 'rules' };
  if (c.expected !== undefined) f.expected = c.expected;
  return f;
}

function unique(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => (seen.has(f.id) ? false : (seen.add(f.id), true)));
}

function rulesOnly(candidates: readonly Candidate[]): Finding[] {
  return unique(candidates.filter((c) => c.confidence === 'high').map(fromRule));
}

function messageOf(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 160 ? `${m.slice(0, 160)}…` : m;
}

/**
 * Where `quote` stands in `text`: the occurrence nearest `hintOffset` (the first when no hint), so
 * a finding's range stays on its substring after edits above it. Undefined when it is gone.
 */
export function anchorQuote(text: string, quote: string, hintOffset?: number): { start: number; end: number } | undefined {
  if (quote === '') return undefined;
  let best = -1;
  let bestDist = Infinity;
  for (let i = text.indexOf(quote); i !== -1; i = text.indexOf(quote, i + 1)) {
    if (hintOffset === undefined) {
      best = i;
      break;
    }
    const d = Math.abs(i - hintOffset);
    if (d < bestDist) {
      best = i;
      bestDist = d;
    } else if (i > hintOffset) break; // further ones are only further away
  }
  return best < 0 ? undefined : { start: best, end: best + quote.length };
}

/** Checks this turn's prose against the state before and after it. Never throws. */
export async function checkContinuity(input: CheckInput, opts: CheckOptions = {}): Promise<CheckResult> {
  const words = wordsFor(input.lang);
  const candidates = findCandidates(input);
  if (!opts.judge || candidates.length === 0) return { findings: rulesOnly(candidates), problems: [] };
  if (opts.signal?.aborted) return { findings: [], problems: [words.problems.judgeAborted] };

  let reply: string;
  try {
    reply = await opts.judge(judgePrompt(input, candidates));
  } catch (err) {
    if (opts.signal?.aborted) return { findings: [], problems: [words.problems.judgeAborted] };
    return { findings: rulesOnly(candidates), problems: [words.problems.judgeFailed(messageOf(err))] };
  }
  if (opts.signal?.aborted) return { findings: [], problems: [words.problems.judgeAborted] };

  const verdicts = parseJudgeAnswer(reply, candidates, input.prose);
  if (verdicts.length === 0) return { findings: rulesOnly(candidates), problems: [words.problems.judgeGarbage] };

  const problems: string[] = [];
  if (input.prose.reduce((n, p) => n + p.text.length, 0) > JUDGE_MAX_PROSE) problems.push(words.problems.proseTruncated);
  const judged = new Set(verdicts.map((v) => v.candidate));
  const findings: Finding[] = [];
  for (const v of verdicts) {
    if (!v.error) continue;
    const c = candidates[v.candidate]!;
    const text = input.prose.find((p) => p.file === c.file)?.text ?? '';
    const at = anchorQuote(text, v.quote, c.offset);
    const f: Finding = {
      id: findingId(c.type, c.subject, v.quote), type: c.type, file: c.file, quote: v.quote, subject: c.subject,
      reason: v.reason === '' ? c.reason : v.reason, confidence: c.confidence, by: 'judge',
    };
    if (at) f.offset = at.start;
    if (c.expected !== undefined) f.expected = c.expected;
    findings.push(f);
  }
  // A candidate the judge skipped keeps the rules' say: shown only if they were sure.
  for (let i = 0; i < candidates.length; i++) if (!judged.has(i) && candidates[i]!.confidence === 'high') findings.push(fromRule(candidates[i]!));
  return { findings: unique(findings), problems };
}
