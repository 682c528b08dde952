// Summaries: the prompt, cleaning the reply, and runSummary end to end — a real Session, a real
// memory store and the local model server over HTTP — including merging, the leaf guard, the
// archive-before-summary order and every failure.
import { strict as assert } from 'node:assert';
import { createChatClient } from '../../../src/model/chatClient';
import type { Session } from '../../../src/session/session';
import { archiveEntries } from '../../../src/memory/archive';
import { localEmbedder } from '../../../src/memory/embed';
import { planCompaction } from '../../../src/memory/plan';
import { branchIdsOf, recall } from '../../../src/memory/recall';
import type { MemoryStore } from '../../../src/memory/store';
import { cleanSummary } from '../../../src/memory/summaryOutput';
import { SUMMARY_SECTIONS, buildSummaryPrompt, renderTranscript } from '../../../src/memory/summaryPrompt';
import { runSummary, type SummaryDeps, type SummaryOutcome } from '../../../src/memory/summaryRun';
import { sessionTextView, type SourceText } from '../../../src/memory/types';
import { hashEmbed } from '../../../src/memory/embed';
import { bySystemPrompt, startModelServer, type ModelServer, type RouteHandle } from '../../fixtures/modelServer';
import { assistant, newSession, openStore, cleanup, tempDir, turn } from './helpers';

const SUMMARY_ZH = '## 前情提要\n第一日傍晚，青梧收留了林砚。\n## 人物\n青梧：客栈掌柜。\n## 承诺与伏笔\n林砚答应天亮前离开。\n## 事实账\n银镯在青梧手里。\n## 当前场景\n客栈大堂，雨夜。';

const SOURCES: SourceText[] = [
  { nodeId: 'u1', role: 'user', text: '写林砚进门避雨' },
  { nodeId: 'a1', role: 'assistant', text: '写好了。' },
  { nodeId: 'a1', role: 'prose', text: '雨越下越大，林砚推门进来。' },
  { nodeId: 'u2', role: 'user', text: '写青梧给他倒茶' },
];

describe('memory/summary prompt', () => {
  it('zh: five fixed sections, merge rule, previous summary, ledger, labelled transcript', () => {
    const p = buildSummaryPrompt({ lang: 'zh', sources: SOURCES, previousSummary: '旧的摘要。', ledger: '{"time":"傍晚"}' });
    for (const title of SUMMARY_SECTIONS.zh) assert.ok(p.system.includes(`## ${title}`), title);
    for (const must of ['合并成一份', '故事内的时间', '怎么称呼别人', '宁多勿漏', '第几天', '只写最新的场景', '以对话为准', '不续写']) assert.ok(p.system.includes(must), must);
    assert.ok(p.user.startsWith('【此前的摘要】\n旧的摘要。\n\n【当前账本】\n{"time":"傍晚"}\n\n【对话】\n作者：写林砚进门避雨\n助手：写好了。\n正文：雨越下越大，林砚推门进来。\n\n作者：写青梧给他倒茶'));
    const first = buildSummaryPrompt({ lang: 'zh', sources: SOURCES });
    assert.ok(first.user.startsWith('【对话】'), 'no previous summary, no ledger: no empty sections');
  });

  it('en: the same sections and labels in English', () => {
    const p = buildSummaryPrompt({ lang: 'en', sources: SOURCES, previousSummary: 'Old.' });
    for (const title of SUMMARY_SECTIONS.en) assert.ok(p.system.includes(`## ${title}`), title);
    assert.ok(p.system.startsWith("You are the story's summariser."));
    assert.ok(p.user.includes('[Previous summary]\nOld.'));
    assert.ok(p.user.includes('Novelist: 写林砚进门避雨'));
    assert.ok(p.user.includes('Prose: 雨越下越大'));
  });

  it('a long stretch is cut per message, head and tail kept, to a bounded size', () => {
    const long: SourceText[] = Array.from({ length: 40 }, (_, i) => ({ nodeId: `a${i}`, role: 'prose', text: `开头${i}${'中'.repeat(5000)}结尾${i}` }));
    const t = renderTranscript(long, 'zh', 20_000);
    assert.ok(t.length < 25_000, `${t.length}`);
    assert.ok(t.includes('开头0') && t.includes('结尾39'));
  });

  it('the reply is cleaned of reasoning and a fence; missing sections are named', () => {
    const c = cleanSummary(`<think>让我想想</think>\n\`\`\`markdown\n${SUMMARY_ZH}\n\`\`\``, 'zh');
    assert.equal(c.text, SUMMARY_ZH);
    assert.deepEqual(c.missingSections, []);
    assert.deepEqual(cleanSummary('## 前情提要\n…\n【人物】\n…', 'zh').missingSections, ['承诺与伏笔', '事实账', '当前场景']);
    assert.deepEqual(cleanSummary('## Recap\n## characters\n**Promises and foreshadowing**\nFact ledger:\n### Current scene', 'en').missingSections, []);
  });
});

describe('memory/runSummary', () => {
  let server: ModelServer;
  let route: RouteHandle;
  before(async () => {
    server = await startModelServer();
    route = server.route(bySystemPrompt('摘要员'), undefined, 'summary');
  });
  after(async () => server.close());
  afterEach(async () => {
    await cleanup();
    route.setDefault(undefined);
  });

  const client = (): ReturnType<typeof createChatClient> => createChatClient({ baseURL: server.url, apiKey: '', model: 'test-scribe', maxRetries: 0 });

  async function story(turns: number): Promise<{ s: Session; store: MemoryStore }> {
    const dir = tempDir();
    const s = await newSession(dir);
    for (let t = 1; t <= turns; t++) await turn(s, `第${t}轮：写人物${t}号登场`, `第${t}轮正文。人物${t}号推门进来，雨还在下，灯笼晃个不停。${'夜色沉沉。'.repeat(80)}`);
    return { s, store: await openStore(dir) };
  }

  function deps(s: Session, store: MemoryStore, extra: Partial<SummaryDeps> = {}): SummaryDeps {
    const view = sessionTextView(s);
    return {
      client: client(),
      getLeafId: () => s.leafId,
      isAncestorOrSelf: (a, b) => s.isAncestorOrSelf(a, b),
      archive: (entries) => archiveEntries({ store, embedder: localEmbedder() }, { entries, view }),
      // As the extension wires it: the leaf guard runs inside the session's write queue.
      appendSummary: (e, guard) => s.append({ type: 'summary', ...e }, { guard }),
      ...extra,
    };
  }

  async function compact(s: Session, store: MemoryStore, extra: Partial<SummaryDeps> = {}, keepLast = 6): Promise<SummaryOutcome> {
    const view = sessionTextView(s);
    const plan = planCompaction({ path: s.path(), keepLast, manual: true, view });
    return runSummary(deps(s, store, extra), { plan, view, lang: 'zh' });
  }

  it('applied: rows archived first, then the summary; the context restarts after coversThroughId', async () => {
    const { s, store } = await story(8);
    route.setDefault({ text: SUMMARY_ZH });
    let rowsAtAppend = -1;
    const out = await compact(s, store, {
      appendSummary: async (e) => {
        rowsAtAppend = store.rows().length;
        return s.append({ type: 'summary', ...e });
      },
    });
    assert.equal(out.kind, 'applied', JSON.stringify(out));
    if (out.kind !== 'applied') return;
    assert.ok(rowsAtAppend > 0, 'the archive was written before the summary entry');
    assert.deepEqual(out.warnings, []);
    const summary = s.lastOnPath('summary');
    assert.equal(summary?.text, SUMMARY_ZH);
    assert.equal(summary?.coversThroughId, out.coversThroughId);
    const view = s.contextWithSummary();
    assert.equal(view.summaryText, SUMMARY_ZH);
    assert.equal(view.messages[0]?.text, '第3轮：写人物3号登场');
    const covered = new Set(s.path().slice(0, s.path().findIndex((e) => e.id === out.coversThroughId) + 1).map((e) => e.id));
    assert.ok(store.rows().length > 0 && store.rows().every((r) => covered.has(r.nodeId)), 'only covered entries are archived');
    assert.ok(store.rows().some((r) => r.role === 'prose' && r.text.includes('人物2号推门进来')));
    const req = server.chatRequests().at(-1);
    assert.equal(req?.maxTokens, 4096);
    await store.close();
  });

  it('merges: the second summary is asked to merge the first, and sees only the new turns', async () => {
    const { s, store } = await story(8);
    route.setDefault({ text: SUMMARY_ZH });
    assert.equal((await compact(s, store)).kind, 'applied');
    for (let t = 9; t <= 10; t++) await turn(s, `第${t}轮：写人物${t}号登场`, `第${t}轮正文，人物${t}号说了一句话。${'风声。'.repeat(100)}`);
    route.setDefault({ text: SUMMARY_ZH.replace('第一日', '第二日') });
    const second = await compact(s, store);
    assert.equal(second.kind, 'applied');
    const user = String(server.chatRequests().at(-1)?.messages?.[1]?.content);
    assert.ok(user.startsWith(`【此前的摘要】\n${SUMMARY_ZH}`));
    assert.ok(user.includes('第3轮：写人物3号登场') && user.includes('第4轮'));
    assert.ok(!user.includes('第2轮：写人物2号登场'), 'turns inside the previous summary are not sent again');
    assert.ok(!user.includes('第5轮：写人物5号登场'), 'kept turns are not summarised');
    assert.match(s.contextWithSummary().summaryText ?? '', /第二日/);
    await store.close();
  });

  it('leaf guard: the novelist left the branch during the call → stale, nothing written', async () => {
    const { s, store } = await story(8);
    const lastUser = [...s.path()].reverse().find((e) => e.type === 'user');
    route.setDefault(async () => {
      await s.navigate(lastUser?.id ?? null); // regenerate the last turn…
      await s.append(assistant('另一个版本。'));
      return { text: SUMMARY_ZH };
    });
    const before = s.entryCount;
    const out = await compact(s, store);
    assert.deepEqual(out, { kind: 'stale', when: 'afterSummary' });
    assert.equal(s.entryCount, before + 2, 'only the novelist’s own navigation and reply');
    assert.equal(s.lastOnPath('summary'), undefined);
    assert.equal(store.rows().length, 0, 'nothing archived for a dropped summary');
    await store.close();
  });

  it('leaf guard: appends on the same chain are not drift → applied after them', async () => {
    const { s, store } = await story(8);
    let stateId = '';
    route.setDefault(async () => {
      stateId = (await s.append({ type: 'state', state: { time: '夜' }, by: 'user', warnings: [] })).id;
      return { text: SUMMARY_ZH };
    });
    const out = await compact(s, store);
    assert.equal(out.kind, 'applied');
    assert.equal(s.lastOnPath('summary')?.parentId, stateId);
    await store.close();
  });

  it('leaf guard: a navigate still queued when the archive finishes → stale at the append, no summary anywhere', async () => {
    const { s, store } = await story(8);
    const leafBefore = s.leafId;
    const lastUser = [...s.path()].reverse().find((e) => e.type === 'user');
    route.setDefault({ text: SUMMARY_ZH });
    let moved: Promise<void> = Promise.resolve();
    const view = sessionTextView(s);
    const out = await compact(s, store, {
      archive: async (entries) => {
        const r = await archiveEntries({ store, embedder: localEmbedder() }, { entries, view });
        moved = s.navigate(lastUser?.id ?? null); // queued, not yet written, at the last check
        return r;
      },
    });
    await moved;
    assert.deepEqual(out, { kind: 'stale', when: 'atAppend' });
    assert.equal(s.leafId, lastUser?.id);
    assert.equal(s.entries().filter((e) => e.type === 'summary').length, 0, 'not on the old branch, not on the new one');
    assert.equal(s.lastOnPath('summary', leafBefore), undefined);
    await store.close();
  });

  it('leaf guard: a navigate queued during the model call (no archive) → stale, nothing written', async () => {
    const { s, store } = await story(8);
    const lastUser = [...s.path()].reverse().find((e) => e.type === 'user');
    let moved: Promise<void> = Promise.resolve();
    const client: SummaryDeps['client'] = {
      complete: async () => {
        moved = s.navigate(lastUser?.id ?? null);
        return { text: SUMMARY_ZH, finishReason: 'stop' };
      },
    };
    const { archive: _unused, ...rest } = deps(s, store, { client });
    const view = sessionTextView(s);
    const plan = planCompaction({ path: s.path(), keepLast: 6, manual: true, view });
    const out = await runSummary(rest, { plan, view, lang: 'zh' });
    await moved;
    assert.equal(out.kind, 'stale', JSON.stringify(out));
    assert.equal(s.entries().filter((e) => e.type === 'summary').length, 0);
    await store.close();
  });

  it('a summary applies only on its own branch', async () => {
    const { s, store } = await story(8);
    route.setDefault({ text: SUMMARY_ZH });
    assert.equal((await compact(s, store)).kind, 'applied');
    const summaryLeaf = s.leafId;
    const lastUser = [...s.path()].reverse().find((e) => e.type === 'user');
    await s.navigate(lastUser?.id ?? null);
    await s.append(assistant('重写的第8轮。'));
    assert.equal(s.contextWithSummary().summaryText, undefined, 'the sibling branch has no summary');
    await s.navigate(summaryLeaf);
    assert.equal(s.contextWithSummary().summaryText, SUMMARY_ZH);
    await store.close();
  });

  it('failures are values and leave the session and the context as they were', async () => {
    const { s, store } = await story(8);
    const before = s.entryCount;
    route.setDefault({ status: 500 });
    const model = await compact(s, store);
    assert.equal(model.kind === 'failed' && model.error.stage, 'model');
    assert.equal(model.kind === 'failed' && model.error.modelErrorKind, 'server');
    route.setDefault({ text: '  ' });
    assert.equal(((await compact(s, store)) as { error?: { stage: string } }).error?.stage, 'empty');
    route.setDefault({ text: '## 前情提要\n写到一半', finishReason: 'length' });
    assert.equal(((await compact(s, store)) as { error?: { stage: string } }).error?.stage, 'truncated');
    route.setDefault({ text: SUMMARY_ZH });
    const archive = await compact(s, store, { archive: () => Promise.resolve({ ok: false, error: { kind: 'io', message: 'disk full' } }) });
    assert.equal(archive.kind === 'failed' && archive.error.stage, 'archive');
    assert.match(archive.kind === 'failed' ? archive.error.message : '', /disk full/);
    const append = await compact(s, store, { appendSummary: () => Promise.reject(new Error('read-only')) });
    assert.equal(append.kind === 'failed' && append.error.stage, 'append');
    assert.equal(s.entryCount, before, 'no summary entry after any failure');
    assert.equal(s.lastOnPath('summary'), undefined);
    const skipped = await runSummary(deps(s, store), { plan: planCompaction({ path: s.path() }), view: sessionTextView(s), lang: 'zh' });
    assert.deepEqual(skipped, { kind: 'skipped', reason: 'tooFewTurns' });
    await store.close();
  });

  it('a summary missing sections is kept, with a warning', async () => {
    const { s, store } = await story(8);
    route.setDefault({ text: '## 前情提要\n只有一节。' });
    const out = await compact(s, store);
    assert.equal(out.kind, 'applied');
    assert.match(out.kind === 'applied' ? out.warnings.join() : '', /人物, 承诺与伏笔, 事实账, 当前场景/);
    await store.close();
  });

  it('after a summary, recall brings back a covered passage that the context no longer holds', async () => {
    const { s, store } = await story(8);
    route.setDefault({ text: SUMMARY_ZH });
    assert.equal((await compact(s, store)).kind, 'applied');
    const visible = s.contextWithSummary().messages;
    const hits = recall({ rows: store.rows(), query: hashEmbed('人物1号后来怎样了'), docFreq: store.docFreq, branchIds: branchIdsOf(s.path()), excludeNodeIds: new Set(visible.map((m) => m.entryId)), k: 3 });
    assert.ok(hits.some((h) => h.row.text.includes('人物1号推门进来')), JSON.stringify(hits.map((h) => h.row.text.slice(0, 20))));
    await store.close();
  });
});
