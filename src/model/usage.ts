// Token usage as the providers report it, summed per reply, per branch and per session, with the
// cost where the dialect table knows the model's prices (src/model/dialects.ts), and the context
// budget: how full the model's window was at the last request. Pure: entries in, figures out.
import type { AssistantEntry, ChainEntry, Entry, TokenUsage } from '../session/entries';
import { dialectForEndpoint, type Dialect, type ModelPrice, type ProviderSetting } from './dialects';

/** The price of a model's tokens, by the model name recorded on an entry; undefined when unknown. */
export type Pricing = (model: string) => ModelPrice | undefined;

/** A dialect's price list as a Pricing. */
export function pricingOf(dialect: Dialect): Pricing {
  return (model) => (model ? dialect.model(model).price : undefined);
}

export interface EndpointSettings {
  baseUrl: string;
  provider?: ProviderSetting;
}

/**
 * The main endpoint's dialect and price list, the same objects while the endpoint stays: views
 * render on every change, and caches keyed by the price list (the Chat's) keep their work.
 */
export class EndpointPricing {
  private kept: { endpoint: string; dialect: Dialect; pricing: Pricing } | undefined;

  of(settings: EndpointSettings): { dialect: Dialect; pricing: Pricing } {
    const endpoint = `${settings.baseUrl}\0${settings.provider ?? ''}`;
    if (this.kept?.endpoint !== endpoint) {
      const dialect = dialectForEndpoint(settings.baseUrl, settings);
      this.kept = { endpoint, dialect, pricing: pricingOf(dialect) };
    }
    return this.kept;
  }
}

/** A session's usage totals, summed again only when entries were appended or the prices changed. */
export class SessionUsage {
  private kept: { session: object; entries: number; pricing: Pricing; totals: UsageTotals } | undefined;

  totals(session: { entries(): Iterable<Entry>; readonly entryCount: number }, pricing: Pricing): UsageTotals {
    const k = this.kept;
    if (k && k.session === session && k.entries === session.entryCount && k.pricing === pricing) return k.totals;
    const totals = usageTotals(session.entries(), pricing);
    this.kept = { session, entries: session.entryCount, pricing, totals };
    return totals;
  }
}

export interface Cost {
  amount: number;
  currency: ModelPrice['currency'];
}

export interface UsageTotals {
  /** Model calls that reported usage. */
  calls: number;
  prompt: number;
  completion: number;
  /** Prompt tokens served from the provider's cache. */
  cached: number;
  /** Reasoning tokens inside `completion`. */
  reasoning: number;
  /**
   * What these calls cost: only when every one of them has a known price, all in one currency
   * (a partial sum would read as the whole bill).
   */
  cost?: Cost;
}

export interface ReplyUsage {
  /** The reply's first assistant entry: the Chat message id (src/agent/transcript.ts). */
  id: string;
  usage: UsageTotals;
}

export interface UsageSummary {
  /** Each reply on the branch that reported usage, in order. */
  replies: ReplyUsage[];
  /** The branch, root to leaf. */
  branch: UsageTotals;
  /** Every call of the session, branches not taken included (they were billed too). */
  session: UsageTotals;
}

/** What one call cost under a price list. */
export function callCost(usage: TokenUsage, price: ModelPrice): number {
  const cached = Math.min(Math.max(0, usage.cachedTokens ?? 0), Math.max(0, usage.promptTokens));
  const fresh = Math.max(0, usage.promptTokens) - cached;
  return (fresh * price.input + cached * price.cachedInput + Math.max(0, usage.completionTokens) * price.output) / 1_000_000;
}

function isBilled(e: Entry): e is AssistantEntry & { usage: TokenUsage } {
  return e.type === 'assistant' && e.usage !== undefined;
}

/** The totals of the calls among `entries` (any entries: only assistant entries with usage count). */
export function usageTotals(entries: Iterable<Entry>, pricing?: Pricing): UsageTotals {
  const t: UsageTotals = { calls: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0 };
  let amount = 0;
  let currency: ModelPrice['currency'] | undefined;
  let priced = pricing !== undefined;
  for (const e of entries) {
    if (!isBilled(e)) continue;
    const u = e.usage;
    t.calls += 1;
    t.prompt += u.promptTokens;
    t.completion += u.completionTokens;
    t.cached += u.cachedTokens ?? 0;
    t.reasoning += u.reasoningTokens ?? 0;
    if (!priced) continue;
    const price = pricing?.(e.model);
    if (!price || (currency !== undefined && price.currency !== currency)) {
      priced = false;
      continue;
    }
    currency = price.currency;
    amount += callCost(u, price);
  }
  if (priced && currency !== undefined) t.cost = { amount, currency };
  return t;
}

/**
 * Usage per reply and for the branch (`path`, root to leaf) and the session (`all` its entries;
 * default: the branch only). A reply is the assistant entries between two instructions, as the
 * Chat shows them.
 */
export function usageSummary(path: readonly ChainEntry[], pricing?: Pricing, all?: Iterable<Entry>): UsageSummary {
  const replies: ReplyUsage[] = [];
  let group: AssistantEntry[] = [];
  const close = (): void => {
    const first = group[0];
    if (first && group.some(isBilled)) replies.push({ id: first.id, usage: usageTotals(group, pricing) });
    group = [];
  };
  for (const e of path) {
    if (e.type === 'user') close();
    else if (e.type === 'assistant') group.push(e);
  }
  close();
  return { replies, branch: usageTotals(path, pricing), session: usageTotals(all ?? path, pricing) };
}

/** The share of the prompt served from the cache, 0…1 (0 with no prompt tokens). */
export function cachedShare(t: Pick<UsageTotals, 'prompt' | 'cached'>): number {
  return t.prompt > 0 ? Math.min(1, t.cached / t.prompt) : 0;
}

// ---------------------------------------------------------------------------------------------
// The context budget.

/**
 * The model's context window: the `worldline.contextWindow` setting when above 0, else what the
 * dialect table says for the model, else unknown.
 */
export function contextWindowFor(setting: number | undefined, dialect: Dialect, model: string): number | undefined {
  if (setting !== undefined && Number.isFinite(setting) && setting > 0) return Math.floor(setting);
  return model ? dialect.model(model).contextWindow : undefined;
}

/**
 * How many tokens the next request of this branch will carry at least, by the provider's own
 * count: the last reported prompt plus the reply that came back (its visible part: reasoning is
 * not replayed). Undefined when nothing was reported since the last summary (a summary changes
 * the context; its effect is only known from the next reply).
 */
export function nextPromptTokens(path: readonly ChainEntry[]): number | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (e.type === 'summary') return undefined;
    if (isBilled(e)) return Math.max(0, e.usage.promptTokens + e.usage.completionTokens - (e.usage.reasoningTokens ?? 0));
  }
  return undefined;
}

/** The share of the window the next request will fill (1 = full); undefined without both figures. */
export function contextPressure(path: readonly ChainEntry[], window: number | undefined): number | undefined {
  const tokens = nextPromptTokens(path);
  if (tokens === undefined || window === undefined || window <= 0) return undefined;
  return tokens / window;
}
