// Word-count goals (per day, per session, per chapter) and the day history they are measured
// against. Plain TypeScript: the shell feeds readings of the manuscript's length (the status bar's
// one counter, project/wordCount.ts: CJK characters one each, other scripts by words) and shows
// what this computes.
//
// What "written" means: net growth of the manuscript's length, never below zero.
// - A day: the length at its last reading minus the length at its start. The start is the day's
//   first reading; when the day begins while Worldline is running (midnight passes), it is the
//   last reading before midnight instead, so a turn that ends just after midnight is not lost to
//   both days. Edits made while Worldline was closed are not counted (nobody saw them happen).
// - A session: since the count when the session was opened in this window (switching sessions
//   or reopening VS Code starts a new sitting). Chosen over "since the session's first checkpoint":
//   that would need the shadow repo read at every open, and a session written over weeks would
//   never make a sitting goal mean anything.
// - A chapter: the active manuscript editor's own length against the chapter goal.
// Deleting counts against the same day's growth (a day that cut 500 and wrote 300 shows 0, not
// 300), which is what "the manuscript grew by" says.

/** Which goal: the order is the order shown. */
export type GoalKind = 'day' | 'session' | 'chapter';
export const GOAL_KINDS: readonly GoalKind[] = ['day', 'session', 'chapter'];

/** Goals as written somewhere: a positive whole number sets one, 0 turns it off, absent says nothing. */
export type Goals = Partial<Record<GoalKind, number>>;

/** A goal above this is surely a typo (ten million words). */
export const MAX_GOAL = 10_000_000;

/** How many days of history are kept in the file. */
export const KEPT_DAYS = 120;

export interface GoalFieldProblem {
  /** The path in worldline.yaml, for its line number: ['goals'] or ['goals', 'day']. */
  path: string[];
  message: string;
}

/**
 * worldline.yaml's `goals:` (`goals: { session: 3000, day: 2000, chapter: 4000 }`). Never throws:
 * each unusable value is a problem and is left out (the setting is used for it).
 */
export function readGoalsField(v: unknown, uiLang: 'zh' | 'en' = 'en'): { goals: Goals; problems: GoalFieldProblem[] } {
  const t = (en: string, zh: string): string => (uiLang === 'zh' ? zh : en);
  const goals: Goals = {};
  const problems: GoalFieldProblem[] = [];
  if (v === null || v === undefined) return { goals, problems };
  if (typeof v !== 'object' || Array.isArray(v)) {
    problems.push({
      path: ['goals'],
      message: t('"goals" must be a mapping such as "goals: { day: 2000, session: 3000, chapter: 4000 }"; the settings are used.',
        '「goals」应为映射，如「goals: { day: 2000, session: 3000, chapter: 4000 }」；先用设置里的目标。'),
    });
    return { goals, problems };
  }
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    if (!(GOAL_KINDS as readonly string[]).includes(key)) {
      problems.push({ path: ['goals', key], message: t(`Unknown field "goals.${key}" is ignored (known: day, session, chapter).`, `未知字段「goals.${key}」被忽略（可用的有：day、session、chapter）。`) });
      continue;
    }
    if (value === null) continue;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_GOAL) {
      goals[key as GoalKind] = value;
    } else {
      problems.push({
        path: ['goals', key],
        message: t(`"goals.${key}" must be a whole number of words from 0 (no goal) to ${MAX_GOAL.toLocaleString('en-US')}; the setting is used.`,
          `「goals.${key}」应为 0（不设目标）到 ${MAX_GOAL} 之间的整数字数；先用设置里的值。`),
      });
    }
  }
  return { goals, problems };
}

/** A setting's value as a goal: a whole number above 0 within range, else none. */
export function goalOf(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 && v <= MAX_GOAL ? Math.floor(v) : undefined;
}

/**
 * The goals in force. worldline.yaml wins field by field over the settings: the book's own goal
 * travels with the book, the settings are the novelist's defaults for every book. A 0 in the
 * yaml turns a goal the settings set off for this book.
 */
export function resolveGoals(project: Goals, settings: Goals): Goals {
  const out: Goals = {};
  for (const kind of GOAL_KINDS) {
    const value = kind in project ? goalOf(project[kind]) : goalOf(settings[kind]);
    if (value !== undefined) out[kind] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The day history

/** One day: the manuscript's length at its start and at its last reading. */
export interface DayRecord {
  start: number;
  end: number;
}

/** Days by local date, "YYYY-MM-DD". */
export interface DayHistory {
  days: Record<string, DayRecord>;
}

export function emptyHistory(): DayHistory {
  return { days: {} };
}

/** The local date of `at`, "YYYY-MM-DD" (days begin at local midnight). */
export function dayKey(at: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
}

/** The day `n` days before `day` (local calendar days, whatever the clock change). */
export function dayBefore(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return dayKey(new Date(y, m - 1, d - n, 12));
}

/** The day's net growth, possibly negative (kept so days telescope to the manuscript's growth). */
export function dayNet(r: DayRecord): number {
  return r.end - r.start;
}

/** The words written that day: its net growth, never below zero. */
export function dayWritten(r: DayRecord | undefined): number {
  return r ? Math.max(0, dayNet(r)) : 0;
}

export interface Reading {
  /** The manuscript's length now. */
  total: number;
  /** The local day of the reading (`dayKey`). */
  day: string;
  /**
   * The length last read in this window, when there was one: a day that begins now starts from
   * it (midnight passed while Worldline ran). Undefined at the first reading after opening.
   */
  previous?: number;
}

/** The history after one reading; the same object when nothing changed. */
export function recordReading(h: DayHistory, r: Reading): DayHistory {
  const rec = h.days[r.day];
  if (rec) {
    if (rec.end === r.total) return h;
    return { days: { ...h.days, [r.day]: { start: rec.start, end: r.total } } };
  }
  return prune({ days: { ...h.days, [r.day]: { start: r.previous ?? r.total, end: r.total } } });
}

/**
 * The length jumped for a reason that is not writing (the manuscript globs changed, another
 * folder): the day's start moves by the same jump, so what the day shows as written stays.
 */
export function rebaseDay(h: DayHistory, day: string, total: number): DayHistory {
  const rec = h.days[day];
  if (!rec) return recordReading(h, { total, day });
  if (rec.end === total) return h;
  return { days: { ...h.days, [day]: { start: rec.start + (total - rec.end), end: total } } };
}

/** Only the newest KEPT_DAYS days are kept. */
function prune(h: DayHistory): DayHistory {
  const keys = Object.keys(h.days);
  if (keys.length <= KEPT_DAYS) return h;
  const keep = keys.sort().slice(-KEPT_DAYS);
  const days: Record<string, DayRecord> = {};
  for (const k of keep) days[k] = h.days[k] as DayRecord;
  return { days };
}

export interface DayWords {
  day: string;
  words: number;
}

/**
 * The last `count` calendar days up to `today`, newest first, with what each wrote (0 for a day
 * without readings), from the oldest recorded day on: no run of zeros before the history began.
 */
export function recentDays(h: DayHistory, today: string, count: number): DayWords[] {
  const recorded = Object.keys(h.days).sort();
  const first = recorded[0];
  if (first === undefined) return [];
  const out: DayWords[] = [];
  for (let i = 0; i < count; i++) {
    const day = dayBefore(today, i);
    if (day < first) break;
    out.push({ day, words: dayWritten(h.days[day]) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The history file (.worldline/goals.json)

export const HISTORY_FILE = '.worldline/goals.json';
const HISTORY_VERSION = 1;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface ParsedHistory {
  history: DayHistory;
  /** Why the file was not used whole (it starts over, or bad days were left out); for the log. */
  problem?: string;
  /** The file could not be used at all: it is set aside before the history starts over. */
  corrupt: boolean;
}

/** Reads the history file's text. Never throws: a file that cannot be read starts over. */
export function parseHistory(text: string): ParsedHistory {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { history: emptyHistory(), corrupt: true, problem: `the goal history is not valid JSON (${err instanceof Error ? err.message : String(err)}); it starts over` };
  }
  if (!isObject(data) || data.version !== HISTORY_VERSION || !isObject(data.days)) {
    return { history: emptyHistory(), corrupt: true, problem: `the goal history is not a version ${HISTORY_VERSION} history file; it starts over` };
  }
  const days: Record<string, DayRecord> = {};
  const bad: string[] = [];
  for (const [day, rec] of Object.entries(data.days)) {
    if (DAY.test(day) && isObject(rec) && isCount(rec.start) && isCount(rec.end) && rec.end >= 0) days[day] = { start: rec.start, end: rec.end };
    else bad.push(day);
  }
  const history = prune({ days });
  return bad.length > 0
    ? { history, corrupt: false, problem: `the goal history had unreadable days, left out: ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ' …' : ''}` }
    : { history, corrupt: false };
}

/** The history file's text (days in order, one per line, so a diff of it reads). */
export function serializeHistory(h: DayHistory): string {
  const keys = Object.keys(h.days).sort();
  const lines = keys.map((k) => `    ${JSON.stringify(k)}: ${JSON.stringify(h.days[k])}`);
  return `{\n  "version": ${HISTORY_VERSION},\n  "days": {${lines.length ? `\n${lines.join(',\n')}\n  ` : ''}}\n}\n`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}
