// A codex entry: static lore of the book, one Markdown file with YAML front matter under the
// codex folder (worldline.yaml `codex:`, default `codex/`). Plain files the novelist owns; the
// checkpoints track them, so the lore follows the branch (DESIGN.md "Codex").

export type CodexKind = 'character' | 'place' | 'item' | 'faction' | 'rule' | 'style';

export const CODEX_KINDS: readonly CodexKind[] = ['character', 'place', 'item', 'faction', 'rule', 'style'];

/**
 * How the secondary keys gate an entry whose primary key matched (SillyTavern's selectiveLogic):
 * `and-any` at least one secondary key also appears; `and-all` all of them; `not-any` none of
 * them appears; `not-all` not all of them appear. With no secondary keys the primary match stands.
 */
export type KeyLogic = 'and-any' | 'and-all' | 'not-any' | 'not-all';

export interface CodexEntry {
  /** POSIX path relative to the book folder, e.g. `codex/characters/qingwu.md`. */
  readonly path: string;
  readonly name: string;
  readonly kind: CodexKind;
  /** Primary keys (aliases, spellings): any one appearing selects the entry (then `logic` gates it). The name counts as a key. */
  readonly keys: readonly string[];
  readonly secondaryKeys: readonly string[];
  readonly logic: KeyLogic;
  /** Injected every turn, keys or not. */
  readonly always: boolean;
  /** Higher first when the budget runs out; default 0. */
  readonly priority: number;
  /** How many recent messages of the branch to scan for its keys; undefined: the default depth. */
  readonly depth?: number;
  /** Kept in the codex, never selected (SillyTavern's `disable`). */
  readonly disabled: boolean;
  /** The lore, Markdown. */
  readonly body: string;
}

/** What selected an entry this turn. */
export type CodexReason = 'always' | 'instruction' | 'recent' | 'state';

export interface SelectedEntry {
  readonly entry: CodexEntry;
  readonly reason: CodexReason;
  /** The key that matched (absent for `always`). */
  readonly key?: string;
}

/** What the selection looks at for one turn. */
export interface CodexScanInput {
  /** The newest instruction's text. */
  readonly instruction: string;
  /** The branch's messages (instructions and replies, as sent), oldest first; an entry scans the last `depth` of them. */
  readonly recent: readonly string[];
  /** Names from the scene state: characters present, the location, items held. */
  readonly stateNames: readonly string[];
}
