// Session store benchmark (`npm run bench` runs out/bench/session.bench.js).
//
// 1. Appending one entry to sessions of 1k, 10k and 100k entries: Worldline's one-line append
//    (with and without the turn-end fsync) against a SillyTavern-style save of the same chat
//    (serialize every message, write a temp file, fsync, rename: what `writeFileAtomicSync` does).
// 2. Opening a session (read + parse + validate + index) against a bare JSON.parse of its lines.
// Ratios compare figures measured in this same run. Entries are realistic: 300–800 bytes, mostly
// Chinese prose, a branching tree with regenerations, edits and navigation records.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Entry, NewChainEntry } from '../src/session/entries';
import { Session } from '../src/session/session';

const SIZES = [1_000, 10_000, 100_000];
const SESSION_ID = 'b3ac4e0f5d6a7b8c';

const PROSE = [
  '雨下了一整夜，青梧推开茶馆的门，檐下的灯笼被风吹得来回摇晃。',
  '“你来晚了。”柳三娘没有抬头，手里的算盘珠子噼啪作响。',
  '他把湿透的斗笠挂在门边，掌心里还攥着那只黄铜怀表，表盖上刻着一个模糊的“沈”字。',
  '楼上传来木板吱呀的声音，像是有人在黑暗里屏住了呼吸。',
  '远处的钟楼敲了三下，城门早已落锁，今夜谁也出不去。',
  '她终于停下手，抬眼看他：“那封信，你看过了？”',
  '青梧没有回答，只是把怀表放在柜台上，推到她面前。',
  'The rain did not stop until dawn, and by then the letter had already burned.',
];
const INSTRUCTIONS = [
  '继续写第三章：青梧在茶馆里与柳三娘对峙，气氛要压抑，不要急着揭开怀表的秘密。',
  '把这一段改得更含蓄一些，多写环境和动作，少写心理独白。',
  '写下一场：天亮之前，有人敲响了后门。',
  'Rewrite the opening of chapter 4 in a colder tone; keep 柳三娘 silent.',
];

/** Deterministic pseudo-random numbers, so every run measures the same data. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function prose(rand: () => number, minBytes: number, maxBytes: number): string {
  const target = minBytes + Math.floor(rand() * (maxBytes - minBytes));
  let text = '';
  while (Buffer.byteLength(text) < target) text += PROSE[Math.floor(rand() * PROSE.length)];
  return text;
}

function hexId(rand: () => number): string {
  return Math.floor(rand() * 0xffffffff).toString(16).padStart(8, '0');
}

/** A realistic session: turns of user → assistant(tool call) → tool → assistant → checkpoint → state, some regenerated. */
export function generateEntries(count: number, seed = 42): Entry[] {
  const rand = rng(seed);
  const entries: Entry[] = [];
  const used = new Set<string>();
  let leaf: string | null = null;
  let ms = Date.UTC(2025, 0, 1);
  const add = (fields: NewChainEntry | { type: 'edit'; targetId: string; text: string } | { type: 'leaf'; targetId: string | null }, chain: boolean) => {
    let id = hexId(rand);
    while (used.has(id)) id = hexId(rand);
    used.add(id);
    ms += 1000 + Math.floor(rand() * 30_000);
    const { type, ...rest } = fields;
    const entry = { id, parentId: leaf, type, ts: new Date(ms).toISOString(), ...rest } as Entry;
    entries.push(entry);
    if (chain) leaf = id;
    if (type === 'leaf') leaf = (fields as { targetId: string | null }).targetId;
    return id;
  };
  let turn = 0;
  while (entries.length < count) {
    turn++;
    const userId = add({ type: 'user', text: `${INSTRUCTIONS[turn % INSTRUCTIONS.length]}${prose(rand, 150, 300)}` }, true);
    const callId = `call_${turn}`;
    add({ type: 'assistant', text: prose(rand, 150, 300), model: 'deepseek-chat', finish: 'stop', toolCalls: [{ id: callId, name: 'append_file', arguments: JSON.stringify({ path: `chapters/${String(1 + (turn % 30)).padStart(2, '0')}.md`, text: prose(rand, 100, 200) }) }], usage: { promptTokens: 9000 + turn, completionTokens: 600 } }, true);
    add({ type: 'tool', callId, name: 'append_file', result: `已追加 ${Math.floor(rand() * 900 + 100)} 字到 chapters/${String(1 + (turn % 30)).padStart(2, '0')}.md。${prose(rand, 150, 300)}`, isError: false }, true);
    const replyId = add({ type: 'assistant', text: prose(rand, 400, 800), model: 'deepseek-chat', finish: 'stop', usage: { promptTokens: 9800 + turn, completionTokens: 900 } }, true);
    add({ type: 'checkpoint', commit: hexId(rand) + hexId(rand) + hexId(rand) + hexId(rand) + hexId(rand), ref: `refs/worldline/turns/${turn}`, changed: ['chapters/03.md'] }, true);
    add({ type: 'state', state: { time: '深夜（雨中）', location: '城南茶馆', characters: { 青梧: { affinity: 12, status: '戒备', notes: '带着怀表', at: '城南茶馆' }, 柳三娘: { affinity: -3, status: '沉默', notes: '', at: '城南茶馆' } }, items: ['黄铜怀表（青梧持有）'], facts: ['城门已落锁'], threads: ['那封信的下落'] }, by: 'scribe', warnings: [] }, true);
    if (rand() < 0.15) {
      add({ type: 'leaf', targetId: userId }, false); // regenerate: a sibling reply under the same instruction
    } else if (rand() < 0.05) {
      add({ type: 'edit', targetId: replyId, text: prose(rand, 300, 600) }, false);
    }
  }
  return entries.slice(0, count);
}

export function headerLine(): string {
  return JSON.stringify({ type: 'session', version: 1, id: SESSION_ID, createdAt: '2025-01-01T00:00:00.000Z', title: '雨夜茶馆' });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** SillyTavern's save: the whole chat serialized and written to a temp file, fsynced, renamed over. */
function sillyTavernSave(file: string, chat: unknown[]): void {
  const text = chat.map((m) => JSON.stringify(m)).join('\n');
  const temp = `${file}.tmp`;
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}

function newReply(i: number): NewChainEntry {
  return { type: 'assistant', text: `${PROSE[i % PROSE.length].repeat(8)}`, model: 'deepseek-chat', finish: 'stop' };
}

interface AppendRow {
  entries: number;
  fileMB: number;
  appendMs: number;
  appendFsyncMs: number;
  rewriteMs: number;
}

interface OpenRow {
  entries: number;
  openMs: number;
  bareParseMs: number;
}

async function benchAppend(dir: string, count: number, entries: Entry[]): Promise<AppendRow> {
  const lines = [headerLine(), ...entries.map((e) => JSON.stringify(e))];
  const file = path.join(dir, `${SESSION_ID}.jsonl`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const fileMB = fs.statSync(file).size / 1e6;
  const reps = count >= 100_000 ? 5 : 15;

  const { session } = await Session.open(file);
  const plain: number[] = [];
  const synced: number[] = [];
  for (let i = 0; i < reps; i++) {
    let t = process.hrtime.bigint();
    await session.append(newReply(i));
    plain.push(ms(t));
    t = process.hrtime.bigint();
    await session.append(newReply(i + 1));
    await session.flush();
    synced.push(ms(t));
  }
  await session.close();

  // The same chat, saved SillyTavern's way after each new message.
  const stFile = path.join(dir, 'sillytavern.jsonl');
  const chat: unknown[] = [{ chat_metadata: {}, user_name: 'unused', character_name: 'unused' }, ...entries];
  sillyTavernSave(stFile, chat);
  const rewrite: number[] = [];
  for (let i = 0; i < reps; i++) {
    chat.push({ name: 'Narrator', is_user: false, send_date: new Date().toISOString(), mes: newReply(i).type === 'assistant' ? PROSE[i % PROSE.length].repeat(8) : '' });
    const t = process.hrtime.bigint();
    sillyTavernSave(stFile, chat);
    rewrite.push(ms(t));
  }
  fs.rmSync(stFile, { force: true });
  fs.rmSync(file, { force: true });
  return { entries: count, fileMB, appendMs: median(plain), appendFsyncMs: median(synced), rewriteMs: median(rewrite) };
}

async function benchOpen(dir: string, count: number, entries: Entry[]): Promise<OpenRow> {
  const file = path.join(dir, `${SESSION_ID}.jsonl`);
  fs.writeFileSync(file, `${[headerLine(), ...entries.map((e) => JSON.stringify(e))].join('\n')}\n`);
  const reps = count >= 100_000 ? 3 : 7;
  const open: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < reps; i++) {
    let t = process.hrtime.bigint();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    let parsed = 0;
    for (const line of lines) if (line) parsed += JSON.parse(line) ? 1 : 0;
    bare.push(ms(t));
    if (parsed !== count + 1) throw new Error('bare parse miscounted');

    t = process.hrtime.bigint();
    const { session, report } = await Session.open(file, { readOnly: true });
    open.push(ms(t));
    if (session.entryCount !== count || report.corruptLines.length > 0) throw new Error('open lost entries');
    await session.close();
  }
  fs.rmSync(file, { force: true });
  return { entries: count, openMs: median(open), bareParseMs: median(bare) };
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : ' '.repeat(width - text.length) + text;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const f = (n: number, digits = 2) => n.toFixed(digits);

export async function main(): Promise<{ append: AppendRow[]; open: OpenRow[] }> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-session-bench-'));
  const append: AppendRow[] = [];
  const open: OpenRow[] = [];
  try {
    const all = generateEntries(Math.max(...SIZES));
    const avgBytes = all.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0) / all.length;
    console.log(`Session store benchmark — ${os.cpus().length} CPU, Node ${process.version}, entries average ${Math.round(avgBytes)} bytes`);
    for (const size of SIZES) {
      const entries = all.slice(0, size);
      append.push(await benchAppend(dir, size, entries));
      open.push(await benchOpen(dir, size, entries));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  console.log('\nAppend one entry (median ms) — Worldline one-line append vs SillyTavern-style whole-file rewrite (temp + fsync + rename)');
  console.log(
    table(
      ['entries', 'file MB', 'append', 'append+fsync', 'ST rewrite', 'rewrite ÷ append+fsync', 'rewrite ÷ append'],
      append.map((r) => [String(r.entries), f(r.fileMB, 1), f(r.appendMs, 3), f(r.appendFsyncMs, 3), f(r.rewriteMs, 1), `${f(r.rewriteMs / r.appendFsyncMs, 1)}×`, `${f(r.rewriteMs / r.appendMs, 0)}×`]),
    ),
  );
  console.log('\nOpen a session (median ms) — read + parse + validate + index vs read + bare JSON.parse of each line');
  console.log(
    table(
      ['entries', 'open (parse+index)', 'bare JSON.parse', 'open ÷ bare'],
      open.map((r) => [String(r.entries), f(r.openMs, 1), f(r.bareParseMs, 1), `${f(r.openMs / r.bareParseMs, 2)}×`]),
    ),
  );
  console.log(`\nTotal bench time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { append, open };
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
