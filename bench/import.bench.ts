// SillyTavern chat import bench (issue 16; `npm run bench import`; alone:
// node -e "require('./out/bench/import.bench.js').main()").
// An 18 MB chat shaped like real ones (the sample in ../shared/data/sillytavern/chats/: its header
// with an extension's table sheets; long replies in Chinese and English; swipes with swipe_info;
// `extra` with api, model, token counts and reasoning; the user's short lines) plus two branch
// files, prefix copies of it as SillyTavern writes them, each going on differently. The size is
// #5265's: a 2,457-message chat of 18.7 MB, 79% of it swipes, swipe_info and extra.
// Timed, interleaved run by run on the same texts:
//  - baseline: a bare JSON.parse of every line of every file (what any reader must do);
//  - import: readChatFile for each file + joinChats + the session's lines (importChats, every
//    entry serialised). Goal: ≤ 3× the baseline.
// Both for the 18 MB chat alone (the issue's figure) and for it with its two branch files.
// Also where the import's time goes (read, join, lines), and the session's size.
import { readChatFile } from '../src/import/chat/read';
import { joinChats } from '../src/import/chat/join';
import { importChats } from '../src/import/chat/sessionLines';
import type { ChatFile } from '../src/import/chat/types';
import { pick, prose, rng } from './lib/fixtures';
import { type Sample, collectGarbage, ratio, summarize, table, verdict, withSpread } from './lib/stats';

const QUICK = process.env['WL_BENCH_QUICK'] === '1';
const TARGET_BYTES = (QUICK ? 3 : 18) * 1024 * 1024;
const RUNS = QUICK ? 3 : 7;
const GOAL_RATIO = 3;

const EN = [
  '*She tilts her head, the soft glow of the glade catching in her hair.*',
  '"You should rest. The forest is not kind to travelers who wander at night."',
  '*The wind stirs the leaves above, and somewhere far off an owl calls twice.*',
  '"I found you near the old shrine. The beasts were already circling."',
  '*Her amber eyes search yours, filled with a quiet, careful concern.*',
  '"Eldoria remembers everyone who passes through it. Even you."',
];
const USER_LINES = ['你是谁', '请说中文', '我想去看看那座神殿。', 'Tell me about the shrine.', '她为什么会在这里？', '我伸手接过那杯茶。', 'What happened to the village?'];

function english(rand: () => number, chars: number): string {
  let out = '';
  while (out.length < chars) out += `${pick(rand, EN)} `;
  return out.trim();
}

/** A reply: mostly Chinese prose with English narration mixed in, 500–2,000 characters. */
function reply(rand: () => number): string {
  const chars = 500 + Math.floor(rand() * 1500);
  return rand() < 0.7 ? `${prose(rand, chars * 0.8)}\n\n${english(rand, chars * 0.2)}` : english(rand, chars);
}

function reasoning(rand: () => number): string {
  return `用户想知道${pick(rand, ['神殿', '村庄', '她的过去', '森林'])}的事。我应该保持角色，语气温和。${prose(rand, 300 + Math.floor(rand() * 900))}`;
}

function date(t: number): string {
  const d = new Date(t);
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const h = d.getUTCHours();
  return `${months[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${h % 12 || 12}:${String(d.getUTCMinutes()).padStart(2, '0')}${h < 12 ? 'am' : 'pm'}`;
}

/** A header like the sample's: names, create_date and chat_metadata with an extension's sheets. */
function header(mainChat?: string): Record<string, unknown> {
  const cells = Array.from({ length: 40 }, (_, i) => ({
    uid: `cell_undefined_${i.toString(36).padStart(16, 'x')}`,
    type: i < 5 ? 'column_header' : 'cell',
    status: '',
    coordUid: `coo_${i.toString(36).padStart(15, 'q')}`,
    data: { value: i < 5 ? ['日期', '时间', '地点（当前描写）', '此地角色', '备注'][i] : `艾尔多利亚/塞拉菲娜的林地 ${i}` },
    targetUid: '',
  }));
  return {
    user_name: 'le',
    character_name: 'Seraphina',
    create_date: '2025-04-29@14h37m57s',
    chat_metadata: {
      integrity: '676fd8bf-d96e-408e-9879-ebac6323444f',
      chat_id_hash: 130419263489072,
      note_prompt: '',
      note_interval: 1,
      note_position: 1,
      note_depth: 4,
      note_role: 0,
      timedWorldInfo: { sticky: {}, cooldown: {} },
      tainted: true,
      variables: { affection: '12', chapter: '3' },
      sheets: [{ uid: 'sheet_tNgNM2gt', name: '时空表格', domain: 'chat', type: 'dynamic', enable: true, cellHistory: cells }],
      ...(mainChat !== undefined ? { main_chat: mainChat } : {}),
    },
  };
}

function userMessage(rand: () => number, t: number): Record<string, unknown> {
  return {
    name: 'le',
    is_user: true,
    is_system: false,
    send_date: date(t),
    mes: pick(rand, USER_LINES),
    extra: { isSmallSys: false, reasoning: '' },
    force_avatar: 'User Avatars/user-default.png',
  };
}

function charMessage(rand: () => number, t: number, id: number): Record<string, unknown> {
  const n = rand() < 0.35 ? 2 + Math.floor(rand() * 3) : 1;
  const swipes: string[] = [];
  const info: Record<string, unknown>[] = [];
  for (let s = 0; s < n; s++) {
    swipes.push(reply(rand));
    const started = new Date(t + s * 60_000).toISOString();
    info.push({
      send_date: date(t + s * 60_000),
      gen_started: started,
      gen_finished: new Date(t + s * 60_000 + 8000).toISOString(),
      extra: { api: 'custom', model: 'deepseek-reasoner', reasoning: reasoning(rand), reasoning_duration: 4321, token_count: 900 + s, time_to_first_token: 1576 },
    });
  }
  const chosen = Math.floor(rand() * n);
  return {
    extra: { ...(info[chosen]?.['extra'] as Record<string, unknown>) },
    name: 'Seraphina',
    is_user: false,
    send_date: info[chosen]?.['send_date'],
    mes: swipes[chosen],
    title: '',
    gen_started: info[chosen]?.['gen_started'],
    gen_finished: info[chosen]?.['gen_finished'],
    swipe_id: chosen,
    swipes,
    swipe_info: info,
    tableEditMatches: [`<tableEdit>\n<!--\ninsertRow(0, {"0":"第${id}日","1":"夜"})\n-->\n</tableEdit>`],
  };
}

interface Fixture {
  files: { name: string; text: string }[];
  mainBytes: number;
  totalBytes: number;
  messages: number;
}

export function fixture(): Fixture {
  const rand = rng(16);
  const messages: Record<string, unknown>[] = [];
  let bytes = 0;
  let t = Date.UTC(2025, 3, 29, 14, 37);
  messages.push(charMessage(rand, t, 0));
  while (bytes < TARGET_BYTES) {
    t += 90_000;
    const m = messages.length % 2 === 1 ? userMessage(rand, t) : charMessage(rand, t, messages.length);
    messages.push(m);
    bytes += Buffer.byteLength(JSON.stringify(m)) + 1;
  }
  const text = (head: Record<string, unknown>, list: Record<string, unknown>[]): string => [head, ...list].map((x) => JSON.stringify(x)).join('\n');
  const main = 'Seraphina - 2025-04-29@14h37m57s';
  // A branch at 10 % and one at 25 % of the chat, each going on for a few turns of its own.
  const branch = (at: number, n: number): Record<string, unknown>[] => {
    const own = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? userMessage(rand, t + i) : charMessage(rand, t + i, n)));
    return [...messages.slice(0, Math.floor(messages.length * at)), ...own];
  };
  const files = [
    { name: main, text: text(header(), messages) },
    { name: `${main} - Branch #1`, text: text(header(main), branch(0.1, 1)) },
    { name: `${main} - Branch #2`, text: text(header(main), branch(0.25, 2)) },
  ];
  const size = (s: string): number => Buffer.byteLength(s);
  return { files, mainBytes: size(files[0]!.text), totalBytes: files.reduce((n, f) => n + size(f.text), 0), messages: messages.length };
}

function bareParse(files: readonly { text: string }[]): number {
  let n = 0;
  for (const f of files) {
    for (const line of f.text.split('\n')) {
      if (line.trim() === '') continue;
      JSON.parse(line);
      n++;
    }
  }
  return n;
}

function importAll(files: readonly { name: string; text: string }[]): number {
  const read = files.map((f) => readChatFile({ name: f.name, text: f.text }));
  const result = importChats(read, { newId: '0123456789abcdef', now: Date.UTC(2026, 0, 1), authorsNote: 'state' });
  if (!result.ok) throw new Error(result.error.message);
  let n = 0;
  for (const _ of result.lines) n++; // made here, as the writer takes them
  return n;
}

function time(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Baseline and import, interleaved run by run, so the machine's noise falls on both alike. */
function compare(files: readonly { name: string; text: string }[]): { bare: Sample; whole: Sample } {
  for (let i = 0; i < 3; i++) {
    bareParse(files); // warm up: the first runs compile the code
    importAll(files);
  }
  const bare: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    collectGarbage();
    bare.push(time(() => bareParse(files)));
    collectGarbage();
    whole.push(time(() => importAll(files)));
  }
  return { bare: summarize(bare), whole: summarize(whole) };
}

export async function main(): Promise<void> {
  const fx = fixture();
  const mb = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MB`;
  console.log(`chat: ${fx.messages} messages, ${mb(fx.mainBytes)}; with two branch files ${mb(fx.totalBytes)} in ${fx.files.length} files`);
  const alone = compare(fx.files.slice(0, 1));
  const family = compare(fx.files);

  // Where the import of the chat and its branches goes: each step alone.
  const reads: number[] = [];
  const joins: number[] = [];
  const lines: number[] = [];
  let read: ChatFile[] = [];
  let entries = 0;
  let sessionBytes = 0;
  for (let i = 0; i < RUNS; i++) {
    collectGarbage();
    reads.push(time(() => (read = fx.files.map((f) => readChatFile({ name: f.name, text: f.text })))));
    collectGarbage();
    joins.push(time(() => joinChats(read)));
    collectGarbage();
    lines.push(
      time(() => {
        const r = importChats(read, { newId: '0123456789abcdef', now: Date.UTC(2026, 0, 1), authorsNote: 'state' });
        if (r.ok) {
          let n = 0;
          for (const _ of r.lines) n++;
          entries = n - 1;
        }
      }),
    );
  }
  const made = importChats(read, { newId: '0123456789abcdef', now: Date.UTC(2026, 0, 1), authorsNote: 'state' });
  if (made.ok) for (const l of made.lines) sessionBytes += Buffer.byteLength(l) + 1;

  table(
    ['step', 'time', 'ratio'],
    [
      [`the ${mb(fx.mainBytes)} chat: JSON.parse of every line (baseline)`, withSpread(alone.bare), '1×'],
      [`the ${mb(fx.mainBytes)} chat: import (read + join + session lines)`, withSpread(alone.whole), ratio(alone.whole, alone.bare)],
      [`with its branches, ${mb(fx.totalBytes)}: JSON.parse (baseline)`, withSpread(family.bare), '1×'],
      [`with its branches: import`, withSpread(family.whole), ratio(family.whole, family.bare)],
      ['  read (readChatFile, 3 files)', withSpread(summarize(reads)), ratio(summarize(reads), family.bare)],
      ['  join (joinChats)', withSpread(summarize(joins)), ratio(summarize(joins), family.bare)],
      ['  join + session lines (importChats)', withSpread(summarize(lines)), ratio(summarize(lines), family.bare)],
    ],
  );
  console.log(`session: ${entries} entries, ${mb(sessionBytes)}`);
  const goal = (label: string, s: { bare: Sample; whole: Sample }): string =>
    `${label}: ${verdict({ label: `≤ ${GOAL_RATIO}× a bare JSON.parse of its lines`, figure: s.whole.median / s.bare.median, bound: GOAL_RATIO, unit: (n) => `${n.toFixed(2)}×` })}`;
  console.log(goal(`import of the ${mb(fx.mainBytes)} chat`, alone));
  console.log(goal('import of the chat with its two branch files', family));
}
