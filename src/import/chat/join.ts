// Joins a SillyTavern chat and its branch and checkpoint files into one tree (issue 16, "Branches").
// SillyTavern links the files only by name (`main_chat`) and each is a prefix copy of the chat it
// came from, so the files are laid over each other: a message shares the node of the same message
// under the same parent, and where a file differs (an edit, a hide, another chosen swipe) the tree
// forks there. Messages go by line, never by `send_date` (dates are often missing or out of order).
//
// A node's key is (isUser, name, text, hidden). When a message slot is first met, every swipe of it
// becomes a sibling node, in swipe order, and the chosen one carries the file's path on. A later
// file's swipes that are missing under that parent are added after the existing siblings. A
// non-chosen swipe counts as present whatever its hidden flag (hiding applies to the shown message;
// a hidden copy of every other swipe would only clutter ◀ ▶), the chosen one only with its own flag,
// because in Worldline a hide belongs to one node. No two siblings ever share a key. Pure.

import { chatFamilies, chatName, parentChatName } from './families';
import type { ChatFile, ChatSwipe, ImportCounts } from './types';

export interface JoinNode {
  /** Creation order: a parent always comes before its children. */
  readonly index: number;
  readonly parent: JoinNode | null;
  readonly isUser: boolean;
  readonly name: string;
  readonly text: string;
  readonly hidden: boolean;
  /** The swipe the node was made from: its dates, reasoning, extra, swipe_info. */
  readonly swipe: ChatSwipe;
  /** The file and 1-based line the node was first made from (for messages about it). */
  readonly file: string;
  readonly line: number;
  /** The message's other fields, from the first file whose shown swipe this node is. */
  fields?: Record<string, unknown>;
  /** True when some file's path goes through the node (it is the shown swipe there). */
  onPath: boolean;
  readonly children: JoinNode[];
}

export interface JoinedFile {
  readonly file: ChatFile;
  /** The node of the file's last message; null for a file without messages. */
  readonly end: JoinNode | null;
}

export type JoinedChats =
  | {
      readonly ok: true;
      /** Every node, in creation order (parents first). */
      readonly nodes: readonly JoinNode[];
      readonly roots: readonly JoinNode[];
      /** The files in the order given, each with where it ends. */
      readonly files: readonly JoinedFile[];
      /** The file the session opens at the end of (index into `files`). */
      readonly main: number;
      readonly counts: ImportCounts;
    }
  /** The tree would pass `maxNodes`; the join stopped there. */
  | { readonly ok: false; readonly tooLarge: true; readonly nodes: number };

export interface JoinOptions {
  /** The chat to open at (its file name, `.jsonl` optional). Default: the family's root. */
  main?: string;
  /** Stop once the tree has more nodes than this (absurd input must not exhaust memory). */
  maxNodes?: number;
}

/**
 * The file a joined session opens at: the one named, else the root of the links (a chat with no
 * `main_chat`, or one naming a chat not among the files), else the first.
 */
export function mainIndex(files: readonly Pick<ChatFile, 'name' | 'mainChat' | 'isGroup'>[], main?: string): number {
  if (main !== undefined) {
    const wanted = chatName(main);
    const named = files.findIndex((f) => chatName(f.name) === wanted);
    if (named >= 0) return named;
  }
  const names = new Set(files.map((f) => chatName(f.name)));
  const root = files.findIndex((f) => {
    const up = parentChatName(f);
    return up === undefined || !names.has(chatName(up)) || chatName(up) === chatName(f.name);
  });
  return root >= 0 ? root : 0;
}

/** Past this many children a parent gets maps; below, a scan is cheaper than building keys. */
const SCAN_LIMIT = 8;

/** The children of one parent (or the roots), found by key. */
class Siblings {
  readonly list: JoinNode[];
  private exact: Map<string, JoinNode> | undefined;
  private loose: Map<string, JoinNode> | undefined;

  constructor(list: JoinNode[]) {
    this.list = list;
  }

  /** The child with this key. */
  find(isUser: boolean, name: string, text: string, hidden: boolean): JoinNode | undefined {
    if (this.exact) return this.exact.get(exactKey(isUser, name, text, hidden));
    for (const n of this.list) if (n.text === text && n.isUser === isUser && n.hidden === hidden && n.name === name) return n;
    return undefined;
  }

  /** A child with this speaker and text, hidden or not. */
  has(isUser: boolean, name: string, text: string): boolean {
    if (this.loose) return this.loose.has(looseKey(isUser, name, text));
    for (const n of this.list) if (n.text === text && n.isUser === isUser && n.name === name) return true;
    return false;
  }

  add(node: JoinNode): void {
    this.list.push(node);
    if (this.exact && this.loose) {
      this.index(node);
    } else if (this.list.length > SCAN_LIMIT) {
      this.exact = new Map();
      this.loose = new Map();
      for (const n of this.list) this.index(n);
    }
  }

  private index(n: JoinNode): void {
    this.exact?.set(exactKey(n.isUser, n.name, n.text, n.hidden), n);
    const loose = looseKey(n.isUser, n.name, n.text);
    if (!this.loose?.has(loose)) this.loose?.set(loose, n);
  }
}

function looseKey(isUser: boolean, name: string, text: string): string {
  return `${isUser ? 'u' : 'c'}${name.length}:${name}${text}`;
}

function exactKey(isUser: boolean, name: string, text: string, hidden: boolean): string {
  return `${hidden ? 'h' : 's'}${looseKey(isUser, name, text)}`;
}

/**
 * Joins the files into one tree. The main file's path is laid first, so its nodes come first among
 * siblings; then each chat before the chats made from it (families.ts), so the order of siblings
 * does not depend on the order the folder lists the files in.
 */
export function joinChats(files: readonly ChatFile[], opts: JoinOptions = {}): JoinedChats {
  const maxNodes = opts.maxNodes ?? Number.MAX_SAFE_INTEGER;
  const main = mainIndex(files, opts.main);
  const nodes: JoinNode[] = [];
  const roots: JoinNode[] = [];
  const rootSiblings = new Siblings(roots);
  /** Siblings per node index (created with the node). */
  const siblingsOf: Siblings[] = [];
  const ends: (JoinNode | null)[] = files.map(() => null);
  const linked = chatFamilies(files.map((f, i) => ({ name: f.name, mainChat: f.mainChat, isGroup: f.isGroup, i }))).flatMap((family) => family.files.map((f) => f.i));
  const order = [main, ...linked.filter((i) => i !== main)];

  for (const fi of order) {
    const file = files[fi] as ChatFile;
    let parent: JoinNode | null = null;
    for (const m of file.messages) {
      const swipes = m.swipes;
      if (swipes.length === 0) continue; // the reader never makes one; nothing to place
      const chosen = Math.min(Math.max(0, Math.trunc(m.chosen) || 0), swipes.length - 1);
      const kids: Siblings = parent === null ? rootSiblings : (siblingsOf[parent.index] as Siblings);
      let next: JoinNode | undefined;
      for (let i = 0; i < swipes.length; i++) {
        const swipe = swipes[i] as ChatSwipe;
        const text = swipe.text;
        if (i === chosen) {
          next = kids.find(m.isUser, m.name, text, m.hidden);
          if (next) continue;
        } else if (kids.has(m.isUser, m.name, text)) continue;
        if (nodes.length >= maxNodes) return { ok: false, tooLarge: true, nodes: nodes.length + 1 };
        const node: JoinNode = {
          index: nodes.length,
          parent,
          isUser: m.isUser,
          name: m.name,
          text,
          hidden: m.hidden,
          swipe,
          file: file.name,
          line: m.line,
          onPath: false,
          children: [],
        };
        nodes.push(node);
        siblingsOf.push(new Siblings(node.children));
        kids.add(node);
        if (i === chosen) next = node;
      }
      const at = next as JoinNode;
      at.onPath = true;
      if (at.fields === undefined && m.fields !== undefined) at.fields = m.fields;
      parent = at;
    }
    ends[fi] = parent;
  }

  return {
    ok: true,
    nodes,
    roots,
    files: files.map((file, i) => ({ file, end: ends[i] ?? null })),
    main,
    counts: countsOf(files, nodes, roots),
  };
}

function countsOf(files: readonly ChatFile[], nodes: readonly JoinNode[], roots: readonly JoinNode[]): ImportCounts {
  let messages = 0;
  let branches = 0;
  let hidden = 0;
  const tally = (children: readonly JoinNode[]): void => {
    let users = false;
    let others = false;
    let paths = 0;
    for (const c of children) {
      if (c.isUser) users = true;
      else others = true;
      if (c.onPath) paths++;
    }
    // A slot is the children of one parent of one kind: ◀ ▶ moves among the same kind only.
    messages += (users ? 1 : 0) + (others ? 1 : 0);
    if (paths > 1) branches++;
  };
  tally(roots);
  for (const n of nodes) {
    if (n.children.length > 0) tally(n.children);
    if (n.hidden && n.onPath) hidden++;
  }
  let skippedLines = 0;
  let systemNotices = 0;
  for (const f of files) {
    skippedLines += f.skipped.length;
    systemNotices += f.systemNotices;
  }
  return { messages, variants: nodes.length - messages, files: files.length, branches, hidden, skippedLines, systemNotices };
}
