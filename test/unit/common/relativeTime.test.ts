// "When" in words: just now, minutes, hours and days ago (one and many), and past a week or in the
// future the local date; every key has its Simplified Chinese form.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { relativeTime } from '../../../src/common/relativeTime';
import type { Text } from '../../../src/common/text';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const fill = (message: string, t: Text) => message.replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m));
const en = (t: Text) => (t.literal ? t.message : fill(t.message, t));
const zh = (t: Text) => (t.literal ? t.message : fill(bundle[t.message] ?? `MISSING ${t.message}`, t));

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Local noon, so the date below is the same in every time zone the tests run in.
const NOW = new Date(2025, 2, 15, 12, 0, 0).getTime();

describe('relativeTime', () => {
  it('says how long ago, in both languages, one and many', () => {
    const cases: [number, string, string][] = [
      [0, 'just now', '刚刚'],
      [59_000, 'just now', '刚刚'],
      [-30_000, 'just now', '刚刚'],
      [MINUTE, '1 minute ago', '1 分钟前'],
      [5 * MINUTE + 59_000, '5 minutes ago', '5 分钟前'],
      [59 * MINUTE, '59 minutes ago', '59 分钟前'],
      [HOUR, '1 hour ago', '1 小时前'],
      [23 * HOUR + 59 * MINUTE, '23 hours ago', '23 小时前'],
      [DAY, '1 day ago', '1 天前'],
      [6 * DAY + 23 * HOUR, '6 days ago', '6 天前'],
    ];
    for (const [ago, english, chinese] of cases) {
      const t = relativeTime(new Date(NOW - ago).toISOString(), NOW);
      assert.deepEqual([en(t), zh(t)], [english, chinese], `${ago} ms ago`);
      assert.deepEqual(relativeTime(NOW - ago, NOW), t, 'epoch ms reads as the ISO time does');
    }
  });

  it('past a week, or ahead of the clock, the local date; a time that is none as it is', () => {
    assert.equal(en(relativeTime(new Date(2025, 2, 8, 11, 0, 0).getTime(), NOW)), '2025-03-08');
    assert.equal(en(relativeTime(new Date(2024, 11, 31, 23, 30, 0).toISOString(), NOW)), '2024-12-31');
    assert.equal(en(relativeTime(NOW + 2 * MINUTE, NOW)), '2025-03-15', 'a clock that moved back');
    assert.deepEqual(relativeTime('not a time', NOW), { message: 'not a time', args: [], literal: true });
    assert.equal(relativeTime(new Date(2025, 2, 8, 11, 0, 0).getTime(), NOW).literal, true, 'a date is shown as it is in both languages');
  });
});
