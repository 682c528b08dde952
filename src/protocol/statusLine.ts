// The status bar item's words: the model (the demo model named as what it is), what the agent is
// doing, and the manuscript's length with the last turn's change. The shell shows them; the words
// are English keys marked for the localisation test and translated by the shell's `say`.
import type { Say, Text } from '../common/text';
import { isDemoModel } from '../model/models';
import type { TurnPhase } from '../agent/turnTypes';
import type { UsageTotals } from '../model/usage';
import { contextText, sessionUsageText } from './usageLine';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface StatusInputs {
  /** The `worldline.model` setting (empty: none chosen). */
  model: string;
  phase: TurnPhase;
  /** The manuscript's length (undefined until counted). */
  words: number | undefined;
  /** The last turn's change in length (undefined before the first turn; 0 shows nothing). */
  delta: number | undefined;
}

const PHASES: Record<TurnPhase, Text> = {
  idle: l10n.t('idle'),
  writing: l10n.t('writing'),
  tool: l10n.t('writing'),
  scribe: l10n.t('scribe'),
};

export const STATUS_TOOLTIP = l10n.t('Worldline: model, what the agent is doing, and the manuscript length (CJK characters count one each) with the last turn\'s change.');

/** What the tooltip adds to its first line: the session's usage and how full the context is. */
export interface TooltipInputs {
  /** Every model call of the open session (src/model/usage.ts); nothing shown before the first. */
  usage?: UsageTotals;
  /** The next request's tokens and the model's window, when both are known. */
  context?: { tokens: number; window: number };
}

/** The tooltip: what the item shows, then the session's tokens, cache hits and cost, and the context. */
export function statusTooltip(t: TooltipInputs, say: Say): string {
  const lines = [say(STATUS_TOOLTIP)];
  if (t.usage && t.usage.calls > 0) lines.push(sessionUsageText(t.usage, say));
  if (t.context && t.context.window > 0) lines.push(contextText(t.context.tokens, t.context.window, say));
  return lines.join('\n');
}

/** "$(book) model · 1,234 words (+56)", with a spinning icon and the phase while the agent works. */
export function statusText(s: StatusInputs, say: Say): string {
  const model = isDemoModel(s.model) ? say(l10n.t('demo model')) : s.model || say(l10n.t('no model selected'));
  const busy = s.phase !== 'idle';
  const phase = busy ? ` · ${say(PHASES[s.phase])}` : '';
  const words = s.words === undefined ? '' : ` · ${say(l10n.t('{0} words', s.words.toLocaleString()))}`;
  const delta = s.delta ? ` (${s.delta > 0 ? '+' : ''}${s.delta.toLocaleString()})` : '';
  return `${busy ? '$(sync~spin)' : '$(book)'} ${model}${phase}${words}${delta}`;
}
