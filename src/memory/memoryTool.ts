// The agent's `memory_search` tool: the same branch-filtered recall, asked for by the agent with
// its own query. Like the manuscript tools it never throws; every problem is an error result whose
// text tells the model what to do next.
import type { Embedder } from './embed';
import { recall, type MemorySource } from './recall';
import type { Lang, MemoryRow } from './types';
import type { Vector } from './vector';

export const MEMORY_TOOL_NAME = 'memory_search';
export const MEMORY_TOOL_MAX_K = 12;
const DEFAULT_K = 6;

export interface MemoryToolSchema {
  type: 'function';
  function: {
    name: typeof MEMORY_TOOL_NAME;
    description: string;
    parameters: {
      type: 'object';
      properties: {
        query: { type: 'string'; description: string };
        k: { type: 'integer'; description: string; minimum: number; maximum: number };
      };
      required: ['query'];
      additionalProperties: false;
    };
  };
}

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

export function memoryToolSchema(lang: Lang): MemoryToolSchema {
  return {
    type: 'function',
    function: {
      name: MEMORY_TOOL_NAME,
      description: t(
        lang,
        'Search earlier parts of this story (turns already folded into the summary) for passages: who said what, how a scene went, what someone was called. Only passages from the current branch of the story are searched. Name the people, places or objects you are looking for.',
        '在本故事较早的部分（已经压缩进摘要的轮次）里检索原文片段：谁说过什么、某场戏怎么发生的、某人怎么称呼别人。只检索当前这条故事分支上的内容。查询里写上要找的人名、地名或物品。',
      ),
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: t(lang, 'What to look for, e.g. "Qingwu and the pocket watch".', '要找的内容，例如「青梧 怀表」。') },
          k: { type: 'integer', description: t(lang, `How many passages, 1 to ${MEMORY_TOOL_MAX_K}. Default ${DEFAULT_K}.`, `返回几段，1 到 ${MEMORY_TOOL_MAX_K}。默认 ${DEFAULT_K}。`), minimum: 1, maximum: MEMORY_TOOL_MAX_K },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  };
}

export interface MemorySearchDeps {
  memory: MemorySource;
  embedder: Embedder;
  /** Ids on the current branch: only these rows are searched. */
  branchIds: ReadonlySet<string>;
  lang: Lang;
  signal?: AbortSignal;
  /** Leaves out rows whose message was edited or hidden since (`currentRowFilter`). */
  isCurrent?: (row: MemoryRow) => boolean;
}

export interface MemorySearchOutcome {
  result: string;
  isError: boolean;
}

export async function runMemorySearch(deps: MemorySearchDeps, argsJson: string): Promise<MemorySearchOutcome> {
  const { lang } = deps;
  const args = parseArgs(argsJson, lang);
  if (typeof args === 'string') return { result: args, isError: true };
  const q = await deps.embedder.embed([args.query], deps.signal);
  if (!q.ok) return { result: t(lang, `Memory search failed: ${q.error.message} Continue without it.`, `记忆检索失败：${q.error.message} 请不依赖检索继续。`), isError: true };
  const hits = recall({
    rows: deps.memory.rows(),
    query: q.value[0] as Vector,
    ...(deps.memory.docFreq ? { docFreq: deps.memory.docFreq } : {}),
    ...(deps.memory.index ? { index: deps.memory.index } : {}),
    branchIds: deps.branchIds,
    k: args.k,
    ...(deps.isCurrent ? { isCurrent: deps.isCurrent } : {}),
  });
  if (hits.length === 0) {
    return { result: t(lang, 'No earlier passage on this branch matches. The summary holds everything older; do not invent details.', '当前分支上没有匹配的较早片段。更早的内容都在摘要里；不要编造细节。'), isError: false };
  }
  const lines = hits.map((h, i) => `${i + 1}. (${h.score.toFixed(2)}) ${h.row.text}`);
  const head = t(lang, `${hits.length} passage(s) from earlier on this branch, best match first:`, `当前分支上较早的 ${hits.length} 段原文，按相关度排列：`);
  return { result: [head, ...lines].join('\n'), isError: false };
}

function parseArgs(argsJson: string, lang: Lang): { query: string; k: number } | string {
  const expected = t(lang, 'memory_search expects {"query": string, "k"?: integer 1-12}.', 'memory_search 的参数应为 {"query": 字符串, "k"?: 1-12 的整数}。');
  let v: unknown;
  try {
    v = JSON.parse(argsJson.trim() === '' ? '{}' : argsJson);
    if (typeof v === 'string') v = JSON.parse(v);
  } catch {
    return t(lang, 'The arguments are not valid JSON. ', '参数不是合法的 JSON。') + expected;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return expected;
  const o = v as Record<string, unknown>;
  const query = typeof o['query'] === 'string' ? o['query'].trim() : '';
  if (query === '') return t(lang, 'query is missing or empty. ', 'query 缺失或为空。') + expected;
  let k = DEFAULT_K;
  if (o['k'] !== undefined) {
    const n = typeof o['k'] === 'string' ? Number(o['k']) : o['k'];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) return t(lang, 'k must be an integer from 1 to 12. ', 'k 必须是 1 到 12 的整数。') + expected;
    k = Math.min(n, MEMORY_TOOL_MAX_K);
  }
  return { query, k };
}
