// Prompt-prefix stability (`npm run bench prompt`).
//
// A 50-turn scripted session runs through the real TurnRunner against the local OpenAI-compatible
// server over HTTP: a real Session file, real manuscript files, tool calls (read, append), and the
// real scribe changing the ledger every turn, so the state block differs from turn to turn. For
// each consecutive pair of agent requests we measure the byte-identical common prefix of the
// serialized bodies, as a share of the earlier request. Provider prompt caches bill and serve by
// exactly this prefix.
//
// Baseline, measured on the same run: the same requests as a naive tool would send them, with the
// current state block injected into EVERY user message instead of the newest one only.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeManuscriptFs } from '../src/agent/fsNode';
import { createScribeHook } from '../src/agent/scribeHook';
import { TurnRunner } from '../src/agent/turnRunner';
import { createChatClient } from '../src/model/chatClient';
import { createStreamingClient } from '../src/model/streaming';
import { Session } from '../src/session/session';
import { stateAt } from '../src/state/stateAt';
import { bySystemPrompt, startModelServer, type RecordedRequest } from '../test/fixtures/modelServer';

const TURNS = 50;
const GOAL = 0.95;
const OPENING = { time: '第一夜', location: '听雨轩', characters: ['青梧'] };
/** formatState's roster line always ends with this: the block is everything up to it + "\n\n". */
const BLOCK_END = '名录之外的名字才是新登场。\n\n';

const SENTENCES = [
  '雨下了一整夜，青梧推开茶馆的门，檐下的灯笼被风吹得来回摇晃。',
  '“你来晚了。”柳三娘没有抬头，手里的算盘珠子噼啪作响。',
  '他把湿透的斗笠挂在门边，掌心里还攥着那只黄铜怀表。',
  '楼上传来木板吱呀的声音，像是有人在黑暗里屏住了呼吸。',
  '远处的钟楼敲了三下，城门早已落锁，今夜谁也出不去。',
  '她终于停下手，抬眼看他：“那封信，你看过了？”',
];
const INSTRUCTIONS = ['继续写这一场，节奏放慢，多写动作。', '写下一段：有人敲响了后门。', '让柳三娘开口，但不要揭开怀表的秘密。', '把气氛压得更低一些，接着写。'];

function prose(turn: number, sentences: number): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) out.push(SENTENCES[(turn * 7 + i * 3) % SENTENCES.length] as string);
  return out.join('');
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

interface Stats {
  mean: number;
  min: number;
  crossTurnMean: number;
}

function prefixStats(bodies: readonly string[], turnStarts: ReadonlySet<number>): Stats {
  const shares: number[] = [];
  const cross: number[] = [];
  for (let i = 0; i + 1 < bodies.length; i++) {
    const a = Buffer.from(bodies[i] as string, 'utf8');
    const b = Buffer.from(bodies[i + 1] as string, 'utf8');
    const share = commonPrefix(a, b) / a.length;
    shares.push(share);
    if (turnStarts.has(i + 1)) cross.push(share);
  }
  const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  return { mean: mean(shares), min: Math.min(...shares), crossTurnMean: mean(cross) };
}

/** The same request with the current block in front of every user message (the naive way). */
function naive(body: string): string {
  const o = JSON.parse(body) as { messages: { role: string; content: unknown }[] };
  const users = o.messages.filter((m) => m.role === 'user');
  const newest = users[users.length - 1];
  const content = typeof newest?.content === 'string' ? newest.content : '';
  const end = content.indexOf(BLOCK_END);
  if (end < 0) throw new Error('no state block in the newest user message');
  const block = content.slice(0, end + BLOCK_END.length);
  for (const m of users) if (m !== newest && typeof m.content === 'string') m.content = block + m.content;
  return JSON.stringify(o);
}

/** The scribe's patch for turn t: time, a fact, an affinity and sometimes a new face. */
function scribePatch(t: number): string {
  const facts = Array.from({ length: Math.min(t, 12) }, (_, i) => `第${t - i}轮确认的事实`);
  const characters: Record<string, unknown> = { 青梧: { affinity: Math.min(100, t * 2), status: `第${t}轮的处境` } };
  if (t % 5 === 0) characters[`客人${t / 5}`] = { status: '初次登场', at: '听雨轩' };
  return JSON.stringify({ patch: { time: `第${Math.ceil(t / 3)}夜`, facts, characters } });
}

export async function main(): Promise<{ ours: Stats; baseline: Stats; requests: number }> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wl-prompt-bench-')));
  const root = path.join(base, 'novel');
  fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
  fs.mkdirSync(path.join(root, 'chapters'));
  fs.writeFileSync(path.join(root, 'chapters', '01.md'), '# 第一章\n\n');
  const server = await startModelServer();
  const session = await Session.create(path.join(root, '.worldline', 'sessions', 'bench0001.jsonl'), { id: 'bench0001', title: '雨夜' });
  try {
    let turn = 0;
    server.route(bySystemPrompt('你是场记'), () => ({ text: scribePatch(turn) }), 'scribe');
    const agent = server.route(bySystemPrompt('你是作者的合写助手'), undefined, 'agent');
    const runner = new TurnRunner({
      session,
      client: createStreamingClient({ baseURL: server.url, apiKey: 'sk-bench', model: 'test-model', retryBaseDelayMs: 5 }),
      toolContext: {
        fs: new NodeManuscriptFs(root),
        root,
        globs: ['**/*.md'],
        getState: () => stateAt(session.path(), OPENING, { lang: 'zh' }).state,
        lang: 'zh',
      },
      lang: 'zh',
      style: '冷峻，短句，多写动作少写心理。对白用中文引号。',
      title: '雨夜',
      maxSteps: 8,
      model: 'test-model',
      opening: OPENING,
      hooks: {
        scribe: createScribeHook({
          session,
          client: createChatClient({ baseURL: server.url, apiKey: 'sk-bench', model: 'test-model', maxRetries: 0 }),
          model: 'test-model',
          opening: OPENING,
          lang: 'zh',
          hasVariables: false,
        }),
      },
    });

    const turnStarts = new Set<number>();
    for (turn = 1; turn <= TURNS; turn++) {
      const chapter = `chapters/${String(Math.ceil(turn / 10)).padStart(2, '0')}.md`;
      turnStarts.add(server.chatRequests().filter((r) => r.route === 'agent').length);
      if (turn % 3 === 1) {
        agent.enqueue({ text: '我先看一下上一段。', toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'chapters/01.md', startLine: 1, endLine: 6 }) }] });
      }
      agent.enqueue(
        { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: chapter, content: `\n${prose(turn, 4)}\n` }) }] },
        { text: `第${turn}段已写进 ${chapter}。` },
      );
      const r = await runner.send(INSTRUCTIONS[turn % INSTRUCTIONS.length] as string);
      if (r.status !== 'done') throw new Error(`turn ${turn} ended ${r.status}: ${r.error ?? ''}`);
      await r.scribeDone;
    }
    runner.dispose();

    const requests: RecordedRequest[] = server.chatRequests().filter((r) => r.route === 'agent');
    const bodies = requests.map((r) => r.rawBody);
    // Fair comparison: both series go through the same JSON.stringify, which reproduces ours exactly.
    for (const b of bodies) if (JSON.stringify(JSON.parse(b)) !== b) throw new Error('re-serialization differs from the wire body');
    const ours = prefixStats(bodies, turnStarts);
    const baseline = prefixStats(bodies.map(naive), turnStarts);
    const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
    const last = Buffer.byteLength(bodies[bodies.length - 1] ?? '');
    console.log(`Prompt-prefix stability over a ${TURNS}-turn scripted session: ${requests.length} agent requests over real HTTP, last one ${(last / 1024).toFixed(0)} KiB`);
    console.log('share of each request that is a byte-identical prefix of the next one:');
    console.log(`  Worldline (state on the newest instruction only): mean ${pct(ours.mean)}, min ${pct(ours.min)}, across turns ${pct(ours.crossTurnMean)}   goal ≥ ${pct(GOAL)}: ${ours.mean >= GOAL ? 'met' : 'NOT met'}`);
    console.log(`  baseline (state injected into every user message): mean ${pct(baseline.mean)}, min ${pct(baseline.min)}, across turns ${pct(baseline.crossTurnMean)}`);
    console.log(`  ratio of uncached bytes, baseline ÷ Worldline: ${((1 - baseline.mean) / (1 - ours.mean)).toFixed(1)}×   (mean share ${(ours.mean / baseline.mean).toFixed(2)}×)`);
    return { ours, baseline, requests: requests.length };
  } finally {
    await session.close();
    await server.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}
