// The goals in words: the status bar's parts and the tooltip's Markdown, in English and Chinese,
// plurals by the goal, the novelist's path escaped, every key translated.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Text } from '../../../src/common/text';
import {
  DAYS_HEADING, GOALS_HEADING, HOW_COUNTED, NO_GOALS, goalStatusParts, goalStatusText, goalTooltipMarkdown, statusTooltipMarkdown, type GoalView,
} from '../../../src/project/goalText';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const fill = (s: string, t: Text): string => s.replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m));
/** English as VS Code shows it without a bundle: the key, "{n}" filled. */
const en = (t: Text): string => fill(t.message, t);
/** Chinese through the bundle; a missing key fails loudly. */
const zh = (t: Text): string => {
  const s = bundle[t.message];
  if (s === undefined) throw new Error(`no zh-cn translation for: ${t.message}`);
  return fill(s, t);
};

const TODAY = '2026-12-02';
function view(over: Partial<GoalView> = {}): GoalView {
  return {
    goals: { day: 2000, session: 3000, chapter: 4000 },
    today: 1200,
    session: 300,
    chapter: { path: 'chapters/02.md', words: 4100 },
    days: [{ day: TODAY, words: 1200 }, { day: '2026-12-01', words: 2400 }, { day: '2026-11-30', words: 0 }],
    todayKey: TODAY,
    ...over,
  };
}

describe('goals: status text', () => {
  it('one part per goal in force, day, session, chapter; a met goal is ticked', () => {
    assert.equal(goalStatusText(view(), en), ' · today 1,200/2,000 · session 300/3,000 · chapter 4,100/4,000 ✓');
    assert.equal(goalStatusText(view(), zh), ' · 今日 1,200/2,000 · 本次 300/3,000 · 本章 4,100/4,000 ✓');
    assert.deepEqual(goalStatusParts(view()).map((p) => [p.kind, p.met]), [['day', false], ['session', false], ['chapter', true]]);
  });

  it('no goals: nothing; no chapter open: no chapter part', () => {
    assert.equal(goalStatusText(view({ goals: {} }), en), '');
    assert.equal(goalStatusText(view({ goals: { chapter: 4000 }, chapter: undefined }), en), '');
    assert.equal(goalStatusText(view({ goals: { day: 2000 } }), en), ' · today 1,200/2,000');
    assert.equal(goalStatusText(view({ goals: { day: 1200 } }), en), ' · today 1,200/1,200 ✓', 'reaching the goal exactly meets it');
  });
});

describe('goals: tooltip', () => {
  it('English: each goal with its percentage, the days newest first with today and yesterday named, how it counts', () => {
    const md = goalTooltipMarkdown(view(), en);
    const lines = md.split('\n').filter((l) => l !== '');
    assert.deepEqual(lines, [
      '**Goals**',
      '- Today: 1,200 of 2,000 words (60%)',
      '- This session: 300 of 3,000 words (10%)',
      '- This chapter (chapters\\/02\\.md): 4,100 of 4,000 words (102%) ✓',
      '**Words written per day**',
      '- 2026-12-02 (today): 1,200 words █████',
      '- 2026-12-01 (yesterday): 2,400 words ██████████ ✓',
      '- 2026-11-30: 0 words',
      lines.at(-1)!,
    ]);
    assert.match(lines.at(-1)!, /^\*Written is the manuscript\\'s net growth/);
  });

  it('Chinese: the same in the bundle\'s words', () => {
    const md = goalTooltipMarkdown(view(), zh);
    assert.match(md, /^\*\*目标\*\*/);
    assert.ok(md.includes('- 今日：1,200 / 2,000 字（60%）'), md);
    assert.ok(md.includes('- 本次会话：300 / 3,000 字（10%）'), md);
    assert.ok(md.includes('- 本章（chapters\\/02\\.md）：4,100 / 4,000 字（102%） ✓'), md);
    assert.ok(md.includes('**每日写作字数**'), md);
    assert.ok(md.includes('- 2026-12-02（今天）：1,200 字'), md);
    assert.ok(md.includes('- 2026-12-01（昨天）：2,400 字'), md);
    assert.ok(!/[A-Za-z]{4,}/.test(md.replace(/chapters\\\/02\\\.md/, '')), `no English left: ${md}`);
  });

  it('plurals follow the count: one word, and a goal of one', () => {
    const md = goalTooltipMarkdown(view({ goals: { day: 1 }, today: 1, days: [{ day: TODAY, words: 1 }] }), en);
    assert.ok(md.includes('- Today: 1 of 1 word (100%) ✓'), md);
    assert.ok(md.includes('- 2026-12-02 (today): 1 word █'), md);
  });

  it('a chapter path that looks like Markdown or HTML shows as text', () => {
    const md = goalTooltipMarkdown(view({ goals: { chapter: 10 }, chapter: { path: 'ch/[x](http://e.vil)<img src=x>*b*.md', words: 3 } }), en);
    assert.ok(md.includes('ch\\/\\[x\\]\\(http\\:\\/\\/e\\.vil\\)\\<img src\\=x\\>\\*b\\*\\.md'), md);
    assert.ok(!md.includes('](http'), md);
  });

  it('no goals set: says how to set them; no history yet: no days heading', () => {
    const md = goalTooltipMarkdown(view({ goals: {}, days: [] }), en);
    assert.ok(md.includes('No goals set'), md);
    assert.ok(!md.includes('Words written per day'), md);
    const chapterOnly = goalTooltipMarkdown(view({ goals: { chapter: 4000 }, chapter: undefined, days: [] }), en);
    assert.ok(!chapterOnly.includes('No goals set'), 'a chapter goal is set, only no chapter is open');
  });

  it('the whole tooltip: the plain lines escaped, then the goals', () => {
    const md = statusTooltipMarkdown('Worldline: model (CJK).\nThis session: 2 model calls · ≈ $0.0012', '**Goals**');
    assert.deepEqual(md.split('\n\n'), ['Worldline\\: model \\(CJK\\)\\.', 'This session\\: 2 model calls · ≈ \\$0\\.0012', '---', '**Goals**']);
  });

  it('every key it asks for has a translation', () => {
    const asked: Text[] = [GOALS_HEADING, DAYS_HEADING, HOW_COUNTED, NO_GOALS];
    const spy = (t: Text): string => (asked.push(t), en(t));
    for (const v of [view(), view({ goals: { day: 1, session: 1, chapter: 1 }, today: 1, session: 1, days: [{ day: TODAY, words: 1 }] }), view({ goals: {} })]) {
      goalStatusText(v, spy);
      goalTooltipMarkdown(v, spy);
    }
    assert.deepEqual([...new Set(asked.map((t) => t.message))].filter((m) => !(m in bundle)), []);
    assert.ok(asked.length > 15);
  });
});
