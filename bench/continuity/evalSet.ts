// The continuity evaluation set (bench/continuity/*.json, README.md there): loading and the
// validity checks shared by the bench and test/unit/continuity/evalSet.test.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FINDING_TYPES, type FindingType } from '../../src/continuity/types';
import { checkState } from '../../src/state/schema';
import type { Lang, SceneState } from '../../src/state/types';

export type ItemKind = 'error' | 'hard-negative' | 'clean';

export interface GoldFinding {
  type: FindingType;
  /** Exact substring of `prose`, occurring once: the clause of the error. */
  quote: string;
}

export interface EvalItem {
  id: string;
  lang: Lang;
  kind: ItemKind;
  /** Wuxia, xianxia, urban, mystery, fantasy, sci-fi, romance: for the spread, not for scoring. */
  genre?: string;
  /** Hard negatives: the error type the passage tempts a checker to report. */
  tempts?: FindingType;
  before: SceneState;
  after: SceneState;
  prose: string;
  gold: GoldFinding[];
  note?: string;
}

/** bench/continuity in the repo, from the compiled file (under out/ or out-NAME/) or the source. */
export function evalSetDir(): string {
  for (const up of [['..', '..', '..'], ['..', '..']]) {
    const dir = path.resolve(__dirname, ...up, 'bench', 'continuity');
    if (fs.existsSync(path.join(dir, 'README.md'))) return dir;
  }
  throw new Error(`bench/continuity not found from ${__dirname}`);
}

/** The items of every zh-*.json and en-*.json file, in file order. */
export function loadEvalSet(dir = evalSetDir()): EvalItem[] {
  const files = fs.readdirSync(dir).filter((f) => /^(zh|en)-[a-z-]+\.json$/.test(f)).sort();
  const out: EvalItem[] = [];
  for (const f of files) {
    const data: unknown = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    if (!Array.isArray(data)) throw new Error(`${f}: expected an array of items`);
    out.push(...(data as EvalItem[]));
  }
  return out;
}

const KINDS: readonly ItemKind[] = ['error', 'hard-negative', 'clean'];
const MIN_PROSE = 200;
const MAX_PROSE = 1600;

/** What is wrong with one item (empty: valid). */
export function itemProblems(item: EvalItem): string[] {
  const p: string[] = [];
  const id = typeof item.id === 'string' ? item.id : '(no id)';
  if (item.lang !== 'zh' && item.lang !== 'en') p.push(`${id}: lang must be zh or en`);
  if (!KINDS.includes(item.kind)) p.push(`${id}: kind must be one of ${KINDS.join(', ')}`);
  for (const which of ['before', 'after'] as const) {
    for (const problem of checkState(item[which])) p.push(`${id}: ${which}.${problem.path} ${problem.code}`);
  }
  if (typeof item.prose !== 'string') return [...p, `${id}: prose must be a string`];
  if (item.prose.length < MIN_PROSE || item.prose.length > MAX_PROSE) p.push(`${id}: prose is ${item.prose.length} characters (${MIN_PROSE}–${MAX_PROSE})`);
  if (!Array.isArray(item.gold)) return [...p, `${id}: gold must be an array`];
  if (item.kind === 'error' && item.gold.length === 0) p.push(`${id}: an error item needs gold findings`);
  if (item.kind !== 'error' && item.gold.length > 0) p.push(`${id}: a ${item.kind} item has no gold findings`);
  if (item.kind === 'hard-negative' && !FINDING_TYPES.includes(item.tempts as FindingType)) p.push(`${id}: a hard negative names the type it tempts`);
  for (const g of item.gold) {
    if (!FINDING_TYPES.includes(g.type)) p.push(`${id}: unknown gold type ${String(g.type)}`);
    if (typeof g.quote !== 'string' || g.quote.trim() === '') p.push(`${id}: empty gold quote`);
    else if (!item.prose.includes(g.quote)) p.push(`${id}: gold quote not in the prose: ${g.quote}`);
    else if (item.prose.indexOf(g.quote) !== item.prose.lastIndexOf(g.quote)) p.push(`${id}: gold quote occurs more than once: ${g.quote}`);
  }
  return p;
}

export interface SetCounts {
  total: number;
  byLang: Record<Lang, number>;
  byKind: Record<ItemKind, number>;
  /** Gold findings per type and language. */
  goldByType: Record<FindingType, Record<Lang, number>>;
  /** Hard negatives per tempted type and language. */
  temptsByType: Record<FindingType, Record<Lang, number>>;
}

export function countSet(items: readonly EvalItem[]): SetCounts {
  const zero = (): Record<Lang, number> => ({ zh: 0, en: 0 });
  const c: SetCounts = {
    total: items.length,
    byLang: zero(),
    byKind: { error: 0, 'hard-negative': 0, clean: 0 },
    goldByType: Object.fromEntries(FINDING_TYPES.map((t) => [t, zero()])) as SetCounts['goldByType'],
    temptsByType: Object.fromEntries(FINDING_TYPES.map((t) => [t, zero()])) as SetCounts['temptsByType'],
  };
  for (const it of items) {
    c.byLang[it.lang]++;
    c.byKind[it.kind]++;
    for (const g of it.gold) c.goldByType[g.type][it.lang]++;
    if (it.tempts) c.temptsByType[it.tempts][it.lang]++;
  }
  return c;
}

/** The set's rules (README.md): size, balance of languages and types, share of hard negatives. */
export function setProblems(items: readonly EvalItem[]): string[] {
  const p: string[] = [];
  const c = countSet(items);
  if (c.total < 200) p.push(`${c.total} items; at least 200 are needed`);
  if (c.byLang.zh !== c.byLang.en) p.push(`zh ${c.byLang.zh} and en ${c.byLang.en} items; half of each are needed`);
  if (c.byKind['hard-negative'] * 3 < c.total) p.push(`${c.byKind['hard-negative']} hard negatives; at least a third of ${c.total} are needed`);
  if (c.byKind.clean === 0) p.push('no clean items');
  const perTypeLang = FINDING_TYPES.flatMap((t) => (['zh', 'en'] as const).map((l) => c.goldByType[t][l]));
  const mean = perTypeLang.reduce((a, b) => a + b, 0) / perTypeLang.length;
  for (const t of FINDING_TYPES) {
    for (const l of ['zh', 'en'] as const) {
      const n = c.goldByType[t][l];
      if (n < 8 || Math.abs(n - mean) > mean * 0.25) p.push(`${t} (${l}): ${n} gold findings, not balanced with the mean ${mean.toFixed(1)}`);
      if (c.temptsByType[t][l] < 5) p.push(`${t} (${l}): ${c.temptsByType[t][l]} hard negatives; at least 5 are needed`);
    }
  }
  const ids = new Set<string>();
  for (const it of items) {
    if (ids.has(it.id)) p.push(`duplicate id ${it.id}`);
    ids.add(it.id);
  }
  return p;
}

/** Offset of a gold quote in its item's prose. */
export function goldOffset(item: EvalItem, g: GoldFinding): number {
  return item.prose.indexOf(g.quote);
}
