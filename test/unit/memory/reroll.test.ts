// The seed's failure, made impossible: 13 rerolls of one turn, every variant archived, the story
// goes on from one of them — no abandoned variant is ever recalled on the surviving branch. Then a
// property over random trees: every recalled row's node is on the current path, and every row on
// the path that matches the query exactly is found.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { createChatClient } from '../../../src/model/chatClient';
import type { ChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { archiveEntries } from '../../../src/memory/archive';
import { DocFreq } from '../../../src/memory/docFreq';
import { hashEmbed, localEmbedder } from '../../../src/memory/embed';
import { runMemorySearch } from '../../../src/memory/memoryTool';
import { planCompaction } from '../../../src/memory/plan';
import { branchIdsOf, recall, recallForTurn, recallUnfiltered } from '../../../src/memory/recall';
import { MemoryStore } from '../../../src/memory/store';
import { runSummary } from '../../../src/memory/summaryRun';
import { sessionTextView, type MemoryRow } from '../../../src/memory/types';
import { bySystemPrompt, startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { assistant, cleanup, newSession, openStore, tempDir, turn, user } from './helpers';

const FAREWELLS = ['你走吧，别回头', '这镯子你拿着', '天亮前一定要过江', '我等你到开春', '替我看看江南的雪', '别忘了欠我三两银子', '若是再见，就当不认识', '这一走，怕是再难相逢', '渡口的灯我会一直点着', '把信交给沈舟就好', '你若负我，我便烧了这客栈', '今夜的雨，就当是送行', '记得我做的桂花糕'];

function variantProse(i: number): string {
  return `第${i + 1}版。青梧把银镯塞进林砚手里，说：「${FAREWELLS[i]}。」林砚没有接话，只是点了点头，转身走进雨里。渡口的灯笼晃了晃，沈舟把船撑离了岸。标记${i + 1}号。`;
}

describe('memory/13 rerolls', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
    // The summariser echoes which version it saw, so the test can tell the summaries apart.
    server.route(bySystemPrompt('摘要员'), (req) => {
      const version = /第(\d+)版/.exec(String(req.messages?.[1]?.content))?.[1] ?? '?';
      return { text: `## 前情提要\n第${version}版的送别。\n## 人物\n青梧。\n## 承诺与伏笔\n无。\n## 事实账\n银镯。\n## 当前场景\n渡口。` };
    });
  });
  after(async () => server.close());
  afterEach(cleanup);

  it('after 13 archived rerolls, only the surviving variant can be recalled', async () => {
    const dir = tempDir();
    const s = await newSession(dir);
    const store = await openStore(dir);
    const view = sessionTextView(s);
    const client = createChatClient({ baseURL: server.url, apiKey: '', model: 'test-scribe', maxRetries: 0 });
    const summarise = async (): Promise<string> => {
      const plan = planCompaction({ path: s.path(), keepLast: 0, manual: true, minChars: 0, view });
      const out = await runSummary(
        {
          client,
          getLeafId: () => s.leafId,
          isAncestorOrSelf: (a, b) => s.isAncestorOrSelf(a, b),
          archive: (entries) => archiveEntries({ store, embedder: localEmbedder() }, { entries, view }),
          appendSummary: (e) => s.append({ type: 'summary', ...e }),
        },
        { plan, view, lang: 'zh' },
      );
      return out.kind;
    };

    await turn(s, '写青梧收留林砚过夜', '雨夜，青梧开门收留了浑身湿透的林砚，给他烧了一壶热茶。');
    const u = await s.append(user('写青梧在渡口送别林砚'));
    const variants: ChainEntry[] = [];
    for (let i = 0; i < 13; i++) {
      await s.navigate(u.id); // regenerate: back to the instruction, a sibling reply
      const callId = `call_v${i}`;
      const a = await s.append(assistant(`第${i + 1}版写好了。`, variantProse(i), callId));
      await s.append({ type: 'tool', callId, name: 'append_file', result: 'ok', isError: false });
      await s.append({ type: 'state', state: {}, by: 'scribe', warnings: [] });
      variants.push(a);
      assert.equal(await summarise(), 'applied', `variant ${i + 1} archived and summarised`);
    }
    assert.equal(s.variants(variants[0]?.id as string).siblings.length, 13);
    const archivedVariants = new Set(store.rows().map((r) => r.nodeId).filter((id) => variants.some((v) => v.id === id)));
    assert.equal(archivedVariants.size, 13, 'every variant really is in the memory file');

    const survivor = 6;
    await s.navigate(s.tipOf(variants[survivor]?.id as string));
    await turn(s, '写林砚到了对岸', '林砚上了岸，回头望去，渡口的灯还亮着。');
    await turn(s, '写林砚投宿', '他在镇上找了一间小店，要了一碗面。');

    const check = async (sess: Session, mem: MemoryStore): Promise<void> => {
      const branch = branchIdsOf(sess.path());
      const abandoned = variants.filter((_, i) => i !== survivor);
      assert.equal(sess.contextWithSummary().summaryText?.includes(`第${survivor + 1}版`), true, 'the surviving branch keeps its own summary');
      for (const [j, v] of variants.entries()) {
        if (j === survivor) continue;
        const exact = variantProse(j);
        const baseline = recallUnfiltered(mem.rows(), hashEmbed(exact), 6);
        assert.equal(baseline[0]?.row.nodeId, v.id, 'without the filter the abandoned variant would be the top hit');
        const hits = recall({ rows: mem.rows(), query: hashEmbed(exact), docFreq: mem.docFreq, branchIds: branch, k: 6 });
        assert.ok(hits.length > 0, 'the surviving variant is still recalled');
        for (const h of hits) {
          assert.ok(branch.has(h.row.nodeId), 'every hit is on the branch');
          assert.ok(!abandoned.some((a) => a.id === h.row.nodeId), `abandoned variant recalled for query ${j + 1}`);
          assert.ok(!h.row.text.includes(`标记${j + 1}号`));
        }
        assert.ok(hits.some((h) => h.row.text.includes(`标记${survivor + 1}号`)));
        const tool = await runMemorySearch({ memory: mem, embedder: localEmbedder(), branchIds: branch, lang: 'zh' }, JSON.stringify({ query: exact, k: 12 }));
        assert.ok(!tool.result.includes(`标记${j + 1}号`), 'memory_search obeys the branch too');
        const turnRecall = await recallForTurn({ memory: mem, embedder: localEmbedder() }, { instruction: exact, branchIds: branch, lang: 'zh', k: 12 });
        assert.ok(turnRecall.ok && !turnRecall.value.block.includes(`标记${j + 1}号`));
      }
    };
    await check(s, store);

    // The same after a restart: both files reloaded from disk.
    await s.close();
    await store.close();
    const reopened = (await Session.open(path.join(dir, 'sess1.jsonl'))).session;
    const mem = await MemoryStore.open({ file: path.join(dir, 'memory', 'sess1.jsonl'), sessionId: 'sess1', embedder: localEmbedder() });
    assert.ok(mem.ok);
    try {
      await check(reopened, mem.value.store);
    } finally {
      await reopened.close();
      await mem.value.store.close();
    }
  });
});

describe('memory/branch filter property', () => {
  type Op = { kind: 'append'; text: number } | { kind: 'navigate'; to: number } | { kind: 'archive'; node: number };

  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), text: fc.nat(40) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('navigate' as const), to: fc.nat() }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('archive' as const), node: fc.nat() }) },
  );

  const WORDS = ['青梧', '林砚', '沈舟', '银镯', '渡口', '客栈', '雨夜', '书院', '灯笼', '铁匣'];
  const textOf = (n: number): string => `${WORDS[n % WORDS.length]}和${WORDS[(n * 7 + 3) % WORDS.length]}在第${n}夜相遇。`;

  it('every recalled row is on the current path; every exact match on the path is found', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), fc.nat(), fc.array(fc.nat(40), { minLength: 1, maxLength: 5 }), (ops, leafPick, queries) => {
        const parent: (number | null)[] = [];
        const texts: string[] = [];
        let leaf: number | null = null;
        const rows: MemoryRow[] = [];
        const docFreq = new DocFreq();
        for (const o of ops) {
          if (o.kind === 'append') {
            parent.push(leaf);
            texts.push(textOf(o.text));
            leaf = parent.length - 1;
          } else if (o.kind === 'navigate' && parent.length > 0) {
            leaf = o.to % parent.length;
          } else if (o.kind === 'archive' && parent.length > 0) {
            const node = o.node % parent.length;
            const r: MemoryRow = { seq: rows.length, nodeId: `n${node}`, role: 'prose', text: texts[node] as string, vector: hashEmbed(texts[node] as string) };
            rows.push(r);
            docFreq.add(r.vector);
          }
        }
        if (parent.length === 0) return;
        let at: number | null = leafPick % parent.length;
        const onPath = new Set<string>();
        while (at !== null) {
          onPath.add(`n${at}`);
          at = parent[at] as number | null;
        }
        for (const q of queries) {
          const query = textOf(q);
          const hits = recall({ rows, query: hashEmbed(query), docFreq, branchIds: onPath, k: 6 });
          for (const h of hits) assert.ok(onPath.has(h.row.nodeId), `${h.row.nodeId} is not on the path`);
          const exactOnPath = rows.some((r) => onPath.has(r.nodeId) && r.text === query);
          if (exactOnPath) assert.ok(hits.some((h) => h.row.text === query), 'an exact match on the path is found');
        }
      }),
      { numRuns: 200, seed: 20250301 },
    );
  });
});
