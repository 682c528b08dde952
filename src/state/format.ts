// formatState: the block injected before the newest instruction. 【世界状态】 holds one fact per
// line; 【登场名录】 holds the roster in one line. Presence is a plain string compare of `at` with
// `location`: the program states two place names, the model judges what they mean.
import { activeNames } from './roster';
import { blockText, foldLabels, jsonLine } from './text';
import { ROSTER_TABLES, type Lang, type RosterTable, type SceneState } from './types';

export interface FormatOptions {
  lang: Lang;
  /** Max characters for the whole block. Over it: first-seen times go first, then oldest names. */
  budget?: number;
}

interface Labels {
  world: string;
  time: string;
  location: string;
  unknown: string;
  present: string;
  at: (place: string) => string;
  affinity: (n: number) => string;
  sep: string;
  item: string;
  fact: string;
  thread: string;
  variables: string;
  roster: string;
  tables: Record<RosterTable, string>;
  nameSep: string;
  tableSep: string;
  colon: string;
  empty: string;
  newNote: string;
  omitted: (n: number) => string;
}

const ZH: Labels = {
  world: '【世界状态】',
  time: '时间：',
  location: '地点：',
  unknown: '（未记）',
  present: '（在场）',
  at: (p) => `（在：${p === '' ? '（未知）' : p}）`,
  affinity: (n) => `好感 ${n}`,
  sep: '，',
  item: '物品：',
  fact: '事实：',
  thread: '伏笔：',
  variables: '变量：',
  roster: '【登场名录】',
  tables: { characters: '人物', locations: '地点', items: '物品', threads: '事件' },
  nameSep: '、',
  tableSep: '；',
  colon: '：',
  empty: '（空）',
  newNote: '。名录之外的名字才是新登场。',
  omitted: (n) => `（另有 ${n} 个较早的名字因篇幅未列出）`,
};

const EN: Labels = {
  world: '[World State]',
  time: 'Time: ',
  location: 'Location: ',
  unknown: '(not recorded)',
  present: ' (present)',
  at: (p) => ` (at: ${p === '' ? '(unknown)' : p})`,
  affinity: (n) => ` affinity ${n}`,
  sep: ', ',
  item: 'Item: ',
  fact: 'Fact: ',
  thread: 'Thread: ',
  variables: 'Variables: ',
  roster: '[Roster] ',
  tables: { characters: 'characters', locations: 'locations', items: 'items', threads: 'events' },
  nameSep: ', ',
  tableSep: '; ',
  colon: ': ',
  empty: '(empty)',
  newNote: '. Names not listed here are new.',
  omitted: (n) => ` (${n} older names left out for length)`,
};

function labelsFor(lang: Lang): Labels {
  return lang === 'en' ? EN : ZH;
}

/**
 * The labels that open a line of the block, in both languages. A character's name opens its line,
 * so a name such as "时间：子夜" is printed marked and cannot pass for the time line.
 */
const LINE_LABELS: readonly string[] = foldLabels([ZH, EN].flatMap((L) => [L.time, L.location, L.item, L.fact, L.thread, L.variables]));

/**
 * The 【世界状态】 block: one fact per line. Every model-written string goes through blockText:
 * one line, no bidi controls, and marked when it opens like a header. The merge already keeps
 * strings on one line; states the novelist wrote whole, or stored before these rules, are covered
 * here, which is why the marking happens when printing and not in the stored state.
 */
export function formatWorld(state: SceneState, lang: Lang): string {
  const L = labelsFor(lang);
  const time = blockText(state.time);
  const location = blockText(state.location);
  const lines = [L.world, L.time + (time || L.unknown), L.location + (location || L.unknown)];
  for (const name of Object.keys(state.characters)) {
    const c = state.characters[name];
    if (!c) continue;
    let line = blockText(name, LINE_LABELS) + (c.at === state.location ? L.present : L.at(blockText(c.at))) + L.affinity(c.affinity);
    const status = blockText(c.status);
    const notes = blockText(c.notes);
    if (status) line += L.sep + status;
    if (notes) line += L.sep + notes;
    lines.push(line);
  }
  for (const s of state.items) lines.push(L.item + blockText(s));
  for (const s of state.facts) lines.push(L.fact + blockText(s));
  for (const s of state.threads) lines.push(L.thread + blockText(s));
  // JSON escapes \n, but not NEL, U+2028/2029 or bidi controls: jsonLine does.
  if (state.variables && Object.keys(state.variables).length > 0) lines.push(L.variables + jsonLine(state.variables));
  return lines.join('\n');
}

interface Entry {
  name: string;
  time: string;
  showTime: boolean;
  show: boolean;
  active: boolean;
  rank: number;
  table: number;
}

function renderRoster(tables: Entry[][], L: Labels): string {
  const parts: string[] = [];
  let omitted = 0;
  tables.forEach((entries, i) => {
    const shown: string[] = [];
    for (const e of entries) {
      if (!e.show) omitted++;
      else shown.push(e.showTime && e.time !== '' ? `${e.name}@${e.time}` : e.name);
    }
    const t = ROSTER_TABLES[i];
    if (shown.length > 0 && t) parts.push(L.tables[t] + L.colon + shown.join(L.nameSep));
  });
  const body = parts.length > 0 ? parts.join(L.tableSep) : L.empty;
  return L.roster + body + (omitted > 0 ? L.omitted(omitted) : '') + L.newNote;
}

/** Smallest k in [0, n] with fits(k), assuming fits is (nearly) monotone; n when none fits. */
function firstFitting(n: number, fits: (k: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function formatState(state: SceneState, opts: FormatOptions): string {
  const L = labelsFor(opts.lang);
  const world = formatWorld(state, opts.lang);
  const active = activeNames(state);
  const tables: Entry[][] = ROSTER_TABLES.map((t, table) => {
    const roster = state.roster[t];
    return Object.keys(roster).map((name, rank) => ({
      name: blockText(name),
      time: blockText(roster[name] ?? ''),
      showTime: true,
      show: true,
      active: active[t].has(name),
      rank,
      table,
    }));
  });
  const render = (): string => `${world}\n${renderRoster(tables, L)}`;
  const full = render();
  const budget = opts.budget;
  if (budget === undefined || full.length <= budget) return full;

  // Round-robin by age across the four tables, so no table loses everything first.
  const all = tables.flat().sort((a, b) => a.rank - b.rank || a.table - b.table);
  const setTimes = (k: number): void => all.forEach((e, i) => (e.showTime = i >= k));
  // Dropping a time removes exactly "@time", so the first k that fits is a running sum.
  let length = full.length;
  let kTimes = 0;
  while (length > budget && kTimes < all.length) {
    const e = all[kTimes++];
    if (e && e.time !== '') length -= 1 + e.time.length;
  }
  setTimes(kTimes);
  if (length <= budget) return render();

  // Last resort: drop names, oldest first, names not on stage before names on stage.
  setTimes(all.length);
  const noTimes = render();
  const order = [...all.filter((e) => !e.active), ...all.filter((e) => e.active)];
  const setShown = (k: number): void => order.forEach((e, i) => (e.show = i >= k));
  let kNames = firstFitting(order.length, (k) => (setShown(k), render().length <= budget));
  setShown(kNames);
  // The "n left out" note is not strictly monotone in n; step on until it fits (or all are gone).
  while (render().length > budget && kNames < order.length) setShown(++kNames);
  // The "left out" note costs characters too: never return more than dropping times alone did.
  const dropped = render();
  return dropped.length < noTimes.length ? dropped : noTimes;
}
