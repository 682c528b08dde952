// Fixtures shaped like what the extension really writes, shared by the benches:
//  - a book of N chapters of about 3,000 CJK characters each (paragraphs, dialogue, a heading);
//  - full scene states grown by the real applyPatch (a rising roster, items with holders), about
//    3 KB of JSON each once the story has run a while;
//  - turns as the TurnRunner records them: the instruction, an assistant message calling a tool
//    (append_file with the new prose, or edit_file), the tool result, the final reply, the
//    checkpoint, the scribe's state; a regeneration now and then (a sibling branch), a summary
//    every 30 turns;
//  - sessions written through the real Session (so the bench measures the format the product
//    writes), cached on disk by size and format version (building 100k entries takes a while).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SESSION_FORMAT_VERSION, type NewChainEntry } from '../../src/session/entries';
import { Session } from '../../src/session/session';
import { applyPatch } from '../../src/state/apply';
import { openingState } from '../../src/state/opening';
import type { SceneState } from '../../src/state/types';

/** Deterministic pseudo-random numbers (mulberry32), so every run measures the same data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

const NAMES = ['青梧', '柳三娘', '沈舟', '顾雪', '宁川', '白露', '秋棠', '江晚', '陆离', '苏荷', '温言', '周渡'];
const SENTENCES = [
  '雨下了一整夜，{a}推开茶馆的门，檐下的灯笼被风吹得来回摇晃。',
  '“你来晚了。”{b}没有抬头，手里的算盘珠子噼啪作响。',
  '{a}把湿透的斗笠挂在门边，掌心里还攥着那只黄铜怀表，表盖上刻着一个模糊的字。',
  '楼上传来木板吱呀的声音，像是有人在黑暗里屏住了呼吸。',
  '远处的钟楼敲了三下，城门早已落锁，今夜谁也出不去。',
  '{b}终于停下手，抬眼看{a}：“那封信，你看过了？”',
  '{a}没有回答，只是把怀表放在柜台上，推到{b}面前。',
  '灯芯爆了一下，火光在墙上投下两道细长的影子，又很快合在一处。',
  '“明日一早，码头会有一条船。”{b}说，“上不上，由你。”',
  '巷口的积水映着残灯，一只野猫踩过去，涟漪一圈一圈散开。',
  '{a}想起三年前那个同样下雨的夜晚，想起那扇始终没有再打开的窗。',
  '茶已经凉了，{b}却像没有察觉，仍旧捧着杯子，指节微微发白。',
];

function sentence(rand: () => number): string {
  const a = pick(rand, NAMES);
  let b = pick(rand, NAMES);
  if (b === a) b = NAMES[(NAMES.indexOf(a) + 1) % NAMES.length] as string;
  return pick(rand, SENTENCES).replaceAll('{a}', a).replaceAll('{b}', b);
}

/** About `chars` characters of prose in paragraphs of two to five sentences. */
export function prose(rand: () => number, chars: number): string {
  const paragraphs: string[] = [];
  let length = 0;
  while (length < chars) {
    let p = '';
    const n = 2 + Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) p += sentence(rand);
    paragraphs.push(p);
    length += p.length + 2;
  }
  return paragraphs.join('\n\n');
}

/** A chapter as the agent writes it: a heading and about `chars` characters (default 3,000). */
export function chapterText(rand: () => number, index: number, chars = 3000): string {
  return `# 第${index}章\n\n${prose(rand, chars)}\n`;
}

export function chapterPath(index: number): string {
  return `chapters/${String(index).padStart(5, '0')}.md`;
}

export const BOOK_CONFIG = `title: 基准测试之书
language: zh
manuscript:
  - "**/*.md"
  - "**/*.txt"
style: |
  第三人称，细腻克制。
opening:
  time: 第一天，傍晚
  location: 听雨轩
  characters: [青梧, 柳三娘]
`;

export interface Book {
  root: string;
  /** The chapters' relative paths, in order. */
  chapters: string[];
}

/** Writes a book folder: worldline.yaml and `chapters` chapters. */
export async function writeBook(options: { chapters: number; seed?: number; chars?: number; root?: string }): Promise<Book> {
  const root = options.root ?? (await fsp.mkdtemp(path.join(os.tmpdir(), `wl-bench-book-${options.chapters}-`)));
  await fsp.mkdir(path.join(root, 'chapters'), { recursive: true });
  await fsp.writeFile(path.join(root, 'worldline.yaml'), BOOK_CONFIG);
  const rand = rng(options.seed ?? 11);
  const chapters: string[] = [];
  const batch: Promise<void>[] = [];
  for (let i = 1; i <= options.chapters; i++) {
    const rel = chapterPath(i);
    chapters.push(rel);
    batch.push(fsp.writeFile(path.join(root, rel), chapterText(rand, i, options.chars)));
    if (batch.length >= 64) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  return { root, chapters };
}

/** The scribe's patch after turn `t` of a long story: people come and go, items change hands. */
function statePatch(rand: () => number, t: number, onStage: string[], lists: { items: string[]; facts: string[]; threads: string[] }): Record<string, unknown> {
  const phases = ['清晨', '午后', '傍晚（雨中）', '深夜'];
  const patch: Record<string, unknown> = { time: `第${Math.ceil(t / 4)}日${phases[t % 4]}` };
  // A novel has a limited cast and map: names come back, so the roster settles (states of about 3 KB).
  const place = `地点${Math.floor(t / 5) % 12}号（${pick(rand, ['雨', '雾', '晴'])}）`;
  if (t % 5 === 0) patch['location'] = place;
  const characters: Record<string, unknown> = {};
  const name = `${pick(rand, NAMES)}${['', '二', '三'][t % 3]}`;
  if (t % 2 === 0 && !onStage.includes(name)) {
    onStage.push(name);
    characters[name] = { affinity: Math.floor(rand() * 10), status: '初次登场，神色警惕', at: place, notes: '与青梧有旧' };
  }
  if (onStage.length > 8) characters[onStage.shift() as string] = null;
  for (const n of onStage.slice(-3)) characters[n] = { affinity: Math.floor(rand() * 40) - 20, status: `第${t}轮：心事重重，却不肯明说`, notes: '记住的要点：怀表、那封信、码头的船' };
  patch['characters'] = characters;
  if (t % 3 === 0) {
    lists.items.push(`物件${t % 20}（${onStage[0] ?? '青梧'}持有）`);
    patch['items'] = lists.items.slice(-10);
  }
  if (t % 4 === 0) {
    lists.threads.push(`伏笔${t % 16}：有人在暗处盯着茶馆`);
    patch['threads'] = lists.threads.slice(-8);
  }
  if (t % 6 === 0) {
    lists.facts.push(`第${t}轮确认的事实：怀表的主人另有其人`);
    patch['facts'] = lists.facts.slice(-12);
  }
  return patch;
}

/** Scene states of a long story, one per turn, each the full state after that turn. */
export function sceneStates(turns: number, seed = 7): SceneState[] {
  const rand = rng(seed);
  let state = openingState({ time: '第一天，傍晚', location: '听雨轩', characters: ['青梧', '柳三娘'] });
  const onStage: string[] = [];
  const lists = { items: [] as string[], facts: [] as string[], threads: [] as string[] };
  const out: SceneState[] = [];
  for (let t = 1; t <= turns; t++) {
    state = applyPatch(state, statePatch(rand, t, onStage, lists), { lang: 'zh' }).state;
    out.push(state);
  }
  return out;
}

export const INSTRUCTIONS = [
  '继续写：青梧在茶馆里与柳三娘对峙，气氛要压抑，不要急着揭开怀表的秘密。',
  '把刚才那一段改得更含蓄一些，多写环境和动作，少写心理独白。',
  '写下一场：天亮之前，有人敲响了后门。',
  '接着写，让沈舟第一次开口，语气冷淡，但透露出他认识那只怀表。',
  '这一章收尾：雨停了，码头的船没有等人。',
];

export interface TurnShape {
  /** The instruction as the novelist typed it. */
  instruction: string;
  /** The chapter the turn writes. */
  chapter: string;
  /** The prose the turn adds (about 1,200 characters). */
  added: string;
  /** The full scene state after the turn. */
  state: SceneState;
}

/** The chain entries one turn writes, in order, as the TurnRunner and the scribe write them. */
export function turnEntries(turn: TurnShape, t: number): NewChainEntry[] {
  const callId = `call_${t.toString(36)}`;
  const edit = t % 4 === 0;
  const args = edit
    ? JSON.stringify({ path: turn.chapter, old_text: turn.added.slice(0, 40), new_text: turn.added.slice(0, 60) })
    : JSON.stringify({ path: turn.chapter, content: `\n\n${turn.added}` });
  const name = edit ? 'edit_file' : 'append_file';
  const usage = { promptTokens: 9000 + (t % 50) * 40, completionTokens: 900, cachedTokens: 8000 };
  return [
    { type: 'user', text: turn.instruction },
    { type: 'assistant', text: '', toolCalls: [{ id: callId, name, arguments: args }], model: 'deepseek-chat', usage, finish: 'stop' },
    { type: 'tool', callId, name, result: edit ? `Edited ${turn.chapter}.` : `Appended ${turn.added.length} characters to ${turn.chapter}.`, isError: false },
    { type: 'assistant', text: '写好了：这一段让两人的对峙更压抑，怀表的秘密仍留着。', model: 'deepseek-chat', usage, finish: 'stop' },
    { type: 'checkpoint', commit: (t * 2654435761 >>> 0).toString(16).padStart(8, '0').repeat(5), ref: `refs/worldline/turns/bench/${t}`, changed: [turn.chapter] },
    { type: 'state', state: turn.state, by: 'scribe', warnings: [] },
  ];
}

export interface SessionFixture {
  file: string;
  /** Entries written (chain entries; the header not counted). */
  entries: number;
  turns: number;
}

/**
 * A session of about `entries` entries, written through the real Session: turns of six entries,
 * a regeneration every 17th turn (the old reply stays a sibling), a summary every 30 turns.
 * Cached under the OS temp folder by size and session format version.
 */
export async function sessionFixture(options: { entries: number; seed?: number; chapters?: number }): Promise<SessionFixture> {
  const seed = options.seed ?? 5;
  const dir = path.join(os.tmpdir(), 'wl-bench-sessions');
  await fsp.mkdir(dir, { recursive: true });
  const file = path.join(dir, `s${options.entries}-seed${seed}-v${SESSION_FORMAT_VERSION}-f3.jsonl`);
  const meta = `${file}.json`;
  try {
    const cached = JSON.parse(await fsp.readFile(meta, 'utf8')) as SessionFixture;
    await fsp.access(file);
    return cached;
  } catch {
    // Not cached yet (or half written): build it.
  }
  await fsp.rm(file, { force: true });
  const session = await Session.create(file, { id: `bench${options.entries}`, title: '基准会话' });
  const rand = rng(seed);
  const chapters = options.chapters ?? 100;
  const turnsWanted = Math.ceil(options.entries / 6);
  const states = sceneStates(turnsWanted, seed);
  let written = 0;
  let turns = 0;
  // The user entry of every turn: a summary covers the turns before the last ten (as compaction keeps recent turns).
  const userIds: string[] = [];
  while (written < options.entries) {
    const t = turns + 1;
    const turn: TurnShape = {
      instruction: pick(rand, INSTRUCTIONS),
      chapter: chapterPath(1 + (Math.floor(t / 10) % chapters)),
      added: prose(rand, 1200),
      state: states[Math.min(t, states.length) - 1] as SceneState,
    };
    const entries = turnEntries(turn, t);
    if (t % 17 === 0) {
      // A regeneration: the first reply stays as a sibling branch; the second continues.
      const userEntry = await session.append(entries[0] as NewChainEntry);
      userIds.push(userEntry.id);
      for (const e of entries.slice(1)) await session.append(e);
      await session.navigate(userEntry.id);
      written += entries.length;
      for (const e of entries.slice(1)) await session.append(e);
      written += entries.length - 1;
    } else {
      const [first, ...rest] = entries;
      userIds.push((await session.append(first as NewChainEntry)).id);
      for (const e of rest) await session.append(e);
      written += entries.length;
    }
    if (t % 30 === 0) {
      await session.append({ type: 'summary', text: prose(rand, 800), coversThroughId: userIds[userIds.length - 11] as string });
      written++;
    }
    turns = t;
    if (t % 50 === 0) await session.flush();
  }
  await session.close();
  const fixture: SessionFixture = { file, entries: written, turns };
  await fsp.writeFile(meta, JSON.stringify(fixture));
  return fixture;
}
