// Token usage in words, for a reply in the Chat and for the session in the status bar's tooltip:
// prompt tokens with the share served from the provider's cache, reply tokens, and the cost where
// the price is known (src/model/usage.ts). English keys marked for the localisation test and
// translated by the shell's `say`; the figures are formatted here, the currency symbol untranslated.
import { ofCount, type Say, type Text } from '../common/text';
import { cachedShare, type Cost, type UsageTotals } from '../model/usage';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

const SYMBOL: Record<Cost['currency'], string> = { USD: '$', CNY: '¥' };

/** "$0.0123": more decimals for small sums, so a cheap reply does not read as free. */
export function costText(cost: Cost): string {
  const a = Math.max(0, cost.amount);
  const digits = a >= 1 ? 2 : a >= 0.01 ? 3 : a > 0 ? 4 : 2;
  return `${SYMBOL[cost.currency]}${a.toFixed(digits)}`;
}

function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

/** One reply's (or a branch's) figures: "1,200 prompt tokens (800 from cache), 90 reply tokens · ≈ $0.0012". */
export function usageText(t: Pick<UsageTotals, 'prompt' | 'completion' | 'cached' | 'cost'>, say: Say): string {
  const tokens = t.cached > 0
    ? say(l10n.t('{0} prompt tokens ({1} from cache), {2} reply tokens', n(t.prompt), n(t.cached), n(t.completion)))
    : say(l10n.t('{0} prompt tokens, {1} reply tokens', n(t.prompt), n(t.completion)));
  return t.cost ? `${tokens} · ≈ ${costText(t.cost)}` : tokens;
}

/** The session's line of the tooltip: calls, tokens, the cached share, the cost. */
export function sessionUsageText(t: UsageTotals, say: Say): string {
  const share = Math.round(cachedShare(t) * 100);
  const line = say(ofCount(t.calls,
    l10n.t('This session: {0} model call, {1} prompt tokens ({2}% from cache), {3} reply tokens', t.calls, n(t.prompt), share, n(t.completion)),
    l10n.t('This session: {0} model calls, {1} prompt tokens ({2}% from cache), {3} reply tokens', t.calls, n(t.prompt), share, n(t.completion))));
  return t.cost ? `${line} · ≈ ${costText(t.cost)}` : line;
}

/** How full the model's context window is at the next request. */
export function contextText(tokens: number, window: number, say: Say): string {
  const share = Math.min(999, Math.round((tokens / window) * 100));
  return say(l10n.t('Context: about {0} of {1} tokens ({2}%)', n(tokens), n(window), share));
}
