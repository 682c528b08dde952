// Memory in VS Code: one vector store per session (.worldline/memory/<id>.jsonl), recall before
// each turn (filtered to the branch), the memory_search tool, summaries every N turns after the
// scribe, and Compact Now. Every failure costs only the memory, never the turn.
import * as vscode from 'vscode';
import {
  MemoryStore, archiveEntries, branchIdsOf, currentRowFilter, editedSinceArchive, localEmbedder, memoryFileFor, memoryToolSchema, openAIEmbedder,
  planCompaction, planSkipText, recallForTurn, runMemorySearch, runSummary, sessionTextView, shortenOldToolPayloads,
  type Embedder, type RowFilter, type SummaryOutcome,
} from '../memory';
import { createChatClient } from '../model/chatClient';
import { formatState } from '../state/format';
import { stateAt } from '../state/stateAt';
import type { ExtraTool } from '../agent/turnTypes';
import { isChainEntry, type ContextMessage } from '../session/entries';
import type { Session } from '../session/session';
import { readMemorySettings, readSettings, type ApiKeys } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

export class MemoryController implements vscode.Disposable {
  private open: { sessionId: string; store: Promise<MemoryStore | undefined>; embedder: Embedder } | undefined;
  private compacting: Promise<unknown> | undefined;

  constructor(
    private readonly keys: ApiKeys,
    private readonly getNovel: () => NovelWorkspace | undefined,
    private readonly log: Log,
  ) {}

  private async embedder(): Promise<Embedder> {
    const settings = readSettings();
    if (!settings.memory.embeddingModel) return localEmbedder();
    const keys = await this.keys.forRequests(settings);
    return openAIEmbedder({ baseURL: settings.endpoints.embeddings, apiKey: keys.embeddings, model: settings.memory.embeddingModel });
  }

  /** The session's memory store, opened once per session; undefined when it cannot be used. */
  private async storeFor(session: Session): Promise<{ store: MemoryStore; embedder: Embedder } | undefined> {
    const novel = this.getNovel();
    if (!novel) return undefined;
    if (!this.open || this.open.sessionId !== session.header.id) {
      const previous = this.open;
      const embedder = await this.embedder();
      const store = MemoryStore.open({
        file: memoryFileFor(novel.root.fsPath, session.header.id), sessionId: session.header.id, embedder, readOnly: session.readOnly,
      }).then(async (opened) => {
        if (!opened.ok) {
          this.log.warn(`memory: ${opened.error.message}`);
          return undefined;
        }
        for (const w of opened.value.report.warnings) this.log.warn(`memory: ${w}`);
        const store = opened.value.store;
        if (store.needsReembed && !session.readOnly) {
          const redone = await store.reembed(embedder);
          if (!redone.ok) this.log.warn(`memory: ${redone.error.message}`);
        }
        return store;
      });
      this.open = { sessionId: session.header.id, store, embedder };
      void previous?.store.then((s) => s?.close());
    }
    const store = await this.open.store;
    return store ? { store, embedder: this.open.embedder } : undefined;
  }

  /** 【相关回忆】: rows on this branch that match the instruction and the last reply, minus what is visible. */
  async recall(session: Session, userEntryId: string, instruction: string): Promise<string | undefined> {
    const settings = readMemorySettings();
    if (settings.recallCount === 0) return undefined;
    const memory = await this.storeFor(session);
    const novel = this.getNovel();
    if (!memory || !novel) return undefined;
    const path = session.path(userEntryId);
    const lastReply = [...path].reverse().find((e) => e.type === 'assistant' && e.id !== userEntryId);
    const visible = session.contextWithSummary(userEntryId).messages;
    const view = sessionTextView(session);
    // Messages edited after they were archived: their new words go into memory before recall.
    const edited = editedSinceArchive(path, (id) => session.sideFor(id, 'edit') !== undefined, new Set(visible.map((m) => m.entryId)));
    if (edited.length > 0 && !session.readOnly) {
      const archived = await archiveEntries({ store: memory.store, embedder: memory.embedder }, { entries: edited, view });
      if (!archived.ok) this.log.warn(`memory: ${archived.error.message}`);
    }
    const result = await recallForTurn({ memory: memory.store, embedder: memory.embedder }, {
      instruction,
      lastReply: lastReply ? session.textOf(lastReply.id) : '',
      branchIds: branchIdsOf(path),
      visible,
      k: settings.recallCount,
      lang: novel.language,
      isCurrent: rowFilterFor(session),
    });
    if (!result.ok) {
      this.log.warn(`recall: ${result.error.message}`);
      return undefined;
    }
    return result.value.block || undefined;
  }

  /** The memory_search tool for the agent, searching only the current branch. */
  searchTool(session: Session): ExtraTool {
    const lang = this.getNovel()?.language ?? 'en';
    return {
      spec: memoryToolSchema(lang),
      run: async (argsJson) => {
        const memory = await this.storeFor(session);
        if (!memory) return { result: lang === 'zh' ? '记忆暂时不可用，请不依赖检索继续。' : 'Memory is not available right now; continue without it.', isError: true };
        return runMemorySearch(
          { memory: memory.store, embedder: memory.embedder, branchIds: branchIdsOf(session.path()), lang, isCurrent: rowFilterFor(session) },
          argsJson,
        );
      },
    };
  }

  /** Old turns' tool payloads shortened to one line each in the replayed context. */
  transformContext(): (messages: ContextMessage[]) => ContextMessage[] {
    const lang = this.getNovel()?.language ?? 'en';
    return (messages) => shortenOldToolPayloads(messages, readMemorySettings().keepTurns, { lang });
  }

  /**
   * After a turn's scribe: a summary when one is due (every N turns beyond the last K), or now
   * (Compact Now, a lower threshold). The covered text is archived first, then the summary entry.
   */
  /** `signal`: the runner's, so closing the session or the window stops a summary under way. */
  async compact(session: Session, manual: boolean, signal?: AbortSignal): Promise<SummaryOutcome | undefined> {
    if (this.compacting) await this.compacting.catch(() => undefined);
    const run = this.compactOnce(session, manual, signal);
    this.compacting = run;
    try {
      return await run;
    } finally {
      if (this.compacting === run) this.compacting = undefined;
    }
  }

  private async compactOnce(session: Session, manual: boolean, signal?: AbortSignal): Promise<SummaryOutcome | undefined> {
    const novel = this.getNovel();
    if (!novel || session.readOnly) return undefined;
    const settings = readMemorySettings();
    const view = sessionTextView(session);
    const plan = planCompaction({ path: session.path(), everyN: settings.everyTurns, keepLast: settings.keepTurns, manual, view });
    if (!plan.due) {
      if (manual) void vscode.window.showInformationMessage(planSkipText(plan, novel.language));
      return { kind: 'skipped', reason: plan.reason };
    }
    const agent = readSettings();
    const apiKey = (await this.keys.forRequests(agent)).scribe;
    const client = createChatClient({ baseURL: agent.scribeBaseUrl, apiKey, model: agent.scribeModel });
    const memory = await this.storeFor(session);
    if (!memory) {
      // No summary without its archive: what it compresses must stay findable by recall.
      const message = vscode.l10n.t('The summary was not written: the memory store of this session cannot be opened (see the Worldline log).');
      this.log.warn(message);
      if (manual) void vscode.window.showWarningMessage(message);
      return undefined;
    }
    const ledger = formatState(stateAt(session.path(plan.coversThroughId), novel.config.opening, { lang: novel.language }).state, { lang: novel.language });
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Worldline: summarising older turns…') },
      () => runSummary({
        client,
        model: agent.scribeModel,
        getLeafId: () => session.leafId,
        isAncestorOrSelf: (a, b) => session.isAncestorOrSelf(a, b),
        archive: (entries) => archiveEntries({ store: memory.store, embedder: memory.embedder, ...(signal ? { signal } : {}) }, { entries, view }),
        ...(signal ? { signal } : {}),
        appendSummary: async (e, guard) => {
          await session.append({ type: 'summary', text: e.text, coversThroughId: e.coversThroughId }, { guard });
          await session.flush();
        },
      }, { plan, view, lang: novel.language, ledger }),
    );
    this.log.info(`summary: ${outcome.kind}${outcome.kind === 'failed' ? ` (${outcome.error.stage}: ${outcome.error.message})` : ''}`);
    if (manual) {
      if (outcome.kind === 'applied') void vscode.window.showInformationMessage(vscode.l10n.t('Summary written: the older turns are now carried as a summary on this branch.'));
      else if (outcome.kind === 'failed') void vscode.window.showWarningMessage(vscode.l10n.t('The summary failed: {0}', outcome.error.message));
      else if (outcome.kind === 'stale') void vscode.window.showInformationMessage(vscode.l10n.t('The branch changed while the summary was written, so it was dropped.'));
    }
    return outcome;
  }

  dispose(): void {
    void this.open?.store.then((s) => s?.close());
  }
}

/** Rows that still say what their message says (edits applied, hidden messages out). */
function rowFilterFor(session: Session): RowFilter {
  return currentRowFilter((id) => {
    const e = session.get(id);
    return e !== undefined && isChainEntry(e) ? e : undefined;
  }, sessionTextView(session));
}
