// The memory of one open session: its vector store (.worldline/memory/<id>.jsonl, opened once),
// recall before each turn (filtered to the branch), the memory_search tool, the shortened replay
// of old tool payloads, and compaction (every N turns after the scribe, or Compact Now). Every
// failure costs only the memory, never the turn: it is logged, and recall or search go without.
// The class writes no UI text; compaction returns outcomes the shell puts into words.
import type { ExtraTool } from '../agent/turnTypes';
import type { WorldlineSettings } from '../model/settings';
import type { ChatCompleter } from '../model/types';
import { isChainEntry } from '../session/entries';
import type { Session } from '../session/session';
import { formatState } from '../state/format';
import { Branch, type BranchOptions } from '../story/branch';
import { archiveEntries } from './archive';
import type { ContextTransform } from '../agent/sentBlocks';
import { oldTurnsFor, shortenOldToolPayloads } from './compactContext';
import { currentRowFilter, editedSinceArchive, type RowFilter } from './currency';
import type { Embedder } from './embed';
import { memoryToolSchema, runMemorySearch } from './memoryTool';
import { planCompaction, planSkipText, type PlanSkipReason } from './plan';
import { branchIdsOf, recallForTurn } from './recall';
import { MemoryStore, memoryFileFor } from './store';
import { runSummary, type SummaryOutcome } from './summaryRun';
import { messageOf, sessionTextView, type Lang, type MemoryRow } from './types';

export interface SessionMemoryLog {
  info(message: string): void;
  warn(message: string): void;
}

/** The side model that writes summaries, built by the caller from the settings and the scribe's key. */
export interface SummaryModel {
  client: ChatCompleter;
  model: string;
}

export interface SessionMemoryOptions {
  /** The novel folder: the store is `memoryFileFor(root, session.header.id)`. */
  root: string;
  session: Session;
  /** The opening state and the language, asked for each time (a config reload may change them). */
  branchOptions: () => BranchOptions;
  /** A fresh settings snapshot each time. */
  settings: () => WorldlineSettings;
  /** Asked once, when the store is first opened (see `embedderFor`). */
  embedder: () => Promise<Embedder>;
  /** Asked for each summary. */
  summaryModel: () => Promise<SummaryModel>;
  log: SessionMemoryLog;
  /** Wraps the summary's model call and archive, so the shell can show that it is under way. */
  progress?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * What a compaction did. `skipped` (not due) carries the reason in words for the novelist, as
 * Compact Now shows it; `noMemory`: the store cannot be opened, and there is no summary without
 * its archive (`reason` is the store's message, for the log); `readOnly`: another window owns the
 * novel. The rest are `runSummary`'s outcomes.
 */
export type CompactOutcome =
  | Exclude<SummaryOutcome, { kind: 'skipped' }>
  | { kind: 'skipped'; reason: PlanSkipReason; text: string }
  | { kind: 'noMemory'; reason: string }
  | { kind: 'readOnly' };

function unavailable(lang: Lang): { result: string; isError: boolean } {
  return { result: lang === 'zh' ? '记忆暂时不可用，请不依赖检索继续。' : 'Memory is not available right now; continue without it.', isError: true };
}

interface OpenMemory {
  store: MemoryStore;
  embedder: Embedder;
}

export class SessionMemory {
  private opened: Promise<OpenMemory | { failed: string }> | undefined;
  private closed = false;
  /** The store could not be opened: there will be no summaries in this window. */
  private storeFailed = false;
  /** The last compaction queued: each one starts when the one before it has ended. */
  private compacting: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SessionMemoryOptions) {}

  get session(): Session {
    return this.options.session;
  }

  /** The node ids recall and search keep rows of: every entry on the path to `leafId`. */
  branchIds(leafId: string | null = this.session.leafId): ReadonlySet<string> {
    return branchIdsOf(this.session.path(leafId));
  }

  /** Rows that still say what their message says (edits applied, hidden messages out), as of now. */
  rowFilter(): RowFilter {
    const session = this.session;
    return currentRowFilter((id) => {
      const e = session.get(id);
      return e !== undefined && isChainEntry(e) ? e : undefined;
    }, sessionTextView(session));
  }

  /** Both filters together: the rows of the branch at `leafId` that recall and search may return. */
  memoryFilter(leafId: string | null = this.session.leafId): (row: MemoryRow) => boolean {
    const ids = this.branchIds(leafId);
    const current = this.rowFilter();
    return (row) => ids.has(row.nodeId) && current(row);
  }

  /** 【相关回忆】: rows on this branch that match the instruction and the last reply, minus what is visible. */
  async recall(userEntryId: string, instruction: string): Promise<string | undefined> {
    const settings = this.options.settings().memory;
    if (settings.recallCount === 0) return undefined;
    const memory = await this.memory();
    if (!memory) return undefined;
    const session = this.session;
    // The kept branch answers these without a pass over the whole path (src/session/keptBranch.ts).
    const lastReply = session.pathView(userEntryId).lastOfType('assistant');
    const visible = session.contextWithSummary(userEntryId).messages;
    const view = sessionTextView(session);
    // Messages edited after they were archived: their new words go into memory before recall.
    const edited = editedSinceArchive(session.editedOnPath(userEntryId), (id) => session.sideFor(id, 'edit') !== undefined, new Set(visible.map((m) => m.entryId)));
    if (edited.length > 0 && !session.readOnly) {
      const archived = await archiveEntries({ store: memory.store, embedder: memory.embedder }, { entries: edited, view });
      if (!archived.ok) this.options.log.warn(`memory: ${archived.error.message}`);
    }
    const result = await recallForTurn({ memory: memory.store, embedder: memory.embedder }, {
      instruction,
      lastReply: lastReply ? session.textOf(lastReply.id) : '',
      branchIds: session.pathIds(userEntryId),
      visible,
      k: settings.recallCount,
      lang: this.lang(),
      isCurrent: this.rowFilter(),
    });
    if (!result.ok) {
      this.options.log.warn(`recall: ${result.error.message}`);
      return undefined;
    }
    return result.value.block || undefined;
  }

  /** The memory_search tool for the agent, searching only the branch current when it runs. */
  searchTool(): ExtraTool {
    const lang = this.lang();
    return {
      spec: memoryToolSchema(lang),
      run: async (argsJson) => {
        const memory = await this.memory();
        if (!memory) return unavailable(lang);
        return runMemorySearch(
          { memory: memory.store, embedder: memory.embedder, branchIds: this.branchIds(), lang, isCurrent: this.rowFilter() },
          argsJson,
        );
      },
    };
  }

  /**
   * Old turns' tool payloads shortened to one line each in the replayed context. Old are the turns
   * before the active summary, so the boundary moves when a summary changes the prefix anyway;
   * without summaries it moves every `everyTurns` turns beyond the kept ones, and when the store
   * cannot be opened (no summary will come) every `keepTurns`, as small steps keep the context small.
   */
  transformContext(): ContextTransform {
    const lang = this.lang();
    return (messages, at) => {
      const { keepTurns, everyTurns } = this.options.settings().memory;
      const turns = messages.reduce((n, m) => (m.role === 'user' ? n + 1 : n), 0);
      const oldTurns = oldTurnsFor({ turns, beforeSummary: at.beforeSummary, keep: keepTurns, step: this.storeFailed ? keepTurns : everyTurns });
      return { messages: shortenOldToolPayloads(messages, oldTurns, { lang }), oldTurns };
    };
  }

  /**
   * A summary when one is due (every N turns beyond the last K), or, `manual` (Compact Now), at a
   * lower threshold. The covered text is archived first, then the summary entry is appended under
   * the leaf guard. Compactions run one at a time: a second waits for the first and plans afresh.
   * `signal`: the runner's, so closing the session or the window stops a summary under way.
   * `pressure`: how full the model's context window is (plan.ts: from 0.8 up it is due early).
   */
  compact(opts: { manual: boolean; signal?: AbortSignal; pressure?: number }): Promise<CompactOutcome> {
    const run = this.compacting.then(() => this.compactOnce(opts.manual, opts.signal, opts.pressure));
    this.compacting = run.catch(() => undefined);
    return run;
  }

  /** Closes the store (waiting for its writes). Later calls find no memory. */
  async close(): Promise<void> {
    this.closed = true;
    const opened = await this.opened;
    if (opened && 'store' in opened) await opened.store.close();
  }

  // ------------------------------------------------------------------------------------------

  private lang(): Lang {
    return this.options.branchOptions().lang;
  }

  private async compactOnce(manual: boolean, signal: AbortSignal | undefined, pressure: number | undefined): Promise<CompactOutcome> {
    const session = this.session;
    if (session.readOnly) return { kind: 'readOnly' };
    const settings = this.options.settings().memory;
    const { opening, lang } = this.options.branchOptions();
    const view = sessionTextView(session);
    const plan = planCompaction({
      path: session.path(), everyN: settings.everyTurns, keepLast: settings.keepTurns, manual, view, ...(pressure !== undefined ? { pressure } : {}),
    });
    if (!plan.due) return { kind: 'skipped', reason: plan.reason, text: planSkipText(plan, lang) };
    const memory = await this.memory();
    if (!memory) {
      // No summary without its archive: what it compresses must stay findable by recall.
      const reason = await this.failure();
      this.options.log.warn(`summary: not written, the memory store of this session cannot be opened (${reason})`);
      return { kind: 'noMemory', reason };
    }
    const { client, model } = await this.options.summaryModel();
    // The ledger is the scene state where the summary ends, not at the leaf: the kept turns follow it.
    const ledger = formatState(new Branch(session, plan.coversThroughId, { opening, lang }).state.state, { lang });
    const work = (): Promise<SummaryOutcome> => runSummary({
      client,
      model,
      getLeafId: () => session.leafId,
      isAncestorOrSelf: (a, b) => session.isAncestorOrSelf(a, b),
      archive: (entries) => archiveEntries({ store: memory.store, embedder: memory.embedder, ...(signal ? { signal } : {}) }, { entries, view }),
      ...(signal ? { signal } : {}),
      appendSummary: async (e, guard) => {
        await session.append({ type: 'summary', text: e.text, coversThroughId: e.coversThroughId }, { guard });
        await session.flush();
      },
    }, { plan, view, lang, ledger });
    const outcome = this.options.progress ? await this.options.progress(work) : await work();
    const why = plan.trigger === 'pressure' ? ` (context ${Math.round((pressure ?? 0) * 100)}% full)` : '';
    this.options.log.info(`summary${why}: ${outcome.kind}${outcome.kind === 'failed' ? ` (${outcome.error.stage}: ${outcome.error.message})` : ''}`);
    // runSummary skips only a plan that is not due, and this one was.
    if (outcome.kind === 'skipped') return { kind: 'skipped', reason: outcome.reason, text: '' };
    return outcome;
  }

  /** The store and its embedder, opened on first use; undefined when it cannot be used. */
  private async memory(): Promise<OpenMemory | undefined> {
    if (this.closed) return undefined;
    const opened = await (this.opened ??= this.openStore());
    return 'store' in opened ? opened : undefined;
  }

  private async failure(): Promise<string> {
    if (this.closed || !this.opened) return 'the session was closed';
    const opened = await this.opened;
    return 'failed' in opened ? opened.failed : 'the session was closed';
  }

  private async openStore(): Promise<OpenMemory | { failed: string }> {
    const opened = await this.openStoreOnce();
    if ('failed' in opened) this.storeFailed = true;
    return opened;
  }

  private async openStoreOnce(): Promise<OpenMemory | { failed: string }> {
    const { session, log } = this.options;
    let embedder: Embedder;
    try {
      embedder = await this.options.embedder();
    } catch (err) {
      const failed = `the embedder could not be set up: ${messageOf(err)}`;
      log.warn(`memory: ${failed}`);
      return { failed };
    }
    const opened = await MemoryStore.open({
      file: memoryFileFor(this.options.root, session.header.id), sessionId: session.header.id, embedder, readOnly: session.readOnly,
    });
    if (!opened.ok) {
      log.warn(`memory: ${opened.error.message}`);
      return { failed: opened.error.message };
    }
    for (const w of opened.value.report.warnings) log.warn(`memory: ${w}`);
    const store = opened.value.store;
    if (store.needsReembed && !session.readOnly) {
      const redone = await store.reembed(embedder);
      if (!redone.ok) log.warn(`memory: ${redone.error.message}`);
    }
    return { store, embedder };
  }
}
