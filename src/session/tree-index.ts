// The in-memory index of a session, built in one pass over the entries in file order and kept up
// to date by appends: id → entry, chain children per parent, the latest side entry per target and
// type, the leaf, and when each node was last the leaf (for the tip of a variant).
//
// Orphans: a chain entry whose parent is not a chain entry seen before it (its parent's line was
// corrupt, or the file was edited by hand) is kept and treated as a root, so it and its subtree
// stay reachable as a variant at the top of the tree. Its `parentId` field is left as written.

import { ChainEntry, Entry, SideEntry, SideEntryOf, SideType, isChainEntry } from './entries';

type SideSlots = { [T in SideType]?: SideEntryOf<T> };

/** One record per entry, so indexing an entry costs one map insert and one parent lookup. */
interface Node {
  entry: Entry;
  /** Chain children in file order (chain entries only). */
  children: ChainEntry[] | undefined;
  /** Sequence number of the last time this node became the leaf (append or navigation). */
  leafSeq: number;
  orphan: boolean;
}

export class TreeIndex {
  private readonly nodes = new Map<string, Node>();
  private readonly ordered: Entry[] = [];
  private readonly roots: ChainEntry[] = [];
  private readonly sides = new Map<string, SideSlots>();
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
  add(entry: Entry): { error?: string; warning?: string } {
    if (this.nodes.has(entry.id)) return { error: `an entry with id ${entry.id} appears earlier in the file` };
    const node: Node = { entry, children: undefined, leafSeq: 0, orphan: false };
    this.nodes.set(entry.id, node);
    this.ordered.push(entry);
    return isChainEntry(entry) ? this.addChain(entry, node) : this.addSide(entry);
  }

  private addChain(entry: ChainEntry, node: Node): { warning?: string } {
    let warning: string | undefined;
    if (entry.parentId === null) {
      this.roots.push(entry);
    } else {
      const parent = this.nodes.get(entry.parentId);
      if (parent && isChainEntry(parent.entry)) {
        if (parent.children) parent.children.push(entry);
        else parent.children = [entry];
      } else {
        node.orphan = true;
        this.roots.push(entry);
        warning = `${entry.type} entry ${entry.id}: its parent ${entry.parentId} is missing; it is shown as a separate branch from the start`;
      }
    }
    this.moveLeaf(node);
    return { warning };
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
}

const EMPTY: readonly ChainEntry[] = Object.freeze([]);
