// Scene state bench. Two claims from DESIGN.md are measured, each against a baseline in the same run:
//  1. The scribe's prompt does not grow with the book: prompt size at turn 1,000 vs turns 10 and 100
//     of a generated story (the roster is capped; the prompt holds only this turn).
//  2. formatState stays cheap with full rosters: its time vs JSON.stringify of the same state.
// Run: node -e "require('./out/bench/state.bench.js').main()"
import { applyPatch } from '../src/state/apply';
import { formatState } from '../src/state/format';
import { openingState } from '../src/state/opening';
import { buildScribePrompt } from '../src/state/scribePrompt';
import type { SceneState } from '../src/state/types';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = '青梧林砚沈舟顾雪宁川白露秋棠江晚陆离苏荷温言周渡柳岸程远叶澜';
const PHASES = ['清晨', '午后', '傍晚（雨中）', '深夜'];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function personName(i: number): string {
  const a = SYLLABLES[(i * 7) % SYLLABLES.length] ?? '青';
  const b = SYLLABLES[(i * 13 + 3) % SYLLABLES.length] ?? '梧';
  return `${a}${b}${i}`;
}

/** About `chars` characters of prose for one turn (the same size every turn). */
function turnProse(rand: () => number, turn: number, chars: number): string {
  let out = `第${turn}轮。`;
  while (out.length < chars) out += pick(rand, ['雨声渐密，', '灯芯爆了一下，', '她把茶推过去，', '门外有人经过，', '他没有接话。', '怀表走得很慢，']);
  return out.slice(0, chars);
}

interface Turn {
  patch: Record<string, unknown>;
  prose: string;
}

/** A long story: new people, places, items and threads keep coming; people also leave. */
function generateStory(turns: number, seed = 7): Turn[] {
  const rand = rng(seed);
  const out: Turn[] = [];
  const onStage: string[] = [];
  let nextPerson = 0;
  let place = '听雨轩';
  const items: string[] = [];
  const threads: string[] = [];
  const facts: string[] = [];
  for (let t = 1; t <= turns; t++) {
    const patch: Record<string, unknown> = { time: `第${Math.ceil(t / 4)}日${PHASES[t % 4]}` };
    if (t % 5 === 0) patch['location'] = place = `地点${Math.floor(t / 5)}号（${pick(rand, ['雨', '雾', '晴'])}）`;
    const chars: Record<string, unknown> = {};
    if (t % 2 === 0) {
      const n = personName(nextPerson++);
      onStage.push(n);
      chars[n] = { affinity: Math.floor(rand() * 10), status: '初次登场', at: place };
    }
    if (onStage.length > 8) chars[onStage.shift() ?? ''] = null;
    for (const n of onStage.slice(-2)) chars[n] = { affinity: Math.floor(rand() * 40) - 20, status: `第${t}轮的处境`, notes: '记住的要点' };
    patch['characters'] = chars;
    if (t % 3 === 0) {
      items.push(`物件${t}（${onStage[0] ?? '无人'}持有）`);
      patch['items'] = items.slice(-10);
    }
    if (t % 4 === 0) {
      threads.push(`第${t}轮埋下的伏笔`);
      patch['threads'] = threads.slice(-8);
    }
    if (t % 6 === 0) {
      facts.push(`第${t}轮确认的事实`);
      patch['facts'] = facts.slice(-12);
    }
    out.push({ patch, prose: turnProse(rand, t, 1500) });
  }
  return out;
}

function rosterSizes(s: SceneState): string {
  return `${Object.keys(s.roster.characters).length}/${Object.keys(s.roster.locations).length}/${Object.keys(s.roster.items).length}/${Object.keys(s.roster.threads).length}`;
}

function timeIt(iterations: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(200, iterations); i++) fn(); // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / iterations;
}

function pad(s: string, n: number): string {
  return s + ' '.repeat(Math.max(0, n - [...s].length));
}

export async function main(): Promise<void> {
  const TURNS = 1000;
  const story = generateStory(TURNS);
  const checkpoints = new Set([1, 10, 100, 500, 1000]);
  const rows: { turn: number; prompt: number; ledger: number; book: number; roster: string }[] = [];
  let book = 0; // baseline: a scribe that re-reads the whole book so far
  let state = openingState({ time: '第1日夜里', location: '听雨轩', characters: ['青梧'] });
  let warnings: string[] = [];
  const patchStart = process.hrtime.bigint();
  for (let t = 1; t <= TURNS; t++) {
    const turn = story[t - 1];
    if (!turn) break;
    book += turn.prose.length;
    if (checkpoints.has(t)) {
      // The prompt the scribe gets after turn t: ledger before the turn + this turn only.
      const p = buildScribePrompt({ state, warnings, instruction: `写第${t}轮`, proseAdded: turn.prose, reply: '写好了。', lang: 'zh', hasVariables: false });
      const ledger = p.user.indexOf('\n}\n');
      const prompt = p.system.length + p.user.length;
      rows.push({ turn: t, prompt, ledger, book: prompt - turn.prose.length + book, roster: rosterSizes(state) });
    }
    const r = applyPatch(state, turn.patch, { lang: 'zh' });
    state = r.state;
    warnings = r.warnings;
  }
  const patchMs = Number(process.hrtime.bigint() - patchStart) / 1e6 / TURNS;

  console.log('Scribe prompt size over a generated 1,000-turn story (1,500 chars of prose per turn)');
  console.log('baseline: the same prompt if the scribe were sent the whole book so far');
  console.log(`${pad('turn', 7)}${pad('prompt chars', 14)}${pad('ledger chars', 14)}${pad('roster c/l/i/t', 16)}${pad('whole-book chars', 18)}`);
  for (const r of rows) console.log(`${pad(String(r.turn), 7)}${pad(String(r.prompt), 14)}${pad(String(r.ledger), 14)}${pad(r.roster, 16)}${pad(String(r.book), 18)}`);
  const row = (t: number) => rows.find((r) => r.turn === t);
  const ratio = (a: number | undefined, b: number | undefined): string => (a !== undefined && b !== undefined ? (a / b).toFixed(2) : 'n/a');
  console.log(`ratio turn 1000 / turn 10  = ${ratio(row(1000)?.prompt, row(10)?.prompt)}   (whole-book baseline: ${ratio(row(1000)?.book, row(10)?.book)})`);
  console.log(`ratio turn 1000 / turn 500 = ${ratio(row(1000)?.prompt, row(500)?.prompt)}   (all roster caps bind from about turn 500; baseline: ${ratio(row(1000)?.book, row(500)?.book)})`);
  console.log(`final roster (caps 100/100/60/60): ${rosterSizes(state)}`);
  console.log(`applyPatch: ${patchMs.toFixed(3)} ms per turn (mean over ${TURNS})`);

  // formatState with full rosters vs JSON.stringify of the same state.
  const full = state;
  const N = 3000;
  const baseline = timeIt(N, () => JSON.stringify(full));
  const fmt = timeIt(N, () => formatState(full, { lang: 'zh' }));
  const fullLen = formatState(full, { lang: 'zh' }).length;
  const budgetTimes = Math.floor(fullLen * 0.8);
  const fmtBudget = timeIt(N / 3, () => formatState(full, { lang: 'zh', budget: budgetTimes }));
  const world = formatState(full, { lang: 'zh', budget: 0 }).split('\n【登场名录】')[0]?.length ?? 0;
  const budgetNames = world + 600;
  const fmtNames = timeIt(N / 3, () => formatState(full, { lang: 'zh', budget: budgetNames }));
  console.log('');
  console.log(`formatState with full rosters (${rosterSizes(full)}), ${N} iterations; baseline = JSON.stringify of the same state`);
  console.log(`${pad('case', 44)}${pad('ms/call', 10)}${pad('x baseline', 12)}${pad('chars', 8)}`);
  const line = (name: string, ms: number, chars: number): void =>
    console.log(`${pad(name, 44)}${pad(ms.toFixed(4), 10)}${pad((ms / baseline).toFixed(2), 12)}${pad(String(chars), 8)}`);
  line('JSON.stringify(state) (baseline)', baseline, JSON.stringify(full).length);
  line('formatState, no budget', fmt, fullLen);
  line(`formatState, budget ${budgetTimes} (drops times)`, fmtBudget, formatState(full, { lang: 'zh', budget: budgetTimes }).length);
  line(`formatState, budget ${budgetNames} (drops names)`, fmtNames, formatState(full, { lang: 'zh', budget: budgetNames }).length);
}

if (require.main === module) void main();
