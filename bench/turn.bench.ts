// An end-to-end turn, as the extension runs it: the real Story over a real session file, the real
// checkpoint store (git) and the real agent loop, against a model server on 127.0.0.1 that answers
// at once (one tool call writing ~1,200 characters into a chapter, then the reply; the scribe's
// patch; a summary every 30 turns). What is timed is our own work: every figure includes the
// in-process server's share of the CPU (small: a few hundred bytes of SSE per reply).
//
// Baseline, in the same run and on the same book: the floor of what a turn must do anyway —
// append the prose to the chapter, append the turn's six lines to a JSONL file with one fsync,
// and `git add <file> && git commit` in a plain repository of the book.
//
// Sweeps: chapters 100 / 1,000 / 5,000 / 20,000 at 10k entries; entries 1k / 10k / 100k at 5,000
// chapters. `WL_BENCH_QUICK=1` runs only the smallest sizes (a smoke run).
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { NodeManuscriptFs } from '../src/agent/fsNode';
import { ShadowRepo, type RestoreResult } from '../src/checkpoints';
import type { RequestKeys } from '../src/model/keys';
import type { WorldlineSettings } from '../src/model/settings';
import { defaultConfig } from '../src/project/config';
import { ManuscriptChanges } from '../src/project/manuscriptChanges';
import { Session } from '../src/session/session';
import { openingState } from '../src/state/opening';
import { Story, type DirtyChoice, type StoryEvent, type StoryHost, type StoryProject } from '../src/story';
import { bySystemPrompt, startModelServer, type ModelServer, type RecordedRequest, type ScriptedReplySpec } from '../test/fixtures/modelServer';
import { BOOK_CONFIG, prose, rng, sessionFixture, writeBook, type Book } from './lib/fixtures';
import { measure, mib, ms, ratio, rssMiB, summarize, table, verdict, withSpread, type Sample } from './lib/stats';

const run = promisify(execFile);
const QUICK = process.env['WL_BENCH_QUICK'] === '1';
const TURNS = QUICK ? 4 : 12;
const GOAL_MS = 100;

class BenchHost implements StoryHost {
  readonly log = { info: () => undefined, warn: (m: string) => void this.warnings.push(m), error: (m: string) => void this.warnings.push(m) };
  readonly warnings: string[] = [];
  /** Time spent in the checkpoint store's calls during the current turn. */
  gitMs = 0;
  private readonly config = { ...defaultConfig(), title: '基准测试之书', language: 'zh' as const, opening: { time: '第一天，傍晚', location: '听雨轩', characters: ['青梧', '柳三娘'] } };
  private readonly timedRepo: ShadowRepo;

  constructor(private readonly root: string, repo: ShadowRepo, private readonly server: ModelServer, readonly changes: ManuscriptChanges) {
    // Every store call is timed (git's share of the turn).
    this.timedRepo = new Proxy(repo, {
      get: (target, key, receiver) => {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const start = performance.now();
          const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (out instanceof Promise) return out.finally(() => (this.gitMs += performance.now() - start));
          this.gitMs += performance.now() - start;
          return out;
        };
      },
    });
  }

  project(): StoryProject {
    return { root: this.root, config: this.config, lang: 'zh', branchOptions: { opening: openingState(this.config.opening), lang: 'zh' } };
  }
  settings(): WorldlineSettings {
    const url = this.server.url;
    return {
      baseUrl: url, model: 'bench-model', scribeBaseUrl: url, scribeModel: 'bench-scribe', maxToolSteps: 6, temperature: 0.5,
      memory: { everyTurns: 30, keepTurns: 6, recallCount: 6, embeddingModel: '', embeddingBaseUrl: '' },
      endpoints: { main: url, scribe: url, embeddings: url },
      proseFollowsBranch: 'never',
    };
  }
  keys(): Promise<RequestKeys> { return Promise.resolve({ main: '', scribe: '', embeddings: '', withheld: [] }); }
  manuscriptFs() { return new NodeManuscriptFs(this.root); }
  store(): Promise<ShadowRepo> { return Promise.resolve(this.timedRepo); }
  progress<T>(work: () => Promise<T>): Promise<T> { return work(); }
  saveUnsavedOrCancel(): Promise<DirtyChoice> { return Promise.resolve('save'); }
  saveUnsavedToDisk(): Promise<void> { return Promise.resolve(); }
  askFollow(): Promise<boolean> { return Promise.resolve(false); }
  confirmLeaveTurns(): Promise<boolean> { return Promise.resolve(true); }
  settle(_result: RestoreResult): Promise<void> { return Promise.resolve(); }
  report(_event: StoryEvent): void {}
}

/** The model: a tool call appending to the turn's chapter, then a short reply; the scribe; summaries. */
function scriptModel(server: ModelServer, chapterOf: () => string): void {
  const rand = rng(3);
  let night = 0;
  server.route(bySystemPrompt('你是场记'), (): ScriptedReplySpec => {
    night++;
    const characters: Record<string, unknown> = { 青梧: { status: `第${night}轮：心事重重`, affinity: night % 20 }, 柳三娘: { notes: '记住的要点：怀表、那封信' } };
    return { text: JSON.stringify({ patch: { time: `第${Math.ceil(night / 4)}日深夜`, characters, facts: [`第${night}轮确认：怀表另有主人`] } }), usage: { prompt_tokens: 3000, completion_tokens: 200 } };
  }, 'scribe');
  server.route(bySystemPrompt('摘要员'), { text: prose(rand, 600) }, 'summary');
  server.setDefault((req: RecordedRequest): ScriptedReplySpec => {
    const messages = req.messages ?? [];
    const last = messages[messages.length - 1];
    if (last?.role === 'tool') return { text: '写好了：对峙更压抑，怀表的秘密仍留着。', usage: { prompt_tokens: 9000, completion_tokens: 40 } };
    return { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: chapterOf(), content: `\n\n${prose(rand, 1200)}` }) }], usage: { prompt_tokens: 9000, completion_tokens: 900 } };
  });
}

interface TurnFigures {
  total: Sample;
  cpu: Sample;
  git: Sample;
  rss: number;
  open: number;
}

async function turnsOn(book: Book, entries: number): Promise<TurnFigures> {
  const fixture = await sessionFixture({ entries, chapters: book.chapters.length });
  const dir = path.join(book.root, '.worldline', 'sessions');
  await fsp.mkdir(dir, { recursive: true });
  const file = path.join(dir, `bench-${entries}.jsonl`);
  await fsp.copyFile(fixture.file, file);
  const openStart = performance.now();
  const { session } = await Session.open(file);
  const open = performance.now() - openStart;
  // The change feed as the shell wires it (the agent's writes reach it through the Story).
  const changes = new ManuscriptChanges();
  const repo = await ShadowRepo.open(book.root, { globs: defaultConfig().manuscriptMatcher, changes });
  if (!(repo instanceof ShadowRepo)) throw new Error(`the checkpoint store did not open: ${repo.message}`);
  const server = await startModelServer();
  let turn = 0;
  scriptModel(server, () => book.chapters[(turn * 7) % book.chapters.length] as string);
  const host = new BenchHost(book.root, repo, server, changes);
  const story = new Story(host, session);
  // The book's first walk runs at open, in the background (checkpoints.bench.ts times it); here it ends before timing.
  await story.prepareCheckpoints();
  const totals: number[] = [];
  const cpus: number[] = [];
  const gits: number[] = [];
  try {
    for (let i = 0; i < TURNS + 1; i++) {
      turn++;
      host.gitMs = 0;
      const cpu0 = process.cpuUsage();
      const start = performance.now();
      await story.send(`继续写第${turn}段：让两人的对峙更压抑。`);
      await story.idle();
      const wall = performance.now() - start;
      const cpu = process.cpuUsage(cpu0);
      if (i === 0) continue; // the first turn warms the JIT and the store's caches
      totals.push(wall);
      cpus.push((cpu.user + cpu.system) / 1000);
      gits.push(host.gitMs);
    }
    if (host.warnings.length > 0) console.log(`  warnings: ${host.warnings.slice(0, 3).join(' | ')}`);
    return { total: summarize(totals), cpu: summarize(cpus), git: summarize(gits), rss: rssMiB(), open };
  } finally {
    story.dispose();
    repo.close();
    await session.close();
    await server.close();
  }
}

/** The floor: the prose appended, six lines appended with one fsync, `git add <file> && git commit`. */
async function floorOn(book: Book): Promise<Sample> {
  const plain = path.join(book.root, '..', `${path.basename(book.root)}-plain`);
  await fsp.rm(plain, { recursive: true, force: true });
  await fsp.cp(book.root, plain, { recursive: true, filter: (src) => !src.includes(`${path.sep}.worldline`) });
  const git = (args: string[]) => run('git', args, { cwd: plain, maxBuffer: 1 << 26 });
  await git(['init', '-q']);
  await git(['-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '-A']);
  await git(['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'book']);
  const rand = rng(9);
  const log = path.join(plain, 'session.jsonl');
  let i = 0;
  const lines = Array.from({ length: 6 }, (_, k) => JSON.stringify({ id: `e${k}`, type: 'assistant', text: prose(rand, 500) }));
  const sample = await measure(async () => {
    const rel = book.chapters[(i++ * 7) % book.chapters.length] as string;
    await fsp.appendFile(path.join(plain, rel), `\n\n${prose(rand, 1200)}`);
    const handle = await fsp.open(log, 'a');
    await handle.write(`${lines.join('\n')}\n`);
    await handle.sync();
    await handle.close();
    await git(['add', '--', rel]);
    await git(['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', `turn ${i}`]);
  }, { runs: TURNS, warmup: 1 });
  await fsp.rm(plain, { recursive: true, force: true });
  return sample;
}

export async function main(): Promise<void> {
  const chapterSweep = QUICK ? [100] : [100, 1_000, 5_000, 20_000];
  const entrySweep = QUICK ? [1_000] : [1_000, 10_000, 100_000];
  console.log(`End-to-end turn with an instant model on 127.0.0.1 (${TURNS} turns after one warm-up; chapters of ~3,000 CJK characters).`);
  console.log('baseline (floor): append the prose, append six lines + fsync, `git add <file> && git commit` on a plain repo of the same book');
  const rows: string[][] = [];
  const verdicts: string[] = [];
  const cases = [
    ...chapterSweep.map((chapters) => ({ chapters, entries: QUICK ? 1_000 : 10_000 })),
    ...entrySweep.map((entries) => ({ chapters: QUICK ? 100 : 5_000, entries })),
  ].filter((c, i, all) => all.findIndex((d) => d.chapters === c.chapters && d.entries === c.entries) === i);
  const books = new Map<number, Book>();
  try {
    for (const c of cases) {
      let book = books.get(c.chapters);
      if (!book) {
        book = await writeBook({ chapters: c.chapters });
        await fsp.writeFile(path.join(book.root, 'worldline.yaml'), BOOK_CONFIG);
        books.set(c.chapters, book);
      }
      const floor = await floorOn(book);
      const f = await turnsOn(book, c.entries);
      const other = f.total.median - f.git.median;
      rows.push([
        c.chapters.toLocaleString('en-US'), c.entries.toLocaleString('en-US'), withSpread(f.total), ms(f.cpu.median), ms(f.git.median), ms(other),
        ms(floor.median), ratio(f.total, floor), ms(f.open), mib(f.rss),
      ]);
      verdicts.push(`${c.chapters} chapters, ${c.entries} entries: ${verdict({ label: `≤ ${GOAL_MS} ms of our own work per turn`, figure: f.total.median, bound: GOAL_MS })}`);
    }
  } finally {
    for (const b of books.values()) await fsp.rm(b.root, { recursive: true, force: true });
  }
  table(['chapters', 'entries', 'turn (median, spread)', 'CPU', 'git', 'rest', 'floor', '× floor', 'session open', 'RSS'], rows);
  for (const v of verdicts) console.log(v);
}

if (require.main === module) void main();
