// What a session answers about its current branch, kept between reads (issue 13): the path
// (keptPath.ts), the active summary, and the model's context after it (keptContext.ts). Only the
// write hook `written` is pushed to (edits, hides, new variants); everything else syncs when read.

import type { TextSource } from './context';
import { isChainEntry, type ChainEntry, type ContextMessage, type Entry, type SummaryEntry } from './entries';
import { KeptContext } from './keptContext';
import { KeptPath, type PathIndex } from './keptPath';

/** The index as the kept branch reads it. */
export interface BranchIndex extends PathIndex {
  childrenOf(parentId: string | null): readonly ChainEntry[];
  /** Every entry, file order. */
  all(): readonly Entry[];
}

export interface SummaryView {
  summary?: SummaryEntry;
  summaryText?: string;
  messages: readonly ContextMessage[];
}

interface ActiveSummary {
  summary: SummaryEntry;
  firstUncovered: number;
}

export class KeptBranch {
  readonly path: KeptPath;
  /** The context from the active summary on (or from the root, without one). */
  private readonly tail: KeptContext;
  /** The whole branch's context, only for `Session.context()` while a summary is active. */
  private whole: KeptContext | undefined;
  private summaryMemo: { revision: number; hides: number; active: ActiveSummary | undefined } | undefined;
  private hides = 0;
  /**
   * Entries whose text, visibility or variant count changed since the session opened, in order:
   * the targets of edits and hides, and the siblings of each new variant.
   */
  private readonly changeLog: string[] = [];
  /** Ids of every entry with an edit, gathered at the first ask and kept up to date after. */
  private edited: Set<string> | undefined;

  constructor(private readonly index: BranchIndex, private readonly source: TextSource) {
    this.path = new KeptPath(index);
    this.tail = new KeptContext(source);
  }

  /** Called by the session right after an entry it wrote is indexed. */
  written(entry: Entry): void {
    if (entry.type === 'edit') {
      this.edited?.add(entry.targetId);
      this.changeLog.push(entry.targetId);
      this.tail.edited(this.path, entry.targetId);
      this.whole?.edited(this.path, entry.targetId);
    } else if (entry.type === 'hide') {
      this.changeLog.push(entry.targetId);
      this.hides++;
      this.tail.hidden(this.path, entry.targetId);
      this.whole?.hidden(this.path, entry.targetId);
    } else if (isChainEntry(entry)) {
      const siblings = this.index.childrenOf(this.index.parentOf(entry));
      if (siblings.length > 1) for (const s of siblings) if (s !== entry && s.type === entry.type) this.changeLog.push(s.id);
    }
  }

  /** The entries whose text, visibility or variants changed since `cursor`, and the next cursor. */
  displayChangesSince(cursor: number): { cursor: number; ids: readonly string[] } {
    const log = this.changeLog;
    return { cursor: log.length, ids: cursor >= log.length ? [] : log.slice(cursor) };
  }

  /** The edited entries on the synced path, root first: one look per edited entry, not per entry. */
  editedOnPath(): ChainEntry[] {
    if (!this.edited) {
      this.edited = new Set();
      for (const e of this.index.all()) if (e.type === 'edit') this.edited.add(e.targetId);
    }
    const path = this.path;
    path.sync();
    const on: number[] = [];
    for (const id of this.edited) {
      const at = path.livePosition(id);
      if (at !== undefined) on.push(at);
    }
    return on.sort((a, b) => a - b).map((at) => path.at(at) as ChainEntry);
  }

  /** As `activeSummary` in context.ts, for the kept path: usually one look at the last summary. */
  activeSummary(): ActiveSummary | undefined {
    const path = this.path;
    path.sync();
    const memo = this.summaryMemo;
    if (memo && memo.revision === path.revision && memo.hides === this.hides) return memo.active;
    let active: ActiveSummary | undefined;
    const summaries = path.positionsOfType('summary');
    for (let i = summaries.length - 1; i >= 0 && !active; i--) {
      const summary = path.at(summaries[i] as number) as SummaryEntry;
      if (this.source.isHidden(summary.id)) continue;
      const covered = path.livePosition(summary.coversThroughId);
      if (covered !== undefined) active = { summary, firstUncovered: covered + 1 };
    }
    this.summaryMemo = { revision: path.revision, hides: this.hides, active };
    return active;
  }

  contextWithSummary(): SummaryView {
    const active = this.activeSummary();
    const messages = this.tail.read(this.path, active?.firstUncovered ?? 0);
    if (!active) return { messages };
    return { summary: active.summary, summaryText: this.source.textOf(active.summary), messages };
  }

  /** The whole branch's context: the summary's part when there is no summary, else its own. */
  context(): readonly ContextMessage[] {
    if (!this.activeSummary()) return this.tail.read(this.path, 0);
    this.whole ??= new KeptContext(this.source);
    return this.whole.read(this.path, 0);
  }

  /** How often a context part was built from its start (benches count them). */
  get contextBuilds(): number {
    return this.tail.builds + (this.whole?.builds ?? 0);
  }
}
