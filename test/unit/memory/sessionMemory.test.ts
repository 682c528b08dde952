// SessionMemory, the memory of one open session, end to end in plain Node: a real Session file, a
// real memory store in a temp novel folder, the local embedder, and the summariser over HTTP (the
// local model server with the real chat client). Recall and search stay on the branch and follow
// edits and hides; compaction is manual or due, needs its archive, is leaf-guarded, runs one at a
// time and never writes in a read-only window. The memory filter is Branch.nodeIds, as a property.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { createChatClient } from '../../../src/model/chatClient';
import type { MemorySettings, WorldlineSettings } from '../../../src/model/settings';
import { localEmbedder } from '../../../src/memory/embed';
import { SessionMemory, type SessionMemoryOptions } from '../../../src/memory/sessionMemory';
import { embedderFor, summaryModelFor } from '../../../src/memory/sideModels';
import { memoryFileFor } from '../../../src/memory/store';
import type { MemoryRow } from '../../../src/memory/types';
import { isChainEntry, type ChainEntry, type NewChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { formatState } from '../../../src/state/format';
import { Branch, branchOf, type BranchOptions } from '../../../src/story/branch';
import { instructionsBeforeSummary } from '../../../src/agent/sentBlocks';
import { bySystemPrompt, startModelServer, type ModelServer, type RouteHandle } from '../../fixtures/modelServer';
import { runs } from '../long-mode';
import { cleanup, tempDir } from './helpers';

const SUMMARY = '## 前情提要\n青梧收留了林砚。\n## 人物\n青梧：客栈掌柜。\n## 承诺与伏笔\n林砚答应天亮前离开。\n## 事实账\n银镯在青梧手里。\n## 当前场景\n客栈大堂，雨夜。';
const FILLER = '夜色沉沉，檐下的灯笼晃个不停，远处偶尔传来更夫的梆子声。';

function sceneAt(time: string) {
  return openingState({ time, location: '客栈' });
}

const OPTIONS: BranchOptions = { opening: sceneAt('开场'), lang: 'zh' };

function settingsWith(url: string, memory: Partial<MemorySettings> = {}): WorldlineSettings {
  return {
    baseUrl: url, model: 'test-model', scribeBaseUrl: url, scribeModel: 'test-scribe', maxToolSteps: 12, temperature: 0.8,
    memory: { everyTurns: 30, keepTurns: 1, recallCount: 6, embeddingModel: '', embeddingBaseUrl: '', ...memory },
    endpoints: { main: url, scribe: url, embeddings: url },
    proseFollowsBranch: 'ask',
  };
}

interface Novel {
  root: string;
  session: Session;
  memory: SessionMemory;
  settings: WorldlineSettings;
  logged: string[];
}

const opened: { close(): Promise<void> }[] = [];

describe('memory/SessionMemory', function () {
  this.timeout(20000);
  let server: ModelServer;
  let route: RouteHandle;
  before(async () => {
    server = await startModelServer({ embeddingDims: 16 });
  });
  after(async () => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    route = server.route(bySystemPrompt('摘要员'), { text: SUMMARY }, 'summary');
  });
  afterEach(async () => {
    route.remove(); // nothing a test queued is left for the next
    for (const x of opened.splice(0).reverse()) await x.close();
    await cleanup();
  });

  function memoryOf(root: string, session: Session, settings: WorldlineSettings, logged: string[], extra: Partial<SessionMemoryOptions> = {}): SessionMemory {
    const memory = new SessionMemory({
      root,
      session,
      branchOptions: () => OPTIONS,
      settings: () => settings,
      embedder: () => Promise.resolve(localEmbedder()),
      summaryModel: () => Promise.resolve({ client: createChatClient({ baseURL: server.url, apiKey: '', model: 'test-scribe', maxRetries: 0 }), model: 'test-scribe' }),
      log: { info: (m) => void logged.push(m), warn: (m) => void logged.push(`warn: ${m}`) },
      ...extra,
    });
    opened.push(memory);
    return memory;
  }

  async function novel(memory: Partial<MemorySettings> = {}, extra: Partial<SessionMemoryOptions> = {}): Promise<Novel> {
    const root = tempDir('wl-session-memory-');
    fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
    const session = await Session.create(path.join(root, '.worldline', 'sessions', 's1.jsonl'), { id: 's1', title: '雨夜' });
    opened.push(session);
    const settings = settingsWith(server.url, memory);
    const logged: string[] = [];
    return { root, session, memory: memoryOf(root, session, settings, logged, extra), settings, logged };
  }

  /** One agent turn: the instruction, a reply that appends `prose`, the tool's result, the scribe's state at `time`. */
  async function turn(s: Session, instruction: string, prose: string, opts: { reply?: string; time?: string } = {}): Promise<{ user: ChainEntry; reply: ChainEntry }> {
    const user = await s.append({ type: 'user', text: instruction });
    const callId = `call_${s.entryCount}`;
    const reply: NewChainEntry = {
      type: 'assistant', text: opts.reply ?? '写好了。', model: 'test-model', finish: 'stop',
      toolCalls: [{ id: callId, name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: prose }) }],
    };
    const a = await s.append(reply);
    await s.append({ type: 'tool', callId, name: 'append_file', result: `Appended ${prose.length} characters.`, isError: false });
    await s.append({ type: 'state', state: sceneAt(opts.time ?? instruction), by: 'scribe', warnings: [] });
    return { user, reply: a };
  }

  function summaries(s: Session): ChainEntry[] {
    return s.entries().filter((e): e is ChainEntry => isChainEntry(e) && e.type === 'summary');
  }

  function summaryRequests(): number {
    return server.chatRequests().filter((r) => r.route === 'summary').length;
  }

  /** Three turns on the branch, the first telling where the bracelet went; compacted, then the question. */
  async function branchTelling(n: Novel, where: string, reply?: string): Promise<ChainEntry> {
    await turn(n.session, '写青梧收好银镯', reply ? FILLER.repeat(12) : `青梧把银镯藏进了${where}。${FILLER.repeat(12)}`, reply ? { reply } : {});
    await turn(n.session, '写林砚睡下', FILLER.repeat(12));
    await turn(n.session, '写天亮', FILLER.repeat(12));
    const c = await n.memory.compact({ manual: true });
    assert.equal(c.kind, 'applied', JSON.stringify(c));
    return n.session.append({ type: 'user', text: '银镯藏在哪里了？' });
  }

  it('recall returns only rows of the branch, before and after switching branches', async () => {
    const n = await novel();
    const askA = await branchTelling(n, '后院的井里');
    const onA = await n.memory.recall(askA.id, '银镯藏在哪里了？');
    assert.ok(onA?.startsWith('【相关回忆】') && onA.includes('井里'), onA);

    await n.session.navigate(null); // a second branch from the very start
    const askB = await branchTelling(n, '屋顶的瓦缝里');
    const onB = await n.memory.recall(askB.id, '银镯藏在哪里了？');
    assert.ok(onB?.includes('瓦缝'), onB);
    assert.ok(!onB?.includes('井里'), 'the other branch is never recalled');

    await n.session.navigate(askA.id);
    const back = await n.memory.recall(askA.id, '银镯藏在哪里了？');
    assert.ok(back?.includes('井里') && !back.includes('瓦缝'), back);
    assert.deepEqual(n.memory.branchIds(askA.id), new Branch(n.session, askA.id, OPTIONS).nodeIds);
  });

  it('edited and hidden messages are recalled in their current words only', async () => {
    const n = await novel();
    const ask = await branchTelling(n, '', '我让青梧把银镯藏进了井里。');
    const reply = n.session.path(ask.id).find((e) => e.type === 'assistant' && e.text.includes('井里'));
    assert.ok(reply);
    assert.ok((await n.memory.recall(ask.id, '银镯藏进了哪里？'))?.includes('藏进了井里'));

    await n.session.appendSide({ type: 'edit', targetId: reply.id, text: '我让青梧把银镯藏进了灶台。' });
    const edited = await n.memory.recall(ask.id, '银镯藏进了哪里？');
    assert.ok(edited?.includes('藏进了灶台'), `the new words are archived and found: ${edited}`);
    assert.ok(!edited?.includes('井里'), 'the old words never come back');

    await n.session.appendSide({ type: 'hide', targetId: reply.id, hidden: true });
    const hidden = await n.memory.recall(ask.id, '银镯藏进了哪里？');
    assert.ok(!(hidden ?? '').includes('灶台') && !(hidden ?? '').includes('井里'), `a hidden message is not recalled: ${hidden}`);
  });

  it('memory_search searches the branch current when it runs', async () => {
    const n = await novel();
    const askA = await branchTelling(n, '后院的井里');
    const tool = n.memory.searchTool();
    assert.equal(tool.spec.function.name, 'memory_search');
    const args = JSON.stringify({ query: '银镯藏在哪里' });
    assert.ok((await tool.run(args)).result.includes('井里'));
    await n.session.navigate(null);
    await branchTelling(n, '屋顶的瓦缝里');
    const onB = await tool.run(args);
    assert.ok(onB.result.includes('瓦缝') && !onB.result.includes('井里'), onB.result);
    await n.session.navigate(askA.id);
    assert.ok(!(await tool.run(args)).result.includes('瓦缝'));
  });

  it('compact: not due after the scribe, applied at Compact Now, applied when due; the ledger is the state where the summary ends', async () => {
    const n = await novel({ everyTurns: 30, keepTurns: 1 });
    await turn(n.session, '第一轮', FILLER.repeat(80), { time: 'time-1' });
    await turn(n.session, '第二轮', FILLER.repeat(80), { time: 'time-2' });
    const notDue = await n.memory.compact({ manual: false });
    assert.ok(notDue.kind === 'skipped' && notDue.reason === 'tooFewTurns' && notDue.text.includes('还差 29 轮'), JSON.stringify(notDue));
    assert.equal(summaryRequests(), 0, 'no model call when nothing is due');
    assert.equal(summaries(n.session).length, 0);

    const manual = await n.memory.compact({ manual: true });
    assert.equal(manual.kind, 'applied', JSON.stringify(manual));
    const first = server.chatRequests().at(-1);
    const ledger1 = formatState(sceneAt('time-1'), { lang: 'zh' });
    assert.ok(String(first?.messages?.[1]?.content).includes(ledger1), 'the ledger is the state at coversThroughId');
    assert.ok(!String(first?.messages?.[1]?.content).includes('time-2'), 'not the state at the leaf');
    assert.equal(first?.model, 'test-scribe');

    n.settings.memory.everyTurns = 1; // read afresh at each compaction
    await turn(n.session, '第三轮', FILLER.repeat(80), { time: 'time-3' });
    await turn(n.session, '第四轮', FILLER.repeat(80), { time: 'time-4' });
    const due = await n.memory.compact({ manual: false });
    assert.equal(due.kind, 'applied', JSON.stringify(due));
    const second = String(server.chatRequests().at(-1)?.messages?.[1]?.content);
    assert.ok(second.includes('time-3') && !second.includes('time-4'), 'the ledger at the new cover');
    assert.equal(summaries(n.session).length, 2);
    assert.equal(n.session.leafId, summaries(n.session)[1]?.id, 'the summary is the leaf, on this branch');
    assert.ok(n.logged.includes('summary: applied'));
  });

  it('without a store there is no summary: noMemory, nothing appended, no model call; recall and search go without', async () => {
    const n = await novel();
    fs.mkdirSync(memoryFileFor(n.root, 's1'), { recursive: true }); // a folder where the file should be
    for (let t = 1; t <= 3; t++) await turn(n.session, `第${t}轮`, FILLER.repeat(20));
    const count = n.session.entryCount;
    const out = await n.memory.compact({ manual: true });
    assert.equal(out.kind, 'noMemory');
    assert.ok(out.kind === 'noMemory' && out.reason.includes('not a regular file'), JSON.stringify(out));
    assert.equal(n.session.entryCount, count);
    assert.equal(summaryRequests(), 0);
    assert.ok(n.logged.some((l) => l.startsWith('warn: memory:') && l.includes('not a regular file')), n.logged.join('\n'));
    assert.equal(await n.memory.recall(n.session.path()[0]!.id, '第一轮'), undefined);
    const search = await n.memory.searchTool().run(JSON.stringify({ query: '第一轮' }));
    assert.deepEqual(search, { result: '记忆暂时不可用，请不依赖检索继续。', isError: true });
  });

  it('a stale summary (the leaf moved during the call) appends nothing', async () => {
    const n = await novel();
    const { user } = await turn(n.session, '第一轮', FILLER.repeat(20));
    for (let t = 2; t <= 3; t++) await turn(n.session, `第${t}轮`, FILLER.repeat(20));
    const count = n.session.entries().filter(isChainEntry).length;
    route.enqueue(async () => {
      await n.session.navigate(user.id); // the novelist goes back while the summary is written
      return { text: SUMMARY };
    });
    const out = await n.memory.compact({ manual: true });
    assert.deepEqual(out, { kind: 'stale', when: 'afterSummary' });
    assert.equal(n.session.entries().filter(isChainEntry).length, count, 'no entry was added');
    assert.equal(summaries(n.session).length, 0);
    assert.equal(n.session.leafId, user.id);
  });

  it('compactions asked for together run one after the other, each planning afresh', async () => {
    const n = await novel();
    for (let t = 1; t <= 3; t++) await turn(n.session, `第${t}轮`, FILLER.repeat(20));
    route.enqueue({ text: SUMMARY, delayMs: 150 });
    const finished: string[] = [];
    const all = await Promise.all([1, 2, 3].map(async (i) => {
      const out = await n.memory.compact({ manual: true });
      finished.push(`${i}:${out.kind}`);
      return out;
    }));
    assert.deepEqual(all.map((o) => o.kind), ['applied', 'skipped', 'skipped'], 'the later ones see the first summary');
    assert.deepEqual(finished, ['1:applied', '2:skipped', '3:skipped']);
    assert.equal(summaryRequests(), 1);
    assert.equal(summaries(n.session).length, 1);
  });

  it('a failed compaction still lets the next one wait its turn', async () => {
    const n = await novel();
    for (let t = 1; t <= 3; t++) await turn(n.session, `第${t}轮`, FILLER.repeat(20));
    route.enqueue({ status: 500, errorBody: { error: { message: 'down' } }, delayMs: 200 }, { text: SUMMARY, delayMs: 50 });
    const outcomes = await Promise.all([1, 2, 3].map(() => n.memory.compact({ manual: true })));
    assert.deepEqual(outcomes.map((o) => o.kind), ['failed', 'applied', 'skipped']);
    const calls = server.chatRequests().filter((r) => r.route === 'summary');
    assert.equal(calls.length, 2, 'the third waited for the second, and found its summary');
    assert.ok(calls[1]!.receivedAt - calls[0]!.receivedAt >= 190, 'the second call began after the first had ended');
    assert.equal(summaries(n.session).length, 1);
  });

  it('a read-only session compacts nothing and writes nothing', async () => {
    const n = await novel();
    for (let t = 1; t <= 3; t++) await turn(n.session, `第${t}轮`, FILLER.repeat(20));
    await n.memory.compact({ manual: true });
    const reply = n.session.path().find((e) => e.type === 'assistant');
    assert.ok(reply);
    await n.session.appendSide({ type: 'edit', targetId: reply.id, text: '改过的回复。' });
    await turn(n.session, '第四轮', FILLER.repeat(20));
    await n.memory.close();
    await n.session.close();
    const file = n.session.file;
    const memoryFile = memoryFileFor(n.root, 's1');
    const before = { session: fs.readFileSync(file), memory: fs.readFileSync(memoryFile) };
    const requests = summaryRequests();

    const { session } = await Session.open(file, { readOnly: true });
    opened.push(session);
    const memory = memoryOf(n.root, session, n.settings, []);
    assert.deepEqual(await memory.compact({ manual: true }), { kind: 'readOnly' });
    const last = session.path().filter((e) => e.type === 'user').at(-1);
    assert.ok(last);
    await memory.recall(last.id, '改过的回复'); // the edit is not archived again: the file is another window's
    await memory.close();
    assert.equal(summaryRequests(), requests);
    assert.deepEqual(fs.readFileSync(file), before.session);
    assert.deepEqual(fs.readFileSync(memoryFile), before.memory);
  });

  it('recallCount 0 turns recall off; transformContext: the turns before the summary are old, the rest as sent', async () => {
    const n = await novel({ recallCount: 0 });
    const ask = await branchTelling(n, '后院的井里');
    assert.equal(await n.memory.recall(ask.id, '银镯藏在哪里了？'), undefined);
    const view = n.session.contextWithSummary();
    const before = instructionsBeforeSummary(n.session, view);
    assert.equal(before, 1, 'the kept turn was written before the summary');
    const shaped = n.memory.transformContext()(view.messages, { beforeSummary: before });
    assert.equal(shaped.oldTurns, 1);
    const args = shaped.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.arguments));
    assert.equal(args.length, 1);
    assert.ok((JSON.parse(args[0] as string) as { content: string }).content.includes('全文'), 'the kept turn\'s prose is one line now');
    // Without a summary nothing is old until everyTurns turns pile up beyond the kept ones.
    const whole = n.memory.transformContext()(n.session.context(), { beforeSummary: 0 });
    assert.equal(whole.oldTurns, 0);
    assert.deepEqual(whole.messages, n.session.context());
  });

  it('when the store cannot be opened (no summary will come), old payloads are shortened every keepTurns turns', async () => {
    const n = await novel({ keepTurns: 2 }, { embedder: () => Promise.reject(new Error('no embedder')) });
    for (const t of ['一', '二', '三', '四', '五']) await turn(n.session, `写第${t}段`, FILLER.repeat(12));
    const before = n.memory.transformContext()(n.session.context(), { beforeSummary: 0 });
    assert.equal(before.oldTurns, 0, 'not known yet: the large step applies');
    assert.equal(await n.memory.recall(n.session.path().find((e) => e.type === 'user')?.id ?? '', '写'), undefined);
    const after = n.memory.transformContext()(n.session.context(), { beforeSummary: 0 });
    assert.equal(after.oldTurns, 2, '5 turns, 2 kept: one step of 2');
    assert.ok(n.logged.some((l) => l.includes('no embedder')));
  });

  it('embedderFor: the local embedder without an embedding model, the endpoint\'s with one; summaryModelFor: the scribe\'s', async () => {
    const settings = settingsWith(server.url);
    assert.equal(embedderFor(settings, { embeddings: '' }).id, localEmbedder().id);
    const remote = embedderFor(settingsWith(server.url, { embeddingModel: 'text-embed' }), { embeddings: '' });
    const v = await remote.embed(['雨夜']);
    assert.ok(v.ok && v.value.length === 1, JSON.stringify(v));
    assert.ok(server.requests.some((r) => r.path.endsWith('/embeddings') && r.model === 'text-embed'));
    assert.equal(summaryModelFor(settings, { scribe: '' }).model, 'test-scribe');
  });
});

// ---------------------------------------------------------------------------------------------

type Op =
  | { kind: 'turn'; scribe: boolean }
  | { kind: 'navigate'; pick: number }
  | { kind: 'edit'; pick: number }
  | { kind: 'hide'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('turn' as const), scribe: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('navigate' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hide' as const), pick: fc.nat() }) },
);

let made = 0;

function pick<T>(list: readonly T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

describe('memory/SessionMemory filter properties', function () {
  this.timeout(120000);
  afterEach(async () => {
    for (const x of opened.splice(0).reverse()) await x.close();
    await cleanup();
  });

  it('for every leaf of a random tree, the memory filter keeps exactly the current rows of Branch.nodeIds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 25 }), async (ops) => {
        const root = tempDir('wl-memory-prop-');
        const id = `p${++made}`;
        const session = await Session.create(path.join(root, `${id}.jsonl`), { id, title: 'p' });
        try {
          await checkTree(session, ops);
        } finally {
          await session.close();
        }
      }),
      { numRuns: runs(50, 500) },
    );
  });
});

async function checkTree(session: Session, ops: readonly Op[]): Promise<void> {
  const root = path.dirname(session.file);
  const memory = new SessionMemory({
    root, session, branchOptions: () => OPTIONS,
    settings: () => settingsWith('http://127.0.0.1:9/v1'),
    embedder: () => Promise.reject(new Error('the filters need no store')),
    summaryModel: () => Promise.reject(new Error('no summaries here')),
    log: { info: () => undefined, warn: () => undefined },
  });
  const original = new Map<string, string>();
  for (const o of ops) {
    const chain = session.entries().filter(isChainEntry);
    const messages = chain.filter((e) => e.type === 'user' || e.type === 'assistant');
    if (o.kind === 'turn') {
      const u = await session.append({ type: 'user', text: `instruction ${++made}` });
      original.set(u.id, `instruction ${made}`);
      const a = await session.append({ type: 'assistant', text: `reply ${++made}`, model: 'm', finish: 'stop' });
      original.set(a.id, `reply ${made}`);
      if (o.scribe) await session.append({ type: 'state', state: sceneAt(`t${made}`), by: 'scribe', warnings: [] });
    } else if (o.kind === 'navigate') {
      await session.navigate(pick([null, ...chain.map((e) => e.id)], o.pick) ?? null);
    } else if (o.kind === 'edit') {
      const target = pick(messages, o.pick);
      if (target) await session.appendSide({ type: 'edit', targetId: target.id, text: `edited ${++made}` });
    } else {
      const target = pick(messages, o.pick);
      if (target) await session.appendSide({ type: 'hide', targetId: target.id, hidden: !session.isHidden(target.id) });
    }
  }
  const chain = session.entries().filter(isChainEntry);
  for (const leaf of [null, ...chain.map((e) => e.id)]) {
    const nodeIds = branchOf(session, OPTIONS, leaf).nodeIds;
    assert.deepEqual(memory.branchIds(leaf), nodeIds);
    const keep = memory.memoryFilter(leaf);
    for (const e of chain.filter((x) => x.type === 'user' || x.type === 'assistant')) {
      const row = (text: string, role: MemoryRow['role']): MemoryRow => ({ seq: 0, nodeId: e.id, role, text, vector: undefined });
      const shown = nodeIds.has(e.id) && !session.isHidden(e.id);
      assert.equal(keep(row(session.textOf(e.id), e.type)), shown, 'a row in the current words: kept iff on the branch and shown');
      assert.equal(keep(row(original.get(e.id) ?? '', 'prose')), shown, 'prose rows do not change with an edit');
      const old = original.get(e.id) ?? '';
      if (!session.textOf(e.id).includes(old)) assert.equal(keep(row(old, e.type)), false, 'the words before an edit are never kept');
    }
  }
  assert.deepEqual(memory.branchIds(), new Branch(session, session.leafId, OPTIONS).nodeIds, 'the default is the leaf');
}
