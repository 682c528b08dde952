// One scribe run after a turn: prompt → side-model call → parse → leaf guard → merge → append.
// Every way it can go wrong ends as an outcome value; nothing half-done is ever appended.
import type { ChatCompleter } from '../model/types';
import { applyPatch } from './apply';
import { clip } from './json';
import { leafGuardFor } from './leafGuard';
import { parseScribeOutput } from './scribeParse';
import { buildScribePrompt, type ScribePromptInput } from './scribePrompt';
import type { SceneState } from './types';

export const SCRIBE_MAX_TOKENS = 2048;
const RAW_KEEP = 500;

export interface ScribeDeps {
  client: ChatCompleter;
  /** The scribe's model (its own setting; defaults to the main model upstream). */
  model: string;
  getLeafId(): string | null;
  isAncestorOrSelf(ancestor: string | null, node: string | null): boolean;
  /**
   * Writes the `state` entry. Pass `guard` on to the write (`session.append(entry, { guard })`):
   * it re-checks the leaf inside the session's write queue, so a navigate queued just before the
   * append cannot put the entry on another branch. When it refuses, write nothing (throwing is fine).
   */
  appendState(e: { state: SceneState; by: 'scribe'; warnings: string[] }, guard: (leafId: string | null) => boolean): Promise<void>;
  /**
   * Optional: the state at the current leaf when the reply arrives. When given, the patch is
   * merged onto it, so an edit the novelist made on the same chain during the call is kept.
   */
  getCurrentState?(): SceneState;
  signal?: AbortSignal;
  temperature?: number;
}

export interface ScribeInput extends ScribePromptInput {
  /** False when the turn was aborted, errored or wrote no prose: then the scribe does not run. */
  turnFinishedNormally: boolean;
}

export type ScribeErrorKind = 'model' | 'parse' | 'append';

export class ScribeError extends Error {
  readonly kind: ScribeErrorKind;
  /** The scribe's raw reply (first 500 characters) for parse failures. */
  readonly raw?: string;
  /** For kind 'model': the ModelError's kind (network, auth, …) when known. */
  readonly modelErrorKind?: string;

  constructor(kind: ScribeErrorKind, message: string, extra: { raw?: string; modelErrorKind?: string } = {}) {
    super(message);
    this.name = 'ScribeError';
    this.kind = kind;
    if (extra.raw !== undefined) this.raw = extra.raw;
    if (extra.modelErrorKind !== undefined) this.modelErrorKind = extra.modelErrorKind;
  }
}

export type ScribeSkipReason = 'turnNotFinished' | 'noProse';

export type ScribeOutcome =
  | { kind: 'applied'; warnings: string[]; patch: Record<string, unknown>; state: SceneState }
  | { kind: 'stale' }
  | { kind: 'failed'; error: ScribeError }
  | { kind: 'skipped'; reason: ScribeSkipReason };

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function kindOf(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && typeof (err as { kind?: unknown }).kind === 'string') {
    return (err as { kind: string }).kind;
  }
  return undefined;
}

export async function runScribe(deps: ScribeDeps, input: ScribeInput): Promise<ScribeOutcome> {
  if (!input.turnFinishedNormally) return { kind: 'skipped', reason: 'turnNotFinished' };
  if (input.proseAdded.trim() === '') return { kind: 'skipped', reason: 'noProse' };

  const leafBefore = deps.getLeafId();
  const prompt = buildScribePrompt(input);
  let text: string;
  try {
    const req: Parameters<ChatCompleter['complete']>[0] = {
      system: prompt.system,
      messages: [{ role: 'user', content: prompt.user }],
      model: deps.model,
      maxTokens: SCRIBE_MAX_TOKENS,
    };
    if (deps.temperature !== undefined) req.temperature = deps.temperature;
    if (deps.signal) req.signal = deps.signal;
    text = (await deps.client.complete(req)).text;
  } catch (err) {
    const extra: { modelErrorKind?: string } = {};
    const k = kindOf(err);
    if (k !== undefined) extra.modelErrorKind = k;
    return { kind: 'failed', error: new ScribeError('model', `The scribe's model call failed: ${messageOf(err)}`, extra) };
  }

  const parsed = parseScribeOutput(text);
  if (!parsed.ok) {
    const raw = clip(text, RAW_KEEP);
    return {
      kind: 'failed',
      error: new ScribeError(
        'parse',
        `The scribe's reply was not a {"patch":{…}} object (${parsed.error}); the ledger was left unchanged. If this repeats, choose a scribe model that follows JSON instructions. Reply began: ${clip(raw, 120)}`,
        { raw },
      ),
    };
  }

  // Leaf guard: the branch may have changed while the model was thinking. Checked now (cheap) and
  // again inside the write, where no other write can come between the check and the append.
  const guard = leafGuardFor(leafBefore, deps.isAncestorOrSelf);
  if (!guard(deps.getLeafId())) return { kind: 'stale' };

  try {
    const base = deps.getCurrentState ? deps.getCurrentState() : input.state;
    const merged = applyPatch(base, parsed.patch, { lang: input.lang });
    await deps.appendState({ state: merged.state, by: 'scribe', warnings: merged.warnings }, guard);
    if (guard.refused) return { kind: 'stale' };
    return { kind: 'applied', warnings: merged.warnings, patch: parsed.patch, state: merged.state };
  } catch (err) {
    if (guard.refused) return { kind: 'stale' };
    return { kind: 'failed', error: new ScribeError('append', `The new ledger could not be saved to the session: ${messageOf(err)}`) };
  }
}
