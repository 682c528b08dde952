// What the codex put in front of a turn's instruction, as recorded on the session: the `codex`
// field of the turn's first assistant entry (DESIGN.md "The session tree"; absent when nothing
// was injected, and on every entry written before the codex existed, so older sessions read as
// "nothing injected"). The Codex view's badge and "what did the model see" read it from here.
import type { ChainEntry } from '../session/entries';

export interface InjectedRecord {
  /** The turn's user entry. */
  userEntryId: string;
  /** Book-relative paths of the entries injected, in the block's order. */
  paths: string[];
}

/** What was injected at the newest turn of `path` (root to leaf) that has a reply; undefined before any. */
export function lastInjected(path: readonly ChainEntry[]): InjectedRecord | undefined {
  let firstReply: ChainEntry | undefined;
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as ChainEntry;
    if (e.type === 'assistant') firstReply = e;
    else if (e.type === 'user') {
      if (firstReply?.type === 'assistant') return { userEntryId: e.id, paths: [...(firstReply.codex ?? [])] };
      firstReply = undefined; // a turn still without a reply: the one before it is the last turn
    }
  }
  return undefined;
}

/** What was injected at the turn of the user entry `userEntryId` on `path`; undefined when it is not there or has no reply. */
export function injectedAt(path: readonly ChainEntry[], userEntryId: string): string[] | undefined {
  const at = path.findIndex((e) => e.id === userEntryId);
  if (at < 0) return undefined;
  for (let i = at + 1; i < path.length; i++) {
    const e = path[i] as ChainEntry;
    if (e.type === 'user') return undefined;
    if (e.type === 'assistant') return [...(e.codex ?? [])];
  }
  return undefined;
}
