// Archiving: the story text of covered entries → chunks → vectors → rows. Runs before a summary
// is written, so nothing the summary compresses is lost to recall. Idempotent: a chunk already
// stored for the same node is skipped, so a retried or repeated compaction adds nothing twice.
import type { ChainEntry } from '../session/entries';
import { chunkSources, type ChunkOptions } from './chunk';
import type { Embedder } from './embed';
import { storySources } from './sources';
import type { MemoryStore } from './store';
import { fail, ok, type Result, type SourceText, type TextView } from './types';
import type { Vector } from './vector';

export interface ArchiveDeps {
  store: MemoryStore;
  embedder: Embedder;
  signal?: AbortSignal;
}

export interface ArchiveInput {
  entries: readonly ChainEntry[];
  view: TextView;
  chunk?: ChunkOptions;
}

export interface ArchiveReport {
  added: number;
  /** Chunks already in the store. */
  skipped: number;
}

export async function archiveEntries(deps: ArchiveDeps, input: ArchiveInput): Promise<Result<ArchiveReport>> {
  return archiveSources(deps, storySources(input.entries, input.view), input.chunk);
}

export async function archiveSources(deps: ArchiveDeps, sources: readonly SourceText[], chunk?: ChunkOptions): Promise<Result<ArchiveReport>> {
  const { store, embedder } = deps;
  if (store.needsReembed) {
    const re = await store.reembed(embedder, deps.signal);
    if (!re.ok) return re;
  }
  const seen = new Set<string>();
  const fresh: SourceText[] = [];
  let skipped = 0;
  for (const c of chunkSources(sources, chunk)) {
    const key = `${c.nodeId}\u0000${c.text}`;
    if (store.has(c.nodeId, c.text) || seen.has(key)) {
      skipped++;
      continue;
    }
    seen.add(key);
    fresh.push(c);
  }
  if (fresh.length === 0) return ok({ added: 0, skipped });
  const embedded = await embedder.embed(fresh.map((c) => c.text), deps.signal);
  if (!embedded.ok) return embedded;
  if (embedded.value.length !== fresh.length) return fail('embed', `The embedder returned ${embedded.value.length} vectors for ${fresh.length} texts.`);
  const appended = await store.append(fresh.map((c, i) => ({ ...c, vector: embedded.value[i] as Vector })));
  if (!appended.ok) return appended;
  const flushed = await store.flush();
  if (!flushed.ok) return flushed;
  return ok({ added: appended.value, skipped });
}
