// Token usage summed per reply, per branch and per session, with the cost only where every call
// has a known price; the context window from the setting or the dialect table; and how full the
// next request will be (reset by a summary). Over a real session file: a regenerated reply is
// off the branch but still in the session's bill.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { dialectById } from '../../../src/model/dialects';
import {
  EndpointPricing, SessionUsage, cachedShare, callCost, contextPressure, contextWindowFor, nextPromptTokens, pricingOf, usageSummary, usageTotals, type Pricing,
} from '../../../src/model/usage';
import type { AssistantEntry, ChainEntry, TokenUsage } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { runs } from '../long-mode';
import { removeTempDirs, tempDir } from '../session/helpers';

const openai = dialectById('openai');
const u = (promptTokens: number, completionTokens: number, cachedTokens?: number, reasoningTokens?: number): TokenUsage => ({
  promptTokens, completionTokens, ...(cachedTokens !== undefined ? { cachedTokens } : {}), ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
});

describe('model/usage', () => {
  let session: Session;
  beforeEach(async () => {
    session = await Session.create(path.join(tempDir('wl-usage-'), 's.jsonl'), { id: 's', title: 't' });
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  const reply = (model: string, usage: TokenUsage | undefined, extra: Partial<AssistantEntry> = {}) =>
    session.append({ type: 'assistant', text: 'ok', model, finish: 'stop', ...(usage ? { usage } : {}), ...extra });

  it('sums each reply\'s calls (tool steps included), the branch and the whole session, regenerated replies in the session only', async () => {
    const first = await session.append({ type: 'user', text: '一' });
    const step = await reply('gpt-4o', u(1000, 50, 800), { toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] });
    await session.append({ type: 'tool', callId: 'c1', name: 'read_file', result: 'x', isError: false });
    await reply('gpt-4o', u(1100, 60, 1000));
    await session.append({ type: 'user', text: '二' });
    const old = await reply('gpt-4o', u(1200, 70));
    // Regenerate: a sibling reply under the same instruction; the first one leaves the branch.
    await session.navigate(old.parentId);
    const again = await reply('gpt-4o', u(1300, 80, 1200));

    const s = usageSummary(session.path(), pricingOf(openai), session.entries());
    assert.deepEqual(s.replies.map((r) => r.id), [step.id, again.id], 'keyed by each reply\'s first assistant entry, as the Chat message is');
    assert.deepEqual(
      { calls: s.replies[0]!.usage.calls, prompt: s.replies[0]!.usage.prompt, completion: s.replies[0]!.usage.completion, cached: s.replies[0]!.usage.cached },
      { calls: 2, prompt: 2100, completion: 110, cached: 1800 },
    );
    assert.equal(s.branch.prompt, 2100 + 1300);
    assert.equal(s.session.prompt, 2100 + 1200 + 1300, 'the regenerated-away reply was billed too');
    assert.equal(s.session.calls, 4);
    // gpt-4o: $2.50 in, $1.25 cached, $10 out per million.
    const expected = ((1000 - 800) * 2.5 + 800 * 1.25 + 50 * 10) / 1e6;
    assert.ok(Math.abs(callCost(u(1000, 50, 800), openai.model('gpt-4o').price!) - expected) < 1e-12);
    assert.equal(s.session.cost?.currency, 'USD');
    assert.ok(first.id);
  });

  it('shows a cost only when every call has a price, in one currency', async () => {
    await session.append({ type: 'user', text: '一' });
    await reply('gpt-4o', u(100, 10));
    await reply('my-local-model', u(100, 10));
    assert.equal(usageTotals(session.entries(), pricingOf(openai)).cost, undefined, 'an unpriced call: no partial bill');
    assert.equal(usageTotals(session.entries()).cost, undefined, 'no price list: no cost');
    const mixed: Pricing = (m) => (m === 'gpt-4o' ? { currency: 'USD', input: 1, cachedInput: 1, output: 1 } : { currency: 'CNY', input: 1, cachedInput: 1, output: 1 });
    assert.equal(usageTotals(session.entries(), mixed).cost, undefined, 'two currencies do not add up');
    const one: Pricing = () => ({ currency: 'CNY', input: 2, cachedInput: 0.5, output: 8 });
    assert.deepEqual(usageTotals(session.entries(), one).cost, { amount: (200 * 2 + 20 * 8) / 1e6, currency: 'CNY' });
  });

  it('prices only the exact model names the price list gives, never a dated snapshot or another provider', () => {
    assert.ok(openai.model('gpt-4o').price);
    assert.ok(openai.model('gpt-5-mini').price);
    assert.equal(openai.model('gpt-4o-2024-05-13').price, undefined);
    for (const id of ['deepseek', 'gemini', 'qwen', 'kimi', 'glm', 'openrouter', 'ollama', 'openai-compatible'] as const) {
      assert.equal(dialectById(id).model('deepseek-chat').price, undefined, id);
      assert.equal(dialectById(id).model('gpt-4o').price, undefined, `${id}: only OpenAI's own endpoint bills OpenAI's prices`);
    }
  });

  it('the context window: the setting when above 0, else the dialect table, else unknown', () => {
    assert.equal(contextWindowFor(32000, openai, 'gpt-4o'), 32000);
    assert.equal(contextWindowFor(0, openai, 'gpt-4o'), 128_000);
    assert.equal(contextWindowFor(undefined, dialectById('ollama'), 'qwen3'), 4096);
    assert.equal(contextWindowFor(0, dialectById('openai-compatible'), 'x'), undefined);
    assert.equal(contextWindowFor(-5, dialectById('kimi'), 'kimi-k2.5'), 262_144);
  });

  it('the next request: the last reported prompt and the visible reply, nothing after a summary', async () => {
    await session.append({ type: 'user', text: '一' });
    await reply('m', u(7000, 900, 0, 400));
    await session.append({ type: 'state', state: openingState({ time: '夜', location: '客栈' }), by: 'scribe', warnings: [] });
    assert.equal(nextPromptTokens(session.path()), 7000 + 900 - 400);
    assert.equal(contextPressure(session.path(), 10_000), 0.75);
    assert.equal(contextPressure(session.path(), undefined), undefined);
    const failed = await session.append({ type: 'assistant', text: '', model: 'm', finish: 'error', error: 'x' });
    assert.equal(nextPromptTokens(session.path()), 7500, 'a failed call reported nothing: the last report stands');
    await session.append({ type: 'summary', text: '摘要', coversThroughId: failed.id });
    assert.equal(nextPromptTokens(session.path()), undefined, 'after a summary only the next reply tells');
  });

  it('property: the session total is the sum of its calls, the branch never exceeds it, the cached share stays in [0, 1]', () => {
    const entry = (i: number, usage: TokenUsage | undefined): ChainEntry => ({
      id: `a${i}`, parentId: null, ts: '2025-01-01T00:00:00.000Z', type: 'assistant', text: '', model: i % 2 ? 'gpt-4o' : 'gpt-5', finish: 'stop', ...(usage ? { usage } : {}),
    } as ChainEntry);
    const usageArb = fc.option(fc.record({ promptTokens: fc.nat(1e6), completionTokens: fc.nat(1e5), cachedTokens: fc.nat(2e6) }), { nil: undefined });
    fc.assert(fc.property(fc.array(usageArb, { maxLength: 30 }), fc.nat(30), (usages, cut) => {
      const all = usages.map((x, i) => entry(i, x));
      const t = usageTotals(all, pricingOf(openai));
      const billed = usages.filter((x) => x !== undefined);
      assert.equal(t.calls, billed.length);
      assert.equal(t.prompt, billed.reduce((s, x) => s + x!.promptTokens, 0));
      const share = cachedShare(t);
      assert.ok(share >= 0 && share <= 1);
      if (billed.length > 0) assert.ok(t.cost && t.cost.amount >= 0);
      const branch = usageTotals(all.slice(0, cut), pricingOf(openai));
      assert.ok(branch.prompt <= t.prompt && branch.completion <= t.completion);
    }), { numRuns: runs(200, 3000) });
  });
});

describe('kept prices and totals', () => {
  const reply = (n: number): AssistantEntry => ({
    id: `a${n}`, parentId: null, ts: '2026-01-01T00:00:00.000Z', type: 'assistant', text: '', model: 'gpt-4.1', finish: 'stop',
    usage: { promptTokens: 1000 * n, completionTokens: 10 },
  });

  it('the price list stays the same object while the endpoint stays, and follows it when it moves', () => {
    const prices = new EndpointPricing();
    const a = prices.of({ baseUrl: 'https://api.openai.com/v1' });
    assert.equal(prices.of({ baseUrl: 'https://api.openai.com/v1' }).pricing, a.pricing);
    const b = prices.of({ baseUrl: 'https://api.deepseek.com' });
    assert.notEqual(b.pricing, a.pricing);
    assert.notEqual(b.dialect.id, a.dialect.id);
  });

  it('totals are summed again only when entries were appended or the prices changed, and equal a fresh sum', () => {
    const kept = new SessionUsage();
    const entries: AssistantEntry[] = [reply(1)];
    const session = { entries: () => entries, get entryCount() { return entries.length; } };
    const pricing = pricingOf(dialectById('openai'));
    const first = kept.totals(session, pricing);
    assert.equal(kept.totals(session, pricing), first, 'nothing new: the same totals');
    entries.push(reply(2));
    assert.deepEqual(kept.totals(session, pricing), usageTotals(entries, pricing));
    const free: Pricing = () => undefined;
    assert.deepEqual(kept.totals(session, free), usageTotals(entries, free), 'other prices: summed again');
  });
});
