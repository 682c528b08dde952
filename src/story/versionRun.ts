// The writing tools' verbs over the Story (DESIGN, "The session tree", "Checkpoints"): a tool's
// instruction is a turn (Send), each further version a regenerate of it (a sibling reply with its
// own checkpoint and scribe), and the review that follows steps among them with the prose brought
// along, keeps one (Accept) or brings the original back through the checkpoint before the turn
// (Discard: the Story's Restore Prose Only, with its Undo). The state is ./versionReview.ts.
import type { Story, RestoreOutcome } from './story';
import { RerunCancelledError } from './turns';
import { reviewAt, stepOf, type ReviewBase, type VersionReview } from './versionReview';

/** What a tool's run came to. */
export type VersionRun =
  /** The turn(s) ran: the review is open on the newest version. `made`: how many versions were written. */
  | { kind: 'review'; review: VersionReview; made: number }
  /** No turn was written (refused, cancelled, or it failed: the Chat's notice says why). */
  | { kind: 'noTurn' }
  /** The turns ran but there is no checkpoint before them (checkpoints are off): nothing to compare or discard. */
  | { kind: 'noOriginal'; made: number };

/** Most versions one run writes: each is a whole turn of the model. */
export const MAX_VERSIONS = 10;

export class VersionReviews {
  private base: ReviewBase | undefined;

  constructor(private readonly story: Story) {}

  /**
   * The open review as the tree has it now; undefined when none is open, or while the leaf is at
   * the turn's instruction itself (a version being written: the review goes on with it). When
   * the branch left the turn, the review is over.
   */
  get current(): VersionReview | undefined {
    const base = this.base;
    if (!base) return undefined;
    const session = this.story.session;
    const review = reviewAt(session, base);
    if (!review && !session.path().some((e) => e.id === base.userEntryId)) this.base = undefined;
    return review;
  }

  /**
   * Runs the tool's instruction as a turn, then `versions - 1` regenerates of it (stopping at the
   * first that does not end well), and opens the review on the last version written.
   */
  async run(opts: { instruction: string; file: string; versions: number }): Promise<VersionRun> {
    const count = Math.max(1, Math.min(MAX_VERSIONS, Math.floor(opts.versions) || 1));
    const log = this.story.host.log;
    const first = await this.story.send(opts.instruction);
    const userEntryId = first?.userEntryId;
    if (!first || first.status !== 'done' || userEntryId === undefined) {
      log.info(`writing tools: ${first ? `the turn ended ${first.status}${first.error ? `: ${first.error}` : ''}` : 'the turn did not start'}; no versions to review`);
      return { kind: 'noTurn' };
    }
    const session = this.story.session;
    const user = session.get(userEntryId);
    const before = user ? session.lastOnPath('checkpoint', user.parentId) : undefined;
    const base: ReviewBase | undefined = before && { file: opts.file, userEntryId, original: { checkpointId: before.id, commit: before.commit } };
    const made = await this.more(userEntryId, count, base);
    if (!base) return { kind: 'noOriginal', made };
    this.base = base;
    const review = this.current;
    return review ? { kind: 'review', review, made } : { kind: 'noTurn' };
  }

  /**
   * The versions after the first, up to `count` in all. A version that fails stays a variant (as
   * in the Chat), but the branch goes back to the last good one, its prose with it.
   */
  private async more(userEntryId: string, count: number, base: ReviewBase | undefined): Promise<number> {
    const session = this.story.session;
    const onPath = (): string | undefined => {
      const path = new Set(session.path().map((e) => e.id));
      return session.children(userEntryId).find((e) => e.type === 'assistant' && path.has(e.id))?.id;
    };
    let made = 1;
    let good = onPath();
    while (made < count) {
      const again = await this.story.regenerate(userEntryId);
      if (!again || again.status !== 'done') {
        this.story.host.log.info(`writing tools: version ${made + 1} ${again ? `ended ${again.status}${again.error ? `: ${again.error}` : ''}` : 'did not start'}; back to version ${made}`);
        // The failed reply stays a variant; the branch goes back to the last good one. Its prose
        // comes along when the rerun had put the original back (not when the novelist kept
        // unsaved editors: then the prose was never touched, and is theirs).
        if (good !== undefined && onPath() !== good) {
          const kept = again?.error === new RerunCancelledError(this.story.host.project().lang).message;
          const brought = !kept && base !== undefined && (await this.story.switchVariant(good, 0, { bringProse: true }));
          if (!brought) await this.story.moveLeaf(session.tipOf(good));
        }
        break;
      }
      made++;
      good = onPath();
    }
    return made;
  }

  /** Previous / Next: the neighbouring version, its prose brought along (no question asked). */
  async step(delta: -1 | 1): Promise<VersionReview | undefined> {
    const review = this.current;
    const step = review && stepOf(review, delta);
    if (!step) return review;
    await this.story.switchVariant(step.replyId, step.delta, { bringProse: true });
    return this.current;
  }

  /** Accept: the current version's prose stays on the branch; the review closes. */
  accept(): VersionReview | undefined {
    const review = this.current;
    this.base = undefined;
    return review;
  }

  /**
   * Discard: the prose goes back to the checkpoint before the turn (Restore Prose Only, undoable);
   * the versions stay as variants. The review stays open when the restore did not happen.
   */
  async discard(): Promise<RestoreOutcome> {
    const review = this.current;
    if (!review) return undefined;
    const outcome = await this.story.restoreProse(review.original.checkpointId);
    if (outcome && outcome !== 'cancelled') this.base = undefined;
    return outcome;
  }

  /** Closes the review without touching anything (the novelist moved on). */
  close(): void {
    this.base = undefined;
  }
}
