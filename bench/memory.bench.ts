// Memory bench: recall latency at 1k, 10k and 50k rows of the local embedder (chunk-sized Chinese
// passages), WITH the branch filter against an unfiltered scan of the same rows, measured in the
// same run. The tree is a long story in which every turn was rerolled 0–3 times, so about half the
// rows belong to abandoned variants (off the branch); a second filtered figure has every row on the
// branch (the filter's pure overhead). Also: embedding and store load throughput.
// Run: node -e "require('./out/bench/memory.bench.js').main()"
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DocFreq } from '../src/memory/docFreq';
import { hashEmbed, localEmbedder } from '../src/memory/embed';
import { recall, recallUnfiltered } from '../src/memory/recall';
import { MemoryStore } from '../src/memory/store';
import type { MemoryRow } from '../src/memory/types';
import { isSparse } from '../src/memory/vector';

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

const SURNAMES = '青林沈顾白秋江陆苏温周柳程叶许韩唐孟宋魏楚薛方陈何';
const GIVEN = '梧砚舟雪露棠晚离荷言渡岸远澜知松蕊川禾风怜冷秋四宁';
const SENTENCES = ['雨越下越大，屋檐下的灯笼被风吹得东摇西晃。', '街上已经没有行人了。', '远处传来几声闷雷，天边的云压得很低。', '茶已经凉了，谁也没有再去续水。', '屋里很静，只听得见炭火噼啪作响。', '过了好一会儿，才有人开口说话。', '这件事说来话长，要从三年前那场大火讲起。', '窗纸上映出一个模糊的影子，一闪就不见了。', '他把手里的东西放下，叹了一口气。', '她没有回答，只是低头看着自己的鞋尖。', '渡口的船已经走了。', '铁匣子上的锁生了锈。'];

function name(r: () => number): string {
  return `${SURNAMES[Math.floor(r() * SURNAMES.length)]}${GIVEN[Math.floor(r() * GIVEN.length)]}`;
}

/** About 400 characters naming two or three people, like a chunk of prose. */
function passage(r: () => number): string {
  let t = '';
  while (t.length < 400) t += r() < 0.3 ? `${name(r)}对${name(r)}说：「${SENTENCES[Math.floor(r() * SENTENCES.length)]}」` : (SENTENCES[Math.floor(r() * SENTENCES.length)] as string);
  return t;
}

interface Corpus {
  rows: MemoryRow[];
  /** Node ids on the surviving branch. */
  branch: string[];
  all: string[];
}

/** Rows on a tree: each turn has one surviving reply and 0–3 abandoned ones; rows spread over replies. */
function corpus(n: number, r: () => number): Corpus {
  const rows: MemoryRow[] = [];
  const branch: string[] = [];
  const all: string[] = [];
  let turn = 0;
  while (rows.length < n) {
    const replies = 1 + Math.floor(r() * 4);
    for (let v = 0; v < replies && rows.length < n; v++) {
      const id = `t${turn}v${v}`;
      all.push(id);
      if (v === replies - 1) branch.push(id);
      for (let c = 0; c < 3 && rows.length < n; c++) {
        const text = passage(r);
        rows.push({ seq: rows.length, nodeId: id, role: 'prose', text, vector: hashEmbed(text) });
      }
    }
    turn++;
  }
  return { rows, branch, all };
}

function time(fn: () => void, repeat: number): number {
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number; // median
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

export async function main(): Promise<void> {
  const r = rng(42);
  const t0 = Date.now();
  const full = corpus(50_000, r);
  const embedMs = Date.now() - t0;
  const nnz = full.rows.reduce((s, x) => s + (x.vector && isSparse(x.vector) ? x.vector.idx.length : 0), 0) / full.rows.length;
  console.log(`local embedder: ${full.rows.length} passages of ~400 chars embedded in ${embedMs} ms (${fmt(embedMs / full.rows.length)} ms each, ${nnz.toFixed(0)} non-zeros per vector)`);
  const queries = Array.from({ length: 20 }, () => `写${name(r)}和${name(r)}在渡口重逢，接着上次的情节`).map((q) => hashEmbed(q));

  console.log('\nrows    | on branch | unfiltered scan | filtered (branch) | ratio | filtered (all on branch) | ratio | branch Set from path');
  console.log('--------|-----------|-----------------|-------------------|-------|--------------------------|-------|---------------------');
  for (const n of [1_000, 10_000, 50_000]) {
    const rows = full.rows.slice(0, n);
    const ids = new Set(rows.map((x) => x.nodeId));
    const branchPath = full.branch.filter((id) => ids.has(id));
    const branch = new Set(branchPath);
    const everything = new Set(ids);
    const docFreq = new DocFreq();
    for (const x of rows) docFreq.add(x.vector);
    const onBranch = rows.filter((x) => branch.has(x.nodeId)).length;
    const repeat = n >= 50_000 ? 15 : 40;
    let qi = 0;
    const q = () => queries[qi++ % queries.length] as (typeof queries)[number];
    // Warm up all three paths before measuring.
    for (let i = 0; i < 3; i++) {
      recallUnfiltered(rows, q(), 6, docFreq);
      recall({ rows, query: q(), branchIds: branch, docFreq });
    }
    const unfiltered = time(() => void recallUnfiltered(rows, q(), 6, docFreq), repeat);
    const filtered = time(() => void recall({ rows, query: q(), branchIds: branch, docFreq }), repeat);
    const filteredAll = time(() => void recall({ rows, query: q(), branchIds: everything, docFreq }), repeat);
    const setBuild = time(() => void new Set(branchPath), repeat);
    console.log(
      `${String(n).padEnd(7)} | ${`${Math.round((100 * onBranch) / n)}%`.padEnd(9)} | ${`${fmt(unfiltered)} ms`.padEnd(15)} | ${`${fmt(filtered)} ms`.padEnd(17)} | ${(filtered / unfiltered).toFixed(2).padEnd(5)} | ${`${fmt(filteredAll)} ms`.padEnd(24)} | ${(filteredAll / unfiltered).toFixed(2).padEnd(5)} | ${fmt(setBuild)} ms (${branchPath.length} ids)`,
    );
  }

  // Store throughput: append 10k rows to a real file, then load it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-memory-bench-'));
  try {
    const file = path.join(dir, 'memory', 'bench.jsonl');
    const opened = await MemoryStore.open({ file, sessionId: 'bench', embedder: localEmbedder() });
    if (!opened.ok) throw new Error(opened.error.message);
    const rows = full.rows.slice(0, 10_000);
    const w0 = Date.now();
    await opened.value.store.append(rows.map((x) => ({ nodeId: x.nodeId, role: x.role, text: x.text, vector: x.vector as NonNullable<MemoryRow['vector']> })));
    await opened.value.store.flush();
    const writeMs = Date.now() - w0;
    await opened.value.store.close();
    const size = fs.statSync(file).size;
    const l0 = Date.now();
    const loaded = await MemoryStore.open({ file, sessionId: 'bench', embedder: localEmbedder() });
    const loadMs = Date.now() - l0;
    if (!loaded.ok || loaded.value.store.rows().length !== rows.length) throw new Error('reload lost rows');
    await loaded.value.store.close();
    console.log(`\nstore: 10,000 rows appended (one write each) in ${writeMs} ms; file ${(size / 1e6).toFixed(1)} MB (${(size / rows.length / 1024).toFixed(1)} KB/row); loaded in ${loadMs} ms`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
