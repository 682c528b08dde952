// The Chat's transcript of a session's current branch, kept between changes (issue 13). The
// transcript is one fold over the path whose state starts afresh at every instruction (a reply
// never spans two turns), so when the branch grows the turns before its last instruction stay as
// they were and only the last turn is built again. An edit or a hide builds again just the turn it
// touches, and so does a new variant of one of its entries (its ◀ n/m ▶ count); a navigation
// keeps the turns before the common ancestor of the old and new leaf.
//
// One rule keeps this exact: a tool line takes its call's arguments from the latest call with
// that id anywhere earlier on the branch. A turn with a result whose call is not in that same
// turn (the extension never writes one) makes the transcript be built whole, as before.

import { buildTranscript, type TranscriptMessage, type TranscriptSource } from '../agent/transcript';
import type { ChainEntry } from '../session/entries';
import type { PathView } from '../session/keptPath';

/** What the kept transcript reads from a session (a `Session` is one). */
export interface KeptTranscriptSource extends Omit<TranscriptSource, 'path'> {
  readonly leafId: string | null;
  pathView(leafId: string | null): PathView;
  displayChangesSince(cursor: number): { cursor: number; ids: readonly string[] };
}

/** A whole turn of `stable`: where it starts on the path, and its messages. */
interface KeptTurn {
  start: number;
  first: number;
  count: number;
}

export class KeptTranscript {
  /** The path the transcript was last built on: its first `builtLength` entries (the array may have grown since). */
  private built: readonly ChainEntry[] = [];
  private builtLength = 0;
  /** The messages of the whole turns before `cut`. */
  private stable: TranscriptMessage[] = [];
  private turns: KeptTurn[] = [];
  /** Where the last turn (built at every change) starts on `built`. */
  private cut = 0;
  private cursor = 0;
  private result: readonly TranscriptMessage[] | undefined;
  /** Turns built (the benches count them). */
  turnBuilds = 0;
  /** Whole transcripts built from scratch. */
  fullBuilds = 0;

  constructor(private readonly source: KeptTranscriptSource) {
    this.cursor = source.displayChangesSince(Number.MAX_SAFE_INTEGER).cursor;
  }

  /** The transcript of the session's current branch. Shared: do not change it. */
  read(): readonly TranscriptMessage[] {
    const entries = this.source.pathView(this.source.leafId).entries;
    const changes = this.source.displayChangesSince(this.cursor);
    this.cursor = changes.cursor;
    if (entries === this.built && entries.length === this.builtLength && changes.ids.length === 0 && this.result) return this.result;
    const kept = this.keep(entries, changes.ids);
    this.built = entries;
    this.builtLength = entries.length;
    if (!kept) {
      this.forget();
      this.fullBuilds++;
      return (this.result = buildTranscript(this.over(entries)));
    }
    return (this.result = kept);
  }

  /** Brings the kept turns to `entries`; undefined when a turn breaks the rule above. */
  private keep(entries: readonly ChainEntry[], changed: readonly string[]): TranscriptMessage[] | undefined {
    this.dropAfter(commonPrefix(this.built, this.builtLength, entries));
    // Edits, hides and new variants in the kept turns: those turns again, in place (their
    // messages stay as many).
    if (changed.length > 0) {
      const view = this.source.pathView(this.source.leafId);
      const dirty = new Set<number>();
      for (const id of changed) {
        const at = view.indexOf(id);
        if (at >= 0 && at < this.cut) dirty.add(this.turnAt(at));
      }
      if (dirty.size > 0) this.stable = this.stable.slice();
      for (const k of dirty) {
        const turn = this.turns[k] as KeptTurn;
        const messages = this.build(entries.slice(turn.start, this.endOf(k)));
        if (!messages || messages.length !== turn.count) return undefined;
        for (let i = 0; i < messages.length; i++) this.stable[turn.first + i] = messages[i] as TranscriptMessage;
      }
    }
    // New whole turns: each instruction after `cut` closes the turn before it.
    for (let i = this.cut + 1; i < entries.length; i++) {
      if ((entries[i] as ChainEntry).type !== 'user') continue;
      const messages = this.build(entries.slice(this.cut, i));
      if (!messages) return undefined;
      this.turns.push({ start: this.cut, first: this.stable.length, count: messages.length });
      for (const m of messages) this.stable.push(m);
      this.cut = i;
    }
    const last = this.build(entries.slice(this.cut));
    if (!last) return undefined;
    return this.stable.concat(last);
  }

  /** Keeps the turns that end before `common` (the next instruction is on both paths). */
  private dropAfter(common: number): void {
    while (this.turns.length > 0 && this.endOf(this.turns.length - 1) >= common) {
      const turn = this.turns.pop() as KeptTurn;
      this.cut = turn.start;
      this.stable = this.stable.slice(0, turn.first);
    }
  }

  /** The turn holding position `at` (< cut). */
  private turnAt(at: number): number {
    let lo = 0;
    let hi = this.turns.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.turns[mid] as KeptTurn).start <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private endOf(k: number): number {
    return k + 1 < this.turns.length ? (this.turns[k + 1] as KeptTurn).start : this.cut;
  }

  /** One turn's messages, or undefined when a tool line there needs a call from an earlier turn. */
  private build(turn: readonly ChainEntry[]): TranscriptMessage[] | undefined {
    let reply = false;
    const calls = new Set<string>();
    for (const e of turn) {
      if (e.type === 'user') reply = false;
      else if (e.type === 'assistant') {
        reply = true;
        for (const c of e.toolCalls ?? []) calls.add(c.id);
      } else if (e.type === 'tool' && reply && !calls.has(e.callId)) return undefined;
    }
    this.turnBuilds++;
    return buildTranscript(this.over(turn));
  }

  private over(path: readonly ChainEntry[]): TranscriptSource {
    const source = this.source;
    return {
      path: () => path,
      textOf: (id) => source.textOf(id),
      isHidden: (id) => source.isHidden(id),
      sideFor: (id, type) => source.sideFor(id, type),
      variants: (id) => source.variants(id),
    };
  }

  private forget(): void {
    this.stable = [];
    this.turns = [];
    this.cut = 0;
  }
}

/** How many entries two paths share from the root (paths of one tree agree up to where they part). */
function commonPrefix(a: readonly ChainEntry[], aLength: number, b: readonly ChainEntry[]): number {
  const n = Math.min(aLength, b.length);
  if (n === 0 || a[0] !== b[0]) return 0;
  if (a[n - 1] === b[n - 1]) return n;
  let lo = 0; // a[lo] === b[lo]
  let hi = n - 1; // a[hi] !== b[hi]
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (a[mid] === b[mid]) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}

const kept = new WeakMap<KeptTranscriptSource, KeptTranscript>();

/** The kept transcript of a session, made at its first use. */
export function keptTranscriptOf(source: KeptTranscriptSource): KeptTranscript {
  let transcript = kept.get(source);
  if (!transcript) {
    transcript = new KeptTranscript(source);
    kept.set(source, transcript);
  }
  return transcript;
}
