// Recall: the branch filter, exclusions, the 【相关回忆】 block, recall quality on a Chinese story,
// and the memory_search tool.
import { strict as assert } from 'node:assert';
import { DocFreq } from '../../../src/memory/docFreq';
import { hashEmbed, localEmbedder } from '../../../src/memory/embed';
import { MEMORY_TOOL_NAME, memoryToolSchema, runMemorySearch } from '../../../src/memory/memoryTool';
import { formatRecall, recall, recallForTurn, recallQueryText, recallUnfiltered, type MemorySource } from '../../../src/memory/recall';
import type { MemoryRow } from '../../../src/memory/types';
import { PASSAGES, paddedPassages, queryFor } from './fixtures';

function row(seq: number, nodeId: string, text: string, role: MemoryRow['role'] = 'prose'): MemoryRow {
  return { seq, nodeId, role, text, vector: hashEmbed(text) };
}

function source(rows: MemoryRow[]): MemorySource {
  const docFreq = new DocFreq();
  for (const r of rows) docFreq.add(r.vector);
  return { rows: () => rows, docFreq };
}

const STORY_ROWS = PASSAGES.map((p, i) => row(i, `n${i}`, p.text));
const ALL_IDS = new Set(STORY_ROWS.map((r) => r.nodeId));

describe('memory/recall', () => {
  it('only rows whose node is on the branch are ever returned', () => {
    const rows = [row(0, 'kept', '青梧在渡口等船，手里攥着那只银镯。'), row(1, 'gone', '青梧在渡口等船，手里攥着那只银镯。后来她哭了。')];
    const q = hashEmbed('青梧在渡口等船，手里攥着那只银镯。后来她哭了。');
    assert.deepEqual(recallUnfiltered(rows, q).map((h) => h.row.nodeId), ['gone', 'kept'], 'unfiltered, the abandoned row wins');
    assert.deepEqual(recall({ rows, query: q, branchIds: new Set(['kept']) }).map((h) => h.row.nodeId), ['kept']);
    assert.deepEqual(recall({ rows, query: q, branchIds: new Set() }), []);
  });

  it('top k by cosine, best first; identical texts once; rows without vectors skipped', () => {
    const rows = [...STORY_ROWS, row(99, 'dup', PASSAGES[0]?.text as string), { ...row(100, 'novec', PASSAGES[0]?.text as string), vector: undefined }];
    const hits = recall({ rows, query: hashEmbed(PASSAGES[0]?.text as string), branchIds: new Set([...ALL_IDS, 'dup', 'novec']), k: 4 });
    assert.equal(hits.length, 4);
    assert.equal(hits[0]?.row.nodeId, 'n0');
    assert.equal(hits.filter((h) => h.row.text === PASSAGES[0]?.text).length, 1);
    for (let i = 1; i < hits.length; i++) assert.ok((hits[i - 1]?.score as number) >= (hits[i]?.score as number));
    assert.deepEqual(recall({ rows, query: hashEmbed('青梧'), branchIds: ALL_IDS, k: 0 }), []);
  });

  it('skips what the visible context already holds, by node and by text', () => {
    const q = hashEmbed(queryFor('青梧'));
    const first = recall({ rows: STORY_ROWS, query: q, branchIds: ALL_IDS, k: 1 });
    assert.equal(first[0]?.row.nodeId, 'n0');
    const byNode = recall({ rows: STORY_ROWS, query: q, branchIds: ALL_IDS, k: 3, excludeNodeIds: new Set(['n0']) });
    assert.ok(!byNode.some((h) => h.row.nodeId === 'n0'));
    const byText = recall({ rows: STORY_ROWS, query: q, branchIds: ALL_IDS, k: 3, excludeTexts: [`前文……${PASSAGES[0]?.text}……后文`] });
    assert.ok(!byText.some((h) => h.row.nodeId === 'n0'));
  });

  it('quality: a query naming a character finds their passage in the top 3 (25 passages)', () => {
    const padded = paddedPassages(400).map((t, i) => row(i, `n${i}`, t));
    for (const rows of [STORY_ROWS, padded]) {
      const mem = source(rows);
      const misses: string[] = [];
      PASSAGES.forEach((p, i) => {
        for (const text of [queryFor(p.name), p.name, `${p.name}怎么样了？`, `上回${p.name}说的那件事，后来呢`]) {
          const hits = recall({ rows: mem.rows(), query: hashEmbed(text), branchIds: ALL_IDS, k: 3, docFreq: mem.docFreq as DocFreq });
          if (!hits.some((h) => h.row.nodeId === `n${i}`)) misses.push(text);
        }
      });
      assert.deepEqual(misses, [], `passages of about ${rows[0]?.text.length} characters`);
    }
  });

  it('the query is the instruction plus the end of the last reply', () => {
    assert.equal(recallQueryText('写青梧', ''), '写青梧');
    assert.equal(recallQueryText(' 写青梧 ', `${'甲'.repeat(500)}结尾`, 10), `写青梧\n${'甲'.repeat(8)}结尾`);
  });

  it('formats 【相关回忆】 / [Recalled] in story order within a budget', () => {
    const hits = [
      { row: row(5, 'b', '后发生的事。\n第二行。'), score: 0.9 },
      { row: row(2, 'a', '先发生的事。', 'user'), score: 0.5 },
      { row: row(9, 'c', '很长'.repeat(200)), score: 0.1 },
    ];
    const zh = formatRecall(hits, 'zh', 100);
    assert.ok(zh.startsWith('【相关回忆】\n'));
    assert.ok(zh.indexOf('作者指令：先发生的事。') < zh.indexOf('后发生的事。 第二行。'), 'story order, one line each');
    assert.ok(!zh.includes('很长'), 'over budget');
    assert.ok(formatRecall(hits, 'en').startsWith('[Recalled]\n'));
    assert.equal(formatRecall([], 'zh'), '');
  });

  it('recallForTurn: embeds, filters to the branch, leaves out the visible context', async () => {
    const mem = source(STORY_ROWS);
    const branch = new Set(['n0', 'n1', 'n2']);
    const r = await recallForTurn({ memory: mem, embedder: localEmbedder() }, { instruction: '写青梧和林砚', branchIds: branch, visible: [{ entryId: 'n1', text: '…' }], lang: 'zh' });
    assert.ok(r.ok);
    assert.ok(r.value.hits.every((h) => branch.has(h.row.nodeId) && h.row.nodeId !== 'n1'));
    assert.ok(r.value.block.startsWith('【相关回忆】'));
    assert.ok(r.value.block.includes('青梧把账本合上'));
    const none = await recallForTurn({ memory: mem, embedder: localEmbedder() }, { instruction: '写青梧', branchIds: new Set(['elsewhere']), lang: 'zh' });
    assert.deepEqual(none.ok ? none.value : undefined, { hits: [], block: '' });
  });
});

describe('memory/memory_search tool', () => {
  const mem = source(STORY_ROWS);
  const deps = { memory: mem, embedder: localEmbedder(), branchIds: ALL_IDS, lang: 'zh' as const };

  it('has an OpenAI function schema in both languages', () => {
    const zh = memoryToolSchema('zh');
    assert.equal(zh.function.name, MEMORY_TOOL_NAME);
    assert.deepEqual(zh.function.parameters.required, ['query']);
    assert.equal(zh.function.parameters.additionalProperties, false);
    assert.match(memoryToolSchema('en').function.description, /current branch/);
  });

  it('returns passages from the branch, best first', async () => {
    const out = await runMemorySearch(deps, JSON.stringify({ query: '魏长风 跛脚', k: 2 }));
    assert.equal(out.isError, false);
    const lines = out.result.split('\n');
    assert.equal(lines.length, 3);
    assert.ok(lines[1]?.includes('魏长风'));
    const offBranch = await runMemorySearch({ ...deps, branchIds: new Set(['n0']) }, '{"query":"魏长风"}');
    assert.ok(!offBranch.result.includes('跛的'), 'passages off the branch are never shown');
  });

  it('bad arguments are error results that say what to send', async () => {
    for (const args of ['', '{"query":""}', 'nope', '{"query":"x","k":0}', '[1]']) {
      const out = await runMemorySearch(deps, args);
      assert.equal(out.isError, true, args);
      assert.match(out.result, /memory_search/);
    }
    const capped = await runMemorySearch(deps, '{"query":"青梧","k":"50"}');
    assert.equal(capped.isError, false);
    assert.ok(capped.result.split('\n').length <= 13);
  });
});
