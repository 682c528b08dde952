import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { judgePrompt, parseJudgeAnswer } from '../../../src/continuity/judge';
import { findCandidates } from '../../../src/continuity/rules';
import { runs } from '../long-mode';
import { input } from './helpers';

const ZH_TEXT = '雨下着。沈舟低声说：「雨要停了。」白露点了点头。';
const EN_TEXT = 'Rain fell. "We should go," Corwin said. Tom smiled.';

describe('continuity judge', () => {
  it('the Chinese prompt explains the types and the hard negatives, shows states, prose and numbered candidates', () => {
    const i = input(ZH_TEXT, 'zh');
    const cs = findCandidates(i);
    const p = judgePrompt(i, cs);
    for (const w of ['departed-acts', 'two-places', 'two-holders', 'dead-acts', 'time-backwards', 'misspelt-name', '回忆', '电话', '书信', '交接', '到来', '想起', '"verdicts"']) assert.ok(p.system.includes(w), w);
    assert.ok(p.user.includes('【本轮之前的账本】') && p.user.includes('【新正文】') && p.user.includes(ZH_TEXT));
    assert.ok(p.user.includes('沈舟：已离场') && p.user.includes('青梧：在：渡口') && p.user.includes('黄铜怀表（青梧持有）'));
    assert.ok(p.user.includes(`0. [departed-acts] 沈舟：「${cs[0]!.quote}」`));
  });

  it('the English prompt is English and says the same', () => {
    const i = input(EN_TEXT, 'en');
    const p = judgePrompt(i, findCandidates(i));
    for (const w of ['flashbacks', 'phone calls', 'letters', 'hand-over', 'arrival', 'thought of', '"verdicts"']) assert.ok(p.system.includes(w), w);
    assert.ok(p.user.includes('[Scene state before this turn]') && p.user.includes('Corwin: left the scene') && p.user.includes('Mira: at: the docks'));
    assert.ok(!/[\u4e00-\u9fff]/.test(p.system + p.user));
  });

  it('the system prompt is the same whatever the turn (a stable prefix)', () => {
    const a = input(ZH_TEXT, 'zh');
    const b = input('青梧放下茶杯。', 'zh');
    assert.equal(judgePrompt(a, findCandidates(a)).system, judgePrompt(b, findCandidates(b)).system);
  });

  it('reads verdicts inside fences and prose, and after a <think> block', () => {
    const i = input(ZH_TEXT, 'zh');
    const cs = findCandidates(i);
    const text = `<think>{"verdicts":[{"candidate":0,"error":false}]}</think>好的，结果如下：\n\`\`\`json\n{"verdicts":[{"candidate":0,"error":true,"quote":"沈舟低声说","reason":"已离场"},{"candidate":1,"error":false,"quote":"","reason":"x"},]}\n\`\`\`\n以上。`;
    assert.deepEqual(parseJudgeAnswer(text, cs, i.prose), [
      { candidate: 0, error: true, quote: '沈舟低声说', reason: '已离场' },
      { candidate: 1, error: false, quote: cs[1]!.quote, reason: 'x' },
    ]);
  });

  it('drops verdicts with an unknown candidate, a quote not in the prose, or no error flag; first per candidate wins', () => {
    const i = input(ZH_TEXT, 'zh');
    const cs = findCandidates(i);
    const text = JSON.stringify({ verdicts: [
      { candidate: 7, error: true, quote: '沈舟' },
      { candidate: 0, error: true, quote: '沈舟高声说' },
      { candidate: 0, quote: '沈舟' },
      { candidate: '1', error: 'true', quote: '白露点了点头' },
      { candidate: 1, error: false, quote: '白露' },
      { candidate: -1, error: true, quote: '白露' },
    ] });
    assert.deepEqual(parseJudgeAnswer(text, cs, i.prose), [{ candidate: 1, error: true, quote: '白露点了点头', reason: '' }]);
    assert.deepEqual(parseJudgeAnswer('[{"candidate":0,"error":true,"quote":"沈舟"}]', cs, ZH_TEXT).map((v) => v.quote), ['沈舟']);
  });

  it('garbage gives no verdicts', () => {
    const cs = findCandidates(input(ZH_TEXT, 'zh'));
    for (const g of ['', 'no idea', '{"verdicts":', '{"verdicts":"none"}', '{{{{', '[1,2,3]', 'null']) assert.deepEqual(parseJudgeAnswer(g, cs, ZH_TEXT), [], g);
    assert.deepEqual(parseJudgeAnswer(undefined as unknown as string, cs, ZH_TEXT), []);
  });

  it('property: never throws, and every verdict quotes the prose exactly and names a real candidate', () => {
    const i = input(ZH_TEXT, 'zh');
    const cs = findCandidates(i);
    const verdict = fc.record({
      candidate: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.string(), fc.constant(null)),
      error: fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 'yes'), fc.constant(undefined)),
      quote: fc.oneof(fc.constantFrom('沈舟', '白露点了点头', '', '不在这里'), fc.string(), fc.integer()),
      reason: fc.oneof(fc.string(), fc.integer()),
    }, { requiredKeys: [] });
    const answer = fc.oneof(
      fc.string(),
      fc.array(verdict, { maxLength: 8 }).map((vs) => JSON.stringify({ verdicts: vs })),
      fc.tuple(fc.string(), fc.array(verdict, { maxLength: 4 }), fc.string()).map(([a, vs, b]) => `${a}\`\`\`json\n${JSON.stringify({ verdicts: vs })}\n\`\`\`${b}`),
      fc.array(fc.constantFrom('{', '}', '[', ']', '"', '\\', '{"verdicts":', '<think>', '</think>', ','), { maxLength: 60 }).map((a) => a.join('')),
    );
    fc.assert(fc.property(answer, (text) => {
      const vs = parseJudgeAnswer(text, cs, i.prose);
      const seen = new Set<number>();
      for (const v of vs) {
        assert.ok(Number.isInteger(v.candidate) && v.candidate >= 0 && v.candidate < cs.length && !seen.has(v.candidate));
        seen.add(v.candidate);
        assert.ok(v.quote !== '' && ZH_TEXT.includes(v.quote));
        assert.equal(typeof v.error, 'boolean');
      }
    }), { numRuns: runs(300, 5000) });
  });
});
