// Goals: worldline.yaml's goals block and the settings, and the day history fold (a new day,
// midnight passing while Worldline runs, a jump that is not writing, the file's text).
import { strict as assert } from 'node:assert';
import { countWords } from '../../../src/agent/manuscript';
import { parseProjectConfig } from '../../../src/project/config';
import {
  dayBefore, dayKey, dayWritten, emptyHistory, KEPT_DAYS, parseHistory, readGoalsField, rebaseDay, recentDays, recordReading,
  resolveGoals, serializeHistory, type DayHistory,
} from '../../../src/project/goals';

describe('goals: worldline.yaml and the settings', () => {
  it('reads goals: { session, day, chapter } from worldline.yaml', () => {
    const { config, problems } = parseProjectConfig('title: 雨夜\ngoals: { session: 3000, day: 2000, chapter: 4000 }\n');
    assert.deepEqual(problems, []);
    assert.deepEqual(config.goals, { session: 3000, day: 2000, chapter: 4000 });
  });

  it('no goals block: no goals, and the default config has none', () => {
    assert.deepEqual(parseProjectConfig('title: x\n').config.goals, {});
  });

  it('a bad value is a problem on its line and is left out; the others stay', () => {
    const { config, problems } = parseProjectConfig('title: x\ngoals:\n  day: lots\n  session: 1500\n  chapter: -4\n  weekly: 9\n');
    assert.deepEqual(config.goals, { session: 1500 });
    const lines = problems.map((p) => p.line);
    assert.deepEqual(lines, [3, 5, 6], JSON.stringify(problems));
    assert.match(problems[0]!.message, /goals\.day.*whole number/);
    assert.match(problems[2]!.message, /Unknown field "goals\.weekly"/);
    assert.ok(!problems.some((p) => /Unknown field "goals"/.test(p.message)), 'goals is a known field');
  });

  it('goals that is not a mapping is one problem, in the novelist\'s language', () => {
    const r = readGoalsField(2000, 'zh');
    assert.deepEqual(r.goals, {});
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!.message, /应为映射/);
    assert.deepEqual(readGoalsField(null), { goals: {}, problems: [] });
    assert.deepEqual(readGoalsField({ day: null }), { goals: {}, problems: [] }, 'null says nothing: the setting is used');
    assert.equal(readGoalsField({ day: 2.5 }).problems.length, 1, 'a fraction is not a word count');
  });

  it('the yaml wins field by field; 0 in the yaml turns a setting off; settings fill the rest', () => {
    assert.deepEqual(resolveGoals({ day: 2000 }, { day: 500, session: 3000, chapter: 0 }), { day: 2000, session: 3000 });
    assert.deepEqual(resolveGoals({ session: 0 }, { session: 3000, chapter: 4000 }), { chapter: 4000 });
    assert.deepEqual(resolveGoals({}, {}), {});
    assert.deepEqual(resolveGoals({}, { day: -5, session: Number.NaN, chapter: 4000.7 }), { chapter: 4000 }, 'hostile settings: none, or whole');
  });
});

describe('goals: the day history', () => {
  const D1 = '2026-12-01';
  const D2 = '2026-12-02';

  it('dayKey is the local date; dayBefore walks calendar days across months and years', () => {
    assert.equal(dayKey(new Date(2026, 11, 2, 0, 0, 1)), D2);
    assert.equal(dayKey(new Date(2026, 11, 1, 23, 59, 59)), D1);
    assert.equal(dayBefore('2026-03-01', 1), '2026-02-28');
    assert.equal(dayBefore('2027-01-01', 1), '2026-12-31');
    assert.equal(dayBefore(D2, 0), D2);
  });

  it('the day\'s first reading is its start: what was there before does not count as written', () => {
    let h = recordReading(emptyHistory(), { total: 10_000, day: D2 });
    assert.equal(dayWritten(h.days[D2]), 0);
    h = recordReading(h, { total: 10_250, day: D2, previous: 10_000 });
    assert.equal(dayWritten(h.days[D2]), 250);
    assert.equal(recordReading(h, { total: 10_250, day: D2, previous: 10_250 }), h, 'the same length changes nothing');
  });

  it('counts CJK by characters and other scripts by words, mixed too (the counter\'s own count)', () => {
    const texts = ['第一章 雨夜\n\n', '第一章 雨夜\n\n沈砚推门进来。', '第一章 雨夜\n\n沈砚推门进来。He said hello.', '第一章 雨夜\n\n沈砚推门进来。He said hello. 青梧说 OK。'];
    let h = emptyHistory();
    let previous: number | undefined;
    const seen: number[] = [];
    for (const t of texts) {
      const total = countWords(t);
      h = recordReading(h, { total, day: D2, ...(previous !== undefined ? { previous } : {}) });
      previous = total;
      seen.push(dayWritten(h.days[D2]));
    }
    // 沈砚推门进来 = 6 characters; "He said hello" = 3 words; 青梧说 = 3 characters and "OK" 1 word.
    assert.deepEqual(seen, [0, 6, 9, 13]);
  });

  it('a new day starts from the last reading when midnight passes while Worldline runs (a turn ending at 00:01 counts)', () => {
    let h = recordReading(emptyHistory(), { total: 1000, day: D1 });
    h = recordReading(h, { total: 1400, day: D1, previous: 1000 });
    // The turn ran across midnight: its words arrive in the first reading of the new day.
    h = recordReading(h, { total: 1700, day: D2, previous: 1400 });
    assert.equal(dayWritten(h.days[D1]), 400);
    assert.equal(dayWritten(h.days[D2]), 300);
  });

  it('a new day after reopening starts from its first reading: edits made while closed are nobody\'s', () => {
    let h = recordReading(emptyHistory(), { total: 1000, day: D1 });
    h = recordReading(h, { total: 1200, day: D1, previous: 1000 });
    h = recordReading(h, { total: 5000, day: D2 });
    assert.equal(dayWritten(h.days[D2]), 0);
    assert.equal(dayWritten(h.days[D1]), 200, 'yesterday stays as it was');
  });

  it('a day that cut more than it wrote shows 0, never a negative day; the net is kept', () => {
    let h = recordReading(emptyHistory(), { total: 3000, day: D2 });
    h = recordReading(h, { total: 2500, day: D2, previous: 3000 });
    assert.equal(dayWritten(h.days[D2]), 0);
    assert.equal(h.days[D2]!.end - h.days[D2]!.start, -500);
    h = recordReading(h, { total: 2800, day: D2, previous: 2500 });
    assert.equal(dayWritten(h.days[D2]), 0, 'writing 300 back after cutting 500: still no net growth');
    h = recordReading(h, { total: 3100, day: D2, previous: 2800 });
    assert.equal(dayWritten(h.days[D2]), 100);
  });

  it('a rebase (the globs changed) moves the start with the jump: what the day wrote stays', () => {
    let h = recordReading(emptyHistory(), { total: 1000, day: D2 });
    h = recordReading(h, { total: 1300, day: D2, previous: 1000 });
    h = rebaseDay(h, D2, 9000);
    assert.equal(dayWritten(h.days[D2]), 300);
    h = rebaseDay(h, D2, 200);
    assert.equal(dayWritten(h.days[D2]), 300);
    assert.equal(dayWritten(rebaseDay(emptyHistory(), D2, 50).days[D2]), 0, 'a rebase with no day yet is its first reading');
  });

  it('recentDays: newest first, 0 for a day without readings, nothing before the history began', () => {
    let h: DayHistory = emptyHistory();
    h = recordReading(h, { total: 100, day: '2026-11-28' });
    h = recordReading(h, { total: 400, day: '2026-11-28', previous: 100 });
    h = recordReading(h, { total: 400, day: '2026-11-30', previous: 400 });
    h = recordReading(h, { total: 450, day: '2026-11-30', previous: 400 });
    h = recordReading(h, { total: 650, day: D2, previous: 450 });
    assert.deepEqual(recentDays(h, D2, 14), [
      { day: D2, words: 200 }, { day: D1, words: 0 }, { day: '2026-11-30', words: 50 }, { day: '2026-11-29', words: 0 }, { day: '2026-11-28', words: 300 },
    ]);
    assert.equal(recentDays(h, D2, 2).length, 2);
    assert.deepEqual(recentDays(emptyHistory(), D2, 14), []);
  });

  it('keeps only the newest days', () => {
    let h = emptyHistory();
    let day = D2;
    for (let i = 0; i < KEPT_DAYS + 10; i++) {
      h = recordReading(h, { total: i, day });
      day = dayBefore(day, -1);
    }
    const keys = Object.keys(h.days).sort();
    assert.equal(keys.length, KEPT_DAYS);
    assert.equal(keys[0], dayBefore(D2, -10));
  });
});

describe('goals: the history file', () => {
  it('round-trips through its text', () => {
    let h = recordReading(emptyHistory(), { total: 10, day: '2026-12-01' });
    h = recordReading(h, { total: 30, day: '2026-12-02', previous: 10 });
    const text = serializeHistory(h);
    assert.deepEqual(parseHistory(text), { history: h, corrupt: false });
    assert.deepEqual(parseHistory(serializeHistory(emptyHistory())), { history: emptyHistory(), corrupt: false });
    assert.equal(text.split('\n').filter((l) => l.includes('2026-')).length, 2, 'one day per line');
  });

  it('a corrupt file starts over, said why, and is marked to be set aside', () => {
    for (const text of ['', '{"version":1,"days":', 'null', '[]', '{"version":2,"days":{}}', '{"version":1,"days":[]}', '\u0000\u0001']) {
      const r = parseHistory(text);
      assert.deepEqual(r.history, emptyHistory(), text);
      assert.equal(r.corrupt, true, text);
      assert.ok(r.problem && r.problem.includes('starts over'), text);
    }
  });

  it('bad days are left out with a warning; the good ones stay', () => {
    const r = parseHistory(JSON.stringify({ version: 1, days: { '2026-12-01': { start: 1, end: 5 }, 'yesterday': { start: 1, end: 2 }, '2026-12-02': { start: 'a', end: 3 }, '2026-12-03': { start: 1, end: -1 } } }));
    assert.deepEqual(r.history, { days: { '2026-12-01': { start: 1, end: 5 } } });
    assert.equal(r.corrupt, false);
    assert.match(r.problem ?? '', /yesterday/);
  });
});
