// One compaction: prompt → side-model call → clean → leaf guard → archive the covered text →
// leaf guard → append the `summary` entry. The archive comes first so that nothing the summary
// compresses is ever lost to recall; rows are tagged with their node ids, so archiving for a branch
// the novelist has just left is harmless (recall filters by branch). Every way it can go wrong is
// an outcome value; a summary is appended whole or not at all.
import type { ChatCompleter, CompleteRequest } from '../model/types';
import type { ChainEntry } from '../session/entries';
import { clip } from '../state/json';
import { leafGuardFor, leafStillCurrent } from '../state/leafGuard';
import type { ArchiveReport } from './archive';
import type { CompactionPlan, PlanSkipReason } from './plan';
import { storySources } from './sources';
import { cleanSummary } from './summaryOutput';
import { buildSummaryPrompt } from './summaryPrompt';
import { messageOf, type Lang, type Result, type TextView } from './types';

export const SUMMARY_MAX_TOKENS = 4096;

export interface SummaryDeps {
  client: ChatCompleter;
  /** The side model (the scribe's setting, by default). */
  model?: string;
  getLeafId(): string | null;
  isAncestorOrSelf(ancestor: string | null, node: string | null): boolean;
  /** Stores the covered text as memory rows (`archiveEntries` bound to a store and embedder). */
  archive?: (entries: readonly ChainEntry[]) => Promise<Result<ArchiveReport>>;
  /**
   * Writes the `summary` entry. Pass `guard` on to the write (`session.append(entry, { guard })`):
   * it re-checks the leaf inside the session's write queue, so a navigate queued just before the
   * append cannot put the summary on another branch. When it refuses, write nothing.
   */
  appendSummary(entry: { text: string; coversThroughId: string }, guard: (leafId: string | null) => boolean): Promise<unknown>;
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
}

export interface SummaryInput {
  plan: CompactionPlan;
  view: TextView;
  lang: Lang;
  /** The scene state at `coversThroughId`, as text. Auxiliary: the dialogue wins. */
  ledger?: string;
  maxTranscriptChars?: number;
}

export type SummaryFailureStage = 'model' | 'empty' | 'truncated' | 'archive' | 'append';

export interface SummaryFailure {
  stage: SummaryFailureStage;
  message: string;
  /** For 'model': the ModelError's kind (network, auth, …) when known. */
  modelErrorKind?: string;
  /** The start of the model's reply, for 'empty' and 'truncated'. */
  raw?: string;
}

export type SummaryOutcome =
  | { kind: 'applied'; text: string; coversThroughId: string; archived?: ArchiveReport; warnings: string[] }
  | { kind: 'stale'; when: 'afterSummary' | 'afterArchive' | 'atAppend' }
  | { kind: 'failed'; error: SummaryFailure }
  | { kind: 'skipped'; reason: PlanSkipReason };

export async function runSummary(deps: SummaryDeps, input: SummaryInput): Promise<SummaryOutcome> {
  const { plan, lang } = input;
  if (!plan.due) return { kind: 'skipped', reason: plan.reason };
  const leafBefore = deps.getLeafId();
  const still = (): boolean => leafStillCurrent(leafBefore, deps.getLeafId(), deps.isAncestorOrSelf);
  // The last check runs inside the session's write, where no queued navigate can slip in between.
  const guard = leafGuardFor(leafBefore, deps.isAncestorOrSelf);

  const prompt = buildSummaryPrompt({
    lang,
    sources: storySources(plan.coveredEntries, input.view),
    ...(plan.previousSummary ? { previousSummary: plan.previousSummary.text } : {}),
    ...(input.ledger !== undefined ? { ledger: input.ledger } : {}),
    ...(input.maxTranscriptChars !== undefined ? { maxTranscriptChars: input.maxTranscriptChars } : {}),
  });
  const req: CompleteRequest = { system: prompt.system, messages: [{ role: 'user', content: prompt.user }], maxTokens: deps.maxTokens ?? SUMMARY_MAX_TOKENS };
  if (deps.model !== undefined) req.model = deps.model;
  if (deps.temperature !== undefined) req.temperature = deps.temperature;
  if (deps.signal) req.signal = deps.signal;
  let raw: string;
  let finish: string | undefined;
  try {
    const res = await deps.client.complete(req);
    raw = res.text;
    finish = res.finishReason;
  } catch (err) {
    return failed('model', `The summary's model call failed: ${messageOf(err)}`, { modelErrorKind: kindOf(err) });
  }

  const clean = cleanSummary(raw, lang);
  if (finish === 'length') {
    return failed('truncated', 'The summary was cut off at the output limit; the context was left as it was. Raise the limit or use a model that writes shorter summaries.', { raw: clip(raw, 300) });
  }
  if (clean.text === '') return failed('empty', 'The model returned an empty summary; the context was left as it was.', { raw: clip(raw, 300) });
  if (!still()) return { kind: 'stale', when: 'afterSummary' };

  let archived: ArchiveReport | undefined;
  if (deps.archive) {
    const a = await deps.archive(plan.coveredEntries);
    if (!a.ok) return failed('archive', `The covered turns could not be stored in memory, so no summary was written (it will be retried): ${a.error.message}`);
    archived = a.value;
    if (!still()) return { kind: 'stale', when: 'afterArchive' };
  }

  try {
    await deps.appendSummary({ text: clean.text, coversThroughId: plan.coversThroughId }, guard);
  } catch (err) {
    if (guard.refused) return { kind: 'stale', when: 'atAppend' };
    return failed('append', `The summary could not be saved to the session: ${messageOf(err)}`);
  }
  if (guard.refused) return { kind: 'stale', when: 'atAppend' };
  const warnings = clean.missingSections.length > 0 ? [`The summary lacks section(s): ${clean.missingSections.join(', ')}.`] : [];
  const outcome: SummaryOutcome = { kind: 'applied', text: clean.text, coversThroughId: plan.coversThroughId, warnings };
  if (archived) outcome.archived = archived;
  return outcome;
}

function failed(stage: SummaryFailureStage, message: string, extra: { modelErrorKind?: string | undefined; raw?: string } = {}): SummaryOutcome {
  const error: SummaryFailure = { stage, message };
  if (extra.modelErrorKind !== undefined) error.modelErrorKind = extra.modelErrorKind;
  if (extra.raw !== undefined) error.raw = extra.raw;
  return { kind: 'failed', error };
}

function kindOf(err: unknown): string | undefined {
  const k = typeof err === 'object' && err !== null ? (err as { kind?: unknown }).kind : undefined;
  return typeof k === 'string' ? k : undefined;
}
