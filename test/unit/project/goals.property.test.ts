// The day history under random readings across random days: no day is ever negative, the days'
// nets telescope to the manuscript's net growth, and when no day shrank the days' words sum to it.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { dayBefore, dayNet, dayWritten, emptyHistory, recordReading } from '../../../src/project/goals';
import { runs } from '../long-mode';

const START = '2026-11-01';

/**
 * Readings as (days after the last reading, change in length); days never go back (a clock that
 * runs forward), and stay within the days the history keeps.
 */
const readings = fc.array(fc.tuple(fc.nat(2), fc.integer({ min: -400, max: 600 })), { minLength: 1, maxLength: 50 });

/** Folds the readings as a running window does; the first reading and the last length. */
function fold(steps: [number, number][], first: number, growOnly: boolean) {
  let h = emptyHistory();
  let day = START;
  let previous: number | undefined;
  let total = first;
  let firstReading: number | undefined;
  /** The oracle: each day's growth, summed change by change (a change belongs to the day it is read on). */
  const growth = new Map<string, number>();
  for (const [skip, change] of steps) {
    day = dayBefore(day, -skip);
    total = Math.max(0, total + (growOnly ? Math.abs(change) : change));
    firstReading ??= total;
    growth.set(day, (growth.get(day) ?? 0) + (previous === undefined ? 0 : total - previous));
    h = recordReading(h, { total, day, ...(previous !== undefined ? { previous } : {}) });
    previous = total;
  }
  return { h, firstReading: firstReading as number, last: total, growth };
}

describe('goals: day history properties', () => {
  it('no day is negative, and the nets sum to the net growth since the first reading', () => {
    fc.assert(fc.property(fc.nat(100_000), readings, (first, steps) => {
      const { h, firstReading, last, growth } = fold(steps, first, false);
      const days = Object.values(h.days);
      for (const d of days) assert.ok(dayWritten(d) >= 0);
      assert.deepEqual(Object.keys(h.days).sort(), [...growth.keys()].sort());
      for (const [day, g] of growth) assert.equal(dayWritten(h.days[day]), Math.max(0, g), day);
      const net = days.reduce((s, d) => s + dayNet(d), 0);
      assert.equal(net, last - firstReading);
      const written = days.reduce((s, d) => s + dayWritten(d), 0);
      assert.ok(written >= net, 'clamping only ever adds back a shrinking day');
    }), { numRuns: runs(300, 20_000) });
  });

  it('when the manuscript only grows, the days\' words sum exactly to its growth', () => {
    fc.assert(fc.property(fc.nat(100_000), readings, (first, steps) => {
      const { h, firstReading, last } = fold(steps, first, true);
      const written = Object.values(h.days).reduce((s, d) => s + dayWritten(d), 0);
      assert.equal(written, last - firstReading);
    }), { numRuns: runs(300, 20_000) });
  });
});
