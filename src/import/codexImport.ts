// SillyTavern lorebooks and character cards into codex files: what to write (paths and text) and a
// report of what was imported and what was skipped and why. Pure: the shell reads the sources,
// lists the codex folder and writes the files; nothing here touches the disk, so a source file is
// never modified and an existing codex file is never overwritten (a taken path gets `-2`, `-3`…).
//
// A card becomes a `character` entry (description, personality, scenario) and, when the card has
// any, an "opening" entry of kind `style` holding the first message, alternate greetings and
// example dialogue. The opening entry is written disabled: it is for the novelist to read, and
// injecting greetings into every turn that names the character would repeat the card's opening.
import { formatCodexFile, MAX_CODEX_FILE_CHARS } from '../codex/file';
import { entryPath } from '../codex/entryFile';
import { ofCount, type Text } from '../common/text';
import { cardFromJson, cardFromPng, looksLikeCard, type Card, type CardVersion } from './card';
import { isLorebook, lorebookEntries, substitute, type ImportedEntry, type SkippedItem } from './worldInfo';

const l10n = { t: (s: string): string => s };

/** Larger sources are refused before reading (a card with its image is a few megabytes). */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

/** Headings written into the imported files, English keys; the shell passes them translated. */
export const IMPORT_HEADINGS = {
  opening: l10n.t('{0} — opening'),
  personality: l10n.t('Personality'),
  scenario: l10n.t('Scenario'),
  firstMessage: l10n.t('First message'),
  alternateGreeting: l10n.t('Alternate greeting {0}'),
  exampleDialogue: l10n.t('Example dialogue'),
};
export type ImportHeadings = typeof IMPORT_HEADINGS;

export interface ImportSource {
  /** The file's name (for the report; `.png` is not trusted, the bytes are). */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** The file's size when the shell did not read it (over MAX_IMPORT_BYTES); default `bytes.length`. */
  readonly size?: number;
}

export interface ImportRequest {
  readonly sources: readonly ImportSource[];
  /** The codex folder relative to the book folder, POSIX, e.g. `codex`. */
  readonly codexFolder: string;
  /** Relative POSIX paths of the files already in the codex folder (never overwritten). */
  readonly existing: readonly string[];
  readonly headings?: ImportHeadings;
}

export interface PlannedFile {
  /** POSIX, relative to the book folder. */
  readonly path: string;
  readonly text: string;
}

export interface SourceReport {
  readonly source: string;
  /** What the source was read as; absent when it could not be read at all. */
  readonly read?: 'lorebook' | CardVersion;
  /** Names of the entries written. */
  readonly imported: readonly string[];
  /** Imported entries that are disabled, as they were in SillyTavern. */
  readonly disabled: readonly string[];
  readonly skipped: readonly SkippedItem[];
  /** Why nothing of this source was imported. */
  readonly error?: Text;
}

export interface ImportPlan {
  readonly files: readonly PlannedFile[];
  readonly reports: readonly SourceReport[];
}

const text = (message: string, ...args: (string | number)[]): Text => ({ message, args });
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47];

type Read =
  | { readonly ok: true; readonly read: 'lorebook' | CardVersion; readonly entries: readonly ImportedEntry[]; readonly disabled: readonly string[]; readonly skipped: readonly SkippedItem[] }
  | { readonly ok: false; readonly error: Text };

/** Plans the files for every source; sources that cannot be read are reported, the rest still import. */
export function importToCodex(request: ImportRequest): ImportPlan {
  const headings = request.headings ?? IMPORT_HEADINGS;
  const taken = new Set(request.existing.map((p) => p.toLowerCase()));
  const files: PlannedFile[] = [];
  const reports: SourceReport[] = [];
  for (const source of request.sources) {
    const read = readSource(source, headings);
    if (!read.ok) {
      reports.push({ source: source.name, imported: [], disabled: [], skipped: [], error: read.error });
      continue;
    }
    const imported: string[] = [];
    const skipped: SkippedItem[] = [...read.skipped];
    for (const entry of read.entries) {
      const fileText = formatCodexFile(entry);
      if (fileText.length > MAX_CODEX_FILE_CHARS) {
        skipped.push({ what: entry.name, reason: text(l10n.t('The entry "{0}" is too long for one codex file ({1} characters); split it in SillyTavern and import again.'), entry.name, fileText.length) });
        continue;
      }
      const path = freePath(entryPath(request.codexFolder, entry.kind, entry.name), taken);
      taken.add(path.toLowerCase());
      files.push({ path, text: fileText });
      imported.push(entry.name);
    }
    reports.push({ source: source.name, read: read.read, imported, disabled: read.disabled.filter((n) => imported.includes(n)), skipped });
  }
  return { files, reports };
}

/** The path, or `<stem>-2.md`, `-3`… when taken; compared ignoring case (macOS and Windows would clash). */
function freePath(path: string, taken: ReadonlySet<string>): string {
  const stem = path.replace(/\.md$/u, '');
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? path : `${stem}-${n}.md`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

function readSource(source: ImportSource, headings: ImportHeadings): Read {
  const { bytes } = source;
  const size = source.size ?? bytes.length;
  if (size > MAX_IMPORT_BYTES) return { ok: false, error: text(l10n.t('The file is too large to import ({0} MB).'), Math.round(size / 1048576)) };
  if (PNG_MAGIC.every((b, i) => bytes[i] === b)) {
    const card = cardFromPng(bytes);
    if (!card.ok) return card;
    return fromCard(card.card, card.notes.map((reason) => ({ what: source.name, reason })), headings);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\ufeff/, '')) as unknown;
  } catch (err) {
    return { ok: false, error: text(l10n.t('The file is neither a PNG image nor valid JSON ({0}).'), err instanceof Error ? err.message : String(err)) };
  }
  if (looksLikeCard(json) || (typeof json === 'object' && json !== null && 'spec' in json)) {
    const card = cardFromJson(json);
    return card.ok ? fromCard(card.card, [], headings) : card;
  }
  if (isLorebook(json)) {
    const book = lorebookEntries(json);
    return { ok: true, read: 'lorebook', ...book };
  }
  return { ok: false, error: text(l10n.t('This JSON is neither a character card nor a lorebook.')) };
}

function fromCard(card: Card, notes: readonly SkippedItem[], headings: ImportHeadings): Read {
  const sub = (s: string) => substitute(s, card.name).trim();
  const section = (heading: string, body: string) => (sub(body) === '' ? '' : `## ${heading}\n\n${sub(body)}`);
  const character: ImportedEntry = {
    name: card.name, kind: 'character', keys: [card.name], secondaryKeys: [], logic: 'and-any',
    always: false, priority: 0, disabled: false,
    body: [sub(card.description), section(headings.personality, card.personality), section(headings.scenario, card.scenario)].filter((s) => s !== '').join('\n\n'),
  };
  const openingBody = [
    section(headings.firstMessage, card.firstMessage),
    ...card.alternateGreetings.map((g, i) => section(headings.alternateGreeting.replace('{0}', String(i + 1)), g)),
    section(headings.exampleDialogue, card.exampleMessages),
  ].filter((s) => s !== '').join('\n\n');
  const openingName = headings.opening.replace('{0}', card.name);
  const opening: ImportedEntry[] = openingBody === '' ? [] : [{
    name: openingName, kind: 'style', keys: [], secondaryKeys: [], logic: 'and-any',
    always: false, priority: 0, disabled: true, body: openingBody,
  }];
  const book = card.book === undefined ? { entries: [], skipped: [], disabled: [] } : lorebookEntries(card.book, { replaceChar: card.name });
  return {
    ok: true,
    read: card.version,
    entries: [character, ...opening, ...book.entries],
    disabled: [...opening.map((e) => e.name), ...book.disabled],
    skipped: [...notes, ...book.skipped],
  };
}

/**
 * The summary for the novelist, one sentence per line (the shell translates and joins them); at
 * most `maxReasons` skip reasons per source (all of them with no limit, for the log).
 */
export function importSummary(plan: ImportPlan, maxReasons = Infinity): Text[] {
  const lines: Text[] = [];
  for (const r of plan.reports) {
    if (r.error) {
      lines.push(text(l10n.t('{0} was not imported.'), r.source), r.error);
      continue;
    }
    const n = r.imported.length;
    lines.push(text(ofCount(n, l10n.t('{0}: {1} codex entry imported.'), l10n.t('{0}: {1} codex entries imported.')), r.source, n));
    if (r.disabled.length > 0) {
      lines.push(text(l10n.t('Kept disabled: {0}.'), r.disabled.join(', ')));
    }
    if (r.skipped.length > 0) {
      lines.push(text(ofCount(r.skipped.length, l10n.t('{0} item skipped:'), l10n.t('{0} items skipped:')), r.skipped.length), ...r.skipped.slice(0, maxReasons).map((s) => s.reason));
      const more = r.skipped.length - maxReasons;
      if (more > 0) lines.push(text(l10n.t('…and {0} more (see the Worldline log).'), more));
    }
  }
  return lines;
}

/** How the summary is shown: an error when nothing was imported and something failed. */
export function importOutcome(plan: ImportPlan): 'info' | 'warning' | 'error' {
  const failed = plan.reports.some((r) => r.error !== undefined);
  if (plan.files.length === 0) return failed || plan.reports.length > 0 ? 'error' : 'info';
  return failed || plan.reports.some((r) => r.skipped.length > 0) ? 'warning' : 'info';
}
