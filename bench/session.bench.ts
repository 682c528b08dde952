// Session store bench (`npm run bench`; alone: node -e "require('./out/bench/session.bench.js').main()").
// On realistic sessions written through the real Session (bench/lib/fixtures.ts: full scene states
// from the real applyPatch, tool calls carrying the prose, summaries every 30 turns):
//  1. Opening a session at 1k / 10k / 100k entries, each open in a fresh process (so one run's
//     garbage is not the next one's), with the RSS after it, against a bare read + JSON.parse of
//     every line of the same file in the same run. Goal: ≤ 1 s at 100k entries.
//  2. Where the open goes at 100k entries: read, split + UTF-8 decode, JSON.parse, shape checks,
//     the whole open; and the time the collector took.
//  3. One turn at 100k entries (six entries and the turn-end fsync) through the library, backups
//     on, against the same turn on a session without backups, interleaved. Goal: the backup is
//     off the turn's path (no copy made or under way inside a turn). Also what one copy costs.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { INSTRUCTIONS, chapterPath, prose, rng, sceneStates, sessionFixture, turnEntries } from './lib/fixtures';
import { Sample, collectGarbage, mib, ms, ratio, summarize, table, verdict, withSpread } from './lib/stats';
import { SESSION_FORMAT_VERSION } from '../src/session/entries';
import { writeBackup } from '../src/session/backups';
import { LineSplitter } from '../src/session/jsonl-lines';
import { SessionLibrary } from '../src/session/library';
import { Session } from '../src/session/session';
import * as validate from '../src/session/validate';

const SIZES = [1_000, 10_000, 100_000];
const OPEN_GOAL_MS = 1000;

// ---------------------------------------------------------------- child process: one measurement

interface ChildResult {
  ms: number;
  rssMiB: number;
  heapMiB: number;
  gcMs: number;
  entries: number;
  phases?: Record<string, number>;
}

function elapsed(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Collector time while `fn` runs (the 'gc' performance entries). */
async function withGcTime<T>(fn: () => Promise<T>): Promise<{ value: T; gcMs: number }> {
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const value = await fn();
  await new Promise((r) => setImmediate(r)); // let the last entries arrive
  observer.disconnect();
  return { value, gcMs };
}

function bareParse(file: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let n = 0;
  for (const line of lines) if (line) n += JSON.parse(line) ? 1 : 0;
  return n;
}

/** Cumulative stages of an open, each from the start: what each step adds. */
function phases(file: string): Record<string, number> {
  const check = (validate as { checkStoredEntry?: (v: unknown, version: 1 | 2) => { ok: boolean } }).checkStoredEntry;
  const out: Record<string, number> = {};
  const stage = (name: string, lineFn: ((text: string) => void) | undefined, decode: boolean) => {
    const start = process.hrtime.bigint();
    const fd = fs.openSync(file, 'r');
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    const splitter = new LineSplitter(16 * 1024 * 1024, (raw) => {
      if (!decode) return;
      const text = raw.pieces[0]?.toString('utf8') ?? '';
      lineFn?.(text);
    });
    for (let pos = 0; ; ) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      pos += n;
      if (lineFn !== undefined || decode) splitter.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    }
    splitter.end();
    fs.closeSync(fd);
    out[name] = elapsed(start);
  };
  stage('read', undefined, false);
  stage('+ split, decode', undefined, true);
  const kept: unknown[] = [];
  stage('+ JSON.parse', (t) => void kept.push(t ? JSON.parse(t) : undefined), true);
  kept.length = 0;
  collectGarbage();
  if (check) {
    stage('+ shape checks', (t) => {
      const v: unknown = t ? JSON.parse(t) : undefined;
      if (v && (v as { type?: string }).type !== 'session') check(v, SESSION_FORMAT_VERSION as 1 | 2);
      kept.push(v);
    }, true);
  }
  return out;
}

async function child(mode: string, file: string): Promise<void> {
  collectGarbage();
  const start = process.hrtime.bigint();
  let entries = 0;
  let phaseTimes: Record<string, number> | undefined;
  let keep: unknown;
  const { gcMs } = await withGcTime(async () => {
    if (mode === 'bare') entries = bareParse(file);
    else if (mode === 'phases') phaseTimes = phases(file);
    else {
      const { session } = await Session.open(file, { readOnly: true });
      entries = session.entryCount;
      keep = session;
    }
  });
  const took = elapsed(start);
  collectGarbage();
  const mem = process.memoryUsage();
  const result: ChildResult = { ms: took, rssMiB: mem.rss / 1048576, heapMiB: mem.heapUsed / 1048576, gcMs, entries, ...(phaseTimes ? { phases: phaseTimes } : {}) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  void keep;
}

function inChild(mode: string, file: string): ChildResult {
  const out = execFileSync(process.execPath, ['--expose-gc', __filename, '--child', mode, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() as string) as ChildResult;
}

// ---------------------------------------------------------------- 1, 2: open

interface OpenRow {
  entries: number;
  bytes: number;
  open: Sample;
  bare: Sample;
  rss: Sample;
  heap: Sample;
  gc: Sample;
}

function benchOpen(file: string, entries: number, runs: number): OpenRow {
  const open: ChildResult[] = [];
  const bare: ChildResult[] = [];
  inChild('open', file); // the file into the page cache
  for (let i = 0; i < runs; i++) {
    // Interleaved, so both see the same noise.
    bare.push(inChild('bare', file));
    open.push(inChild('open', file));
  }
  if (open.some((r) => r.entries < entries * 0.99)) throw new Error(`open lost entries: ${open[0]?.entries} of ${entries}`);
  return {
    entries,
    bytes: fs.statSync(file).size,
    open: summarize(open.map((r) => r.ms)),
    bare: summarize(bare.map((r) => r.ms)),
    rss: summarize(open.map((r) => r.rssMiB)),
    heap: summarize(open.map((r) => r.heapMiB)),
    gc: summarize(open.map((r) => r.gcMs)),
  };
}

// ---------------------------------------------------------------- 3: a turn at 100k entries

const sleep = (msWait: number) => new Promise((r) => setTimeout(r, msWait));

interface TurnFigures {
  withBackups: Sample;
  without: Sample;
  /** Turns during which a backup copy was made or under way (a new file in the backups folder). */
  copiesInTurns: number;
  turns: number;
  backups: number;
  backupCopy: Sample;
}

async function benchTurn(fixtureFile: string, turns: number): Promise<TurnFigures> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-session-bench-turn-'));
  try {
    const sessions = path.join(root, '.worldline', 'sessions');
    fs.mkdirSync(sessions, { recursive: true });
    const header = JSON.parse(fs.readFileSync(fixtureFile, 'utf8').slice(0, 4096).split('\n')[0] as string) as { id: string };
    fs.copyFileSync(fixtureFile, path.join(sessions, `${header.id}.jsonl`));
    const bareFile = path.join(root, 'nobackups.jsonl');
    fs.copyFileSync(fixtureFile, bareFile);
    // Backups once quiet for 300 ms (the product waits 10 s); turns come 1.7 s apart, as a
    // novelist's do (reading takes longer than the wait). The previous code copied at a turn's
    // first write once its interval (here 1 s) had passed: every turn, once a real model is in it.
    const options = { backupIntervalMs: 1000, backupIdleMs: 300, onWarning: (w: string) => console.log(`  warning: ${w}`) };
    const lib = new SessionLibrary(root, options as ConstructorParameters<typeof SessionLibrary>[1]);
    const { session } = await lib.open(header.id);
    const { session: plain } = await Session.open(bareFile);
    const rand = rng(11);
    const states = sceneStates(turns * 2 + 2, 3);
    const backupNames = () => new Set(fs.existsSync(lib.backupsDir) ? fs.readdirSync(lib.backupsDir) : []);
    let copiesInTurns = 0;
    const turn = async (s: Session, t: number, watch: boolean): Promise<number> => {
      const entries = turnEntries({ instruction: INSTRUCTIONS[t % INSTRUCTIONS.length] as string, chapter: chapterPath(1 + (t % 100)), added: prose(rand, 1200), state: states[t] as (typeof states)[number] }, 20_000 + t);
      const before = backupNames();
      const start = process.hrtime.bigint();
      for (const e of entries) await s.append(e);
      await s.flush();
      const took = elapsed(start);
      if (watch && [...backupNames()].some((n) => !before.has(n))) copiesInTurns++;
      return took;
    };
    await sleep(1500);
    const withBackups: number[] = [];
    const without: number[] = [];
    for (let t = 0; t < turns; t++) {
      without.push(await turn(plain, 2 * t, false));
      await sleep(200);
      withBackups.push(await turn(session, 2 * t + 1, true));
      await sleep(1500);
    }
    await plain.close();
    await lib.dispose();
    const backups = (await lib.backups(header.id)).length;
    // What one copy costs (now made while the session is quiet).
    const dir = path.join(root, 'copies');
    const copy: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = process.hrtime.bigint();
      await writeBackup(dir, { file: bareFile, sessionId: `c${i}`, title: 'bench', byteLength: fs.statSync(bareFile).size }, Date.now() + i);
      copy.push(elapsed(start));
    }
    return { withBackups: summarize(withBackups), without: summarize(without), copiesInTurns, turns, backups, backupCopy: summarize(copy) };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main

const kb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

export async function main(): Promise<{ open: OpenRow[] }> {
  const started = Date.now();
  console.log(`Session store bench — ${os.cpus().length} CPU, Node ${process.version}, format ${SESSION_FORMAT_VERSION}; fixtures in ${path.join(os.tmpdir(), 'wl-bench-sessions')}`);
  const fixtures = [];
  for (const entries of SIZES) fixtures.push(await sessionFixture({ entries }));

  const open: OpenRow[] = [];
  for (const f of fixtures) open.push(benchOpen(f.file, f.entries, f.entries >= 100_000 ? 5 : 7));
  console.log('\n1. Open a session (each in a fresh process): Session.open vs a bare read + JSON.parse of every line of the same file');
  table(
    ['entries', 'file', 'open', 'bare parse', 'open ÷ bare', 'RSS after open', 'heap after open', 'GC in open'],
    open.map((r) => [String(r.entries), kb(r.bytes), withSpread(r.open), ms(r.bare.median), ratio(r.open, r.bare), mib(r.rss.median), mib(r.heap.median), ms(r.gc.median)]),
  );
  const big = open[open.length - 1] as OpenRow;
  console.log(`open at ${big.entries} entries: ${verdict({ label: `≤ ${ms(OPEN_GOAL_MS)}`, figure: big.open.median, bound: OPEN_GOAL_MS })}`);

  const bigFile = (fixtures[fixtures.length - 1] as { file: string }).file;
  const stages = [0, 1, 2].map(() => inChild('phases', bigFile).phases as Record<string, number>);
  console.log(`\n2. Where an open of ${big.entries} entries goes (cumulative, median of 3; the whole open is row 1's)`);
  table(
    ['stage', 'ms from the start'],
    [
      ...Object.keys(stages[0] as object).map((k) => [k, ms(summarize(stages.map((s) => s[k] as number)).median)]),
      ['+ tree index, state entries (the whole open)', ms(big.open.median)],
    ],
  );
  console.log(`collector time inside the whole open: ${ms(big.gc.median)} of ${ms(big.open.median)}`);

  const turn = await benchTurn(bigFile, 9);
  console.log(`\n3. One turn at ${big.entries} entries (six entries + the turn-end fsync) through the library, interleaved with the same turn on a session without backups`);
  table(
    ['', 'median (spread)'],
    [
      ['turn, backups on (the library)', withSpread(turn.withBackups)],
      ['turn, no backups', withSpread(turn.without)],
      ['one backup copy (made when quiet)', withSpread(turn.backupCopy)],
    ],
  );
  console.log(`turn with ÷ without backups: ${ratio(turn.withBackups, turn.without)}; backups written: ${turn.backups}; turns with a copy made or under way in them: ${turn.copiesInTurns} of ${turn.turns}`);
  console.log(`backup off the turn's path: ${verdict({ label: 'no copy inside a turn', figure: turn.copiesInTurns, bound: 0, unit: (n) => `${n} turns` })}`);
  console.log(`\nTotal bench time ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { open };
}

if (require.main === module) {
  const [flag, mode, file] = process.argv.slice(2);
  const run = flag === '--child' && mode && file ? child(mode, file) : main().then(() => undefined);
  run.catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
