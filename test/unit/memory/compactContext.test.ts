// Old turns' tool payloads shortened to one line each; the boundary moves with the summary, or in
// large steps, so the replayed prefix stays byte-stable between moves.
import { strict as assert } from 'node:assert';
import { instructionsBeforeSummary } from '../../../src/agent/sentBlocks';
import { planCompaction } from '../../../src/memory/plan';
import { RAW_VIEW } from '../../../src/memory/types';
import { activeSummaryView } from '../../../src/session/context';
import type { ChainEntry, ContextMessage, NewChainEntry } from '../../../src/session/entries';
import fc from 'fast-check';
import { oldTurnsFor, shortArguments, shortenOldToolPayloads } from '../../../src/memory/compactContext';
import { runs } from '../long-mode';

function turns(n: number): ContextMessage[] {
  const out: ContextMessage[] = [];
  for (let t = 0; t < n; t++) {
    out.push({ entryId: `u${t}`, role: 'user', text: `第${t}轮` });
    const content = `第一段第${t}轮。\n${'雨'.repeat(300)}\n最后一段。`;
    out.push({ entryId: `a${t}`, role: 'assistant', text: '写好了。', toolCalls: [{ id: `c${t}`, name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content }) }] });
    out.push({ entryId: `t${t}`, role: 'tool', text: `Appended 305 characters.\n${'x'.repeat(400)}`, callId: `c${t}`, name: 'append_file' });
  }
  return out;
}

describe('memory/shortenOldToolPayloads', () => {
  it('old turns: results and arguments one line each; the turns after them untouched', () => {
    const msgs = turns(12);
    const out = shortenOldToolPayloads(msgs, 6);
    for (let i = 0; i < 18; i++) {
      const m = out[i] as ContextMessage;
      if (m.role === 'tool') {
        assert.ok(!m.text.includes('\n'));
        assert.ok(m.text.startsWith('Appended 305 characters.'));
        assert.ok(m.text.includes('chars in full'));
      }
      if (m.role === 'assistant') {
        const args = JSON.parse(m.toolCalls?.[0]?.arguments ?? '') as { path: string; content: string };
        assert.equal(args.path, 'chapters/01.md', 'short values are kept');
        assert.ok(!args.content.includes('\n'));
        assert.ok(args.content.startsWith('第一段'));
        assert.ok(args.content.length < 100);
        assert.equal(m.text, '写好了。', 'the reply text itself stays');
      }
      if (m.role === 'user') assert.equal(m, msgs[i]);
    }
    for (let i = 18; i < out.length; i++) assert.equal(out[i], msgs[i], 'later messages are the same objects');
    assert.deepEqual(shortenOldToolPayloads(msgs, 0), msgs);
    assert.ok(shortenOldToolPayloads(msgs, 99).every((m) => !m.text.includes('\n')), 'more old turns than there are: all of them');
  });

  it('a context that starts with a reply: the reply belongs to the first old turn', () => {
    const msgs = turns(3).slice(1);
    const out = shortenOldToolPayloads(msgs, 1);
    assert.ok(!(out[1] as ContextMessage).text.includes('\n'), 'the leading result is shortened');
    assert.equal(out[5], msgs[5], 'the second turn is not');
  });

  it('arguments stay a JSON object; malformed ones become {}; odd keys stay plain keys', () => {
    assert.equal(shortArguments('not json', 60, 'en'), '{}');
    assert.equal(shortArguments('[1,2]', 60, 'en'), '{}');
    assert.equal(shortArguments('{"path":"a.md"}', 60, 'en'), '{"path":"a.md"}');
    const odd = shortArguments(`{"__proto__":"${'y'.repeat(100)}","n":3}`, 10, 'zh');
    const parsed = JSON.parse(odd) as Record<string, unknown>;
    assert.ok(Object.prototype.hasOwnProperty.call(parsed, '__proto__'));
    assert.equal(parsed['n'], 3);
    assert.match(String(parsed['__proto__']), /全文 100 字/);
  });
});

describe('memory/oldTurnsFor', () => {
  it('the turns before the summary are old; the rest only once a due summary has not come, then in steps', () => {
    assert.equal(oldTurnsFor({ turns: 36, beforeSummary: 0, keep: 6, step: 30 }), 0, 'the 36th turn runs before its summary is due');
    assert.equal(oldTurnsFor({ turns: 37, beforeSummary: 0, keep: 6, step: 30 }), 30, 'the summary did not come: one large step');
    assert.equal(oldTurnsFor({ turns: 36, beforeSummary: 6, keep: 6, step: 30 }), 6, 'a stretch of 30 turns after a summary stays as sent');
    assert.equal(oldTurnsFor({ turns: 37, beforeSummary: 6, keep: 6, step: 30 }), 30);
    assert.equal(oldTurnsFor({ turns: 3, beforeSummary: 9, keep: 6, step: 30 }), 3, 'never more than there are');
    assert.equal(oldTurnsFor({ turns: 9, beforeSummary: 0, keep: 1, step: 1 }), 7, 'small steps when no summary can come');
  });

  it('between moves the shortened replay is byte-identical; moves come at most once per step, never before a summary is overdue', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 12 }), (beforeSummary, keep, step) => {
        let previous: { n: number; old: number; json: string } | undefined;
        let lastMove = -Infinity;
        for (let n = beforeSummary + 1; n <= beforeSummary + keep + 3 * step + 2; n++) {
          const old = oldTurnsFor({ turns: n, beforeSummary, keep, step });
          assert.ok(old >= beforeSummary && old <= n, `${old} of ${n}`);
          if (old > beforeSummary) assert.ok(n - 1 - keep >= step, 'only a summary overdue (keep + step finished turns) moves it on its own');
          assert.ok(n - old <= keep + step, 'the turns as sent stay at most keep + step');
          const json = JSON.stringify(shortenOldToolPayloads(turns(n), old));
          if (previous && previous.old === old) assert.ok(json.startsWith(previous.json.slice(0, -1)), `turn ${n} extends turn ${n - 1}`);
          if (previous && previous.old !== old) {
            assert.ok(old > previous.old, 'the boundary only moves forward');
            assert.ok(n - lastMove >= step, 'at most one move per step');
            lastMove = n;
          }
          previous = { n, old, json };
        }
      }),
      { numRuns: runs(40, 400) },
    );
  });

  it('with a summary written whenever the plan says it is due, only the summaries move the boundary', () => {
    const source = { textOf: (e: ChainEntry) => RAW_VIEW.textOf(e), isHidden: () => false };
    for (const [everyN, keep] of [[30, 6], [5, 1], [4, 3], [10, 1]] as const) {
      const path: ChainEntry[] = [];
      const byId = new Map<string, ChainEntry>();
      const add = (e: NewChainEntry): ChainEntry => {
        const full = { ...e, id: `e${path.length}`, parentId: path.at(-1)?.id ?? null, ts: '' } as ChainEntry;
        path.push(full);
        byId.set(full.id, full);
        return full;
      };
      let summaries = 0;
      for (let t = 1; t <= 3 * (everyN + keep) + 5; t++) {
        add({ type: 'user', text: `第${t}轮` });
        // The request of turn t: the context after the summary's cover, the newest instruction in it.
        const view = activeSummaryView(path, source);
        const turnsNow = view.messages.filter((m) => m.role === 'user').length;
        const before = instructionsBeforeSummary({ get: (id) => byId.get(id) }, view);
        assert.equal(oldTurnsFor({ turns: turnsNow, beforeSummary: before, keep, step: everyN }), before, `every ${everyN}, keep ${keep}, turn ${t}`);
        add({ type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' });
        const plan = planCompaction({ path, everyN, keepLast: keep, minChars: 0 });
        if (plan.due) {
          add({ type: 'summary', text: `摘要${++summaries}`, coversThroughId: plan.coversThroughId });
        }
      }
      assert.ok(summaries >= 2, `every ${everyN}: ${summaries} summaries`);
    }
  });
});
