import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { anchorQuote, checkContinuity, findingId } from '../../../src/continuity/check';
import type { JudgePrompt } from '../../../src/continuity/judge';
import { runs } from '../long-mode';
import { input } from './helpers';

// 沈舟 left (high), a phone call from 青梧 (low), and 白露 dead (high).
const TEXT = '沈舟低声说：「雨要停了。」\n电话那头，青梧说：「我在渡口。」\n白露点了点头。';

describe('continuity check', () => {
  it('without a judge: only high-confidence rule findings, by rules, with stable ids', async () => {
    const r = await checkContinuity(input(TEXT, 'zh'));
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.findings.map((f) => [f.type, f.subject, f.by, f.confidence]), [['departed-acts', '沈舟', 'rules', 'high'], ['dead-acts', '白露', 'rules', 'high']]);
    const again = await checkContinuity(input(TEXT, 'zh'));
    assert.deepEqual(again.findings.map((f) => f.id), r.findings.map((f) => f.id));
    assert.equal(r.findings[0]!.id, findingId('departed-acts', '沈舟', r.findings[0]!.quote));
    assert.notEqual(findingId('departed-acts', '沈舟', 'a'), findingId('dead-acts', '沈舟', 'a'));
  });

  it('with a scripted judge: one call, confirmed findings carry the judge quote and reason, rejected ones vanish', async () => {
    const prompts: JudgePrompt[] = [];
    const judge = async (p: JudgePrompt): Promise<string> => {
      prompts.push(p);
      // Confirms the low-confidence phone candidate on purpose (to see the judge's word rules), rejects the dead one.
      return JSON.stringify({ verdicts: [
        { candidate: 0, error: true, quote: '沈舟低声说', reason: '他已离场' },
        { candidate: 1, error: true, quote: '青梧说', reason: '在渡口' },
        { candidate: 2, error: false, quote: '', reason: '' },
      ] });
    };
    const r = await checkContinuity(input(TEXT, 'zh'), { judge });
    assert.equal(prompts.length, 1);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.findings.map((f) => [f.type, f.quote, f.reason, f.by, f.confidence, f.offset]), [
      ['departed-acts', '沈舟低声说', '他已离场', 'judge', 'high', 0],
      ['two-places', '青梧说', '在渡口', 'judge', 'low', TEXT.indexOf('青梧说')],
    ]);
  });

  it('a judge that fails or talks nonsense falls back to the sure rule findings and says so', async () => {
    const failing = await checkContinuity(input(TEXT, 'zh'), { judge: async () => { throw new Error('HTTP 500'); } });
    assert.deepEqual(failing.findings.map((f) => [f.subject, f.by]), [['沈舟', 'rules'], ['白露', 'rules']]);
    assert.equal(failing.problems.length, 1);
    assert.match(failing.problems[0]!, /HTTP 500/);
    const garbage = await checkContinuity(input('"We should go," Corwin said.', 'en'), { judge: async () => 'I think they are all fine.' });
    assert.deepEqual(garbage.findings.map((f) => [f.subject, f.by]), [['Corwin', 'rules']]);
    assert.equal(garbage.problems.length, 1);
    assert.match(garbage.problems[0]!, /judge/);
  });

  it('a candidate the judge skipped keeps the rules\' say', async () => {
    const r = await checkContinuity(input(TEXT, 'zh'), { judge: async () => '{"verdicts":[{"candidate":0,"error":false}]}' });
    assert.deepEqual(r.findings.map((f) => [f.subject, f.by]), [['白露', 'rules']]);
  });

  it('no candidates: the judge is not called', async () => {
    let called = false;
    const r = await checkContinuity(input('雨停了。', 'zh'), { judge: async () => { called = true; return ''; } });
    assert.equal(called, false);
    assert.deepEqual(r, { findings: [], problems: [] });
  });

  it('cancelled: nothing found, and the problem says so', async () => {
    const ac = new AbortController();
    const r = await checkContinuity(input(TEXT, 'zh'), { signal: ac.signal, judge: async () => { ac.abort(); throw new Error('aborted'); } });
    assert.deepEqual(r.findings, []);
    assert.equal(r.problems.length, 1);
  });

  describe('anchorQuote', () => {
    it('finds the occurrence nearest the hint, and follows edits above it', () => {
      const text = '他点头。\n白露点了点头。\n白露点了点头。';
      const second = text.lastIndexOf('白露点了点头。');
      assert.deepEqual(anchorQuote(text, '白露点了点头。', second), { start: second, end: second + 7 });
      assert.deepEqual(anchorQuote(text, '白露点了点头。'), { start: 5, end: 12 });
      const edited = `新加的一段。\n${text}`;
      const r = anchorQuote(edited, '白露点了点头。', second + 7)!;
      assert.equal(r.start, second + 7);
      assert.equal(edited.slice(r.start, r.end), '白露点了点头。');
      assert.equal(anchorQuote(text, '不存在'), undefined);
      assert.equal(anchorQuote(text, ''), undefined);
    });

    it('property: the range is always exactly the quote, after any insertion above it', () => {
      fc.assert(fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 30 }), (head, tail, quote, inserted) => {
        const text = `${head}${quote}${tail}`;
        const edited = `${inserted}${text}`;
        const r = anchorQuote(edited, quote, head.length + inserted.length);
        assert.ok(r);
        assert.equal(edited.slice(r.start, r.end), quote);
        // With one occurrence there is no choice: it is the moved original.
        if (edited.indexOf(quote) === edited.lastIndexOf(quote)) assert.equal(r.start, head.length + inserted.length);
      }), { numRuns: runs(300, 5000) });
    });
  });
});
