// Checkpoints on books of 100 to 20,000 chapters of about 3,000 CJK characters each (bench/lib's
// fixtures), against what bare git costs on the same tree, in the same run:
//  - a turn's checkpoints as the extension takes them (the check before the instruction with
//    nothing changed, then the checkpoint of the chapter the agent's tool wrote, reported through
//    the change feed) against `git add <file> && git commit` in a plain repo of the same book;
//  - restoring one chapter against `git checkout <c> -- <file>`;
//  - the first checkpoint of a book: the walk at open (in the background), the largest stall of
//    the event loop during it (a 1 ms interval's longest gap), and what the first Send then waits.
// Each figure is the median of several runs with its spread; "met" only where the goal is met.
// `npm run bench checkpoints`; WL_BENCH_CKPT_SIZES=100,1000 picks the sizes.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { ShadowRepo, isCheckpointProblem, type CheckpointProblem, type CheckpointResult, type ShadowRepoOptions } from '../src/checkpoints';
import { ManuscriptChanges } from '../src/project/manuscriptChanges';
import { chapterText, prose, rng, writeBook, type Book } from './lib/fixtures';
import { measure, ms, ratio, summarize, table, verdict, withSpread, type Sample } from './lib/stats';

const run = promisify(execFile);
const SIZES = (process.env.WL_BENCH_CKPT_SIZES ?? '100,1000,5000,20000').split(',').map(Number);
const TURNS = 9;
const RESTORES = 7;
/** Runs of the first checkpoint (a fresh store each time): fewer on the biggest book, where one takes seconds. */
const FIRST_RUNS = (n: number) => (n >= 20_000 ? 3 : 5);
const STALL_SIZES = new Set([5000, 20_000]);
const GOAL_TURN_RATIO = 1.2;
const GOAL_FIRST_SEND_MS = 100;
const GOAL_STALL_MS = 50;

/** The novelist's own plain repository in the book folder: the floor's git, no auto gc to run beside it. */
const plainEnv = {
  PATH: process.env.PATH ?? '',
  HOME: path.join(os.tmpdir(), 'wl-bench-no-home'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'gc.auto',
  GIT_CONFIG_VALUE_0: '0',
  GIT_CONFIG_KEY_1: 'maintenance.auto',
  GIT_CONFIG_VALUE_1: 'false',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.com',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.com',
};
const plainGit = (cwd: string, args: string[]) => run('git', args, { cwd, env: plainEnv, maxBuffer: 1 << 28 });

function ok(r: CheckpointResult | CheckpointProblem | null): CheckpointResult | null {
  if (r !== null && isCheckpointProblem(r)) throw new Error(`${r.kind}: ${r.message}`);
  return r;
}

/** The store as the extension opens it: with the change feed, counting git processes. Older stores ignore what they lack. */
interface Store {
  repo: ShadowRepo;
  changes: ManuscriptChanges;
  spawns: { n: number };
  /** The walk at open (a store without one takes its first checkpoint instead). */
  prepare(): Promise<unknown>;
  hasPrepare: boolean;
  close(): void;
}

async function openStore(root: string): Promise<Store> {
  const changes = new ManuscriptChanges();
  const spawns = { n: 0 };
  const opts: Record<string, unknown> = { globs: ['**/*.md', '**/*.txt'], maintainEvery: 0, changes, idleWalkMs: 0, onSpawn: () => void spawns.n++ };
  const repo = await ShadowRepo.open(root, opts as unknown as ShadowRepoOptions);
  if (!(repo instanceof ShadowRepo)) throw new Error(repo.message);
  const extra = repo as unknown as { prepare?: () => Promise<unknown>; close?: () => void };
  return {
    repo,
    changes,
    spawns,
    hasPrepare: typeof extra.prepare === 'function',
    prepare: () => (extra.prepare ? extra.prepare.call(repo) : repo.checkpoint('first', 'bench')),
    close: () => extra.close?.call(repo),
  };
}

/** The longest gap between two ticks of a 1 ms interval while `work` runs. */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ value: T; stall: number }> {
  let last = performance.now();
  let max = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    return { value, stall: Math.max(max, performance.now() - last) };
  } finally {
    clearInterval(tick);
  }
}

async function time<T>(fn: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

interface FirstRow {
  chapters: number;
  /** The walk at open (background). */
  open: Sample;
  stall: Sample | undefined;
  /** The same, for `git add -A` of the book into a new plain repo: what git alone costs, and the stalls a busy machine gives anyway. */
  floorAdd: Sample;
  floorStall: Sample | undefined;
  /** What the first Send waits for its checkpoint. */
  firstSend: Sample;
  prepared: boolean;
}

async function measureFirst(book: Book, n: number): Promise<FirstRow> {
  const open: number[] = [];
  const stalls: number[] = [];
  const firstSend: number[] = [];
  const floorAdd: number[] = [];
  const floorStalls: number[] = [];
  let prepared = false;
  for (let r = 0; r < FIRST_RUNS(n); r++) {
    await fsp.rm(path.join(book.root, '.git'), { recursive: true, force: true });
    await plainGit(book.root, ['init', '-q']);
    const f0 = performance.now();
    floorStalls.push((await stallDuring(() => plainGit(book.root, ['add', '-A']))).stall);
    floorAdd.push(performance.now() - f0);
    await fsp.rm(path.join(book.root, '.worldline'), { recursive: true, force: true });
    const t0 = performance.now();
    const { stall, value: store } = await stallDuring(async () => {
      const s = await openStore(book.root);
      await s.prepare();
      return s;
    });
    open.push(performance.now() - t0);
    stalls.push(stall);
    prepared = store.hasPrepare;
    // The first Send: its check before the instruction finds no checkpoint on the branch, so one is
    // recorded. With the walk done at open it only commits; without, this is the whole first checkpoint.
    firstSend.push(store.hasPrepare ? await time(async () => ok(await store.repo.checkpoint('send-1', 'bench'))) : (open.at(-1) as number));
    store.close();
  }
  await fsp.rm(path.join(book.root, '.git'), { recursive: true, force: true });
  const stalled = STALL_SIZES.has(n);
  return {
    chapters: n, open: summarize(open), stall: stalled ? summarize(stalls) : undefined,
    floorAdd: summarize(floorAdd), floorStall: stalled ? summarize(floorStalls) : undefined, firstSend: summarize(firstSend), prepared,
  };
}

interface TurnRow {
  chapters: number;
  floor: Sample;
  turn: Sample;
  check: Sample;
  spawnsPerTurn: number;
  restoreFloor: Sample;
  restore: Sample;
}

async function measureTurns(book: Book, n: number): Promise<TurnRow> {
  const root = book.root;
  await fsp.rm(path.join(root, '.worldline'), { recursive: true, force: true });
  await fsp.rm(path.join(root, '.git'), { recursive: true, force: true });
  // One folder is both the novelist's plain repo (the floor commits there) and the book whose
  // shadow store we measure (which never looks at that .git): the same tree on both sides.
  await plainGit(root, ['init', '-q']);
  await plainGit(root, ['add', '-A']);
  await plainGit(root, ['commit', '-q', '-m', 'init']);
  const store = await openStore(root);
  await store.prepare();
  let previous = ok(await store.repo.checkpoint('t0', 'bench'))?.commit;
  const rand = rng(n);
  const floor: number[] = [];
  const turn: number[] = [];
  const check: number[] = [];
  const spawns: number[] = [];
  const commits: string[] = [];
  for (let r = 0; r < TURNS; r++) {
    const rel = book.chapters[(r * 37) % n] as string;
    const file = path.join(root, rel);
    // The turn: the check before the instruction (nothing changed since the last turn), the
    // agent's tool appends a scene to one chapter, the checkpoint at the turn's end.
    const before = store.spawns.n;
    const t0 = performance.now();
    const pinned = ok(await store.repo.checkpointIfChanged(`b${r}`, 'bench', previous));
    const t1 = performance.now();
    if (pinned) throw new Error('the check before the instruction found a change nobody made');
    await fsp.appendFile(file, `\n\n${prose(rand, 1200)}\n`);
    const floorFirst = r % 2 === 0; // alternated, so machine load falls on both sides alike
    const doFloor = async () => floor.push(await time(async () => {
      await plainGit(root, ['add', '--', rel]);
      await plainGit(root, ['commit', '-q', '-m', `turn ${r}`]);
    }));
    if (floorFirst) await doFloor();
    const t2 = performance.now();
    store.changes.changed([rel]);
    const made = ok(await store.repo.checkpoint(`t${r + 1}`, 'bench'));
    const t3 = performance.now();
    if (!floorFirst) await doFloor();
    if (!made || made.changed.length !== 1) throw new Error(`the turn's checkpoint recorded ${made?.changed.length} files`);
    previous = made.commit;
    commits.push(made.commit);
    check.push(t1 - t0);
    turn.push(t1 - t0 + (t3 - t2));
    spawns.push(store.spawns.n - before);
  }
  // Restore the last turn's chapter back and forth (the turn before, then the last turn again:
  // one chapter differs each time), against checking that file out in the plain repo.
  const rel = book.chapters[((TURNS - 1) * 37) % n] as string;
  const restoreTimes: number[] = [];
  const floorTimes: number[] = [];
  for (let r = 0; r < RESTORES; r++) {
    for (const target of [commits[TURNS - 2] as string, commits[TURNS - 1] as string]) {
      restoreTimes.push(await time(async () => {
        const res = await store.repo.restore(target);
        if (res.written.length + res.deleted.length !== 1) throw new Error(`the restore wrote ${res.written.length} and deleted ${res.deleted.length} files`);
        store.changes.changed([...res.written, ...res.deleted]); // as the Story reports them
      }));
    }
    for (const rev of ['HEAD~1', 'HEAD']) floorTimes.push(await time(() => plainGit(root, ['checkout', '-q', rev, '--', rel])));
    store.changes.changed([rel]); // the watcher's echo of the floor's checkout (the same bytes again)
  }
  store.close();
  return { chapters: n, floor: summarize(floor), turn: summarize(turn), check: summarize(check), spawnsPerTurn: summarize(spawns).median, restoreFloor: summarize(floorTimes), restore: summarize(restoreTimes) };
}

export async function main(): Promise<void> {
  const started = Date.now();
  const firsts: FirstRow[] = [];
  const turns: TurnRow[] = [];
  for (const n of SIZES) {
    const t = Date.now();
    const book = await writeBook({ chapters: n });
    try {
      firsts.push(await measureFirst(book, n));
      turns.push(await measureTurns(book, n));
    } finally {
      await fsp.rm(book.root, { recursive: true, force: true });
    }
    console.log(`  (${n} chapters: ${((Date.now() - t) / 1000).toFixed(0)} s)`);
  }
  const chapterBytes = Buffer.byteLength(chapterText(rng(1), 1));

  console.log(`\nA turn's checkpoints (the check before the instruction + the checkpoint of the chapter the tool wrote), against \`git add <file> && git commit\` on the same tree; chapters of ${chapterBytes} bytes; median of ${TURNS}`);
  table(
    ['chapters', 'floor add+commit', 'turn', 'ratio', 'check before', 'git processes/turn', 'goal ≤ 1.2× the floor'],
    turns.map((r) => [String(r.chapters), withSpread(r.floor), withSpread(r.turn), ratio(r.turn, r.floor), ms(r.check.median), String(r.spawnsPerTurn),
      verdict({ label: `≤ ${GOAL_TURN_RATIO}×`, figure: r.turn.median / r.floor.median, bound: GOAL_TURN_RATIO, unit: (x) => `${x.toFixed(2)}×` })]),
  );

  console.log(`\nRestore of one chapter, against \`git checkout <c> -- <file>\`; median of ${RESTORES * 2}`);
  table(
    ['chapters', 'floor checkout', 'restore', 'ratio'],
    turns.map((r) => [String(r.chapters), withSpread(r.restoreFloor), withSpread(r.restore), ratio(r.restore, r.restoreFloor)]),
  );

  console.log('\nThe first checkpoint of a book: the walk at open (in the background) against `git add -A` into a new plain repo, and what the first Send then waits');
  table(
    ['chapters', 'floor git add -A', 'walk at open', 'ratio', 'first Send waits', `goal ≤ ${GOAL_FIRST_SEND_MS} ms`],
    firsts.map((r) => [
      String(r.chapters), withSpread(r.floorAdd), withSpread(r.open), ratio(r.open, r.floorAdd), withSpread(r.firstSend),
      verdict({ label: `≤ ${GOAL_FIRST_SEND_MS} ms`, figure: r.firstSend.median, bound: GOAL_FIRST_SEND_MS }),
    ]),
  );
  console.log('\nThe longest event-loop stall (gap of a 1 ms interval) during the walk at open, against the same during `git add -A` run from this process (what the busy machine gives anyway)');
  table(
    ['chapters', 'during git add -A', 'during the walk at open', 'ratio', `goal ≤ ${GOAL_STALL_MS} ms`],
    firsts.flatMap((r) => (r.stall && r.floorStall ? [[String(r.chapters), withSpread(r.floorStall), withSpread(r.stall), ratio(r.stall, r.floorStall),
      verdict({ label: `≤ ${GOAL_STALL_MS} ms`, figure: r.stall.median, bound: GOAL_STALL_MS })]] : [])),
  );
  if (firsts.some((r) => !r.prepared)) console.log('(this store has no walk at open: its first checkpoint is taken inside the first Send)');
  // The machine is shared: what a bare spawn costs now, for reading the figures.
  const spawn = await measure(() => run('git', ['--version']), { runs: 9 });
  console.log(`\nA bare \`git --version\` from this process: ${withSpread(spawn)}. Total ${((Date.now() - started) / 1000).toFixed(0)} s.`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
