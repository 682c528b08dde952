// The status bar's word count and the views' refresh work per turn, each against the way it was
// done before, measured in the same run on the same data.
//
// 1. The word count after a turn, on books of 5,000 and 20,000 chapters of about 3,000 CJK
//    characters. Before: every file walked, read and counted again (`countManuscript`). After: the
//    kept counter (src/project/wordCount.ts) reads the one chapter the turn changed. Goal ≤ 5 ms.
//    The kept counter's first walk (at open, in the background) is shown beside it.
// 2. The view refresh work of a turn on sessions of 10k and 100k entries (full states, tool calls, summaries):
//    the six entries of a turn are appended one by one and the views do what the shell makes them
//    do. Before (the counts come from the old wiring, src/views/registerViews.ts and
//    src/story/turns.ts): the Chat rebuilt its model and serialized the whole render 10 times a
//    turn, the Scene State view 8 times, the worldline tree and graph 6 times each. After: the
//    Chat sends one update per burst, counted here as one per appended entry (the worst case: a
//    slow model spreads the entries out), each the keyed diff (src/protocol/chatMirror.ts) of a
//    model kept between refreshes (ChatModelCache); the Scene State view and the worldline tree
//    and graph refresh once, after the turn, the tree and graph sharing one computed view. What is timed is the host's
//    share (build the model, diff, serialize as postMessage does); the page's DOM work is not
//    timed here and is given as the message nodes rebuilt. Goal: the views add ≤ 10 ms to a turn
//    (a tenth of the 100 ms turn budget).
//
// `WL_BENCH_QUICK=1` runs small sizes only (a smoke run).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Text } from '../src/common/text';
import { dialectFor } from '../src/model/dialects';
import { pricingOf } from '../src/model/usage';
import { compileManuscript } from '../src/project/manuscript';
import { ManuscriptChanges } from '../src/project/manuscriptChanges';
import { WordCounter, countManuscript } from '../src/project/wordCount';
import type { ChatModel, ToChatPage } from '../src/protocol/chat';
import { ChatMirror } from '../src/protocol/chatMirror';
import { ChatModelCache, chatModel, chatStream, type ChatInputs, type ChatStory } from '../src/protocol/chatModel';
import { Session } from '../src/session/session';
import type { NewChainEntry } from '../src/session/entries';
import { openingState } from '../src/state/opening';
import { sceneStateView } from '../src/state/viewModel';
import { branchOf, type BranchOptions } from '../src/story/branch';
import { emptySidecar } from '../src/worldline/sidecar-data';
import { buildWorldlineView } from '../src/worldline/view';
import { INSTRUCTIONS, chapterPath, pick, prose, rng, sceneStates, sessionFixture, turnEntries, writeBook } from './lib/fixtures';
import { measure, ratio, summarize, table, verdict, withSpread } from './lib/stats';

const QUICK = process.env['WL_BENCH_QUICK'] === '1';
const WORD_GOAL_MS = 5;
const VIEW_GOAL_MS = 10;

export async function main(): Promise<void> {
  await wordCount();
  await viewRefresh();
}

// ---------------------------------------------------------------------------------------------
// 1. The word count.

export async function wordCount(): Promise<void> {
  console.log('\nThe status bar\'s word count after a turn (one chapter changed), against counting the whole book again');
  const rows: string[][] = [];
  for (const chapters of QUICK ? [300] : [5_000, 20_000]) {
    const book = await writeBook({ chapters });
    try {
      const matcher = compileManuscript(['**/*.md', '**/*.txt']).matcher;
      const source = { root: book.root, matcher };
      const full = await measure(() => countManuscript(source), { runs: chapters >= 20_000 ? 3 : 5 });
      const feed = new ManuscriptChanges();
      const counter = new WordCounter({ source: () => source, changed: () => undefined, warn: (m) => { throw new Error(m); }, feed });
      const open = await measure(() => counter.count(), { runs: 1, warmup: 0 });
      const rand = rng(3);
      let change: { path: string; before: string; after: string } | undefined;
      const kept = await measure(() => counter.turnEnded(change ? [change] : []), {
        runs: 21,
        before: async () => {
          // The agent appends about 1,200 characters to a chapter (not timed): the turn's own change.
          const rel = pick(rand, book.chapters);
          const file = path.join(book.root, rel);
          const before = await fsp.readFile(file, 'utf8');
          const after = `${before}\n\n${prose(rand, 1200)}`;
          await fsp.writeFile(file, after);
          change = { path: rel, before, after };
        },
      });
      const exact = counter.words === (await countManuscript(source));
      counter.dispose();
      rows.push([
        chapters.toLocaleString('en'), withSpread(full), withSpread(open), withSpread(kept), ratio(kept, full), exact ? 'yes' : 'NO',
        verdict({ label: `≤ ${WORD_GOAL_MS} ms`, figure: kept.median, bound: WORD_GOAL_MS }),
      ]);
    } finally {
      await fsp.rm(book.root, { recursive: true, force: true });
    }
  }
  table(['chapters', 'before: full recount per turn', 'after: first walk at open (background)', 'after: per turn', 'ratio', 'equal to a recount', 'goal'], rows);
}

// ---------------------------------------------------------------------------------------------
// 2. The view refresh work of a turn.

/** How many times each view refreshed per turn in the old wiring, and per appended entry now. */
const BEFORE = { chat: 10, state: 8, worldlineViews: 12 };

const say = (t: Text): string => t.message.replace(/\{(\d+)\}/g, (_, i: string) => String(t.args?.[Number(i)] ?? ''));

export async function viewRefresh(): Promise<void> {
  console.log('\nThe views\' refresh work per turn (host side: build, diff, serialize), against the old full refreshes');
  const rows: string[][] = [];
  for (const entries of QUICK ? [1_000] : [10_000, 100_000]) {
    const fixture = await sessionFixture({ entries });
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'wl-bench-views-'));
    const file = path.join(dir, 's.jsonl');
    await fsp.copyFile(fixture.file, file);
    const { session } = await Session.open(file);
    try {
      const options: BranchOptions = { opening: openingState({ time: '第一天，傍晚', location: '听雨轩', characters: ['青梧', '柳三娘'] }), lang: 'zh' };
      let busy = false;
      const story: ChatStory = {
        get busy() { return busy; },
        get phase() { return busy ? 'writing' : 'idle'; },
        canRetry: false,
        stream: undefined,
        branch: () => branchOf(session, options),
      };
      const pricing = pricingOf(dialectFor('https://api.deepseek.com'));
      const inputs = (): ChatInputs => ({ story, session, novelTitle: '基准测试之书', model: 'deepseek-chat', pricing });
      const buildChat = (): ChatModel => chatModel(inputs(), say);
      const cache = new ChatModelCache();
      const buildKept = (): ChatModel => chatModel(inputs(), say, cache);
      const stateRender = (): string => {
        const at = branchOf(session, options).state;
        return JSON.stringify({ type: 'render', model: { ...sceneStateView(at), scribe: { running: false }, readOnly: false, hasSession: true } });
      };
      const worldlineRender = (): string => JSON.stringify({ type: 'render', view: buildWorldlineView(session, emptySidecar(), session.leafId) });

      const rand = rng(9);
      const states = sceneStates(fixture.turns + 40);
      let turn = fixture.turns;
      const nextTurn = (): NewChainEntry[] => {
        turn += 1;
        return turnEntries({ instruction: pick(rand, INSTRUCTIONS), chapter: chapterPath(1 + (turn % 100)), added: prose(rand, 1200), state: states[turn - 1]! }, turn);
      };

      // Before: every refresh rebuilt the whole model and serialized the whole render.
      const beforeCost: number[] = [];
      const beforeBytes: number[] = [];
      const beforeNodes: number[] = [];
      // After: one keyed update per appended entry for the Chat; the others once, after the turn.
      const afterCost: number[] = [];
      const afterBytes: number[] = [];
      const afterNodes: number[] = [];
      /** The after figure by part: the Chat, the Scene State, the worldline view (ms per turn). */
      const parts = { chat: [] as number[], state: [] as number[], worldline: [] as number[] };
      const mirror = new ChatMirror();
      mirror.update(buildKept());
      const turns = QUICK ? 3 : 10;
      for (let t = 0; t < turns * 2; t++) {
        const old = t % 2 === 0;
        const turnEntriesNow = nextTurn();
        // Old wiring: chat refreshes spread over the six appends (2,2,2,2,1,1), state 8 and
        // worldline views 12 likewise (two per append).
        const chatPer = [2, 2, 2, 2, 1, 1];
        let cost = 0;
        let bytes = 0;
        let nodes = 0;
        busy = true;
        for (let i = 0; i < turnEntriesNow.length; i++) {
          await session.append(turnEntriesNow[i]!);
          if (i === turnEntriesNow.length - 1) busy = false; // the scribe's state comes after the model part
          const start = performance.now();
          if (old) {
            for (let k = 0; k < chatPer[i]!; k++) {
              const model = buildChat();
              const stream = model.busy ? chatStream(story) : undefined;
              const text = JSON.stringify(stream ? { type: 'render', model, stream } : { type: 'render', model });
              bytes += text.length;
              nodes += model.messages.length;
            }
            for (let k = 0; k < (i < 2 ? 2 : 1); k++) bytes += stateRender().length;
            for (let k = 0; k < 2; k++) bytes += worldlineRender().length;
          } else {
            const model = buildKept();
            const update = mirror.update(model, model.busy ? chatStream(story) : undefined);
            if (update) {
              bytes += JSON.stringify(update).length;
              nodes += changedNodes(update);
            }
            const chatDone = performance.now();
            if (i === 0) parts.chat.push(0);
            parts.chat[parts.chat.length - 1]! += chatDone - start;
            if (i === turnEntriesNow.length - 1) {
              bytes += stateRender().length;
              const stateDone = performance.now();
              parts.state.push(stateDone - chatDone);
              // One view for the tree and the graph (src/protocol/perChange.ts): the graph posts it, the tree compares it.
              const view = buildWorldlineView(session, emptySidecar(), session.leafId);
              bytes += JSON.stringify({ type: 'render', view }).length;
              JSON.stringify(view);
              parts.worldline.push(performance.now() - stateDone);
            }
          }
          cost += performance.now() - start;
        }
        (old ? beforeCost : afterCost).push(cost);
        (old ? beforeBytes : afterBytes).push(bytes);
        (old ? beforeNodes : afterNodes).push(nodes);
      }
      const before = summarize(beforeCost);
      const after = summarize(afterCost);
      const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;
      rows.push([
        entries.toLocaleString('en'), `${branchOf(session, options).transcript.length} messages`,
        withSpread(before), withSpread(after), ratio(after, before),
        `${kib(summarize(beforeBytes).median)} → ${kib(summarize(afterBytes).median)}`,
        `${summarize(beforeNodes).median} → ${summarize(afterNodes).median}`,
        verdict({ label: `≤ ${VIEW_GOAL_MS} ms`, figure: after.median, bound: VIEW_GOAL_MS }),
      ]);
      const part = (xs: number[]): string => withSpread(summarize(xs));
      console.log(`  after, by part at ${entries.toLocaleString('en')} entries: the Chat (branch, kept model, diff, serialize, six times) ${part(parts.chat)}; the Scene State ${part(parts.state)}; the worldline view ${part(parts.worldline)}`);
      // Where the time goes: the Chat model built whole, and kept (nothing changed since the last one).
      const whole = await measure(() => buildChat(), { runs: 9 });
      const kept = await measure(() => buildKept(), { runs: 9 });
      console.log(`  the Chat model at ${entries.toLocaleString('en')} entries, the branch already made: whole ${withSpread(whole)}; kept ${withSpread(kept)}`);
    } finally {
      await session.close();
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }
  table(['entries', 'branch', 'before: per turn', 'after: per turn', 'ratio', 'posted per turn', 'message nodes rebuilt per turn', 'goal'], rows);
  console.log(`  (before: the Chat ${BEFORE.chat}×, Scene State ${BEFORE.state}×, worldline tree+graph ${BEFORE.worldlineViews}× a turn; after: the Chat once per appended entry, the others once a turn)`);
}

/** Message nodes the page rebuilds for this update. */
function changedNodes(update: ToChatPage): number {
  if (update.type === 'render') return update.model.messages.length;
  if (update.type === 'patch') return (update.replace?.length ?? 0) + (update.splice?.append.length ?? 0);
  return 0;
}


