// When to summarise, and what. A turn starts at each `user` entry. Counting starts after the
// branch's active summary (the entries it covers are already folded into it); the last `keepLast`
// turns always stay verbatim. Automatic compaction waits until `everyN` turns have piled up beyond
// those; Compact Now takes any turn beyond them. Tiny stretches are not worth a side call either way.
//
// Context pressure lowers the automatic threshold: when the last request filled PRESSURE_SHARE of
// the model's context window or more (`pressure`, measured by the caller from the provider's
// reported tokens; 1 or more after a "context too long" refusal), compaction is due as soon as one
// turn lies beyond the kept ones, half as many turns are kept (at least one), and the Compact Now
// minimum of text applies. The caller passes a measurement, never a flag: the plan decides.
import { activeSummary } from '../session/context';
import type { ChainEntry, SummaryEntry } from '../session/entries';
import { sourcesChars, storySources } from './sources';
import { RAW_VIEW, type Lang, type TextView } from './types';

export const PLAN_DEFAULTS = { everyN: 30, keepLast: 6, minChars: 2000, manualMinChars: 500 } as const;

/** The share of the context window from which the automatic compaction no longer waits. */
export const PRESSURE_SHARE = 0.8;

/** Why a compaction is due: every N turns, context pressure, or Compact Now. */
export type CompactionTrigger = 'every' | 'pressure' | 'manual';

export interface PlanInput {
  /** The branch, root → leaf (`Session.path()`). */
  path: readonly ChainEntry[];
  everyN?: number;
  keepLast?: number;
  /** Least story text (characters) worth summarising; default 2000, or 500 for Compact Now. */
  minChars?: number;
  /** Compact Now: any turn beyond the kept ones is enough. */
  manual?: boolean;
  /**
   * The share of the context window the next request fills (tokens / window); from
   * PRESSURE_SHARE up, the automatic compaction is due early (see above). Ignored by Compact Now.
   */
  pressure?: number;
  /** Edits applied, hidden messages left out. Default: raw texts. */
  view?: TextView;
}

export type PlanSkipReason = 'noTurns' | 'tooFewTurns' | 'tooLittleText';

export interface PlanNotDue {
  due: false;
  reason: PlanSkipReason;
  /** Turns after the active summary. */
  liveTurns: number;
  /** Turns that must exist after the active summary before this kind of compaction runs. */
  neededTurns: number;
  coveredChars: number;
  minChars: number;
}

export interface PreviousSummary {
  id: string;
  /** With edits applied. */
  text: string;
  coversThroughId: string;
}

export interface DuePlan {
  due: true;
  manual: boolean;
  trigger: CompactionTrigger;
  /** The last covered entry: the context rebuild starts after it. */
  coversThroughId: string;
  /** The entries newly folded in: after the previous summary's cover, up to `coversThroughId`. */
  coveredEntries: ChainEntry[];
  coveredTurns: number;
  keptTurns: number;
  coveredChars: number;
  previousSummary?: PreviousSummary;
}

export type CompactionPlan = PlanNotDue | DuePlan;

/** True when a measured pressure makes the automatic compaction due early. */
export function underPressure(pressure: number | undefined): boolean {
  return pressure !== undefined && !Number.isNaN(pressure) && pressure >= PRESSURE_SHARE;
}

export function planCompaction(input: PlanInput): CompactionPlan {
  const everyN = Math.max(1, Math.floor(input.everyN ?? PLAN_DEFAULTS.everyN));
  const manual = input.manual ?? false;
  const trigger: CompactionTrigger = manual ? 'manual' : underPressure(input.pressure) ? 'pressure' : 'every';
  const keepAsked = Math.max(0, Math.floor(input.keepLast ?? PLAN_DEFAULTS.keepLast));
  // Under pressure half the kept turns go too (the newest one always stays): room is what is short.
  const keepLast = trigger === 'pressure' ? Math.min(keepAsked, Math.max(1, Math.ceil(keepAsked / 2))) : keepAsked;
  const early = trigger !== 'every';
  const minChars = Math.max(0, input.minChars ?? (early ? PLAN_DEFAULTS.manualMinChars : PLAN_DEFAULTS.minChars));
  const view = input.view ?? RAW_VIEW;

  const active = activeSummary(input.path, view);
  const live = input.path.slice(active?.firstUncovered ?? 0);
  const turnStarts: number[] = [];
  live.forEach((e, i) => {
    if (e.type === 'user') turnStarts.push(i);
  });
  const liveTurns = turnStarts.length;
  const coveredTurns = liveTurns - keepLast;
  const neededTurns = keepLast + (early ? 1 : everyN);
  const notDue = (reason: PlanSkipReason, coveredChars = 0): PlanNotDue => ({ due: false, reason, liveTurns, neededTurns, coveredChars, minChars });
  if (liveTurns === 0) return notDue('noTurns');
  if (liveTurns < neededTurns) return notDue('tooFewTurns');

  const firstKept = coveredTurns < liveTurns ? (turnStarts[coveredTurns] as number) : live.length;
  const coveredEntries = live.slice(0, firstKept);
  const coveredChars = sourcesChars(storySources(coveredEntries, view));
  if (coveredChars < minChars) return notDue('tooLittleText', coveredChars);

  const plan: DuePlan = {
    due: true,
    manual,
    trigger,
    coversThroughId: (coveredEntries[coveredEntries.length - 1] as ChainEntry).id,
    coveredEntries,
    coveredTurns,
    keptTurns: liveTurns - coveredTurns,
    coveredChars,
  };
  if (active) plan.previousSummary = previousOf(active.summary, view);
  return plan;
}

function previousOf(summary: SummaryEntry, view: TextView): PreviousSummary {
  return { id: summary.id, text: view.textOf(summary), coversThroughId: summary.coversThroughId };
}

/** Why Compact Now did nothing, in words for the novelist. */
export function planSkipText(plan: PlanNotDue, lang: Lang): string {
  const beyond = Math.max(0, plan.neededTurns - plan.liveTurns);
  if (lang === 'en') {
    if (plan.reason === 'noTurns') return 'Nothing to summarise yet: there are no turns after the last summary.';
    if (plan.reason === 'tooFewTurns') {
      return `Nothing to summarise yet: ${plan.liveTurns} turn(s) since the last summary, and the most recent ones stay verbatim. ${beyond} more turn(s) needed.`;
    }
    return `Not worth summarising yet: the older turns hold only ${plan.coveredChars} characters (at least ${plan.minChars}).`;
  }
  if (plan.reason === 'noTurns') return '还没有可压缩的内容：上次摘要之后还没有新的轮次。';
  if (plan.reason === 'tooFewTurns') return `还没有可压缩的内容：上次摘要之后共 ${plan.liveTurns} 轮，最近几轮会原样保留，还差 ${beyond} 轮。`;
  return `暂不值得压缩：较早的轮次只有 ${plan.coveredChars} 字（至少 ${plan.minChars} 字）。`;
}
