// Recall: the rows closest to a query, but ONLY rows whose node is on the current branch. This is
// the rule that makes abandoned variants unrecallable: a regenerated reply's rows carry the id of
// the reply that was abandoned, which is never on the surviving branch. Rows the visible context
// already holds are skipped, identical texts are returned once, and the block lists the picks in
// story order. With the store's index (rowIndex.ts) only rows that share an n-gram with the query
// are scored; the picks are the scan's, exactly (same scores, same order, same ties).
import { clip } from '../state/json';
import { oneLine } from '../state/text';
import type { DocFreq } from './docFreq';
import type { Embedder } from './embed';
import type { RecallIndex } from './rowIndex';
import { score as cosine, withDenseQuery, type Vector } from './vector';
import { ok, type Lang, type MemoryRow, type Result } from './types';

export const RECALL_K = 6;

/** What recall reads: the rows and, for the local embedder, their bucket counts. `MemoryStore` is one. */
export interface MemorySource {
  rows(): readonly MemoryRow[];
  readonly docFreq?: DocFreq;
  /** Posting lists over `rows()` (row i is row i), so a query scores only rows sharing an n-gram with it. */
  readonly index?: RecallIndex;
}

export interface RecallHit {
  row: MemoryRow;
  score: number;
}

export interface RecallInput {
  rows: readonly MemoryRow[];
  /** A normalised query vector from the store's embedder. */
  query: Vector;
  /** Weighs a sparse query's n-grams by rarity (`store.docFreq`). */
  docFreq?: DocFreq;
  /** The index over `rows` (`store.index`); without it every row is scanned. */
  index?: RecallIndex;
  /** Ids of every entry on the current branch (`branchIdsOf(session.path())`). */
  branchIds: ReadonlySet<string>;
  k?: number;
  /** Nodes whose messages are in the visible context. */
  excludeNodeIds?: ReadonlySet<string>;
  /** Visible texts: a row whose text is inside one of them is already in view. */
  excludeTexts?: readonly string[];
  /** Only rows scoring above this; default 0. */
  minScore?: number;
  /** Rows that no longer say what their node says (edited, hidden) are left out: `currentRowFilter`. */
  isCurrent?: (row: MemoryRow) => boolean;
}

export function branchIdsOf(path: readonly { id: string }[]): Set<string> {
  const ids = new Set<string>();
  for (const e of path) ids.add(e.id);
  return ids;
}

/** Top-k rows on the branch by cosine, best first; ties: the earlier row first. */
export function recall(input: RecallInput): RecallHit[] {
  const q = input.docFreq ? input.docFreq.weigh(input.query) : input.query;
  const index = input.index;
  if (index !== undefined && index.size === input.rows.length && Math.floor(input.k ?? RECALL_K) > 0) return pickScored(input, index, index.scores(q));
  return withDenseQuery(q, (query) => scanBranch(input, query));
}

/**
 * The scan's picks from scores computed beforehand: rows in the same order, through the same
 * tests and the same insertion, so the result is the scan's. Only the order of the tests differs
 * (the cheap score test first), and all but the admission are independent of each other.
 */
function pickScored(input: RecallInput, index: RecallIndex, scores: Float64Array): RecallHit[] {
  const k = Math.max(0, Math.floor(input.k ?? RECALL_K));
  const { rows, branchIds } = input;
  const excludeIds = input.excludeNodeIds;
  const admit = admission(input.excludeTexts ?? [], input.isCurrent);
  const floor = input.minScore ?? 0;
  const top: RecallHit[] = [];
  // The scan's two score tests in one: above the floor, and above the k-th best once there are k.
  let bar = floor;
  for (let i = 0; i < rows.length; i++) {
    const score = scores[i] as number;
    if (score <= bar) continue;
    if (!index.hasVector(i)) continue;
    const row = rows[i] as MemoryRow;
    if (!branchIds.has(row.nodeId) || (excludeIds !== undefined && excludeIds.has(row.nodeId))) continue;
    if (!admit(row, top)) continue;
    insert(top, { row, score }, k);
    if (top.length === k) bar = (top[k - 1] as RecallHit).score;
  }
  return top;
}

function scanBranch(input: RecallInput, query: Float32Array): RecallHit[] {
  const k = Math.max(0, Math.floor(input.k ?? RECALL_K));
  const { rows, branchIds } = input;
  const excludeIds = input.excludeNodeIds;
  const admit = admission(input.excludeTexts ?? [], input.isCurrent);
  const floor = input.minScore ?? 0;
  const top: RecallHit[] = [];
  if (k === 0) return top;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as MemoryRow;
    if (!branchIds.has(row.nodeId)) continue; // the branch filter
    const v = row.vector;
    if (v === undefined || (excludeIds !== undefined && excludeIds.has(row.nodeId))) continue;
    const score = cosine(query, v);
    if (score <= floor || (top.length === k && score <= (top[k - 1] as RecallHit).score)) continue;
    if (!admit(row, top)) continue;
    insert(top, { row, score }, k);
  }
  return top;
}

/** The scan with no branch filter and no index: a baseline for benches. Never use it for the agent. */
export function recallUnfiltered(rows: readonly MemoryRow[], queryVector: Vector, k = RECALL_K, docFreq?: DocFreq): RecallHit[] {
  return withDenseQuery(docFreq ? docFreq.weigh(queryVector) : queryVector, (query) => scanAll(rows, query, k));
}

function scanAll(rows: readonly MemoryRow[], query: Float32Array, k: number): RecallHit[] {
  const top: RecallHit[] = [];
  if (k <= 0) return top;
  const admit = admission([]);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as MemoryRow;
    const v = row.vector;
    if (v === undefined) continue;
    const score = cosine(query, v);
    if (score <= 0 || (top.length === k && score <= (top[k - 1] as RecallHit).score)) continue;
    if (!admit(row, top)) continue;
    insert(top, { row, score }, k);
  }
  return top;
}

/** Checked only for rows that would enter the top k, so the substring tests stay rare. */
function admission(visible: readonly string[], isCurrent?: (row: MemoryRow) => boolean): (row: MemoryRow, top: readonly RecallHit[]) => boolean {
  return (row, top) => {
    for (const h of top) if (h.row.text === row.text) return false;
    if (isCurrent !== undefined && !isCurrent(row)) return false;
    for (const t of visible) if (t.includes(row.text)) return false;
    return true;
  };
}

function insert(top: RecallHit[], hit: RecallHit, k: number): void {
  let i = top.length;
  while (i > 0 && (top[i - 1] as RecallHit).score < hit.score) i--;
  top.splice(i, 0, hit);
  if (top.length > k) top.pop();
}

/** The query for a turn: the instruction, plus the end of the last reply for context. */
export function recallQueryText(instruction: string, lastReply = '', replyChars = 300): string {
  const reply = lastReply.trim();
  const tail = reply.length > replyChars ? reply.slice(reply.length - replyChars) : reply;
  return tail === '' ? instruction.trim() : `${instruction.trim()}\n${tail}`;
}

export const RECALL_HEADINGS: Readonly<Record<Lang, string>> = { zh: '【相关回忆】', en: '[Recalled]' };
const RECALL_NOTE: Record<Lang, string> = {
  zh: '（较早剧情的原文片段，按时间顺序，仅供参考；与摘要或世界状态不符时以后者为准）',
  en: '(Passages from earlier in the story, in story order, for reference; where they disagree with the summary or world state, those win.)',
};
const ROLE_LABEL: Record<Lang, Record<MemoryRow['role'], string>> = {
  zh: { user: '作者指令：', assistant: '助手：', prose: '' },
  en: { user: 'Instruction: ', assistant: 'Assistant: ', prose: '' },
};

/** The 【相关回忆】 block ('' without hits): best hits within `maxChars`, listed in story order. */
export function formatRecall(hits: readonly RecallHit[], lang: Lang, maxChars = 3000): string {
  const picked: RecallHit[] = [];
  let used = 0;
  for (const h of hits) {
    const len = h.row.text.length + 4;
    if (picked.length > 0 && used + len > maxChars) break;
    picked.push(h);
    used += len;
  }
  if (picked.length === 0) return '';
  const lines = picked
    .slice()
    .sort((a, b) => a.row.seq - b.row.seq)
    .map((h) => `- ${ROLE_LABEL[lang][h.row.role]}${clip(oneLine(h.row.text), maxChars)}`);
  return [RECALL_HEADINGS[lang], RECALL_NOTE[lang], ...lines].join('\n');
}

export interface TurnRecallDeps {
  memory: MemorySource;
  embedder: Embedder;
  signal?: AbortSignal;
}

export interface TurnRecallInput {
  instruction: string;
  lastReply?: string;
  branchIds: ReadonlySet<string>;
  /** The visible context (`contextWithSummary().messages`): what the model already sees. */
  visible?: readonly { entryId: string; text: string }[];
  k?: number;
  lang: Lang;
  maxChars?: number;
  isCurrent?: (row: MemoryRow) => boolean;
}

/** Recall before a turn: embed the query, filter to the branch, skip what is visible, format. */
export async function recallForTurn(deps: TurnRecallDeps, input: TurnRecallInput): Promise<Result<{ hits: RecallHit[]; block: string }>> {
  const rows = deps.memory.rows();
  const index = deps.memory.index !== undefined && deps.memory.index.size === rows.length ? deps.memory.index : undefined;
  // Nothing to find on this branch: no embedding call (a remote one costs a round trip).
  const hasVector = index ? (i: number) => index.hasVector(i) : (i: number) => (rows[i] as MemoryRow).vector !== undefined;
  if (!rows.some((r, i) => hasVector(i) && input.branchIds.has(r.nodeId))) return ok({ hits: [], block: '' });
  const q = await deps.embedder.embed([recallQueryText(input.instruction, input.lastReply)], deps.signal);
  if (!q.ok) return q;
  const visible = input.visible ?? [];
  const hits = recall({
    rows,
    query: q.value[0] as Vector,
    ...(deps.memory.docFreq ? { docFreq: deps.memory.docFreq } : {}),
    ...(index ? { index } : {}),
    branchIds: input.branchIds,
    k: input.k ?? RECALL_K,
    excludeNodeIds: new Set(visible.map((m) => m.entryId)),
    excludeTexts: visible.map((m) => m.text),
    ...(input.isCurrent ? { isCurrent: input.isCurrent } : {}),
  });
  return ok({ hits, block: formatRecall(hits, input.lang, input.maxChars) });
}
