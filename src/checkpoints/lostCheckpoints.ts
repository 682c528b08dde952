// Checkpoints a session recorded that the store no longer holds: the store was deleted and started
// anew, replaced by another copy, or rebuilt. Their turns cannot be restored or compared, and the
// Chat says so rather than offering restores that fail. Checked in one batched lookup
// (ShadowRepo.missingCommits) when the store opens or is rebuilt, never per render; and counted
// as turns for what Rebuild Checkpoints tells the novelist.
import type { Entry } from '../session/entries';
import type { ShadowRepo } from './shadowRepo';

/** What the check needs of the store. */
export type CommitCheck = Pick<ShadowRepo, 'missingCommits'>;

const NONE: ReadonlySet<string> = new Set();

/** The checkpoint commits a session refers to, in file order. */
export function recordedCommits(entries: readonly Entry[]): string[] {
  return entries.flatMap((e) => (e.type === 'checkpoint' ? [e.commit] : []));
}

/** The checkpoint commits `entries` record that the store lacks. */
export async function lostCommits(repo: CommitCheck, entries: readonly Entry[]): Promise<ReadonlySet<string>> {
  const recorded = recordedCommits(entries);
  if (recorded.length === 0) return NONE;
  return repo.missingCommits(recorded);
}

/**
 * How many turns have a checkpoint among `commits`. A checkpoint belongs to the instruction it
 * follows (the nearest `user` entry above it); one taken before the first instruction (the prose
 * the story started from) counts as a turn of its own. Linear in the session: each entry's turn
 * is found once.
 */
export function turnsWith(entries: readonly Entry[], commits: ReadonlySet<string>): number {
  if (commits.size === 0) return 0;
  const byId = new Map<string, Entry>();
  for (const e of entries) byId.set(e.id, e);
  const turnOf = new Map<string, string>();
  const find = (start: Entry): string => {
    const walked: string[] = [];
    let at: Entry | undefined = start;
    let turn = '';
    while (at) {
      const known = turnOf.get(at.id);
      if (known !== undefined) { turn = known; break; }
      if (at.type === 'user') { turn = at.id; break; }
      walked.push(at.id);
      at = at.parentId === null ? undefined : byId.get(at.parentId);
    }
    for (const id of walked) turnOf.set(id, turn);
    return turn;
  };
  const turns = new Set<string>();
  for (const e of entries) if (e.type === 'checkpoint' && commits.has(e.commit)) turns.add(find(e));
  return turns.size;
}

/**
 * One session's lost checkpoints, as last checked. Checks may overlap (the store opens while a
 * rebuild finishes): the one asked for last decides, whatever order they end in.
 */
export class LostCheckpoints {
  private known: ReadonlySet<string> = NONE;
  private asked = 0;

  /** The commits found missing by the last check; empty before the first. */
  get commits(): ReadonlySet<string> {
    return this.known;
  }

  /** Checks `entries` against the store; true when the set changed (the views redraw). Rejects when git does. */
  async check(repo: CommitCheck, entries: readonly Entry[]): Promise<boolean> {
    const mine = ++this.asked;
    const found = await lostCommits(repo, entries);
    if (mine !== this.asked || sameSet(found, this.known)) return false;
    this.known = found.size === 0 ? NONE : found;
    return true;
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
