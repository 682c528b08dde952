// The review of a writing tool's versions (Rewrite ×3 and the like) as a value: which turn, which
// sibling replies (the same variants the Chat shows ◀ n/m ▶), which one is current and the
// checkpoint before the turn (the original prose). Computed from the tree each time it is asked
// for, so the Chat's ◀ ▶ and the editor's Previous / Next always agree; when the branch leaves
// the turn, the review is over. Pure.

/** What a review reads from the session tree (a `Session` is one). */
export interface ReviewSource {
  children(id: string | null): readonly { readonly id: string; readonly type: string }[];
  /** The current branch, root to leaf. */
  path(): readonly { readonly id: string }[];
}

/** What stays fixed for a review: the file, the turn's instruction and the prose before it. */
export interface ReviewBase {
  /** The manuscript file the tool worked on. */
  readonly file: string;
  readonly userEntryId: string;
  /** The checkpoint before the turn: the original prose, for the diff and for Discard. */
  readonly original: { readonly checkpointId: string; readonly commit: string };
}

export interface VersionReview extends ReviewBase {
  /** The turn's replies (one per version), oldest first, as the Chat counts them. */
  readonly replies: readonly string[];
  /** 0-based: the reply on the current branch. */
  readonly index: number;
}

export type ReviewAction = 'previous' | 'next' | 'accept' | 'discard';

/** The review as the tree has it now; undefined when the branch no longer goes through one of the turn's replies. */
export function reviewAt(source: ReviewSource, base: ReviewBase): VersionReview | undefined {
  const replies = source.children(base.userEntryId).filter((e) => e.type === 'assistant').map((e) => e.id);
  const onPath = new Set(source.path().map((e) => e.id));
  const index = replies.findIndex((id) => onPath.has(id));
  if (index < 0) return undefined;
  return { ...base, replies, index };
}

/** ◀ n/m ▶: the current version, 1-based, and how many there are. */
export function positionOf(review: VersionReview): { n: number; m: number } {
  return { n: review.index + 1, m: review.replies.length };
}

/** Whether an action applies: Previous and Next stop at the ends; Accept and Discard always apply. */
export function canDo(review: VersionReview, action: ReviewAction): boolean {
  if (action === 'previous') return review.index > 0;
  if (action === 'next') return review.index < review.replies.length - 1;
  return true;
}

/** The reply to switch from and the step, for Previous / Next; undefined at either end. */
export function stepOf(review: VersionReview, delta: -1 | 1): { replyId: string; delta: -1 | 1 } | undefined {
  if (!canDo(review, delta < 0 ? 'previous' : 'next')) return undefined;
  const replyId = review.replies[review.index];
  return replyId === undefined ? undefined : { replyId, delta };
}
