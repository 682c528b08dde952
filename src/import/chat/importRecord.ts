// The record of SillyTavern chats already imported into a novel (`.worldline/imports.json`), so
// importing the same source again is noticed instead of duplicating silently. A source is known by
// a fingerprint of its files' contents (not their paths: a copied folder is the same chat), and the
// record says which session it became. Pure: the flow reads and writes the file.
import { createHash } from 'node:crypto';

/** Where the record lives, relative to the book folder. */
export const IMPORT_RECORD_FILE = '.worldline/imports.json';

export interface ImportRecordItem {
  /** sha256 (hex) over the family's files, in name order. */
  fingerprint: string;
  sessionId: string;
  /** The chat's name (its main file), for the novelist reading the file. */
  source: string;
  /** ISO 8601. */
  importedAt: string;
}

export interface ImportRecord {
  version: 1;
  imports: ImportRecordItem[];
}

/**
 * The fingerprint of a family: each file's name and contents, in name order, each part preceded
 * by its length so no two different families run together into the same bytes.
 */
export function fingerprintOf(files: readonly { name: string; text: string }[]): string {
  const hash = createHash('sha256');
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const f of sorted) {
    for (const part of [f.name, f.text]) {
      const bytes = Buffer.from(part, 'utf8');
      hash.update(`${bytes.length}:`);
      hash.update(bytes);
    }
  }
  return hash.digest('hex');
}

/** The record in a file's text; a missing, damaged or foreign file reads as empty (the import then just cannot warn). */
export function parseImportRecord(text: string | undefined): ImportRecord {
  const empty: ImportRecord = { version: 1, imports: [] };
  if (text === undefined) return empty;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return empty;
  }
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { imports?: unknown }).imports)) return empty;
  const imports = ((raw as { imports: unknown[] }).imports).filter((i): i is ImportRecordItem => {
    if (typeof i !== 'object' || i === null) return false;
    const r = i as Record<string, unknown>;
    return typeof r.fingerprint === 'string' && typeof r.sessionId === 'string' && typeof r.source === 'string' && typeof r.importedAt === 'string';
  });
  return { version: 1, imports };
}

/** The newest import of this fingerprint whose session still exists. */
export function findImport(record: ImportRecord, fingerprint: string, sessionExists: (id: string) => boolean): ImportRecordItem | undefined {
  return record.imports.filter((i) => i.fingerprint === fingerprint && sessionExists(i.sessionId)).at(-1);
}

/** The record's text with `item` added (what was there kept, in order). */
export function withImport(record: ImportRecord, item: ImportRecordItem): string {
  return `${JSON.stringify({ version: 1, imports: [...record.imports, item] }, null, 2)}\n`;
}
