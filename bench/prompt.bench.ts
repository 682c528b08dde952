// Prompt-prefix reuse across turns (`npm run bench prompt`), with the real context transform and
// compaction.
//
// A 110-turn session runs through the real TurnRunner over HTTP against the strict DeepSeek
// emulator (thinking on: reasoning_content replayed), with what the extension wires around it: a
// real Session file, the SessionMemory of the session (recall with the local embedder before each
// turn, the shortened replay of old tool payloads, a summary every 30 turns after the scribe, the
// summariser on a side server), the Story's state budget, full scene states of about 2,000
// characters written after each turn (bench/lib/fixtures.ts `sceneStates`), and turns shaped like
// real ones: about 1,200 characters of prose appended per turn, a read_file step every third turn.
//
// For every agent request we also build, at the same moment and from the same branch, the request
// as each alternative placement sends it (functions composed here, not product settings):
//  - old: today's HEAD: the full state block on the newest instruction only, the recall in front
//    of it too, the payload-shortening boundary moving every 6 turns;
//  - replay: every instruction after the summary replayed with the full state block and the recall
//    it was sent with, the boundary moving with the summaries;
//  - changes, recall before: the product's blocks (the full state on the first instruction after
//    the summary and every FULL_EVERY, the changes since the instruction before on the others),
//    the recall between the newest instruction's block and its text;
//  - changes, recall after (the product; checked equal to what the runner sent): the recall after
//    the newest instruction's text.
// Every series is then sent, in order, to fresh emulators (DeepSeek: 64-token cache units; OpenAI
// gpt-4.1: 1,024 tokens, then 128-token steps), which report the cached tokens as the providers do.
//
// Across-turn reuse, per turn: the first request of a turn against the last request of the turn
// before it — in bytes, the byte-identical common prefix of the serialized bodies as a share of
// the earlier body; in tokens, the cached tokens the emulator reports for the new request as a
// share of the earlier request's prompt tokens (what a cache could have served). The turn right
// after a summary counts too: that is the one prefix change a summary costs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeManuscriptFs } from '../src/agent/fsNode';
import { buildRequest, buildSystemPrompt } from '../src/agent/prompt';
import { TurnRunner } from '../src/agent/turnRunner';
import { localEmbedder } from '../src/memory/embed';
import { FULL_EVERY, instructionsBeforeSummary, SentBlocks, type BlockSettings, type ContextTransform } from '../src/agent/sentBlocks';
import { shortenOldToolPayloads } from '../src/memory/compactContext';
import { SessionMemory } from '../src/memory/sessionMemory';
import { createChatClient } from '../src/model/chatClient';
import { dialectById } from '../src/model/dialects';
import { carryProviderFields } from '../src/model/replay';
import type { WorldlineSettings } from '../src/model/settings';
import { createStreamingClient, type OpenAIMessage, type StreamingClient, type ToolSpec } from '../src/model/streaming';
import type { ContextMessage } from '../src/session/entries';
import { Session } from '../src/session/session';
import { openingState } from '../src/state/opening';
import { stateAt } from '../src/state/stateAt';
import { bySystemPrompt, startModelServer } from '../test/fixtures/modelServer';
import { startStrictProvider, type EmulatorId } from '../test/fixtures/strictProviders';
import { INSTRUCTIONS, prose, rng, sceneStates, writeBook } from './lib/fixtures';
import { percent, summarize, table, verdict, type Sample } from './lib/stats';

const TURNS = 110;
const EVERY = 30;
const KEEP = 6;
const GOAL = 95;
/** src/story/turns.ts STATE_BLOCK_BUDGET: the block as the extension formats it. */
const STATE_BUDGET = 5500;
const OPENING = { time: '第一天，傍晚', location: '听雨轩', characters: ['青梧', '柳三娘'] };
const TITLE = '基准测试之书';
const STYLE = '第三人称，细腻克制。';
const SUMMARY_SECTIONS = ['前情提要', '人物', '承诺与伏笔', '事实账', '当前场景'];

const PLACEMENTS = ['old', 'replay', 'changesBefore', 'changesAfter', 'recallLast'] as const;
type Placement = (typeof PLACEMENTS)[number];
const HEADINGS: Record<Placement, string> = {
  old: 'old (HEAD: block on the newest only, boundary every 6)',
  replay: 'full replay (state + recall on every instruction)',
  changesBefore: 'changes, recall before the text',
  changesAfter: 'changes, recall after the text (product)',
  recallLast: 'what-if: changes, recall as a last user message',
};

/** The branch at the moment of one agent request: what every placement is built from. */
interface Moment {
  view: ReturnType<Session['contextWithSummary']>;
  beforeSummary: number;
  /** The recall each instruction was sent with (the newest's included). */
  recalls: ReadonlyMap<string, string>;
}

interface PlacementDeps {
  system: string;
  transform: ContextTransform;
  blocks: BlockSettings;
  sent: SentBlocks;
}

const withRecall = (block: string, recall: string | undefined): string => (recall ? `${block}\n\n${recall}` : block);
const newestOf = (messages: readonly ContextMessage[]): string => messages.filter((m) => m.role === 'user').at(-1)?.entryId ?? '';

/** The previous placement's boundary: every 6 turns beyond the newest 6. */
function legacyOldTurns(users: number): number {
  return Math.floor(Math.max(0, users - KEEP) / KEEP) * KEEP;
}

/** Each placement as a function of the branch at one moment. */
function placements(d: PlacementDeps): Record<Placement, (m: Moment) => OpenAIMessage[]> {
  const request = (m: Moment, context: readonly ContextMessage[], stateBlock: string, pastBlocks?: ReadonlyMap<string, string>, recall?: string): OpenAIMessage[] =>
    carryProviderFields(buildRequest({ system: d.system, summaryText: m.view.summaryText, context, stateBlock, lang: 'zh', ...(pastBlocks ? { pastBlocks } : {}), ...(recall ? { recall } : {}) }), context);
  const shaped = (m: Moment) => d.transform(m.view.messages, { beforeSummary: m.beforeSummary });
  return {
    old: (m) => {
      const users = m.view.messages.filter((x) => x.role === 'user').length;
      const context = shortenOldToolPayloads(m.view.messages, legacyOldTurns(users), { lang: 'zh' });
      const id = newestOf(context);
      return request(m, context, withRecall(d.sent.fullBlock(id, d.blocks), m.recalls.get(id)));
    },
    replay: (m) => {
      const { messages, oldTurns } = shaped(m);
      const users = messages.filter((x) => x.role === 'user');
      const past = new Map<string, string>();
      for (const u of users.slice(oldTurns, -1)) past.set(u.entryId, withRecall(d.sent.fullBlock(u.entryId, d.blocks), m.recalls.get(u.entryId)));
      const id = newestOf(messages);
      return request(m, messages, withRecall(d.sent.fullBlock(id, d.blocks), m.recalls.get(id)), past);
    },
    changesBefore: (m) => {
      const { messages, oldTurns } = shaped(m);
      const b = d.sent.blocks(messages, oldTurns, d.blocks);
      return request(m, messages, withRecall(b.newest, m.recalls.get(newestOf(messages))), b.past);
    },
    changesAfter: (m) => {
      const { messages, oldTurns } = shaped(m);
      const b = d.sent.blocks(messages, oldTurns, d.blocks);
      return request(m, messages, b.newest, b.past, m.recalls.get(newestOf(messages)));
    },
    // What-if, not shape-safe for a product (a user message after a tool result starts a new user
    // turn: DeepSeek drops the tool loop's reasoning there): the recall always last, so dropping it
    // costs only itself. It moves every step, so each step re-sends it uncached.
    recallLast: (m) => {
      const { messages, oldTurns } = shaped(m);
      const b = d.sent.blocks(messages, oldTurns, d.blocks);
      const out = request(m, messages, b.newest, b.past);
      const recall = m.recalls.get(newestOf(messages));
      if (!recall) return out;
      const last = out[out.length - 1];
      if (last?.role === 'user') return [...out.slice(0, -1), { ...last, content: `${String(last.content)}\n\n${recall}` }];
      return [...out, { role: 'user', content: recall }];
    },
  };
}

interface Captured {
  turn: number;
  series: Record<Placement, OpenAIMessage[]>;
  tools: readonly ToolSpec[];
}

interface Reported {
  body: string;
  prompt: number;
  cached: number;
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function settings(url: string): WorldlineSettings {
  return {
    baseUrl: url, model: 'deepseek-v4-flash', scribeBaseUrl: url, scribeModel: 'side', maxToolSteps: 8, temperature: 1,
    memory: { everyTurns: EVERY, keepTurns: KEEP, recallCount: 6, embeddingModel: '', embeddingBaseUrl: '' },
    endpoints: { main: url, scribe: url, embeddings: url },
    proseFollowsBranch: 'ask',
  };
}

/** Sends each captured request, in order, to a fresh emulator; its usage and the body it got. */
async function replay(id: EmulatorId, series: readonly { messages: OpenAIMessage[]; tools: readonly ToolSpec[] }[]): Promise<Reported[]> {
  const emu = await startStrictProvider(id, { defaultReply: { text: '好。' } });
  try {
    const client = createStreamingClient({ baseURL: emu.url, apiKey: 'sk-bench', model: emu.model, dialect: dialectById(emu.provider), retryBaseDelayMs: 5 });
    const out: Reported[] = [];
    for (const r of series) {
      const result = await client.stream({ messages: r.messages, tools: r.tools, model: emu.model }, () => undefined);
      const body = emu.server.chatRequests().at(-1)?.rawBody ?? '';
      out.push({ body, prompt: result.usage?.promptTokens ?? 0, cached: result.usage?.cachedTokens ?? 0 });
    }
    if (emu.stats.rejections.length > 0) throw new Error(`${id} refused: ${JSON.stringify(emu.stats.rejections[0])}`);
    return out;
  } finally {
    await emu.close();
  }
}

interface Figures {
  bytes: Sample;
  tokens: Sample;
  meanBytes: number;
  meanTokens: number;
  /** Turns whose cached-token reuse fell under half: where the prefix changed. */
  changes: number[];
  promptTokens: number;
  uncachedTokens: number;
}

function figures(reported: readonly Reported[], captured: readonly Captured[]): Figures {
  const bytes: number[] = [];
  const tokens: number[] = [];
  const changes: number[] = [];
  for (let t = 2; t <= TURNS; t++) {
    const next = captured.findIndex((c) => c.turn === t);
    const prev = next - 1;
    const a = reported[prev];
    const b = reported[next];
    if (!a || !b || captured[prev]?.turn !== t - 1) continue;
    const ab = Buffer.from(a.body, 'utf8');
    bytes.push((100 * commonPrefix(ab, Buffer.from(b.body, 'utf8'))) / ab.length);
    tokens.push(Math.min(100, (100 * b.cached) / Math.max(1, a.prompt)));
    if ((tokens.at(-1) as number) < 50) changes.push(t);
  }
  const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  return {
    bytes: summarize(bytes),
    tokens: summarize(tokens),
    meanBytes: mean(bytes),
    meanTokens: mean(tokens),
    changes,
    promptTokens: reported.reduce((s, r) => s + r.prompt, 0),
    uncachedTokens: reported.reduce((s, r) => s + r.prompt - r.cached, 0),
  };
}

/** What the prompt costs in uncached-token units when a cached token costs 1/`discount`. */
const cost = (f: Figures, discount: number): number => f.uncachedTokens + (f.promptTokens - f.uncachedTokens) / discount;
const spread = (s: Sample): string => `${percent(s.median)} (${percent(s.p25)}–${percent(s.p75)})`;
const times = (a: number, b: number): string => `${(a / Math.max(1, b)).toFixed(2)}×`;

export async function main(): Promise<Record<string, Figures>> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wl-prompt-bench-')));
  const root = path.join(base, 'novel');
  fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
  const book = await writeBook({ chapters: 12, root });
  const emu = await startStrictProvider('deepseek');
  const side = await startModelServer();
  const session = await Session.create(path.join(root, '.worldline', 'sessions', 'bench0001.jsonl'), { id: 'bench0001', title: '雨夜' });
  const rand = rng(3);
  const summary = (): string => SUMMARY_SECTIONS.map((h) => `## ${h}\n${prose(rand, 160)}`).join('\n');
  side.route(bySystemPrompt('摘要员'), () => ({ text: summary() }), 'summary');
  const states = sceneStates(TURNS + 1);
  const memory = new SessionMemory({
    root,
    session,
    branchOptions: () => ({ opening: openingState(OPENING), lang: 'zh' }),
    settings: () => settings(emu.url),
    embedder: () => Promise.resolve(localEmbedder()),
    summaryModel: () => Promise.resolve({ client: createChatClient({ baseURL: side.url, apiKey: '', model: 'side', maxRetries: 0 }), model: 'side' }),
    log: { info: () => undefined, warn: (m) => console.warn(`  memory: ${m}`) },
  });
  const system = buildSystemPrompt({ lang: 'zh', title: TITLE, style: STYLE });
  const real = createStreamingClient({ baseURL: emu.url, apiKey: 'sk-bench', model: emu.model, dialect: dialectById('deepseek'), retryBaseDelayMs: 5 });
  const transform = memory.transformContext();
  const compose = placements({ system, transform, blocks: { opening: OPENING, lang: 'zh', budget: STATE_BUDGET }, sent: new SentBlocks(session) });
  const recalls = new Map<string, string>();
  const captured: Captured[] = [];
  let turn = 0;
  const summaries: number[] = [];
  const client: Pick<StreamingClient, 'stream'> = {
    stream: (req, onDelta) => {
      const view = session.contextWithSummary();
      const moment: Moment = { view, beforeSummary: instructionsBeforeSummary(session, view), recalls };
      const series = Object.fromEntries(PLACEMENTS.map((p) => [p, compose[p](moment)])) as Record<Placement, OpenAIMessage[]>;
      // The product's placement, composed here, is what the runner sent: the bench measures the product.
      if (JSON.stringify(series.changesAfter) !== JSON.stringify(req.messages)) throw new Error(`turn ${turn}: the composed placement differs from the runner's request`);
      captured.push({ turn, series, tools: req.tools ?? [] });
      return real.stream(req, onDelta);
    },
  };
  const runner = new TurnRunner({
    session,
    client,
    toolContext: { fs: new NodeManuscriptFs(root), root, globs: ['**/*.md'], getState: () => stateAt(session.path(), OPENING, { lang: 'zh' }).state, lang: 'zh' },
    lang: 'zh',
    style: STYLE,
    title: TITLE,
    maxSteps: 8,
    model: emu.model,
    opening: OPENING,
    stateBudget: STATE_BUDGET,
    extraTools: [memory.searchTool()],
    transformContext: transform,
    hooks: {
      recall: async ({ userEntryId, instruction }) => {
        const text = await memory.recall(userEntryId, instruction);
        if (text) recalls.set(userEntryId, text);
        return text;
      },
      // The scribe's work, as it lands: the full state after the turn.
      scribe: async () => {
        await session.append({ type: 'state', state: states[turn - 1], by: 'scribe', warnings: [] });
      },
      afterScribe: async ({ signal }) => {
        const outcome = await memory.compact({ manual: false, signal });
        if (outcome.kind === 'applied') summaries.push(turn);
        else if (outcome.kind !== 'skipped') throw new Error(`the summary failed: ${JSON.stringify(outcome)}`);
      },
    },
  });
  const agent = emu.server.route(bySystemPrompt('你是作者的合写助手'), undefined, 'agent');
  const started = Date.now();
  try {
    for (turn = 1; turn <= TURNS; turn++) {
      const chapter = book.chapters[Math.floor((turn - 1) / 10) % book.chapters.length] as string;
      if (turn % 3 === 1) agent.enqueue({ text: '我先看一下上一段。', toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: chapter, startLine: 1, endLine: 8 }) }] });
      agent.enqueue(
        { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: chapter, content: `\n\n${prose(rand, 1200)}` }) }] },
        { text: '写好了：这一段让两人的对峙更压抑，怀表的秘密仍留着。' },
      );
      const r = await runner.send(INSTRUCTIONS[turn % INSTRUCTIONS.length] as string);
      if (r.status !== 'done') throw new Error(`turn ${turn} ended ${r.status}: ${r.error ?? ''}`);
      await runner.idle();
    }
  } finally {
    runner.dispose();
    await memory.close();
    await session.close();
    await emu.close();
    await side.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
  const runMs = Date.now() - started;

  const results: Record<string, Figures> = {};
  for (const id of ['deepseek', 'openai-chat'] as const) {
    for (const p of PLACEMENTS) results[`${p} ${id}`] = figures(await replay(id, captured.map((c) => ({ messages: c.series[p], tools: c.tools }))), captured);
  }
  const at = (p: Placement, id: string): Figures => results[`${p} ${id}`] as Figures;

  console.log(`Prompt-prefix reuse across turns: ${TURNS} turns through the real TurnRunner and SessionMemory (recall, shortened replay, summaries after turns ${summaries.join(', ')}), ${captured.length} agent requests (${(runMs / 1000).toFixed(0)} s); a full state block every ${FULL_EVERY} instructions after a summary.`);
  console.log('Per turn: the first request against the last one of the turn before; median (p25–p75) and mean over the turns. Cost: the prompt in uncached-token units, cached tokens at 1/10 or 1/2, as a ratio to the old placement.');
  const rows: string[][] = [];
  for (const id of ['deepseek', 'openai-chat']) {
    const old = at('old', id);
    rows.push([`${id}: reuse, bytes`, ...PLACEMENTS.map((p) => `${spread(at(p, id).bytes)}, mean ${percent(at(p, id).meanBytes)}`)]);
    rows.push([`${id}: reuse, cached tokens`, ...PLACEMENTS.map((p) => `${spread(at(p, id).tokens)}, mean ${percent(at(p, id).meanTokens)}`)]);
    rows.push([`${id}: prompt tokens (all requests)`, ...PLACEMENTS.map((p) => `${at(p, id).promptTokens} (${times(at(p, id).promptTokens, old.promptTokens)})`)]);
    rows.push([`${id}: uncached tokens`, ...PLACEMENTS.map((p) => `${at(p, id).uncachedTokens} (${times(at(p, id).uncachedTokens, old.uncachedTokens)})`)]);
    rows.push([`${id}: cost at a 10× discount`, ...PLACEMENTS.map((p) => times(cost(at(p, id), 10), cost(old, 10)))]);
    rows.push([`${id}: cost at a 2× discount`, ...PLACEMENTS.map((p) => times(cost(at(p, id), 2), cost(old, 2)))]);
  }
  table(['figure', ...PLACEMENTS.map((p) => HEADINGS[p])], rows);
  const sizes = [...recalls.values()].map((r) => r.length);
  console.log(`Recall: ${sizes.length} of ${TURNS} turns had one, median ${summarize(sizes.length > 0 ? sizes : [0]).median} characters.`);
  if (process.env['PROMPT_BENCH_TURNS']) console.log(`per-turn cached-token reuse, product (DeepSeek): ${at('changesAfter', 'deepseek').tokens.values.map((v) => v.toFixed(1)).join(' ')}`);
  for (const p of PLACEMENTS) {
    const f = at(p, 'deepseek');
    console.log(`Turns where the prefix changed (cached-token reuse under 50%, DeepSeek), ${p}: ${f.changes.length} (${f.changes.join(', ')})`);
  }
  const ds = at('changesAfter', 'deepseek');
  const oa = at('changesAfter', 'openai-chat');
  const goal = (label: string, figure: number): string => `  ${label}: ${verdict({ label: `≥ ${GOAL}%`, figure, bound: GOAL, direction: 'atLeast', unit: percent })}`;
  console.log('Goal: prefix reuse ≥ 95% across turns (the product placement; the verdict is on the mean over turns, the median shown too)');
  console.log(goal('median, bytes (DeepSeek body)', ds.bytes.median));
  console.log(goal('median, cached tokens (DeepSeek emulator)', ds.tokens.median));
  console.log(goal('median, cached tokens (OpenAI emulator)', oa.tokens.median));
  console.log(goal('MEAN over turns, cached tokens (DeepSeek emulator)', ds.meanTokens));
  console.log(goal('MEAN over turns, cached tokens (OpenAI emulator)', oa.meanTokens));
  return results;
}
