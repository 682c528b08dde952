// The in-memory index of a session, built in one pass over the entries in file order and kept up
// to date by appends: id → entry, chain children per parent, the latest side entry per target and
// type, the leaf, and when each node was last the leaf (for the tip of a variant).
//
// Orphans: a chain entry whose parent is not a chain entry of the session (its parent's line was
// corrupt, or the file was edited by hand) is kept and treated as a root, so it and its subtree
// stay reachable as a variant at the top of the tree. Its `parentId` field is left as written.
//
// Loops: during the pass an entry whose parent has not been seen yet (or is itself) is held as a
// root; `settle()` after the last line links such entries to parents that appeared later and cuts
// every entry whose chain of parents loops (a self-parent, A→B→A, longer loops), together with
// everything below it, since such an entry has no place in a tree. Cut entries leave the index
// (their ids stay reserved), so the tree is always a forest and every walk over it ends.

import { ChainEntry, Entry, SideEntry, SideEntryOf, SideType, isChainEntry } from './entries';
import { LineReports } from './jsonl-lines';

type SideSlots = { [T in SideType]?: SideEntryOf<T> };

/** One record per entry, so indexing an entry costs one map insert and one parent lookup. */
interface Node {
  entry: Entry;
  /** Chain children in file order (chain entries only). */
  children: ChainEntry[] | undefined;
  /** Sequence number of the last time this node became the leaf (append or navigation). */
  leafSeq: number;
  orphan: boolean;
  /** 1-based line in the file (0 for entries not read from a file). */
  line: number;
}

/** What `settle()` found, phrased for a load report. */
export interface SettleReport {
  /** Entries cut from the tree, by line (past 1,000, the rest in one last report). */
  cut: { line: number; error: string }[];
  /** Cut entries summed up in the last report instead of one by one. */
  unlistedCut: number;
  /** The first warnings (at most MAX_SETTLE_WARNINGS); `moreWarnings` counts the rest. */
  warnings: { line: number; text: string }[];
  moreWarnings: number;
}

const MAX_SETTLE_WARNINGS = 100;

const OK = 1;
const ON_WALK = 2;
const LOOP = 3;
const BELOW = 4;

export class TreeIndex {
  private readonly nodes = new Map<string, Node>();
  private ordered: Entry[] = [];
  private readonly roots: ChainEntry[] = [];
  private readonly sides = new Map<string, SideSlots>();
  /** Ids of cut entries: never given to a new entry (the file still holds them). */
  private readonly reserved = new Set<string>();
  /** Entries held as roots because their parent was not seen before them. */
  private pending: Node[] = [];
  private seq = 0;
  private leaf: string | null = null;

  get leafId(): string | null {
    return this.leaf;
  }

  get size(): number {
    return this.ordered.length;
  }

  /** All entries, file order. */
  all(): readonly Entry[] {
    return this.ordered;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** True when a new entry must not take this id: it is in the index or in a cut part of the file. */
  isTaken(id: string): boolean {
    return this.nodes.has(id) || this.reserved.has(id);
  }

  get(id: string): Entry | undefined {
    return this.nodes.get(id)?.entry;
  }

  chain(id: string): ChainEntry | undefined {
    const entry = this.nodes.get(id)?.entry;
    return entry && isChainEntry(entry) ? entry : undefined;
  }

  /** The parent used by the tree: the written parent, or null for roots and orphans. */
  parentOf(entry: ChainEntry): string | null {
    return this.nodes.get(entry.id)?.orphan ? null : entry.parentId;
  }

  isOrphan(id: string): boolean {
    return this.nodes.get(id)?.orphan ?? false;
  }

  /** Chain children in file order (live array: callers must copy before handing it out). */
  childrenOf(parentId: string | null): readonly ChainEntry[] {
    if (parentId === null) return this.roots;
    return this.nodes.get(parentId)?.children ?? EMPTY;
  }

  side<T extends SideType>(targetId: string, type: T): SideEntryOf<T> | undefined {
    return this.sides.get(targetId)?.[type];
  }

  leafSeqOf(id: string): number {
    return this.nodes.get(id)?.leafSeq ?? 0;
  }

  /**
   * Adds an entry in file order. Returns an error (the entry is rejected as corrupt) or a warning
   * (the entry is kept), both phrased for a load report.
   */
  add(entry: Entry, line = 0): { error?: string; warning?: string } {
    if (this.nodes.has(entry.id)) return { error: `an entry with id ${entry.id} appears earlier in the file` };
    if (this.reserved.has(entry.id)) return { error: `an entry with id ${entry.id} appears earlier in the file, in a part that was left out` };
    const node: Node = { entry, children: undefined, leafSeq: 0, orphan: false, line };
    this.nodes.set(entry.id, node);
    this.ordered.push(entry);
    return isChainEntry(entry) ? this.addChain(entry, node) : this.addSide(entry);
  }

  /**
   * Call once after the last line of a file: links entries whose parent came later in the file,
   * cuts looping chains and what hangs below them, and reports entries whose parent is missing.
   * Cost is linear in the number of entries.
   */
  settle(): SettleReport {
    const report: SettleReport = { cut: [], unlistedCut: 0, warnings: [], moreWarnings: 0 };
    let relink = false;
    for (const node of this.pending) {
      if (!this.nodes.has(node.entry.id)) continue;
      if (this.rawParent(node)) relink = true;
      else if (report.warnings.length >= MAX_SETTLE_WARNINGS) report.moreWarnings++;
      else {
        report.warnings.push({
          line: node.line,
          text: `${node.entry.type} entry ${node.entry.id}: its parent ${node.entry.parentId} is missing; it is shown as a separate branch from the start`,
        });
      }
    }
    this.pending = [];
    if (relink) this.relink(report);
    return report;
  }

  private addChain(entry: ChainEntry, node: Node): Record<string, never> {
    // A self-parent is held as a root like a forward reference; settle() cuts it.
    const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : this.nodes.get(entry.parentId);
    if (entry.parentId === null) {
      this.roots.push(entry);
    } else if (parent && isChainEntry(parent.entry)) {
      if (parent.children) parent.children.push(entry);
      else parent.children = [entry];
    } else {
      node.orphan = true;
      this.roots.push(entry);
      this.pending.push(node);
    }
    this.moveLeaf(node);
    return {};
  }

  private addSide(entry: SideEntry): { warning?: string } {
    if (entry.type === 'leaf') {
      const target = entry.targetId;
      const node = target === null ? null : this.nodes.get(target);
      if (node === undefined || (node !== null && !isChainEntry(node.entry))) {
        return { warning: `a navigation to unknown entry ${target} was ignored` };
      }
      this.moveLeaf(node);
    }
    if (entry.targetId === null) return {};
    let slots = this.sides.get(entry.targetId);
    if (!slots) this.sides.set(entry.targetId, (slots = {}));
    // Latest wins: file order is write order.
    (slots as Record<SideType, SideEntry | undefined>)[entry.type] = entry;
    return {};
  }

  private moveLeaf(node: Node | null): void {
    this.seq++;
    this.leaf = node ? node.entry.id : null;
    if (node) node.leafSeq = this.seq;
  }

  /** The written parent when it is a chain entry of the index (itself included), else undefined. */
  private rawParent(node: Node): Node | undefined {
    const id = node.entry.parentId;
    if (id === null) return undefined;
    const parent = this.nodes.get(id);
    return parent && isChainEntry(parent.entry) ? parent : undefined;
  }

  /** Classifies every chain node by following written parents, cuts loops, rebuilds the tree. */
  private relink(report: SettleReport): void {
    const chainNodes: Node[] = [];
    for (const entry of this.ordered) if (isChainEntry(entry)) chainNodes.push(this.nodes.get(entry.id) as Node);
    const mark = new Map<Node, number>();
    const loopOf = new Map<Node, number[]>(); // the lines of the loop a cut node is in or below
    for (const start of chainNodes) {
      if (mark.has(start)) continue;
      const walk: Node[] = [];
      let current: Node | undefined = start;
      while (current && !mark.has(current)) {
        mark.set(current, ON_WALK);
        walk.push(current);
        current = this.rawParent(current);
      }
      let fate = OK;
      let loop: number[] | undefined;
      if (current) {
        const seen = mark.get(current) as number;
        if (seen === ON_WALK) {
          const at = walk.indexOf(current);
          const members = walk.splice(at);
          loop = members.map((n) => n.line).sort((a, b) => a - b);
          for (const n of members) {
            mark.set(n, LOOP);
            loopOf.set(n, loop);
          }
          fate = BELOW;
        } else if (seen !== OK) {
          fate = BELOW;
          loop = loopOf.get(current);
        }
      }
      for (const n of walk) {
        mark.set(n, fate);
        if (loop) loopOf.set(n, loop);
      }
    }

    const wasLeaf = this.leaf === null ? undefined : this.nodes.get(this.leaf);
    let cutAny = false;
    // Reported one by one up to a point, then in one report, so a loop near the root of a long
    // session neither floods the log nor fills memory.
    const cut = new LineReports();
    for (const node of chainNodes) {
      const fate = mark.get(node);
      if (fate === OK) continue;
      cutAny = true;
      this.nodes.delete(node.entry.id);
      this.reserved.add(node.entry.id);
      const lines = loopOf.get(node) ?? [];
      const { type, id } = node.entry;
      cut.add(
        node.line,
        fate !== LOOP
          ? `${type} entry ${id} hangs below a loop of parents (${linesText(lines)}), so it was left out with it`
          : lines.length === 1
            ? `${type} entry ${id} names itself as its parent, so it has no place in the conversation tree and was left out`
            : `${type} entry ${id}: its chain of parents loops back to itself (${linesText(lines)}), so it has no place in the conversation tree and was left out`,
      );
    }
    report.cut = cut.finish('entries in or below loops of parents');
    report.unlistedCut = cut.hidden;
    if (cutAny) this.ordered = this.ordered.filter((e) => this.nodes.has(e.id));

    // Rebuild children in file order from the written parents, now all inside the forest.
    this.roots.length = 0;
    for (const entry of this.ordered) if (isChainEntry(entry)) (this.nodes.get(entry.id) as Node).children = undefined;
    for (const entry of this.ordered) {
      if (!isChainEntry(entry)) continue;
      const node = this.nodes.get(entry.id) as Node;
      const parent = this.rawParent(node);
      node.orphan = !parent && entry.parentId !== null;
      if (!parent) this.roots.push(entry);
      else if (parent.children) parent.children.push(entry);
      else parent.children = [entry];
    }

    if (wasLeaf && !this.nodes.has(wasLeaf.entry.id)) {
      // Land where the novelist last was among what remains.
      let best: Node | null = null;
      for (const entry of this.ordered) {
        const node = this.nodes.get(entry.id) as Node;
        if (isChainEntry(entry) && node.leafSeq > (best?.leafSeq ?? 0)) best = node;
      }
      this.leaf = best ? best.entry.id : null;
      report.warnings.push({
        line: wasLeaf.line,
        text: `the place you were in the conversation (entry ${wasLeaf.entry.id}) was in the part left out; the session opens at the last place before it`,
      });
    }
  }
}

function linesText(lines: number[]): string {
  if (lines.length === 0) return 'lines unknown';
  const shown = lines.slice(0, 6).join(', ');
  return `line${lines.length === 1 ? '' : 's'} ${shown}${lines.length > 6 ? `, … (${lines.length} lines)` : ''}`;
}

const EMPTY: readonly ChainEntry[] = Object.freeze([]);
