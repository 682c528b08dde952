// A question answered later ("bring the prose along?", "save these chapters first?", an Undo
// button) acts on the branch as it was when asked. When the answer comes, the branch is checked
// again: if it moved meanwhile, the action is dropped, never applied to a story that went on.

/** The branch a question was asked on. */
export interface BranchMark {
  readonly sessionId: string;
  readonly leafId: string | null;
  /** A turn was running when asked (a regenerate asks its own question while it runs). */
  readonly busy: boolean;
}

export interface MarkedSession {
  readonly header: { readonly id: string };
  readonly leafId: string | null;
}

/** The path lookup the check needs (a `Session` is one). */
export interface MarkTree {
  path(leafId: string | null): readonly { readonly id: string; readonly type: string }[];
}

export function markBranch(session: MarkedSession, busy: boolean): BranchMark {
  return { sessionId: session.header.id, leafId: session.leafId, busy };
}

/**
 * Why an answer no longer applies: another session is open (or none), the leaf moved (a turn was
 * sent, a variant switched, a save loaded, the prose pinned), or a turn started that was not
 * running when asked.
 */
export type StaleReason = 'session' | 'moved' | 'busy';

export type AnswerCheck = { current: true } | { current: false; reason: StaleReason };

/**
 * What may be appended under the asked leaf without changing what the answer is about: the
 * scribe's scene state and a compaction summary (both finish seconds after a turn, while its
 * notifications are up). They add no prose and no story; anything else does.
 */
const NOT_DRIFT: ReadonlySet<string> = new Set(['state', 'summary']);

/**
 * Is an answer to a question asked at `asked` still about the branch the novelist is on (`now`,
 * undefined when no session is open)? Yes when it is the same session, no turn started since, and
 * the leaf is the same or only a scene state or summary was appended below it. The tree is
 * append-only, so the path to a leaf, and the prose it resolves to, never change; side entries
 * (an edit, a label, a navigation that came back) do not matter.
 */
export function answerStillCurrent(asked: BranchMark, now: BranchMark | undefined, tree: MarkTree): AnswerCheck {
  if (!now || now.sessionId !== asked.sessionId) return { current: false, reason: 'session' };
  if (now.busy && !asked.busy) return { current: false, reason: 'busy' };
  if (now.leafId !== asked.leafId && !onlyBookkeepingBelow(asked.leafId, now.leafId, tree)) return { current: false, reason: 'moved' };
  return { current: true };
}

function onlyBookkeepingBelow(ancestor: string | null, leaf: string | null, tree: MarkTree): boolean {
  if (leaf === null) return false; // back before the first entry: the branch went elsewhere
  const path = tree.path(leaf);
  const from = ancestor === null ? 0 : path.findIndex((e) => e.id === ancestor) + 1;
  if (from === 0 && ancestor !== null) return false; // not below the asked leaf
  return path.slice(from).every((e) => NOT_DRIFT.has(e.type));
}
