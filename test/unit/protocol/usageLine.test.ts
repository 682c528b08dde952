// Token usage on the Chat page and in the status bar's tooltip: each reply's figures (its tool
// steps summed) with the cost where the model is priced, in the window's language; the session's
// calls, tokens, cache share and cost, and how full the context is, in the tooltip. Over a real
// session file and the real Branch.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { dialectById } from '../../../src/model/dialects';
import { pricingOf, usageTotals } from '../../../src/model/usage';
import { chatModel, type ChatStory } from '../../../src/protocol/chatModel';
import { STATUS_TOOLTIP, statusTooltip } from '../../../src/protocol/statusLine';
import { costText, usageText } from '../../../src/protocol/usageLine';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { branchOf, type BranchOptions } from '../../../src/story';
import { removeTempDirs, tempDir } from '../session/helpers';
import { en, zh } from '../fixtures/translation';

const OPTIONS: BranchOptions = { opening: openingState({ time: '开场', location: '客栈' }), lang: 'zh' };

describe('usage on the page and in the tooltip', () => {
  let session: Session;
  beforeEach(async () => {
    session = await Session.create(path.join(tempDir('wl-usageline-'), 's.jsonl'), { id: 's', title: '雨夜' });
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });
  const story = (): ChatStory => ({ busy: false, phase: 'idle', canRetry: false, branch: () => branchOf(session, OPTIONS) });

  it('each reply carries its usage, tool steps summed, with the cost where priced; instructions and unreported replies carry none', async () => {
    await session.append({ type: 'user', text: '写。' });
    await session.append({ type: 'assistant', text: '', model: 'gpt-4o', finish: 'stop', toolCalls: [{ id: 'c', name: 'read_file', arguments: '{}' }], usage: { promptTokens: 1000, completionTokens: 20, cachedTokens: 600 } });
    await session.append({ type: 'tool', callId: 'c', name: 'read_file', result: 'x', isError: false });
    await session.append({ type: 'assistant', text: '好。', model: 'gpt-4o', finish: 'stop', usage: { promptTokens: 1100, completionTokens: 30, cachedTokens: 1000 } });
    await session.append({ type: 'user', text: '再写。' });
    await session.append({ type: 'assistant', text: '嗯。', model: 'gpt-4o', finish: 'stop' });

    const model = chatModel({ story: story(), session, novelTitle: '雨夜', model: 'gpt-4o', pricing: pricingOf(dialectById('openai')) }, zh);
    const [u1, r1, u2, r2] = model.messages;
    assert.equal(u1?.usage, undefined);
    assert.equal(u2?.usage, undefined);
    assert.equal(r2?.usage, undefined, 'nothing reported: nothing shown');
    const cost = ((400 * 2.5 + 600 * 1.25 + 20 * 10) + (100 * 2.5 + 1000 * 1.25 + 30 * 10)) / 1e6;
    assert.deepEqual({ ...r1?.usage, label: undefined }, { prompt: 2100, completion: 50, cached: 1600, cost: { amount: cost, currency: 'USD' }, label: undefined });
    assert.equal(r1?.usage?.label, `提示 2,100 token（其中 1,600 命中缓存），回复 50 token · ≈ ${costText({ amount: cost, currency: 'USD' })}`);

    const unpriced = chatModel({ story: story(), session, novelTitle: '雨夜', model: 'gpt-4o' }, en);
    assert.equal(unpriced.messages[1]?.usage?.cost, undefined, 'no price list: no cost');
    assert.equal(unpriced.messages[1]?.usage?.label, '2,100 prompt tokens (1,600 from cache), 50 reply tokens');
    // The session's line, over every entry of the session (another branch's calls count too).
    assert.equal(unpriced.sessionUsage, 'This session: 2 model calls, 2,100 prompt tokens (76% from cache), 50 reply tokens');
    await session.navigate(null);
    await session.append({ type: 'user', text: '另起。' });
    await session.append({ type: 'assistant', text: '行。', model: 'gpt-4o', finish: 'stop', usage: { promptTokens: 100, completionTokens: 5 } });
    const other = chatModel({ story: story(), session, novelTitle: '雨夜', model: 'gpt-4o' }, en);
    assert.equal(other.sessionUsage, 'This session: 3 model calls, 2,200 prompt tokens (73% from cache), 55 reply tokens');
    assert.equal(chatModel({ story: undefined, session, novelTitle: '雨夜', model: 'gpt-4o' }, en).sessionUsage, undefined, 'no story: no line');
  });

  it('costs read as money, small sums with more decimals', () => {
    assert.equal(costText({ amount: 0.000123, currency: 'USD' }), '$0.0001');
    assert.equal(costText({ amount: 0.0456, currency: 'USD' }), '$0.046');
    assert.equal(costText({ amount: 12.3456, currency: 'CNY' }), '¥12.35');
    assert.equal(costText({ amount: 0, currency: 'USD' }), '$0.00');
    assert.equal(usageText({ prompt: 10, completion: 2, cached: 0 }, en), '10 prompt tokens, 2 reply tokens');
  });

  it('the tooltip: the first line, then the session\'s usage and the context, each only when known', async () => {
    assert.equal(statusTooltip({}, en), en(STATUS_TOOLTIP));
    await session.append({ type: 'user', text: '写。' });
    await session.append({ type: 'assistant', text: '好。', model: 'gpt-4o-mini', finish: 'stop', usage: { promptTokens: 4000, completionTokens: 100, cachedTokens: 3000 } });
    const usage = usageTotals(session.entries(), pricingOf(dialectById('openai')));
    const lines = statusTooltip({ usage, context: { tokens: 4100, window: 128000 } }, en).split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[1], `This session: 1 model call, 4,000 prompt tokens (75% from cache), 100 reply tokens · ≈ ${costText(usage.cost!)}`);
    assert.equal(lines[2], 'Context: about 4,100 of 128,000 tokens (3%)');
    const chinese = statusTooltip({ usage: usageTotals(session.entries()) }, zh).split('\n');
    assert.equal(chinese[1], '本会话：调用模型 1 次，提示 4,000 token（75% 命中缓存），回复 100 token');
    assert.equal(statusTooltip({ usage: usageTotals([]) }, en), en(STATUS_TOOLTIP), 'no call yet: no usage line');
  });
});
