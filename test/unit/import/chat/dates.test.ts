// send_date / create_date: every format SillyTavern's parseTimestamp reads, converted as it converts
// them, and hostile values that must give undefined, never a throw.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { createDateIso, sendDateIso } from '../../../../src/import/chat/dates';
import { runs } from '../../long-mode';

describe('import/chat/dates', () => {
  it('reads Unix milliseconds as a number and as a digit string', () => {
    assert.equal(sendDateIso(1689775200000), '2023-07-19T14:00:00.000Z');
    assert.equal(sendDateIso('1689775200000'), '2023-07-19T14:00:00.000Z');
  });

  it('reads the meridiem form as local wall-clock time, as SillyTavern does (no offset)', () => {
    assert.equal(sendDateIso('June 19, 2023 2:20pm'), '2023-06-19T14:20:00');
    assert.equal(sendDateIso('June 19, 2023 12:05am'), '2023-06-19T00:05:00');
    assert.equal(sendDateIso('June 19, 2023 12:05PM'), '2023-06-19T12:05:00');
    assert.equal(sendDateIso('April 29, 2025 2:37pm'), '2025-04-29T14:37:00');
    assert.equal(sendDateIso('Jun 9, 2023 9:07am'), '2023-06-09T09:07:00');
  });

  it('reads the three humanized forms with Z appended, as SillyTavern does', () => {
    assert.equal(sendDateIso('2024-7-12@01h31m37s'), '2024-07-12T01:31:37Z');
    assert.equal(sendDateIso('2024-6-5 @14h 56m 50s 682ms'), '2024-06-05T14:56:50.682Z');
    assert.equal(sendDateIso('2025-11-23@10h00m00s123ms'), '2025-11-23T10:00:00.123Z');
    assert.equal(sendDateIso('2024-6-5 @14h 56m 50s 7ms'), '2024-06-05T14:56:50.007Z');
    // Inside a chat name, as SillyTavern's unanchored match finds it.
    assert.equal(sendDateIso('Seraphina - 2023-5-12 @21h 32m 29s 224ms'), '2023-05-12T21:32:29.224Z');
  });

  it('gives ISO 8601 strings back as written', () => {
    for (const iso of ['2025-11-23T10:00:00.000Z', '2025-11-23T10:00:00+08:00', '2025-11-23', '2025-11-23 10:00', '2025-11-23T10:00:00.5+0530']) {
      assert.equal(sendDateIso(iso), iso);
    }
  });

  it('gives undefined for what SillyTavern cannot read either', () => {
    for (const v of [undefined, null, '', 0, -5, Number.NaN, Infinity, 1e20, 'yesterday', 'Foo 19, 2023 2:20pm', 'June 31, 2023 2:20pm',
      'June 19, 2023 13:20pm', '2024-13-12@01h31m37s', '2023-02-29@01h00m00s', '2025-11-23T25:00:00Z', {}, [], true]) {
      assert.equal(sendDateIso(v), undefined, JSON.stringify(v));
    }
    assert.equal(sendDateIso('2024-02-29@01h00m00s'), '2024-02-29T01:00:00Z', 'a leap day is real');
  });

  it('create_date reads the same way', () => {
    assert.equal(createDateIso('2025-04-29@14h37m57s'), '2025-04-29T14:37:57Z');
  });

  it('never throws, whatever the value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.double(), fc.integer()), (v) => {
        const r = sendDateIso(v);
        assert.ok(r === undefined || typeof r === 'string');
      }),
      { numRuns: runs(500, 20000) },
    );
  });
});
