// Which codex entries one turn injects. Built once per codex; each turn then reads every text it
// needs ONCE, whatever the number of entries: one Aho–Corasick automaton over all keys (lower
// case) finds every key in a single pass over the newest instruction and over each of the last
// max(depth) messages, newest first, so the first sighting of a key is its nearest one.
//
// Matching:
// - case-insensitive (both sides lower-cased);
// - a key holding a character of a script written without spaces between words (Han, kana,
//   Hangul, Thai, …) matches anywhere, as a substring ("青雾" in "青雾说");
// - any other key matches as a whole word: a letter, digit or combining mark right before or after
//   it forbids the match ("Ann" is not in "Annals"). Characters of those unspaced scripts do not
//   count as letters here, so "Ann" is found in "Ann说" as Chinese prose writes it;
// - the scene state's names match an entry when one equals its name or a key (case-insensitive).
//
// An entry's primary keys (its name counts as one) select it; its secondary keys, with `logic`,
// then gate it, looked for in everything it scans: the instruction, its last `depth` messages and
// the state's names. No library: the automaton is a few dozen lines, and the maintained
// JavaScript ones are either unmaintained or lack the per-match check whole words need.
import type { CodexEntry, CodexReason, CodexScanInput, SelectedEntry } from './types';

export interface SelectOptions {
  /** Messages scanned for an entry with no `depth` of its own. */
  readonly defaultDepth: number;
}

const REASON_ORDER: Readonly<Record<CodexReason, number>> = { always: 0, instruction: 1, state: 2, recent: 3 };

/** Scripts whose words are not separated by spaces: their keys match as substrings. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORDISH = /[\p{L}\p{N}\p{M}]/u;

/** Whether a key matches as a substring (true) or as a whole word. */
export function matchesAsSubstring(key: string): boolean {
  return UNSPACED.test(key);
}

// Per code unit of the BMP: 0 not yet known, 1 a word character, 2 not one.
const wordCache = new Uint8Array(0x10000);

/** A letter, digit or mark that ends a word, i.e. not of an unspaced script. */
function isWordCodePoint(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a);
  if (cp < 0x10000) {
    const known = wordCache[cp];
    if (known !== 0) return known === 1;
    const ch = String.fromCharCode(cp);
    const word = WORDISH.test(ch) && !UNSPACED.test(ch);
    wordCache[cp] = word ? 1 : 2;
    return word;
  }
  const ch = String.fromCodePoint(cp);
  return WORDISH.test(ch) && !UNSPACED.test(ch);
}

/** The code point that ends just before `end` in `s` (a surrogate pair read as one). */
function codePointBefore(s: string, end: number): number {
  const low = s.charCodeAt(end - 1);
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = s.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/** The key of an entry as the automaton holds it. */
function fold(key: string): string {
  return key.trim().toLowerCase();
}

/**
 * An Aho–Corasick automaton over UTF-16 code units. The root's moves are one dense table (most
 * characters of prose leave the root at once); other nodes keep their few children sorted in flat
 * arrays. `scan` calls back with each pattern found that passes the whole-word check.
 */
class Automaton {
  private readonly rootMove = new Int32Array(0x10000);
  private readonly childStart: Int32Array;
  private readonly childCount: Int32Array;
  private readonly childChar: Uint16Array;
  private readonly childNode: Int32Array;
  private readonly fail: Int32Array;
  /** Next node on the failure chain (this one included) that ends a pattern; 0 none. */
  private readonly outNode: Int32Array;
  private readonly outStart: Int32Array;
  private readonly outCount: Int32Array;
  private readonly outPattern: Int32Array;

  constructor(
    patterns: readonly string[],
    private readonly patternLength: Int32Array,
    private readonly wholeWord: Uint8Array,
  ) {
    // The trie, with a Map per node while building.
    const children: Map<number, number>[] = [new Map()];
    const ends: number[][] = [[]];
    patterns.forEach((p, id) => {
      let node = 0;
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i);
        let next = children[node]!.get(c);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          ends.push([]);
          children[node]!.set(c, next);
        }
        node = next;
      }
      ends[node]!.push(id);
    });
    const n = children.length;
    this.childStart = new Int32Array(n);
    this.childCount = new Int32Array(n);
    let total = 0;
    for (const m of children) total += m.size;
    this.childChar = new Uint16Array(total);
    this.childNode = new Int32Array(total);
    let at = 0;
    for (let node = 0; node < n; node++) {
      const sorted = [...children[node]!].sort((a, b) => a[0] - b[0]);
      this.childStart[node] = at;
      this.childCount[node] = sorted.length;
      for (const [c, child] of sorted) {
        this.childChar[at] = c;
        this.childNode[at] = child;
        at++;
      }
    }
    for (const [c, child] of children[0]!) this.rootMove[c] = child;

    // Failure links, breadth first.
    this.fail = new Int32Array(n);
    this.outNode = new Int32Array(n);
    const queue: number[] = [];
    for (const child of children[0]!.values()) queue.push(child);
    for (let qi = 0; qi < queue.length; qi++) {
      const node = queue[qi]!;
      this.outNode[node] = ends[node]!.length > 0 ? node : this.outNode[this.fail[node]!]!;
      for (const [c, child] of children[node]!) {
        this.fail[child] = this.move(this.fail[node]!, c);
        queue.push(child);
      }
    }
    this.outStart = new Int32Array(n);
    this.outCount = new Int32Array(n);
    this.outPattern = new Int32Array(patterns.length);
    at = 0;
    for (let node = 0; node < n; node++) {
      this.outStart[node] = at;
      this.outCount[node] = ends[node]!.length;
      for (const id of ends[node]!) this.outPattern[at++] = id;
    }
  }

  private child(node: number, c: number): number {
    let lo = this.childStart[node]!;
    let hi = lo + this.childCount[node]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const mc = this.childChar[mid]!;
      if (mc === c) return this.childNode[mid]!;
      if (mc < c) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private move(node: number, c: number): number {
    for (;;) {
      if (node === 0) return this.rootMove[c]!;
      const next = this.child(node, c);
      if (next >= 0) return next;
      node = this.fail[node]!;
    }
  }

  /** Calls `found` with every pattern in `text` (already lower case), as often as it occurs. */
  scan(text: string, found: (pattern: number) => void): void {
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      node = this.move(node, text.charCodeAt(i));
      for (let out = this.outNode[node]!; out !== 0; out = this.outNode[this.fail[out]!]!) {
        const start = this.outStart[out]!;
        const end = start + this.outCount[out]!;
        for (let k = start; k < end; k++) {
          const p = this.outPattern[k]!;
          if (this.wholeWord[p] === 1) {
            const from = i + 1 - this.patternLength[p]!;
            if (from > 0 && isWordCodePoint(codePointBefore(text, from))) continue;
            if (i + 1 < text.length && isWordCodePoint(text.codePointAt(i + 1)!)) continue;
          }
          found(p);
        }
      }
    }
  }
}

interface IndexedEntry {
  readonly entry: CodexEntry;
  /** Pattern ids of the name and keys, in the entry's order (name first), and the key each is. */
  readonly primary: readonly number[];
  readonly primaryKeys: readonly string[];
  readonly secondary: readonly number[];
  readonly depth: number | undefined;
}

/**
 * The codex, ready for selection. Build it once per loaded codex (the constructor does the work:
 * the automaton over every key); `select` then costs the length of the texts it reads, not the
 * number of entries.
 */
export class CodexIndex {
  private readonly indexed: IndexedEntry[] = [];
  private readonly always: number[] = [];
  private readonly automaton: Automaton;
  /** Folded key → its pattern id. */
  private readonly patternOf = new Map<string, number>();
  /** Per pattern: the entries (by index) that have it as a primary key. */
  private readonly primaryOf: number[][] = [];
  /** Folded name or key → every entry with it, disabled ones too (what the codex has a name for). */
  private readonly byName = new Map<string, CodexEntry[]>();
  private readonly maxEntryDepth: number;

  // Per-turn marks, stamped with the turn's number so nothing needs clearing between turns.
  private turn = 0;
  private readonly inInstruction: Uint32Array;
  private readonly seenRecent: Uint32Array;
  private readonly recentDistance: Int32Array;
  private readonly inState: Uint32Array;
  private readonly candidate: Uint32Array;

  constructor(entries: readonly CodexEntry[]) {
    const patterns: string[] = [];
    const idOf = (key: string): number => {
      let id = this.patternOf.get(key);
      if (id === undefined) {
        id = patterns.length;
        patterns.push(key);
        this.primaryOf.push([]);
        this.patternOf.set(key, id);
      }
      return id;
    };
    let maxDepth = 0;
    for (const entry of entries) {
      for (const key of [entry.name, ...entry.keys]) {
        const folded = fold(key);
        if (folded === '') continue;
        const list = this.byName.get(folded);
        if (list === undefined) this.byName.set(folded, [entry]);
        else if (!list.includes(entry)) list.push(entry);
      }
      if (entry.disabled) continue;
      const at = this.indexed.length;
      const primary: number[] = [];
      const primaryKeys: string[] = [];
      for (const key of [entry.name, ...entry.keys]) {
        const folded = fold(key);
        if (folded === '') continue;
        const id = idOf(folded);
        if (primary.includes(id)) continue;
        primary.push(id);
        primaryKeys.push(key.trim());
        this.primaryOf[id]!.push(at);
      }
      const secondary = [...new Set(entry.secondaryKeys.map(fold).filter((k) => k !== '').map(idOf))];
      const depth = entry.depth !== undefined && Number.isSafeInteger(entry.depth) && entry.depth > 0 ? entry.depth : undefined;
      if (depth !== undefined) maxDepth = Math.max(maxDepth, depth);
      this.indexed.push({ entry, primary, primaryKeys, secondary, depth });
      if (entry.always) this.always.push(at);
    }
    this.maxEntryDepth = maxDepth;
    const lengths = new Int32Array(patterns.length);
    const wholeWord = new Uint8Array(patterns.length);
    patterns.forEach((p, i) => {
      lengths[i] = p.length;
      wholeWord[i] = matchesAsSubstring(p) ? 0 : 1;
    });
    this.automaton = new Automaton(patterns, lengths, wholeWord);
    this.inInstruction = new Uint32Array(patterns.length);
    this.seenRecent = new Uint32Array(patterns.length);
    this.recentDistance = new Int32Array(patterns.length);
    this.inState = new Uint32Array(patterns.length);
    this.candidate = new Uint32Array(this.indexed.length);
  }

  /** How many entries can be selected (the disabled ones left out). */
  get size(): number {
    return this.indexed.length;
  }

  /** Every entry, disabled ones too, whose name or a key equals `name` (case-insensitive), in codex order. */
  entriesNamed(name: string): readonly CodexEntry[] {
    return this.byName.get(fold(name)) ?? [];
  }

  /**
   * The entries this turn injects, one per entry with the first reason that holds (always,
   * instruction, state, recent), by priority (highest first), then that order, then path.
   */
  select(input: CodexScanInput, options: SelectOptions): SelectedEntry[] {
    if (this.turn === 0xffffffff) this.resetMarks();
    const turn = ++this.turn;
    const candidates: number[] = [];
    const consider = (at: number): void => {
      if (this.candidate[at] === turn) return;
      this.candidate[at] = turn;
      candidates.push(at);
    };
    const considerPattern = (p: number): void => {
      for (const at of this.primaryOf[p]!) consider(at);
    };

    this.automaton.scan(input.instruction.toLowerCase(), (p) => {
      if (this.inInstruction[p] === turn) return;
      this.inInstruction[p] = turn;
      considerPattern(p);
    });
    for (const name of input.stateNames) {
      const p = this.patternOf.get(fold(name));
      if (p === undefined || this.inState[p] === turn) continue;
      this.inState[p] = turn;
      considerPattern(p);
    }
    const defaultDepth = Number.isSafeInteger(options.defaultDepth) && options.defaultDepth > 0 ? options.defaultDepth : 0;
    const depth = Math.min(input.recent.length, Math.max(defaultDepth, this.maxEntryDepth));
    for (let d = 1; d <= depth; d++) {
      const text = input.recent[input.recent.length - d]!;
      this.automaton.scan(text.toLowerCase(), (p) => {
        if (this.seenRecent[p] === turn) return;
        this.seenRecent[p] = turn;
        this.recentDistance[p] = d;
        considerPattern(p);
      });
    }
    for (const at of this.always) consider(at);

    const selected: SelectedEntry[] = [];
    for (const at of candidates) {
      const e = this.indexed[at]!;
      const entryDepth = e.depth ?? defaultDepth;
      const inRecent = (p: number): boolean => this.seenRecent[p] === turn && this.recentDistance[p]! <= entryDepth;
      if (e.entry.always) {
        selected.push({ entry: e.entry, reason: 'always' });
        continue;
      }
      let reason: CodexReason | undefined;
      let key: string | undefined;
      for (const [r, holds] of [
        ['instruction', (p: number) => this.inInstruction[p] === turn],
        ['state', (p: number) => this.inState[p] === turn],
        ['recent', inRecent],
      ] as const) {
        const i = e.primary.findIndex(holds);
        if (i >= 0) {
          reason = r;
          key = e.primaryKeys[i];
          break;
        }
      }
      if (reason === undefined || !this.gatePasses(e, inRecent, turn)) continue;
      selected.push(key === undefined ? { entry: e.entry, reason } : { entry: e.entry, reason, key });
    }
    return selected.sort(compareSelected);
  }

  private gatePasses(e: IndexedEntry, inRecent: (p: number) => boolean, turn: number): boolean {
    if (e.secondary.length === 0) return true;
    let present = 0;
    for (const p of e.secondary) {
      if (this.inInstruction[p] === turn || this.inState[p] === turn || inRecent(p)) present++;
    }
    switch (e.entry.logic) {
      case 'and-any': return present > 0;
      case 'and-all': return present === e.secondary.length;
      case 'not-any': return present === 0;
      case 'not-all': return present < e.secondary.length;
    }
  }

  private resetMarks(): void {
    this.turn = 0;
    for (const a of [this.inInstruction, this.seenRecent, this.inState, this.candidate]) a.fill(0);
  }
}

function compareSelected(a: SelectedEntry, b: SelectedEntry): number {
  if (a.entry.priority !== b.entry.priority) return b.entry.priority - a.entry.priority;
  const r = REASON_ORDER[a.reason] - REASON_ORDER[b.reason];
  if (r !== 0) return r;
  return a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0;
}
