// Memory bench (`npm run bench memory`; alone: node -e "require('./out/bench/memory.bench.js').main()").
//
// The memory files are built through the real code, as a long session fills them: turns shaped
// like the TurnRunner's (bench/lib/fixtures.ts `turnEntries`: the instruction, an append_file or
// edit_file call carrying the prose, the reply), archived 30 turns at a time by the real
// `archiveEntries` (chunker, local embedder, `MemoryStore.append`, fsync). One turn in ten was
// regenerated and its first variant archived too (rows off the branch). The text is varied, not
// repeated: a vocabulary of 20,000 words with a Zipf-like frequency, 300 names, prose of
// 1,200–3,000 characters a turn, instructions of 20–150 and replies of 10–300, so the rows are
// the sizes the extension stores (chunks of ~400 characters, ~270 buckets each) and their
// n-grams spread like a book's. Built once per size and cached in the OS temp folder.
//
// 1. Recall at 50k and 200k rows, the turn's own way (`recallForTurn`: the instruction plus the
//    end of the last reply, branch filter, the visible context left out, the block formatted):
//    through the store's posting lists, cold (the first query of a freshly opened store, in a
//    fresh process) and warm, against the full scan over the same rows held as today's rows
//    (each with its own vector) in the same run. Goal: ≤ 20 ms at 50k (and at 200k).
//    The top k of both is compared on every query and the check printed.
// 2. Opening the memory file at 50k, 200k and 250k rows, each in a fresh process: time, RSS after
//    the open, peak RSS. Goal: it opens. Before, a file over 512 MiB was refused: the 200k file here
//    (rows of 2.7 KB on average) is just under that, the 250k one over it (as 200k rows of prose
//    alone, 3–4 KB each, are); and re-embedding built the whole file as one string
//    (ERR_STRING_TOO_LONG past V8's ~536M characters).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pick, rng, sceneStates, turnEntries } from './lib/fixtures';
import { collectGarbage, measure, mib, ms, ratio, summarize, table, verdict, withSpread, type Sample } from './lib/stats';
import { archiveEntries } from '../src/memory/archive';
import { localEmbedder } from '../src/memory/embed';
import { recallForTurn, type MemorySource, type RecallHit } from '../src/memory/recall';
import { MemoryStore } from '../src/memory/store';
import { MEMORY_FORMAT_VERSION, MemoryParser, DEFAULT_MEMORY_LIMITS } from '../src/memory/storeFormat';
import { DocFreq } from '../src/memory/docFreq';
import { RAW_VIEW, type MemoryRow } from '../src/memory/types';
import type { ChainEntry, NewChainEntry } from '../src/session/entries';
import { openForLines, readLines } from '../src/session/jsonl-lines';

const SIZES = [50_000, 200_000];
/** Opened only: a file over the old 512 MiB limit. */
const OPEN_ONLY = [250_000];
const RECALL_GOAL_MS = 20;
const QUERIES = 30;
const CHILD_RUNS = 3;
/** Bump when the generator changes, so cached files are rebuilt. */
const GENERATOR = 'g1';

// ---------------------------------------------------------------- varied text

// Common characters, for building the vocabulary: words of one to four of them.
const COMMON =
  '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从知全点长已明开意外手样现文头老本回间果两体走气理问相正性九四五才月少高动很儿实力新把别机通先向命入西结她感夜声白话东完信车水身最口风路想住今直光山听海笑女眼色门真安失死爱书早黑红花火马名城河远深静冷雨雪灯茶酒刀剑船桥街楼窗墙院房林石云星脸步抬低叹慢轻重急怕喊叫望站坐躺跑追送接拿放推拉打关';
const SURNAMES = '青林沈顾白秋江陆苏温周柳程叶许韩唐孟宋魏楚薛方陈何李王张刘杨赵黄吴徐孙胡朱高郭罗郑梁谢';
const GIVEN = '梧砚舟雪露棠晚离荷言渡岸远澜知松蕊川禾风怜冷秋四宁慕烟寒霜玉清明月之若云逸凡鸿';

/** A sampler of 0..n-1 with weight 1 / (i + 1 + shift)^s (Zipf–Mandelbrot: how words spread in text). */
function zipf(n: number, rand: () => number, s: number, shift: number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cdf[i] = total += 1 / Math.pow(i + 1 + shift, s);
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

interface Writer {
  rand: () => number;
  /** About `chars` characters of prose: sentences, dialogue, paragraphs. */
  text(chars: number): string;
  name(): string;
}

function writer(seed: number): Writer {
  const rand = rng(seed);
  const chars = Array.from(COMMON);
  const char = zipf(chars.length, rand, 0.6, 0);
  const vocab: string[] = [];
  const seen = new Set<string>();
  while (vocab.length < 20_000) {
    const len = rand() < 0.25 ? 1 : rand() < 0.85 ? 2 : rand() < 0.95 ? 3 : 4;
    let w = '';
    for (let i = 0; i < len; i++) w += chars[char()] as string;
    if (!seen.has(w)) {
      seen.add(w);
      vocab.push(w);
    }
  }
  const word = zipf(vocab.length, rand, 1, 30);
  const names = Array.from({ length: 300 }, () => `${pick(rand, Array.from(SURNAMES))}${pick(rand, Array.from(GIVEN))}${rand() < 0.3 ? pick(rand, Array.from(GIVEN)) : ''}`);
  const nameAt = zipf(names.length, rand, 1.1, 0);
  const sentence = (): string => {
    const n = 3 + Math.floor(rand() * 12);
    let s = '';
    for (let i = 0; i < n; i++) {
      s += rand() < 0.08 ? (names[nameAt()] as string) : (vocab[word()] as string);
      if (i < n - 1 && rand() < 0.12) s += '，';
    }
    return s + (rand() < 0.85 ? '。' : rand() < 0.5 ? '？' : '！');
  };
  return {
    rand,
    name: () => names[nameAt()] as string,
    text: (n) => {
      let t = '';
      while (t.length < n) {
        t += rand() < 0.15 ? `「${sentence()}」` : sentence();
        if (rand() < 0.1) t += '\n\n';
      }
      return t.trim();
    },
  };
}

// ---------------------------------------------------------------- the memory files

interface Fixture {
  file: string;
  rows: number;
  turns: number;
  bytes: number;
}

const ABANDONED = 'x';

/** A memory file of at least `rows` rows, built through archiveEntries as a session would; cached. */
async function memoryFixture(rows: number): Promise<Fixture> {
  const dir = path.join(os.tmpdir(), 'wl-bench-memory');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `m${rows}-${GENERATOR}-v${MEMORY_FORMAT_VERSION}.jsonl`);
  const meta = `${file}.json`;
  try {
    const cached = JSON.parse(fs.readFileSync(meta, 'utf8')) as Fixture;
    if (fs.statSync(file).size === cached.bytes) return cached;
  } catch {
    // not built yet
  }
  fs.rmSync(file, { force: true });
  const started = Date.now();
  const opened = await MemoryStore.open({ file, sessionId: `bench${rows}`, embedder: localEmbedder() });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value.store;
  const w = writer(rows);
  const state = sceneStates(1)[0] as NonNullable<ReturnType<typeof sceneStates>[0]>;
  let pending: ChainEntry[] = [];
  let parent: string | null = null;
  let t = 0;
  const add = (e: NewChainEntry, id: string): void => {
    pending.push({ ...e, id, parentId: parent, ts: '2025-01-01T00:00:00.000Z' } as ChainEntry);
    parent = id;
  };
  const archive = async (): Promise<void> => {
    const r = await archiveEntries({ store, embedder: localEmbedder() }, { entries: pending, view: RAW_VIEW });
    if (!r.ok) throw new Error(r.error.message);
    pending = [];
  };
  while (store.rows().length < rows) {
    t++;
    const variants = w.rand() < 0.1 ? 2 : 1;
    const instruction = `${w.text(20 + Math.floor(w.rand() * 130))}`;
    for (let v = 0; v < variants; v++) {
      const entries = turnEntries({ instruction, chapter: `chapters/${String(1 + Math.floor(t / 10)).padStart(5, '0')}.md`, added: w.text(1200 + Math.floor(w.rand() * 1800)), state }, t);
      const [user, call, result, reply] = entries as [NewChainEntry, NewChainEntry, NewChainEntry, NewChainEntry];
      if (reply.type === 'assistant') reply.text = w.text(10 + Math.floor(w.rand() * 290));
      const mark = v < variants - 1 ? ABANDONED : '';
      if (v === 0) add(user, `u${t}`);
      add(call, `a${t}${mark}v${v}`);
      add(result, `o${t}${mark}v${v}`);
      add(reply, `r${t}${mark}v${v}`);
      if (v < variants - 1) parent = `u${t}`; // the regenerated reply answers the same instruction
    }
    if (t % 30 === 0) await archive();
  }
  if (pending.length > 0) await archive();
  const count = store.rows().length;
  await store.close();
  const fixture: Fixture = { file, rows: count, turns: t, bytes: fs.statSync(file).size };
  fs.writeFileSync(meta, JSON.stringify(fixture));
  console.log(`built ${file}: ${count} rows from ${t} turns, ${(fixture.bytes / 1e6).toFixed(0)} MB, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return fixture;
}

/** The branch: every node except the abandoned variants. */
function branchOf(rows: readonly MemoryRow[]): Set<string> {
  const ids = new Set<string>();
  for (const r of rows) if (!r.nodeId.includes(ABANDONED)) ids.add(r.nodeId);
  return ids;
}

/** The rows as the store held them before there was an index: each with its own decoded vector. */
async function plainRows(file: string): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  const opened = await openForLines(file, DEFAULT_MEMORY_LIMITS.maxFileBytes);
  if (opened.kind !== 'ok') throw new Error(`cannot read ${file}`);
  try {
    const parser = new MemoryParser(DEFAULT_MEMORY_LIMITS, (r) => rows.push({ seq: rows.length, nodeId: r.nodeId, role: r.role, text: r.text, vector: r.vector }));
    await readLines(opened.handle, DEFAULT_MEMORY_LIMITS, (raw) => parser.line(raw));
  } finally {
    await opened.handle.close();
  }
  return rows;
}

interface TurnQuery {
  instruction: string;
  lastReply: string;
  visible: { entryId: string; text: string }[];
}

/** Queries as turns make them: a new instruction (naming someone now and then), the end of the last reply, a visible context. */
function queries(n: number, seed: number): TurnQuery[] {
  const w = writer(seed);
  return Array.from({ length: n }, (_, i) => ({
    instruction: `${i % 3 === 0 ? `写${w.name()}和${w.name()}，` : ''}${w.text(20 + Math.floor(w.rand() * 100))}`,
    lastReply: w.text(100 + Math.floor(w.rand() * 400)),
    visible: Array.from({ length: 12 }, (_, j) => ({ entryId: `visible${j}`, text: w.text(200 + Math.floor(w.rand() * 1200)) })),
  }));
}

async function turnRecall(memory: MemorySource, branchIds: ReadonlySet<string>, q: TurnQuery): Promise<RecallHit[]> {
  const r = await recallForTurn({ memory, embedder: localEmbedder() }, { ...q, branchIds, lang: 'zh' });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.hits;
}

// ---------------------------------------------------------------- child process: open + cold query

interface ChildResult {
  openMs: number;
  rows: number;
  rssMiB: number;
  peakRssMiB: number;
  heapMiB: number;
  externalMiB: number;
  coldMs: number;
  warmMs: number;
}

async function child(file: string): Promise<void> {
  collectGarbage();
  const start = process.hrtime.bigint();
  const opened = await MemoryStore.open({ file, sessionId: 'bench', embedder: localEmbedder(), readOnly: true });
  const openMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value.store;
  collectGarbage();
  const mem = process.memoryUsage();
  const branch = branchOf(store.rows());
  const [first, ...rest] = queries(11, 99);
  const t0 = process.hrtime.bigint();
  await turnRecall(store, branch, first as TurnQuery);
  const coldMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const warm: number[] = [];
  for (const q of rest) {
    const t1 = process.hrtime.bigint();
    await turnRecall(store, branch, q);
    warm.push(Number(process.hrtime.bigint() - t1) / 1e6);
  }
  const result: ChildResult = {
    openMs,
    rows: store.rows().length,
    rssMiB: mem.rss / 1048576,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    heapMiB: mem.heapUsed / 1048576,
    externalMiB: mem.arrayBuffers / 1048576,
    coldMs,
    warmMs: summarize(warm).median,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function inChild(file: string): ChildResult {
  const out = execFileSync(process.execPath, ['--expose-gc', __filename, '--child', file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() as string) as ChildResult;
}

// ---------------------------------------------------------------- main

interface OpenResult {
  rows: number;
  bytes: number;
  open: ChildResult[];
}

interface SizeResult extends OpenResult {
  warm: Sample;
  scan: Sample;
  identical: number;
  compared: number;
}

async function measureSize(size: number): Promise<SizeResult> {
  const fx = await memoryFixture(size);
  const open = Array.from({ length: CHILD_RUNS }, () => inChild(fx.file));
  const opened = await MemoryStore.open({ file: fx.file, sessionId: 'bench', embedder: localEmbedder(), readOnly: true });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value.store;
  const branch = branchOf(store.rows());
  // The baseline: the same rows as the store held them before, scanned one by one (no index).
  const plain = await plainRows(fx.file);
  const docFreq = new DocFreq();
  for (const r of plain) docFreq.add(r.vector);
  const scanned: MemorySource = { rows: () => plain, docFreq };
  const qs = queries(QUERIES, size + 1);
  // The check: the top k through the posting lists is the scan's, row for row and score for score.
  let identical = 0;
  for (const q of qs) {
    const a = await turnRecall(store, branch, q);
    const b = await turnRecall(scanned, branch, q);
    if (a.length === b.length && a.every((h, i) => h.row.seq === b[i]?.row.seq && h.score === b[i]?.score)) identical++;
  }
  let qi = 0;
  const warm = await measure(() => turnRecall(store, branch, qs[qi++ % qs.length] as TurnQuery), { runs: 21, warmup: 3 });
  qi = 0;
  const scan = await measure(() => turnRecall(scanned, branch, qs[qi++ % qs.length] as TurnQuery), { runs: size >= 200_000 ? 7 : 11, warmup: 1 });
  await store.close();
  return { rows: store.rows().length, bytes: fx.bytes, open, warm, scan, identical, compared: qs.length };
}

export async function main(): Promise<void> {
  const started = Date.now();
  const results: SizeResult[] = [];
  for (const size of SIZES) results.push(await measureSize(size));
  const opened: OpenResult[] = [...results];
  for (const size of OPEN_ONLY) {
    const fx = await memoryFixture(size);
    opened.push({ rows: fx.rows, bytes: fx.bytes, open: Array.from({ length: CHILD_RUNS }, () => inChild(fx.file)) });
  }

  console.log('\nRecall before a turn (recallForTurn: embed the query, weigh, score, branch filter, visible context left out, format)');
  table(
    ['rows', 'file', 'posting lists, warm', 'cold (first query, fresh process)', 'full scan (baseline)', 'posting ÷ scan', 'top k identical'],
    results.map((r) => {
      const cold = summarize(r.open.map((o) => o.coldMs));
      return [String(r.rows), `${(r.bytes / 1e6).toFixed(0)} MB`, withSpread(r.warm), withSpread(cold), withSpread(r.scan), ratio(r.warm, r.scan), `${r.identical}/${r.compared}`];
    }),
  );
  for (const r of results) {
    const cold = summarize(r.open.map((o) => o.coldMs));
    console.log(`${r.rows} rows, warm: ${verdict({ label: `≤ ${RECALL_GOAL_MS} ms`, figure: r.warm.median, bound: RECALL_GOAL_MS })}; cold: ${verdict({ label: `≤ ${RECALL_GOAL_MS} ms`, figure: cold.median, bound: RECALL_GOAL_MS })}`);
    console.log(`${r.rows} rows, top k identical to the full scan: ${r.identical === r.compared ? 'met' : `missed: ${r.compared - r.identical} of ${r.compared} queries differ`}`);
  }

  console.log('\nOpening the memory file, each in a fresh process (read-only; streamed in 1 MB chunks)');
  const mibOf = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MiB`;
  table(
    ['rows', 'file', 'open', 'per 1000 rows', 'RSS after', 'peak RSS', 'heap', 'typed arrays', 'first query', 'next queries'],
    opened.map((r) => {
      const s = (f: (o: ChildResult) => number) => summarize(r.open.map(f));
      const open = s((o) => o.openMs);
      return [
        String(r.rows),
        mibOf(r.bytes),
        withSpread(open),
        ms(open.median / (r.rows / 1000)),
        mib(s((o) => o.rssMiB).median),
        mib(s((o) => o.peakRssMiB).median),
        mib(s((o) => o.heapMiB).median),
        mib(s((o) => o.externalMiB).median),
        ms(s((o) => o.coldMs).median),
        ms(s((o) => o.warmMs).median),
      ];
    }),
  );
  for (const r of opened.filter((o) => o.rows >= 200_000)) {
    const opens = r.open.every((o) => o.rows === r.rows);
    console.log(
      `${r.rows} rows (${mibOf(r.bytes)}) opens: ${opens ? 'met' : 'missed: it did not open'} ` +
        `(before: ${r.bytes > 512 * 1048576 ? 'refused, over the 512 MiB limit' : 'opened, just under the 512 MiB limit'}; the limit is now ${mibOf(DEFAULT_MEMORY_LIMITS.maxFileBytes)}, and a file that would not fit in memory is refused with a message)`,
    );
  }
  console.log(`\nTotal bench time ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (require.main === module) {
  const [flag, file] = process.argv.slice(2);
  const run = flag === '--child' && file ? child(file) : main();
  run.catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
