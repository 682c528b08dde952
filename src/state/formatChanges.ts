// formatChanges: what changed in the scene state between two instructions, for the block in front
// of every instruction after the first one that carries the full state (src/agent/sentBlocks.ts).
// The model folds it onto the state it last saw: each line replaces or adds one fact, or removes
// one. Lines are printed as formatWorld prints them (blockText on every model-written string), so
// a fact reads the same in the full block and in a change block.
import { blockText, foldLabels, jsonLine } from './text';
import { ROSTER_TABLES, type Lang, type ListField, type RosterTable, type SceneState } from './types';

interface Labels {
  heading: string;
  unchanged: string;
  time: string;
  location: string;
  unknown: string;
  character: string;
  characterGone: string;
  present: string;
  at: (place: string) => string;
  affinity: (n: number) => string;
  sep: string;
  added: Record<ListField, string>;
  removed: Record<ListField, string>;
  variables: string;
  variablesGone: string;
  rosterAdded: string;
  rosterGone: string;
  tables: Record<RosterTable, string>;
  nameSep: string;
  tableSep: string;
  colon: string;
}

// The character-line wording is formatWorld's, so one person reads the same in both blocks.
const ZH: Labels = {
  heading: '【世界状态变化】（自上一条指令起）',
  unchanged: '【世界状态】自上一条指令起没有变化。',
  time: '时间：',
  location: '地点：',
  unknown: '（未记）',
  character: '人物：',
  characterGone: '删去人物：',
  present: '（在场）',
  at: (p) => `（在：${p === '' ? '（未知）' : p}）`,
  affinity: (n) => `好感 ${n}`,
  sep: '，',
  added: { items: '新增物品：', facts: '新增事实：', threads: '新增伏笔：' },
  removed: { items: '删去物品：', facts: '删去事实：', threads: '删去伏笔：' },
  variables: '变量：',
  variablesGone: '删去变量：',
  rosterAdded: '名录新增：',
  rosterGone: '名录删去：',
  tables: { characters: '人物', locations: '地点', items: '物品', threads: '事件' },
  nameSep: '、',
  tableSep: '；',
  colon: '：',
};

const EN: Labels = {
  heading: '[World State changes] since the previous instruction',
  unchanged: '[World State] unchanged since the previous instruction.',
  time: 'Time: ',
  location: 'Location: ',
  unknown: '(not recorded)',
  character: 'Character: ',
  characterGone: 'Character removed: ',
  present: ' (present)',
  at: (p) => ` (at: ${p === '' ? '(unknown)' : p})`,
  affinity: (n) => ` affinity ${n}`,
  sep: ', ',
  added: { items: 'Item added: ', facts: 'Fact added: ', threads: 'Thread added: ' },
  removed: { items: 'Item removed: ', facts: 'Fact removed: ', threads: 'Thread removed: ' },
  variables: 'Variables: ',
  variablesGone: 'Variables removed: ',
  rosterAdded: 'Roster added: ',
  rosterGone: 'Roster removed: ',
  tables: { characters: 'characters', locations: 'locations', items: 'items', threads: 'events' },
  nameSep: ', ',
  tableSep: '; ',
  colon: ': ',
};

const labelsFor = (lang: Lang): Labels => (lang === 'en' ? EN : ZH);

/** A name opens its line nowhere here (a label comes first), but keep names from passing for one. */
const LINE_LABELS: readonly string[] = foldLabels([ZH, EN].flatMap((L) => [L.time, L.location, L.character, L.variables]));

/** A character as formatWorld prints it; presence is against the state's own location. */
function characterLine(state: SceneState, name: string, L: Labels): string | undefined {
  const c = state.characters[name];
  if (!c) return undefined;
  let line = blockText(name, LINE_LABELS) + (c.at === state.location ? L.present : L.at(blockText(c.at))) + L.affinity(c.affinity);
  const status = blockText(c.status);
  const notes = blockText(c.notes);
  if (status) line += L.sep + status;
  if (notes) line += L.sep + notes;
  return line;
}

/** `a` minus `b`, as multisets: a fact listed twice and removed once is still there once. */
function minus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const s of b) left.set(s, (left.get(s) ?? 0) + 1);
  const out: string[] = [];
  for (const s of a) {
    const n = left.get(s) ?? 0;
    if (n > 0) left.set(s, n - 1);
    else out.push(s);
  }
  return out;
}

function rosterLine(label: string, names: Record<RosterTable, string[]>, L: Labels): string | undefined {
  const parts = ROSTER_TABLES.filter((t) => names[t].length > 0).map((t) => L.tables[t] + L.colon + names[t].join(L.nameSep));
  return parts.length === 0 ? undefined : label + parts.join(L.tableSep);
}

/**
 * The change block from `before` to `after`, one change per line under its heading; when nothing
 * the model reads changed, one line saying so (so every instruction still opens with a block and
 * the model never wonders whether one is missing). Pure: the same two states give the same bytes.
 */
export function formatChanges(before: SceneState, after: SceneState, opts: { lang: Lang }): string {
  const L = labelsFor(opts.lang);
  const lines: string[] = [];
  const time = blockText(after.time);
  const location = blockText(after.location);
  if (time !== blockText(before.time)) lines.push(L.time + (time || L.unknown));
  if (location !== blockText(before.location)) lines.push(L.location + (location || L.unknown));
  // A character is changed when its printed line is: a new place, or the scene moving past them.
  for (const name of Object.keys(after.characters)) {
    const line = characterLine(after, name, L);
    if (line !== undefined && line !== characterLine(before, name, L)) lines.push(L.character + line);
  }
  for (const name of Object.keys(before.characters)) {
    if (!after.characters[name]) lines.push(L.characterGone + blockText(name));
  }
  for (const field of ['items', 'facts', 'threads'] as const) {
    const was = before[field].map((s) => blockText(s));
    const now = after[field].map((s) => blockText(s));
    for (const s of minus(was, now)) lines.push(L.removed[field] + s);
    for (const s of minus(now, was)) lines.push(L.added[field] + s);
  }
  const varsBefore = before.variables ?? {};
  const varsAfter = after.variables ?? {};
  const changedVars: Record<string, unknown> = {};
  for (const k of Object.keys(varsAfter)) {
    if (!(k in varsBefore) || jsonLine(varsBefore[k]) !== jsonLine(varsAfter[k])) changedVars[k] = varsAfter[k];
  }
  if (Object.keys(changedVars).length > 0) lines.push(L.variables + jsonLine(changedVars));
  const goneVars = Object.keys(varsBefore).filter((k) => !(k in varsAfter));
  if (goneVars.length > 0) lines.push(L.variablesGone + goneVars.map((k) => blockText(k)).join(L.nameSep));
  const added = {} as Record<RosterTable, string[]>;
  const gone = {} as Record<RosterTable, string[]>;
  for (const t of ROSTER_TABLES) {
    const was = before.roster[t];
    const now = after.roster[t];
    added[t] = Object.keys(now).filter((n) => !(n in was)).map((n) => (now[n] ? `${blockText(n)}@${blockText(now[n] ?? '')}` : blockText(n)));
    gone[t] = Object.keys(was).filter((n) => !(n in now)).map((n) => blockText(n));
  }
  for (const line of [rosterLine(L.rosterAdded, added, L), rosterLine(L.rosterGone, gone, L)]) if (line) lines.push(line);
  return lines.length === 0 ? L.unchanged : [L.heading, ...lines].join('\n');
}
