// The block in front of each instruction, re-derived from the branch on every request so that later
// requests replay it byte for byte and the provider's prompt cache keeps the whole conversation
// (DESIGN, "Agent mode"). The state before an instruction is the nearest valid `state` entry above
// it, which never changes (the tree is append-only), so nothing is stored in the session:
//  - the first instruction after the old turns (those before the active summary, see
//    `instructionsBeforeSummary`) gets the full state block (formatState);
//  - each later one gets only what changed since the instruction before it (formatChanges), which
//    is a few lines where a full block is thousands of characters;
//  - every FULL_EVERY instructions, counted from that first one, the full block comes again, so the
//    model never folds more than FULL_EVERY - 1 change blocks (when a summary is overdue); a change
//    block that would be longer than the full one is sent as the full one.
// Instructions before the summary are replayed bare: the summary changed the prefix there already.
// The recall and the codex block are not here: they go with the newest instruction only
// (src/agent/turn.ts, src/agent/prompt.ts), so they are never replayed.
import type { ContextMessage, Entry, SummaryEntry } from '../session/entries';
import { formatState } from '../state/format';
import { formatChanges } from '../state/formatChanges';
import { stateAt } from '../state/stateAt';
import type { SceneState } from '../state/types';
import type { Lang } from './manuscript';

/** A full state block every this many instructions after the old turns (the first included). */
export const FULL_EVERY = 10;

/** The replayed context after the transform, and how many of its turns, from the first, are old. */
export interface ReplayedContext {
  messages: readonly ContextMessage[];
  /** Old turns are replayed bare (no block), their payloads shortened. */
  oldTurns: number;
}

/**
 * Rewrites the replayed branch before each request (src/memory/compactContext.ts). It keeps every
 * user message, in order. `beforeSummary`: the instructions that lie before the active summary.
 */
export type ContextTransform = (messages: readonly ContextMessage[], at: { beforeSummary: number }) => ReplayedContext;

export interface BlockSettings {
  /** worldline.yaml `opening` (or a SceneState): the state before any `state` entry. */
  opening: unknown;
  lang: Lang;
  /** formatState's character budget. */
  budget?: number;
}

export interface EntrySource {
  get(id: string): Entry | undefined;
}

/** The blocks of one request: the newest instruction's and the earlier ones', by user entry id. */
export interface RequestBlocks {
  newest: string;
  past: ReadonlyMap<string, string>;
}

/**
 * How many user messages of `view.messages` lie before the active summary entry on the branch.
 * Walks up from the newest message to the summary: only the turns written since it are visited.
 */
export function instructionsBeforeSummary(source: EntrySource, view: { summary?: SummaryEntry; messages: readonly ContextMessage[] }): number {
  const users = view.messages.filter((m) => m.role === 'user');
  const last = view.messages[view.messages.length - 1];
  if (!view.summary || users.length === 0 || !last) return 0;
  const after = new Set<string>();
  let id: string | null = last.entryId;
  while (id !== null && id !== view.summary.id && id !== view.summary.coversThroughId) {
    const e: Entry | undefined = source.get(id);
    if (!e) break;
    if (e.type === 'user') after.add(e.id);
    id = e.parentId;
  }
  // The summary lies below every message (it cannot, on a turn's branch): all of them are old.
  if (id !== view.summary.id) return users.length;
  return users.filter((m) => !after.has(m.entryId)).length;
}

/**
 * The instructions that carry a block, oldest first: those after the first `oldTurns` user
 * messages, less any edited to nothing (the shape rules leave those out, so a change block must
 * not count on one). The newest always carries one.
 */
export function blockedInstructions(messages: readonly ContextMessage[], oldTurns: number): string[] {
  const users = messages.filter((m) => m.role === 'user');
  const newest = users[users.length - 1];
  if (!newest) return [];
  const out = users.slice(Math.max(0, Math.min(oldTurns, users.length - 1)), -1).filter((m) => m.text.trim() !== '').map((m) => m.entryId);
  out.push(newest.entryId);
  return out;
}

/** Enough for every live turn of several summaries' stretches; the oldest go first. */
const REMEMBERED = 512;

function put<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value as string);
}

/** Caches only: every answer is a function of the branch and the settings. */
export class SentBlocks {
  /** User entry id → the state entry before it (null: the opening). */
  private readonly stateOf = new Map<string, string | null>();
  /** State entry id → its state, checked. */
  private readonly states = new Map<string, SceneState>();
  /** Block key (state entry ids, language, budget) → text. */
  private readonly texts = new Map<string, string>();

  constructor(private readonly source: EntrySource) {}

  /**
   * The blocks for a request whose replayed context is `messages`, the first `oldTurns` of its
   * turns old. `current`: the turn's own user entry, whose state the newest block brings the model
   * to (it differs from the newest replayed instruction when the novelist hid the turn's own
   * instruction and retried it). `warnings`: damaged state entries skipped, when first looked at.
   */
  blocks(messages: readonly ContextMessage[], oldTurns: number, settings: BlockSettings, opts: { current?: string; warnings?: string[] } = {}): RequestBlocks {
    const ids = blockedInstructions(messages, oldTurns);
    const past = new Map<string, string>();
    let newest = '';
    ids.forEach((id, j) => {
      const prev = j % FULL_EVERY === 0 ? undefined : ids[j - 1];
      const own = j === ids.length - 1 && opts.current !== undefined ? opts.current : id;
      const block = this.blockOf(own, prev, settings, opts.warnings);
      if (j === ids.length - 1) newest = block;
      else past.set(id, block);
    });
    return { newest, past };
  }

  /** The full state block of the state before `userEntryId`. */
  fullBlock(userEntryId: string, settings: BlockSettings, warnings?: string[]): string {
    return this.blockOf(userEntryId, undefined, settings, warnings);
  }

  /** The full block, or (with `previous`) the changes since the state before `previous`. */
  private blockOf(userEntryId: string, previous: string | undefined, settings: BlockSettings, warnings?: string[]): string {
    const to = this.stateEntryFor(userEntryId, settings, warnings);
    const from = previous === undefined ? undefined : this.stateEntryFor(previous, settings, warnings);
    // The opening may change with worldline.yaml, so no text made from it is kept.
    const keep = to !== null && from !== null;
    const key = `${from ?? ''}\u0000${to ?? ''}\u0000${settings.lang}\u0000${settings.budget ?? ''}`;
    const known = keep ? this.texts.get(key) : undefined;
    if (known !== undefined) return known;
    const format = settings.budget === undefined ? { lang: settings.lang } : { lang: settings.lang, budget: settings.budget };
    const after = this.stateFor(to, settings);
    const full = formatState(after, format);
    let text = full;
    if (from !== undefined) {
      const changes = formatChanges(this.stateFor(from, settings), after, { lang: settings.lang });
      if (changes.length < full.length) text = changes;
    }
    if (keep) put(this.texts, key, text);
    return text;
  }

  private stateFor(stateId: string | null, settings: BlockSettings): SceneState {
    const known = stateId === null ? undefined : this.states.get(stateId);
    if (known) return known;
    const entry = stateId === null ? undefined : this.source.get(stateId);
    const state = stateAt(entry ? [entry] : [], settings.opening, { lang: settings.lang }).state;
    if (entry) put(this.states, entry.id, state);
    return state;
  }

  /** The nearest valid state entry above the instruction: the one stateAt picks on its path. */
  private stateEntryFor(userEntryId: string, settings: BlockSettings, warnings?: string[]): string | null {
    const known = this.stateOf.get(userEntryId);
    if (known !== undefined) return known;
    let found: string | null = null;
    let id = this.source.get(userEntryId)?.parentId ?? null;
    while (id !== null) {
      // An earlier instruction with nothing valid in between has the same state.
      const above = this.stateOf.get(id);
      if (above !== undefined) {
        found = above;
        break;
      }
      const e = this.source.get(id);
      if (!e) break;
      if (e.type === 'state') {
        const at = stateAt([e], settings.opening, { lang: settings.lang });
        if (at.entryId !== undefined) {
          found = e.id;
          put(this.states, e.id, at.state);
          break;
        }
        warnings?.push(...at.warnings);
      }
      id = e.parentId;
    }
    put(this.stateOf, userEntryId, found);
    return found;
  }
}
