// planCompaction: when a summary is due and what it covers.
import { strict as assert } from 'node:assert';
import type { ChainEntry, SummaryEntry } from '../../../src/session/entries';
import { planCompaction, planSkipText, type DuePlan, type PlanNotDue } from '../../../src/memory/plan';
import { RAW_VIEW, type TextView } from '../../../src/memory/types';
import { pathOfTurns } from './helpers';

function summaryAfter(path: ChainEntry[], coversThroughId: string, text = '旧摘要'): ChainEntry[] {
  const last = path[path.length - 1] as ChainEntry;
  const s: SummaryEntry = { id: `s${path.length}`, parentId: last.id, ts: last.ts, type: 'summary', text, coversThroughId };
  return [...path, s];
}

function extend(path: ChainEntry[], turns: number): ChainEntry[] {
  const more = pathOfTurns(turns).map((e) => ({ ...e, id: `x${path.length}_${e.id}` }));
  return [...path, ...more];
}

function due(p: ReturnType<typeof planCompaction>): DuePlan {
  assert.equal(p.due, true, `expected due, got ${JSON.stringify({ ...p, coveredEntries: undefined })}`);
  return p as DuePlan;
}

function notDue(p: ReturnType<typeof planCompaction>): PlanNotDue {
  assert.equal(p.due, false);
  return p as PlanNotDue;
}

describe('memory/planCompaction', () => {
  it('defaults: due at 30 turns beyond the last 6, covering exactly those 30 turns', () => {
    assert.equal(notDue(planCompaction({ path: pathOfTurns(35) })).reason, 'tooFewTurns');
    const plan = due(planCompaction({ path: pathOfTurns(36) }));
    assert.equal(plan.coveredTurns, 30);
    assert.equal(plan.keptTurns, 6);
    assert.equal(plan.coveredEntries.length, 30 * 4);
    assert.equal(plan.coversThroughId, 'e119'); // the last entry of turn 30
    assert.equal(plan.coveredEntries[0]?.id, 'e0');
    assert.equal(plan.previousSummary, undefined);
    assert.equal(plan.manual, false);
  });

  it('counting restarts after the previous summary, which is merged', () => {
    const first = summaryAfter(pathOfTurns(36), 'e119', '第一份摘要');
    const p35 = extend(first, 29); // 6 kept + 29 new = 35 live turns
    assert.equal(notDue(planCompaction({ path: p35 })).liveTurns, 35);
    const p36 = extend(first, 30);
    const plan = due(planCompaction({ path: p36 }));
    assert.equal(plan.coveredEntries[0]?.id, 'e120', 'starts right after the previous cover');
    assert.ok(plan.coveredEntries.some((e) => e.type === 'summary'), 'the previous summary entry lies in the covered stretch');
    assert.equal(plan.coveredTurns, 30);
    assert.deepEqual(plan.previousSummary, { id: 's144', text: '第一份摘要', coversThroughId: 'e119' });
  });

  it('Compact Now: any turn beyond the kept ones, with a lower text threshold', () => {
    assert.equal(notDue(planCompaction({ path: pathOfTurns(6, 600), manual: true })).reason, 'tooFewTurns');
    const plan = due(planCompaction({ path: pathOfTurns(7, 600), manual: true }));
    assert.equal(plan.coveredTurns, 1);
    assert.equal(plan.coversThroughId, 'e3');
    assert.equal(plan.manual, true);
    const small = notDue(planCompaction({ path: pathOfTurns(7, 100), manual: true }));
    assert.equal(small.reason, 'tooLittleText');
    assert.equal(small.minChars, 500);
  });

  it('automatic compaction skips stretches with little text', () => {
    const p = notDue(planCompaction({ path: pathOfTurns(36, 10) }));
    assert.equal(p.reason, 'tooLittleText');
    assert.equal(p.minChars, 2000);
    due(planCompaction({ path: pathOfTurns(36, 10), minChars: 0 }));
  });

  it('custom N and K; K = 0 covers through the leaf', () => {
    const plan = due(planCompaction({ path: pathOfTurns(5), everyN: 3, keepLast: 2, minChars: 0 }));
    assert.equal(plan.coveredTurns, 3);
    const all = due(planCompaction({ path: pathOfTurns(2, 600), keepLast: 0, manual: true }));
    assert.equal(all.coversThroughId, 'e7');
    assert.equal(all.keptTurns, 0);
    assert.equal(notDue(planCompaction({ path: [] })).reason, 'noTurns');
  });

  it('a hidden summary is inactive, and hidden messages add no text', () => {
    const first = summaryAfter(pathOfTurns(36), 'e119');
    const path = extend(first, 30);
    const hideSummary: TextView = { ...RAW_VIEW, isHidden: (id) => id === 's144' };
    const plan = due(planCompaction({ path, view: hideSummary }));
    assert.equal(plan.coveredEntries[0]?.id, 'e0', 'with the summary hidden, counting starts at the root');
    assert.equal(plan.previousSummary, undefined);
    const hideAll: TextView = { ...RAW_VIEW, isHidden: () => true };
    assert.equal(notDue(planCompaction({ path: pathOfTurns(36), view: hideAll })).reason, 'tooLittleText');
  });

  it('a summary whose covered entry is not on the path does not apply', () => {
    const path = summaryAfter(pathOfTurns(36), 'elsewhere');
    const plan = due(planCompaction({ path }));
    assert.equal(plan.previousSummary, undefined);
    assert.equal(plan.coveredEntries[0]?.id, 'e0');
  });

  it('says why nothing was compacted, in both languages', () => {
    const p = notDue(planCompaction({ path: pathOfTurns(4), manual: true }));
    assert.match(planSkipText(p, 'zh'), /还差 3 轮/);
    assert.match(planSkipText(p, 'en'), /3 more turn/);
    const little = notDue(planCompaction({ path: pathOfTurns(7, 10), manual: true }));
    assert.match(planSkipText(little, 'zh'), /至少 500 字/);
  });
});
