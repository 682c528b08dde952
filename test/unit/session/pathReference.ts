// The branch reads as they were before the branch was kept (issue 13): every read walks from the
// leaf to the root again. Kept here, apart from the product code, as the reference the kept reads
// must equal (keptBranch.property.test.ts) and the baseline bench/branch.bench.ts measures.
// Only the session's public reads are used.
import type { AssistantEntry, ChainEntry, ChainEntryOf, ChainType, ContextMessage, Entry, SummaryEntry, ToolCall } from '../../../src/session/entries';
import { isChainEntry } from '../../../src/session/entries';

/** The public reads of a session the reference needs (a `Session` is one). */
export interface ReferenceSource {
  readonly leafId: string | null;
  readonly entryCount: number;
  get(id: string): Entry | undefined;
  textOf(id: string): string;
  isHidden(id: string): boolean;
}

/** Counts of walks from a leaf to the root, for the bench. */
export const referenceWalks = { count: 0 };

function chain(source: ReferenceSource, id: string | null): ChainEntry | undefined {
  if (id === null) return undefined;
  const e = source.get(id);
  return e && isChainEntry(e) ? e : undefined;
}

/** Chain entries from the root to `leafId` (the old `pathTo`: a walk up, then reversed). */
export function referencePath(source: ReferenceSource, leafId: string | null = source.leafId): ChainEntry[] {
  referenceWalks.count++;
  if (leafId === null) return [];
  const path: ChainEntry[] = [];
  let entry = chain(source, leafId);
  if (!entry) throw new Error(`unknown entry ${leafId}`);
  while (entry && path.length < source.entryCount) {
    path.push(entry);
    entry = chain(source, entry.parentId);
  }
  return path.reverse();
}

export function referenceIsAncestorOrSelf(source: ReferenceSource, ancestorId: string | null, id: string | null): boolean {
  if (ancestorId === null) return true;
  if (id === null) return false;
  if (!chain(source, ancestorId)) return false;
  let entry = chain(source, id);
  for (let steps = source.entryCount; entry && steps > 0; steps--) {
    if (entry.id === ancestorId) return true;
    entry = chain(source, entry.parentId);
  }
  return false;
}

export function referenceLastOnPath<T extends ChainType>(source: ReferenceSource, type: T, leafId: string | null = source.leafId): ChainEntryOf<T> | undefined {
  const path = referencePath(source, leafId);
  for (let i = path.length - 1; i >= 0; i--) if ((path[i] as ChainEntry).type === type) return path[i] as ChainEntryOf<T>;
  return undefined;
}

interface TextSource {
  textOf(entry: ChainEntry): string;
  isHidden(id: string): boolean;
}

function textSource(source: ReferenceSource): TextSource {
  return { textOf: (e) => source.textOf(e.id), isHidden: (id) => source.isHidden(id) };
}

export function referenceContext(source: ReferenceSource, leafId: string | null = source.leafId): ContextMessage[] {
  return buildContext(referencePath(source, leafId), textSource(source));
}

export function referenceContextWithSummary(
  source: ReferenceSource,
  leafId: string | null = source.leafId,
): { summary?: SummaryEntry; summaryText?: string; messages: ContextMessage[] } {
  const path = referencePath(source, leafId);
  const text = textSource(source);
  const active = activeSummary(path, text);
  if (!active) return { messages: buildContext(path, text) };
  return { summary: active.summary, summaryText: text.textOf(active.summary), messages: buildContext(path.slice(active.firstUncovered), text) };
}

// ---- the context rules as context.ts had them (position map over the whole path) -------------

function buildContext(path: readonly ChainEntry[], source: TextSource): ContextMessage[] {
  const owners = resultOwners(path);
  const messages: ContextMessage[] = [];
  for (const e of path) {
    if (source.isHidden(e.id)) continue;
    if (e.type === 'user') {
      messages.push({ entryId: e.id, role: 'user', text: source.textOf(e) });
    } else if (e.type === 'assistant') {
      const message = assistantMessage(e, source.textOf(e), owners.answers.get(e.id), source);
      if (message) messages.push(message);
    } else if (e.type === 'tool') {
      const owner = owners.ownerOf.get(e.id);
      if (owner === undefined || source.isHidden(owner)) continue;
      messages.push({ entryId: e.id, role: 'tool', text: source.textOf(e), callId: e.callId, name: e.name });
    }
  }
  return messages;
}

function resultOwners(path: readonly ChainEntry[]): { ownerOf: Map<string, string>; answers: Map<string, Map<string, string>> } {
  const ownerOf = new Map<string, string>();
  const answers = new Map<string, Map<string, string>>();
  const open = new Map<string, string[]>();
  for (const e of path) {
    if (e.type === 'assistant') {
      for (const call of e.toolCalls ?? []) {
        const waiting = open.get(call.id) ?? [];
        if (!waiting.includes(e.id)) waiting.push(e.id);
        open.set(call.id, waiting);
      }
    } else if (e.type === 'tool') {
      const owner = open.get(e.callId)?.pop();
      if (owner === undefined) continue;
      ownerOf.set(e.id, owner);
      const mine = answers.get(owner) ?? new Map<string, string>();
      mine.set(e.callId, e.id);
      answers.set(owner, mine);
    }
  }
  return { ownerOf, answers };
}

function assistantMessage(e: AssistantEntry, text: string, answers: ReadonlyMap<string, string> | undefined, source: TextSource): ContextMessage | undefined {
  const seen = new Set<string>();
  const calls: ToolCall[] = (e.toolCalls ?? []).filter((c) => {
    if (seen.has(c.id)) return false;
    seen.add(c.id);
    const result = answers?.get(c.id);
    return result === undefined || !source.isHidden(result);
  });
  if (text.length === 0 && calls.length === 0) return undefined;
  const message: ContextMessage = { entryId: e.id, role: 'assistant', text };
  if (calls.length > 0) message.toolCalls = calls;
  if (e.finish !== 'stop') message.finish = e.finish;
  if (e.providerFields !== undefined) message.providerFields = e.providerFields;
  return message;
}

function activeSummary(path: readonly ChainEntry[], source: Pick<TextSource, 'isHidden'>): { summary: SummaryEntry; firstUncovered: number } | undefined {
  const position = new Map<string, number>();
  path.forEach((e, i) => position.set(e.id, i));
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (e.type !== 'summary' || source.isHidden(e.id)) continue;
    const covered = position.get(e.coversThroughId);
    if (covered !== undefined) return { summary: e, firstUncovered: covered + 1 };
  }
  return undefined;
}
