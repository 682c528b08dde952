// SillyTavern World Info (a lorebook file) and the character book inside a V2/V3 card, as codex
// entries. Both formats are read by one mapping: the lorebook's names (`key`, `keysecondary`,
// `order`, `disable`, `selectiveLogic`, `scanDepth`) and the card book's (`keys`, `secondary_keys`,
// `insertion_order`, `enabled`, `extensions.*`). Kind is always 'rule': World Info carries no kind,
// and guessing one from the text would be wrong as often as right; the novelist re-files them.
import type { CodexEntry, KeyLogic } from '../codex/types';
import type { Text } from '../common/text';

const l10n = { t: (s: string): string => s };

export type ImportedEntry = Omit<CodexEntry, 'path'>;

export interface SkippedItem {
  /** What was skipped, e.g. `entry 3 "Harbor"`, or the source file. */
  readonly what: string;
  readonly reason: Text;
}

export interface EntriesResult {
  readonly entries: readonly ImportedEntry[];
  readonly skipped: readonly SkippedItem[];
  /** Entries imported but kept disabled, as they were in SillyTavern (named for the report). */
  readonly disabled: readonly string[];
}

/** SillyTavern's `selectiveLogic` numbers (public/scripts/world-info.js `world_info_logic`). */
const LOGIC: Readonly<Record<number, KeyLogic>> = { 0: 'and-any', 1: 'not-all', 2: 'not-any', 3: 'and-all' };

const text = (message: string, ...args: (string | number)[]): Text => ({ message, args });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function strings(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  const out: string[] = [];
  for (const k of list) {
    if (typeof k !== 'string' && typeof k !== 'number') continue;
    const key = String(k).trim();
    if (key !== '' && !out.includes(key)) out.push(key);
  }
  return out;
}

function finite(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

function textOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Whether a parsed JSON value looks like a lorebook: an object with `entries` (object or array). */
export function isLorebook(json: unknown): json is Json {
  return isObject(json) && (isObject(json.entries) || Array.isArray(json.entries));
}

/**
 * The entries of a lorebook or card book. `replaceChar` (a card's name) stands in for `{{char}}`;
 * `{{user}}` has no counterpart in a novel and is kept as written.
 */
export function lorebookEntries(book: unknown, options: { replaceChar?: string } = {}): EntriesResult {
  if (!isLorebook(book)) {
    return { entries: [], disabled: [], skipped: [{ what: l10n.t('the lorebook'), reason: text(l10n.t('It has no "entries" list, so it is not a SillyTavern lorebook.')) }] };
  }
  const raw = Array.isArray(book.entries) ? book.entries : Object.values(book.entries as Json);
  const entries: ImportedEntry[] = [];
  const skipped: SkippedItem[] = [];
  const disabled: string[] = [];
  raw.forEach((item, index) => {
    const label = `${index + 1}`;
    if (!isObject(item)) {
      skipped.push({ what: label, reason: text(l10n.t('Entry {0} is not an object.'), label) });
      return;
    }
    const entry = mapEntry(item, options.replaceChar);
    if (entry.body.trim() === '' && entry.keys.length === 0) {
      skipped.push({ what: entry.name, reason: text(l10n.t('Entry {0} ("{1}") has no keys and no content.'), label, entry.name) });
      return;
    }
    if (entry.disabled) disabled.push(entry.name);
    entries.push(entry);
  });
  if (raw.length === 0) skipped.push({ what: l10n.t('the lorebook'), reason: text(l10n.t('The lorebook has no entries.')) });
  return { entries, skipped, disabled };
}

function mapEntry(e: Json, replaceChar: string | undefined): ImportedEntry {
  const ext = isObject(e.extensions) ? e.extensions : {};
  const keys = strings(e.key ?? e.keys);
  // SillyTavern ignores the secondary keys when `selective` is off.
  const secondaryKeys = e.selective === false ? [] : strings(e.keysecondary ?? e.secondary_keys);
  const logicNumber = finite(e.selectiveLogic ?? ext.selectiveLogic);
  const priority = finite(e.order ?? e.insertion_order ?? e.priority) ?? 0;
  // `scanDepth` is SillyTavern's own scan depth; without it, `depth` (its insertion depth) is the
  // nearest figure the file gives.
  const depth = finite(e.scanDepth ?? ext.scan_depth) ?? finite(e.depth ?? ext.depth);
  const disabled = e.disable === true || e.enabled === false;
  const name = [textOf(e.comment), textOf(e.name)].map((s) => s.trim()).find((s) => s !== '') ?? keys[0] ?? l10n.t('Untitled entry');
  const body = substitute(textOf(e.content), replaceChar);
  return {
    name: substitute(name, replaceChar),
    kind: 'rule',
    keys: keys.map((k) => substitute(k, replaceChar)),
    secondaryKeys: secondaryKeys.map((k) => substitute(k, replaceChar)),
    logic: (logicNumber !== undefined ? LOGIC[logicNumber] : undefined) ?? 'and-any',
    always: e.constant === true,
    priority,
    ...(depth !== undefined && depth >= 0 ? { depth: Math.floor(depth) } : {}),
    disabled,
    body,
  };
}

/** `{{char}}` (any case) as the card's name. */
export function substitute(s: string, replaceChar: string | undefined): string {
  return replaceChar === undefined ? s : s.replace(/\{\{char\}\}/gi, replaceChar);
}
