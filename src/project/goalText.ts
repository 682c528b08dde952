// The goals in words: the status bar's short parts ("today 1,200/2,000") and the tooltip's Markdown
// (each goal's progress and the words written per day). English keys marked for the localisation
// test and translated by the shell's `say`; anything of the novelist's (a chapter's path) is
// escaped, so it shows as the text it is.
import { markdownText } from '../common/markdownText';
import { ofCount, type Say, type Text } from '../common/text';
import { dayBefore, GOAL_KINDS, type DayWords, type GoalKind, type Goals } from './goals';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface GoalView {
  /** The goals in force (goals.ts `resolveGoals`). */
  goals: Goals;
  /** Written today and in this sitting of the session. */
  today: number;
  session: number;
  /** The active manuscript editor: its path in the book and its length; undefined when none. */
  chapter?: { path: string; words: number };
  /** The last days, newest first (goals.ts `recentDays`). */
  days: DayWords[];
  /** Today's key, "YYYY-MM-DD". */
  todayKey: string;
}

/** Grouped digits, the same in both languages. */
function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

function percent(done: number, goal: number): number {
  return Math.floor((done / goal) * 100);
}

/** How far one goal is, or undefined when it is not set (or, for the chapter, no chapter is open). */
function figures(v: GoalView, kind: GoalKind): { done: number; goal: number } | undefined {
  const goal = v.goals[kind];
  if (goal === undefined || goal <= 0) return undefined;
  if (kind === 'day') return { done: v.today, goal };
  if (kind === 'session') return { done: v.session, goal };
  return v.chapter ? { done: v.chapter.words, goal } : undefined;
}

const SHORT: Record<GoalKind, (done: string, goal: string) => Text> = {
  day: (d, g) => l10n.t('today {0}/{1}', d, g),
  session: (d, g) => l10n.t('session {0}/{1}', d, g),
  chapter: (d, g) => l10n.t('chapter {0}/{1}', d, g),
};

/** The status bar's parts, one per goal in force, in the order day, session, chapter. */
export function goalStatusParts(v: GoalView): { kind: GoalKind; text: Text; met: boolean }[] {
  const out: { kind: GoalKind; text: Text; met: boolean }[] = [];
  for (const kind of GOAL_KINDS) {
    const f = figures(v, kind);
    if (f) out.push({ kind, text: SHORT[kind](n(f.done), n(f.goal)), met: f.done >= f.goal });
  }
  return out;
}

/** What the status bar item adds after the length: " · today 1,200/2,000 · chapter 4,100/4,000 ✓"; '' without goals. */
export function goalStatusText(v: GoalView, say: Say): string {
  return goalStatusParts(v).map((p) => ` · ${say(p.text)}${p.met ? ' ✓' : ''}`).join('');
}

function goalLine(v: GoalView, kind: GoalKind, say: Say): string | undefined {
  const f = figures(v, kind);
  if (!f) return undefined;
  const [d, g, p] = [n(f.done), n(f.goal), percent(f.done, f.goal)];
  let text: Text;
  if (kind === 'day') text = ofCount(f.goal, l10n.t('Today: {0} of {1} word ({2}%)', d, g, p), l10n.t('Today: {0} of {1} words ({2}%)', d, g, p));
  else if (kind === 'session') text = ofCount(f.goal, l10n.t('This session: {0} of {1} word ({2}%)', d, g, p), l10n.t('This session: {0} of {1} words ({2}%)', d, g, p));
  else {
    const where = markdownText(v.chapter?.path ?? '');
    text = ofCount(f.goal, l10n.t('This chapter ({3}): {0} of {1} word ({2}%)', d, g, p, where), l10n.t('This chapter ({3}): {0} of {1} words ({2}%)', d, g, p, where));
  }
  return `- ${say(text)}${f.done >= f.goal ? ' ✓' : ''}`;
}

const BAR = 10;

/** One day of the history: "- 2026-12-02 (today): 1,234 words ██████". */
function dayLine(d: DayWords, v: GoalView, most: number, say: Say): string {
  const label = d.day === v.todayKey ? say(l10n.t('{0} (today)', d.day))
    : d.day === dayBefore(v.todayKey, 1) ? say(l10n.t('{0} (yesterday)', d.day))
      : d.day;
  const words = say(ofCount(d.words, l10n.t('{0} word', n(d.words)), l10n.t('{0} words', n(d.words))));
  const bar = most > 0 && d.words > 0 ? ` ${'█'.repeat(Math.max(1, Math.round((d.words / most) * BAR)))}` : '';
  const met = v.goals.day !== undefined && v.goals.day > 0 && d.words >= v.goals.day ? ' ✓' : '';
  return `- ${say(l10n.t('{0}: {1}', label, words))}${bar}${met}`;
}

export const GOALS_HEADING = l10n.t('Goals');
export const DAYS_HEADING = l10n.t('Words written per day');
export const HOW_COUNTED = l10n.t('Written is the manuscript\'s net growth: deleting subtracts, and no day goes below 0. CJK characters count one each, other scripts by words. The session counts from when it was opened in this window.');
export const NO_GOALS = l10n.t('No goals set. Add "goals: { day: 2000, session: 3000, chapter: 4000 }" to worldline.yaml, or set the Worldline goals in the settings.');

/** The tooltip's goals section, Markdown: each goal's progress, the days, how it is counted. */
export function goalTooltipMarkdown(v: GoalView, say: Say): string {
  const goals = GOAL_KINDS.map((k) => goalLine(v, k, say)).filter((l): l is string => l !== undefined);
  const blocks: string[] = [];
  blocks.push(`**${say(GOALS_HEADING)}**`);
  const configured = GOAL_KINDS.some((k) => (v.goals[k] ?? 0) > 0);
  blocks.push(goals.length > 0 ? goals.join('\n') : configured ? '' : markdownText(say(NO_GOALS)));
  if (v.days.length > 0) {
    const most = Math.max(...v.days.map((d) => d.words));
    blocks.push(`**${say(DAYS_HEADING)}**`, v.days.map((d) => dayLine(d, v, most, say)).join('\n'));
  }
  blocks.push(`*${markdownText(say(HOW_COUNTED))}*`);
  return blocks.filter((b) => b !== '').join('\n\n');
}

/** The whole tooltip in Markdown: the plain lines it had (escaped, one paragraph each), then the goals. */
export function statusTooltipMarkdown(plain: string, goals: string): string {
  const lines = plain.split('\n').filter((l) => l.trim() !== '').map(markdownText);
  return [...lines, '---', goals].join('\n\n');
}
