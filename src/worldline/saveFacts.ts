// What a save point held, for the pickers and the tree: the in-story time and place of its scene
// state, and the first words of the prose written last before it. Read from the session's entries
// only (no git: a book with a thousand saves shows them at once). The prose is the newest
// manuscript write on the save's path (write_file or append_file content, edit_file new text) that
// did not fail; with none, the reply text of the save's own turn, when it has words.
//
// The tree is append-only, so what lies above an entry never changes: the nearest valid state is
// remembered per entry, the nearest prose per instruction (a turn's failed calls are known only
// to a walk through its tool results, so inside a turn it is walked each time) and the answer per
// save. Only a reply's text can change (an edit): it is read again each time.
import { firstWords } from '../common/firstWords';
import type { ChainEntry, Entry } from '../session/entries';
import { isChainEntry } from '../session/entries';
import { checkState } from '../state/schema';
import type { SceneState } from '../state/types';
import type { SaveTree } from './saves';

export interface SaveFacts {
  /** The scene state's time at the save ('' when unknown). */
  time: string;
  /** The scene state's place at the save ('' when unknown). */
  place: string;
  /** The first words of the prose written last before the save ('' when none was). */
  firstWords: string;
}

/** A tree that can give an entry's text with its edit applied (a Session can). */
export type FactsTree = SaveTree & { textOf?(id: string): string };

interface Kept {
  /** entry id → id of the nearest valid state entry at or above it (null: none). */
  state: Map<string, string | null>;
  /** user entry id → first words of the nearest prose above it (null: none). */
  prose: Map<string, string | null>;
  /** save entry id → what was found for it. */
  saves: Map<string, { stateId: string | null; prose: string | null; replyId: string | null }>;
}

const kept = new WeakMap<object, Kept>();

const PROSE_TOOLS: Readonly<Record<string, string>> = { write_file: 'content', append_file: 'content', edit_file: 'new_text' };

/** `facts(saveEntryId)`: what the save held. Cheap to call again for the same tree. */
export function saveFactsReader(tree: FactsTree): (saveEntryId: string) => SaveFacts {
  let k = kept.get(tree);
  if (!k) {
    k = { state: new Map(), prose: new Map(), saves: new Map() };
    kept.set(tree, k);
  }
  const memo = k;
  const chainOf = chainReader(tree);
  const limit = () => tree.entries().length;
  const textOf = (e: ChainEntry): string => tree.textOf?.(e.id) ?? ('text' in e && typeof e.text === 'string' ? e.text : '');

  const nearestState = (from: string | null): string | null => {
    const walked: string[] = [];
    let found: string | null = null;
    for (let cur = from, budget = limit(); cur !== null && budget > 0; budget--) {
      const known = memo.state.get(cur);
      if (known !== undefined) {
        found = known;
        break;
      }
      const e = chainOf(cur);
      if (!e) break;
      walked.push(cur);
      if (e.type === 'state' && checkState(e.state).length === 0) {
        found = e.id;
        break;
      }
      cur = e.parentId;
    }
    for (const w of walked) memo.state.set(w, found);
    return found;
  };

  const nearestProse = (from: string | null): { prose: string | null; replyId: string | null } => {
    const users: string[] = [];
    const failed = new Set<string>();
    let prose: string | null = null;
    let replyId: string | null = null;
    for (let cur = from, budget = limit(); cur !== null && budget > 0; budget--) {
      const e = chainOf(cur);
      if (!e) break;
      if (e.type === 'user') {
        const known = memo.prose.get(e.id);
        if (known !== undefined) {
          prose = known;
          break;
        }
        users.push(e.id);
        failed.clear();
      } else if (e.type === 'tool') {
        if (e.isError) failed.add(e.callId);
      } else if (e.type === 'assistant') {
        prose = proseOf(e.toolCalls ?? [], failed);
        if (prose !== null) break;
        if (users.length === 0 && replyId === null && textOf(e).trim() !== '') replyId = e.id;
      }
      cur = e.parentId;
    }
    for (const u of users) memo.prose.set(u, prose);
    return { prose, replyId };
  };

  return (saveEntryId) => {
    let found = memo.saves.get(saveEntryId);
    if (!found) {
      const save = chainOf(saveEntryId);
      const above = save?.parentId ?? null;
      found = { stateId: nearestState(above), ...nearestProse(above) };
      memo.saves.set(saveEntryId, found);
    }
    const state = found.stateId !== null ? (chainOf(found.stateId) as { state: SceneState } | undefined)?.state : undefined;
    const reply = found.prose === null && found.replyId !== null ? chainOf(found.replyId) : undefined;
    return {
      time: state?.time ?? '',
      place: state?.location ?? '',
      firstWords: found.prose ?? (reply ? firstWords(proseText(textOf(reply))) : ''),
    };
  };
}

/** The first words of the last manuscript write among `calls` that did not fail; null when none wrote words. */
function proseOf(calls: readonly { id: string; name: string; arguments: string }[], failed: ReadonlySet<string>): string | null {
  for (let i = calls.length - 1; i >= 0; i--) {
    const call = calls[i] as { id: string; name: string; arguments: string };
    const field = PROSE_TOOLS[call.name];
    if (!field || failed.has(call.id)) continue;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      continue; // a malformed call wrote nothing
    }
    const text = args && typeof args === 'object' ? (args as Record<string, unknown>)[field] : undefined;
    const words = typeof text === 'string' ? firstWords(proseText(text)) : '';
    if (words) return words;
  }
  return null;
}

/** Markdown line openers (headings, quotes, list marks) are not the prose's words. */
function proseText(text: string): string {
  return text.slice(0, 2000).replace(/^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+)/gmu, '');
}

function chainReader(tree: SaveTree): (id: string) => ChainEntry | undefined {
  const get = tree.get?.bind(tree);
  if (get) {
    return (id) => {
      const e: Entry | undefined = get(id);
      return e && isChainEntry(e) ? e : undefined;
    };
  }
  const chain = new Map<string, ChainEntry>();
  for (const e of tree.entries()) if (isChainEntry(e)) chain.set(e.id, e);
  return (id) => chain.get(id);
}
