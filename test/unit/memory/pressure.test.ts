// Context pressure in the compaction plan: from PRESSURE_SHARE of the window up, the automatic
// compaction is due as soon as one turn lies beyond the (halved) kept ones; below it, nothing
// changes; Compact Now ignores it. Property: under pressure the plan never keeps fewer than one
// turn (when any were asked for), never covers the newest turn, and is due whenever the
// unpressured plan is.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { PRESSURE_SHARE, planCompaction, underPressure, type DuePlan } from '../../../src/memory/plan';
import { runs } from '../long-mode';
import { pathOfTurns } from './helpers';

function due(p: ReturnType<typeof planCompaction>): DuePlan {
  assert.equal(p.due, true, `expected due, got ${JSON.stringify({ ...p, coveredEntries: undefined })}`);
  return p as DuePlan;
}

describe('memory/plan: context pressure', () => {
  const path = pathOfTurns(8, 600);

  it('is due at the threshold and not a hair below it', () => {
    assert.equal(planCompaction({ path, pressure: PRESSURE_SHARE - 1e-9 }).due, false);
    assert.equal(planCompaction({ path, pressure: 0.5 }).due, false);
    assert.equal(planCompaction({ path }).due, false, 'no measurement: every N turns as before');
    const plan = due(planCompaction({ path, pressure: PRESSURE_SHARE }));
    assert.equal(plan.trigger, 'pressure');
    assert.equal(plan.manual, false);
  });

  it('keeps half the recent turns (the newest always) and covers the rest', () => {
    const plan = due(planCompaction({ path, keepLast: 6, pressure: 0.9 }));
    assert.equal(plan.keptTurns, 3);
    assert.equal(plan.coveredTurns, 5);
    assert.equal(due(planCompaction({ path, keepLast: 1, pressure: 1 })).keptTurns, 1);
    assert.equal(due(planCompaction({ path, keepLast: 5, pressure: 1 })).keptTurns, 3);
  });

  it('a refusal as too long (pressure 1 or more) is pressure too; nonsense is not', () => {
    assert.equal(underPressure(1), true);
    assert.equal(underPressure(Infinity), true);
    assert.equal(underPressure(Number.NaN), false);
    assert.equal(underPressure(undefined), false);
    assert.equal(underPressure(-1), false);
  });

  it('still needs a turn beyond the kept ones and Compact Now\'s minimum of text', () => {
    const two = pathOfTurns(3, 600); // keepLast 6 → 3 kept: nothing beyond them
    const p = planCompaction({ path: two, pressure: 1 });
    assert.equal(p.due, false);
    assert.equal(!p.due && p.reason, 'tooFewTurns');
    const tiny = planCompaction({ path: pathOfTurns(8, 10), pressure: 1 });
    assert.equal(!tiny.due && tiny.reason, 'tooLittleText');
  });

  it('Compact Now is not changed by pressure', () => {
    const plain = due(planCompaction({ path, manual: true }));
    const pressed = due(planCompaction({ path, manual: true, pressure: 5 }));
    assert.equal(pressed.trigger, 'manual');
    assert.equal(pressed.keptTurns, plain.keptTurns);
    assert.equal(pressed.coveredTurns, plain.coveredTurns);
  });

  it('property: under pressure the plan keeps at least one turn, never the newest, and is due whenever the plain plan is', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 35 }), fc.double({ min: 0, max: 3, noNaN: true }),
      (turns, keepLast, everyN, pressure) => {
        const p = pathOfTurns(turns, 300);
        const plain = planCompaction({ path: p, keepLast, everyN });
        const pressed = planCompaction({ path: p, keepLast, everyN, pressure });
        if (plain.due) assert.equal(pressed.due, true, 'pressure never makes a due plan not due');
        if (pressure < PRESSURE_SHARE) assert.deepEqual(pressed, plain);
        if (!pressed.due) return;
        if (keepLast > 0) assert.ok(pressed.keptTurns >= 1);
        assert.ok(pressed.coveredTurns >= 1);
        const lastUser = [...p].reverse().find((e) => e.type === 'user');
        assert.ok(!pressed.coveredEntries.some((e) => e.id === lastUser?.id) || keepLast === 0, 'the newest instruction stays verbatim');
      },
    ), { numRuns: runs(200, 3000) });
  });
});
