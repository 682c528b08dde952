// The branch reads of one turn (issue 13, "the branch is kept, not rebuilt"), at 1k / 10k / 100k
// entries, on sessions written as the extension writes them (bench/lib/fixtures.ts).
//
// A turn is replayed on a real, writable copy of the session: the six entries a turn writes are
// appended one by one, and between them the reads the turn and its views make, in the order they
// make them (src/story/turns.ts, src/agent/turnRunner.ts, turn.ts, scribeHook.ts, the views):
//  - before the instruction, the last checkpoint (the pin);
//  - after it, the scene state at the instruction, the recall's path and context, the first request's context;
//  - the second request's context, the last checkpoint at the end, the scribe's states and leaf guard,
//    the context pressure's path, the last entry of each type;
//  - after every append, one view refresh: the Branch, its transcript and scene state, the status bar's path.
// Timed: those reads only (not the appends). Baseline, in the same run on the same session: the
// same reads done as before the branch was kept, every read walking from the leaf to the root
// (test/unit/session/pathReference.ts, the old algorithm kept as the tests' reference).
// Also counted: walks from the leaf to the root per turn, before and after.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildTranscript } from '../src/agent/transcript';
import type { ChainEntry, NewChainEntry } from '../src/session/entries';
import { CHAIN_TYPES } from '../src/session/entries';
import { Session } from '../src/session/session';
import { openingState } from '../src/state/opening';
import { stateAt } from '../src/state/stateAt';
import type { SceneState } from '../src/state/types';
import { branchOf, type BranchOptions } from '../src/story/branch';
import { contextPressure } from '../src/model/usage';
import {
  referenceContextWithSummary,
  referenceIsAncestorOrSelf,
  referenceLastOnPath,
  referencePath,
  referenceWalks,
} from '../test/unit/session/pathReference';
import { INSTRUCTIONS, chapterPath, pick, prose, rng, sceneStates, sessionFixture, turnEntries } from './lib/fixtures';
import { ms, ratio, summarize, table, verdict, withSpread, type Sample } from './lib/stats';

const QUICK = process.env['WL_BENCH_QUICK'] === '1';
const SIZES = QUICK ? [1_000] : [1_000, 10_000, 100_000];
const TURNS = QUICK ? 3 : 9;
const GOAL_MS = 100;
const OPTIONS: BranchOptions = { opening: openingState({ time: '第一天，傍晚', location: '听雨轩', characters: ['青梧', '柳三娘'] }), lang: 'zh' };
const WINDOW = 128_000;

/** Kept-branch counters, when the session has them (read through a loose type: the bench also runs on the code before). */
function keptCounts(session: Session): { walks: number; contextBuilds: number } {
  const stats = (session as unknown as { keptStats?: { fullBuilds: number; contextBuilds: number } }).keptStats;
  return { walks: stats?.fullBuilds ?? 0, contextBuilds: stats?.contextBuilds ?? 0 };
}

interface Reads {
  beforeInstruction(): void;
  afterInstruction(userId: string): void;
  afterReply(): void;
  endOfTurn(leafBefore: string): void;
  view(): void;
}

/** Keeps results alive so no read is optimised away. */
let sink = 0;
function use(x: unknown): void {
  if (x !== undefined) sink++;
}

/** The reads through the session and the Branch as they are now. */
function keptReads(session: Session): Reads {
  return {
    beforeInstruction: () => use(session.lastOnPath('checkpoint')),
    afterInstruction: (userId) => {
      use(stateAt(session.path(userId), OPTIONS.opening, { lang: 'zh' }));
      use(session.path(userId));
      use(session.contextWithSummary(userId));
      use(session.contextWithSummary());
    },
    afterReply: () => use(session.contextWithSummary()),
    endOfTurn: (leafBefore) => {
      use(session.lastOnPath('checkpoint'));
      use(stateAt(session.path(leafBefore), OPTIONS.opening, { lang: 'zh' }));
      use(session.isAncestorOrSelf(leafBefore, session.leafId));
      use(stateAt(session.path(), OPTIONS.opening, { lang: 'zh' }));
      use(contextPressure(session.path(), WINDOW));
      for (const type of CHAIN_TYPES) use(session.lastOnPath(type));
    },
    view: () => {
      const branch = branchOf(session, OPTIONS);
      use(branch.transcript);
      use(branch.state);
      use(session.path());
    },
  };
}

/** The same reads as before the branch was kept: each walks from the leaf to the root again. */
function scratchReads(session: Session): Reads {
  const transcript = (p: readonly ChainEntry[]) => buildTranscript({
    path: () => p,
    textOf: (id) => session.textOf(id),
    isHidden: (id) => session.isHidden(id),
    sideFor: (id, type) => session.sideFor(id, type),
    variants: (id) => session.variants(id),
  });
  return {
    beforeInstruction: () => use(referenceLastOnPath(session, 'checkpoint')),
    afterInstruction: (userId) => {
      use(stateAt(referencePath(session, userId), OPTIONS.opening, { lang: 'zh' }));
      use(referencePath(session, userId));
      use(referenceContextWithSummary(session, userId));
      use(referenceContextWithSummary(session));
    },
    afterReply: () => use(referenceContextWithSummary(session)),
    endOfTurn: (leafBefore) => {
      use(referenceLastOnPath(session, 'checkpoint'));
      use(stateAt(referencePath(session, leafBefore), OPTIONS.opening, { lang: 'zh' }));
      use(referenceIsAncestorOrSelf(session, leafBefore, session.leafId));
      use(stateAt(referencePath(session), OPTIONS.opening, { lang: 'zh' }));
      use(contextPressure(referencePath(session), WINDOW));
      for (const type of CHAIN_TYPES) use(referenceLastOnPath(session, type));
    },
    view: () => {
      // The Branch as it was: its path, its transcript and scene state from that path.
      const p = referencePath(session);
      use(transcript(p));
      use(stateAt(p, OPTIONS.opening, { lang: 'zh' }));
      use(referencePath(session));
    },
  };
}

interface TurnTimes {
  kept: number[];
  scratch: number[];
  keptWalks: number[];
  scratchWalks: number[];
  contextBuilds: number[];
}

/** Times `phase` for both read sets, kept first, and adds each to its turn total. */
function timed(kept: () => void, scratch: () => void, totals: { kept: number; scratch: number }): void {
  let start = performance.now();
  kept();
  totals.kept += performance.now() - start;
  start = performance.now();
  scratch();
  totals.scratch += performance.now() - start;
}

async function turnsOn(entries: number): Promise<{ times: TurnTimes; firstRead: number; regenerate: { kept: Sample; scratch: Sample } }> {
  const fixture = await sessionFixture({ entries });
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'wl-bench-branch-'));
  const file = path.join(dir, 'branch.jsonl');
  await fsp.copyFile(fixture.file, file);
  const { session } = await Session.open(file);
  const kept = keptReads(session);
  const scratch = scratchReads(session);
  const rand = rng(17);
  // States of a story that has run a while (about 3 KB each), as the scribe writes them.
  const states: SceneState[] = sceneStates(200).slice(-(TURNS + 2));
  const times: TurnTimes = { kept: [], scratch: [], keptWalks: [], scratchWalks: [], contextBuilds: [] };
  try {
    const firstStart = performance.now();
    kept.view();
    const firstRead = performance.now() - firstStart;
    for (let t = 0; t <= TURNS; t++) {
      const totals = { kept: 0, scratch: 0 };
      const walks0 = referenceWalks.count;
      const counts0 = keptCounts(session);
      const turnNo = fixture.turns + t + 1;
      const written = turnEntries({
        instruction: pick(rand, INSTRUCTIONS),
        chapter: chapterPath(1 + (turnNo % 100)),
        added: prose(rand, 1200),
        state: states[t] as SceneState,
      }, turnNo);
      const append = async (e: NewChainEntry): Promise<ChainEntry> => {
        const entry = await session.append(e);
        timed(kept.view, scratch.view, totals);
        return entry;
      };
      timed(kept.beforeInstruction, scratch.beforeInstruction, totals);
      const [userEntry, call, result, reply, checkpoint, state] = written as [NewChainEntry, NewChainEntry, NewChainEntry, NewChainEntry, NewChainEntry, NewChainEntry];
      const user = await append(userEntry);
      timed(() => kept.afterInstruction(user.id), () => scratch.afterInstruction(user.id), totals);
      await append(call);
      await append(result);
      timed(kept.afterReply, scratch.afterReply, totals);
      await append(reply);
      const leafBefore = (await append(checkpoint)).id;
      timed(() => kept.endOfTurn(leafBefore), () => scratch.endOfTurn(leafBefore), totals);
      await append(state);
      if (t === 0) continue; // the first turn warms the JIT
      const counts = keptCounts(session);
      times.kept.push(totals.kept);
      times.scratch.push(totals.scratch);
      times.scratchWalks.push(referenceWalks.count - walks0);
      times.keptWalks.push(counts.walks - counts0.walks);
      times.contextBuilds.push(counts.contextBuilds - counts0.contextBuilds);
    }
    // Regenerate: the leaf goes back to the last instruction, then the Chat and the first request read.
    const regenerate = { kept: [] as number[], scratch: [] as number[] };
    for (let i = 0; i < 5; i++) {
      const leaf = session.leafId as string;
      const target = session.regenerateTarget(leaf);
      await session.navigate(target);
      let start = performance.now();
      kept.view();
      use(session.contextWithSummary());
      regenerate.kept.push(performance.now() - start);
      start = performance.now();
      scratch.view();
      use(referenceContextWithSummary(session));
      regenerate.scratch.push(performance.now() - start);
      await session.navigate(leaf);
      kept.view();
    }
    return { times, firstRead, regenerate: { kept: summarize(regenerate.kept), scratch: summarize(regenerate.scratch) } };
  } finally {
    await session.close();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`The branch reads of one turn (${TURNS} turns after one warm-up), on a writable copy of a session as the extension writes it.`);
  console.log('baseline: the same reads, each walking from the leaf to the root (the algorithm before the branch was kept), same run, same session');
  const rows: string[][] = [];
  const walkRows: string[][] = [];
  const navRows: string[][] = [];
  const verdicts: string[] = [];
  const keptBySize = new Map<number, Sample>();
  for (const entries of SIZES) {
    const { times, firstRead, regenerate } = await turnsOn(entries);
    const keptS = summarize(times.kept);
    const scratchS = summarize(times.scratch);
    keptBySize.set(entries, keptS);
    rows.push([entries.toLocaleString('en-US'), withSpread(keptS), withSpread(scratchS), ratio(keptS, scratchS), ms(firstRead)]);
    walkRows.push([
      entries.toLocaleString('en-US'),
      summarize(times.scratchWalks).median.toFixed(0),
      summarize(times.keptWalks).median.toFixed(0),
      summarize(times.contextBuilds).median.toFixed(0),
    ]);
    navRows.push([entries.toLocaleString('en-US'), withSpread(regenerate.kept), withSpread(regenerate.scratch), ratio(regenerate.kept, regenerate.scratch)]);
    verdicts.push(`${entries.toLocaleString('en-US')} entries: ${verdict({ label: `≤ ${GOAL_MS} ms for a turn's branch reads`, figure: keptS.median, bound: GOAL_MS })}`);
  }
  table(['entries', 'kept (median, spread)', 'from scratch (median, spread)', 'kept / scratch', 'first read after open'], rows);
  console.log('\nwalks from the leaf to the root per turn (median): before = the from-scratch reads, after = the kept branch');
  table(['entries', 'before', 'after', 'context parts built from their start, after'], walkRows);
  console.log('\nregenerate: the leaf back to the last instruction, then the Chat\'s and the first request\'s reads');
  table(['entries', 'kept (median, spread)', 'from scratch (median, spread)', 'kept / scratch'], navRows);
  for (const v of verdicts) console.log(v);
  const small = keptBySize.get(SIZES[0] as number);
  const large = keptBySize.get(SIZES[SIZES.length - 1] as number);
  if (small && large && SIZES.length > 1) {
    console.log(`flat in session size: kept at ${(SIZES[SIZES.length - 1] as number).toLocaleString('en-US')} entries is ${ratio(large, small)} the kept figure at ${(SIZES[0] as number).toLocaleString('en-US')}`);
  }
  if (sink < 0) console.log(sink);
}

if (require.main === module) void main();
