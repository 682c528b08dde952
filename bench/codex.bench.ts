// Codex selection for one turn (issue 15): 5,000 entries (CJK and Latin names, about three keys
// each, some secondary keys, some with a depth of their own, a few always on) against a branch of
// 10,000 messages of about 3,000 characters of Chinese prose each (bench/lib/fixtures.ts).
// Timed: CodexIndex.select for one turn (the newest instruction, the scene state's names and the
// branch); the index is built once per codex, its build time is printed apart.
// Baselines, in the same run on the same data:
//  - naive, whole branch: every key of every entry `includes()`-scanned over every message of the
//    branch. Over all 10,000 messages that takes about five minutes, so by default it is timed on
//    the newest 500 and scaled to the branch (its cost is the same for every message of the same
//    length); WL_BENCH_FULL=1 times the whole branch instead;
//  - naive, depth window: the same scan over only what selection must read (the instruction and
//    the last max(depth) messages), so the ratio shows what the automaton itself saves.
// Both baselines do less than select (substrings only: no whole-word check, no secondary logic).
import { CodexIndex } from '../src/codex/select';
import type { CodexEntry, CodexKind, CodexScanInput } from '../src/codex/types';
import { INSTRUCTIONS, pick, prose, rng } from './lib/fixtures';
import { measure, ms, ratio, table, verdict, withSpread } from './lib/stats';

const QUICK = process.env['WL_BENCH_QUICK'] === '1';
const ENTRIES = 5_000;
const MESSAGES = QUICK ? 1_000 : 10_000;
const DEFAULT_DEPTH = 4;
const GOAL_MS = 5;
const FULL = process.env['WL_BENCH_FULL'] === '1';
/** Messages the whole-branch baseline is timed on (then scaled to MESSAGES), unless FULL. */
const NAIVE_SAMPLE = 500;

// The fixtures' prose names these people; the codex has entries for them among thousands of others.
const PROSE_NAMES = ['青梧', '柳三娘', '沈舟', '顾雪', '宁川', '白露', '秋棠', '江晚', '陆离', '苏荷', '温言', '周渡'];
const SURNAMES = '赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章云苏潘葛奚范彭郎鲁韦昌马苗凤花方俞任袁柳';
const GIVEN = '清风明月山川云海星辰雪霜秋冬春夏玉珠兰竹松梅琴剑书画墨砚灯烛舟桥溪泉烟雨';
const PLACES = ['城', '镇', '山', '河', '寺', '楼', '阁', '岛', '关', '渡'];
const SYLLABLES = ['ka', 'el', 'mir', 'ova', 'dra', 'then', 'lor', 'ian', 'syl', 'var', 'ren', 'tor', 'ash', 'bel', 'cor', 'dun', 'fen', 'gal', 'hal', 'ith'];
const KINDS: readonly CodexKind[] = ['character', 'character', 'character', 'place', 'place', 'item', 'faction', 'rule'];

function latinName(rand: () => number): string {
  const n = 2 + Math.floor(rand() * 2);
  let s = '';
  for (let i = 0; i < n; i++) s += pick(rand, SYLLABLES);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function cjkName(rand: () => number, kind: CodexKind): string {
  const given = pick(rand, [...GIVEN]) + (rand() < 0.6 ? pick(rand, [...GIVEN]) : '');
  return kind === 'place' ? given + pick(rand, PLACES) : pick(rand, [...SURNAMES]) + given;
}

/** 5,000 entries: mostly CJK, a fifth Latin, each with two to four keys. */
function codex(seed: number): CodexEntry[] {
  const rand = rng(seed);
  const out: CodexEntry[] = [];
  for (let i = 0; i < ENTRIES; i++) {
    const kind = pick(rand, KINDS);
    const latin = rand() < 0.2;
    const name = i < PROSE_NAMES.length ? (PROSE_NAMES[i] as string) : latin ? latinName(rand) : cjkName(rand, kind);
    const keys = latin
      ? [name.slice(0, 4), `${name} ${latinName(rand)}`, latinName(rand)]
      : [`小${name.slice(-1)}`, `${name}${kind === 'character' ? '姑娘' : '之地'}`, cjkName(rand, kind)].slice(0, 2 + Math.floor(rand() * 2));
    const secondary = rand() < 0.1 ? [pick(rand, ['怀表', '信', '船', '雨', 'sword'])] : [];
    const depth = rand() < 0.1 ? 5 + Math.floor(rand() * 16) : undefined;
    out.push({
      path: `codex/${kind}s/${String(i).padStart(5, '0')}.md`,
      name, kind, keys, secondaryKeys: secondary,
      logic: secondary.length > 0 ? pick(rand, ['and-any', 'not-any'] as const) : 'and-any',
      always: rand() < 0.005,
      priority: Math.floor(rand() * 3),
      ...(depth !== undefined ? { depth } : {}),
      disabled: rand() < 0.01,
      body: prose(rand, 200),
    });
  }
  return out;
}

/** A branch of chapter-like messages, each about 3,000 characters (the worst case: no short instructions between). */
function branch(seed: number): string[] {
  const rand = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < MESSAGES; i++) out.push(prose(rand, 3000));
  return out;
}

/** Keeps results alive so no scan is optimised away. */
let sink = 0;

/** Every key of every (enabled) entry, `includes()` over each text; the entries found. */
function naive(entries: readonly CodexEntry[], texts: readonly string[]): number {
  const lower = texts.map((t) => t.toLowerCase());
  let found = 0;
  for (const e of entries) {
    if (e.disabled) continue;
    const keys = [e.name, ...e.keys, ...e.secondaryKeys].map((k) => k.toLowerCase());
    let hit = false;
    for (const k of keys) for (const t of lower) if (t.includes(k)) hit = true;
    if (hit || e.always) found++;
  }
  return found;
}

export async function main(): Promise<void> {
  const entries = codex(15);
  const messages = branch(16);
  const input: CodexScanInput = { instruction: INSTRUCTIONS[0] as string, recent: messages, stateNames: ['青梧', '柳三娘', '听雨轩', '黄铜怀表'] };
  const chars = messages.reduce((n, m) => n + m.length, 0);
  const keyCount = entries.reduce((n, e) => n + 1 + e.keys.length + e.secondaryKeys.length, 0);
  const maxDepth = Math.max(DEFAULT_DEPTH, ...entries.map((e) => e.depth ?? 0));
  console.log(`Codex selection for one turn: ${ENTRIES.toLocaleString('en-US')} entries (${keyCount.toLocaleString('en-US')} names and keys), a branch of ${MESSAGES.toLocaleString('en-US')} messages (${(chars / 1e6).toFixed(1)} M characters), default depth ${DEFAULT_DEPTH}, deepest entry ${maxDepth}.`);

  let index: CodexIndex | undefined;
  const build = await measure(() => { index = new CodexIndex(entries); }, { runs: 5 });
  const idx = index as CodexIndex;
  let selected = 0;
  const select = await measure(() => { selected = idx.select(input, { defaultDepth: DEFAULT_DEPTH }).length; }, { runs: 51, warmup: 5 });
  const window = [input.instruction, ...messages.slice(-maxDepth)];
  const windowNaive = await measure(() => { sink += naive(entries, window); }, { runs: 5 });
  const sampled = FULL ? messages : messages.slice(-NAIVE_SAMPLE);
  const wholeNaive = await measure(() => { sink += naive(entries, [input.instruction, ...sampled]); }, { runs: FULL ? 1 : 3, warmup: 0 });
  const scale = messages.length / sampled.length;
  const wholeMedian = wholeNaive.median * scale;

  const rows: string[][] = [
    ['select (CodexIndex)', withSpread(select), '1.00×'],
    [`naive, depth window (${window.length} texts)`, withSpread(windowNaive), ratio(windowNaive, select)],
  ];
  rows.push([
    FULL ? `naive, whole branch (${MESSAGES.toLocaleString('en-US')} messages, one run)` : `naive, whole branch (timed on ${sampled.length} messages: ${ms(wholeNaive.median)}, ×${scale} for ${MESSAGES.toLocaleString('en-US')})`,
    ms(wholeMedian), ratio(wholeMedian, select),
  ]);
  table(['one turn', 'median (spread)', '× select'], rows);
  console.log(`entries selected: ${selected}; index built once per codex: ${withSpread(build)}`);
  console.log(verdict({ label: `< ${GOAL_MS} ms to select a turn's entries`, figure: select.median, bound: GOAL_MS }));
  if (sink < 0) console.log(sink);
}

if (require.main === module) void main();
