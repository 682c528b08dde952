// Reads the lines of a session file into a header and entries, tolerating damage:
//  - a torn last line (no newline, not complete JSON) is reported as `tornTail` for the caller to
//    set aside; every complete line before it is kept;
//  - a last line that *is* complete JSON but lacks its newline (the crash hit between the text and
//    the "\n", or another tool stripped it) is kept, and `missingFinalNewline` tells the writer to
//    put a "\n" in front of the next entry;
//  - a corrupt line anywhere else is reported with its 1-based line number and skipped;
//  - a line with zeroed bytes (a power cut) is split at the zero runs and every complete entry in
//    it is recovered (a zero block that swallowed a newline merged an intact entry into it); the
//    line is reported;
//  - a line over the size limit is reported and skipped without being read whole;
//  - blank lines are skipped (they hold nothing to lose);
//  - a missing or damaged header is recovered (id from the file name, title salvaged when
//    possible) so the entries stay usable; a header from a newer format version is refused.
// Pure: no fs. Lines come from jsonl-lines.ts; the caller decides what to do with the file.

import { SESSION_FORMAT_VERSION, SessionFormatVersion, SessionHeader } from './entries';
import { SessionError } from './errors';
import { LineReports, RawLine, formatBytes, isCleanLine, mayBeJsonObject, splitLines } from './jsonl-lines';
import { DEFAULT_SESSION_LIMITS } from './limits';
import type { StoredEntry } from './stateCodec';
import { checkHeader, checkStoredEntry } from './validate';

export interface CorruptLine {
  line: number; // 1-based
  error: string;
}

export interface ParseFallback {
  /** The id to use if the header is lost: the file name's stem. */
  id: string;
  /** Used if the header is lost and no entry carries a timestamp. */
  createdAt: string;
}

export interface ParsedSession {
  header: SessionHeader;
  headerRecovered: boolean;
  corruptLines: CorruptLine[];
  warnings: string[];
  /** Bytes after the last newline that are not a complete line: offset and length. */
  tornTail?: { offset: number; bytes: number };
  missingFinalNewline: boolean;
  /** Length of the kept part of the file (everything but a torn tail). */
  keptBytes: number;
  entryCount: number;
  /** Damaged lines summed up in the last corruptLines report instead of one by one. */
  unlistedCorrupt: number;
}

/**
 * Called for each well-formed line in file order, as stored (a state entry of a format-2 file may
 * be a patch); returns an error to reject it as corrupt.
 */
export type EntrySink = (entry: StoredEntry, line: number) => string | undefined;

export const RECOVERED_TITLE = 'Recovered session';

type Taken = { kind: 'taken' } | { kind: 'bad'; error: string } | { kind: 'refused'; error: string };

/** Builds a ParsedSession from the lines of a file, fed in order. */
export class SessionParser {
  private readonly corrupt = new LineReports();
  private readonly warnings: string[] = [];
  private header: SessionHeader | undefined;
  private damagedHeaderText: string | undefined;
  private firstEntryTs: string | undefined;
  private entryCount = 0;
  private tornTail: ParsedSession['tornTail'];
  private missingFinalNewline = false;

  constructor(
    private readonly fallback: ParseFallback,
    private readonly sink: EntrySink,
    private readonly maxLineBytes: number = DEFAULT_SESSION_LIMITS.maxLineBytes,
  ) {}

  line(raw: RawLine): void {
    if (!raw.terminated) {
      this.lastLine(raw);
      return;
    }
    if (isCleanLine(raw)) this.cleanLine(textOf(raw, 0), raw.line);
    else this.damagedLine(raw);
  }

  /** `totalBytes`: the length of the file read. */
  finish(totalBytes: number): ParsedSession {
    const headerRecovered = this.header === undefined;
    let header = this.header;
    if (!header) {
      header = {
        type: 'session',
        version: SESSION_FORMAT_VERSION,
        id: this.fallback.id,
        createdAt: this.firstEntryTs ?? this.fallback.createdAt,
        title: (this.damagedHeaderText && salvageTitle(this.damagedHeaderText)) || RECOVERED_TITLE,
      };
      if (totalBytes > 0) {
        this.warnings.push(
          'The session header (line 1) was missing or damaged; the session was opened with a recovered header. ' +
            'Rename the session if its title is wrong.',
        );
      }
    } else if (header.id !== this.fallback.id) {
      this.warnings.push(`The session header's id (${header.id}) differs from its file name (${this.fallback.id}).`);
    }
    const unlistedCorrupt = this.corrupt.hidden;
    return {
      header,
      headerRecovered,
      corruptLines: this.corrupt.finish('damaged lines'),
      unlistedCorrupt,
      warnings: this.warnings,
      tornTail: this.tornTail,
      missingFinalNewline: this.missingFinalNewline,
      keptBytes: this.tornTail ? this.tornTail.offset : totalBytes,
      entryCount: this.entryCount,
    };
  }

  // ---------------------------------------------------------------- lines

  private cleanLine(text: string, line: number): void {
    if (!mayBeJsonObject(text)) {
      if (text.trim().length === 0) return;
      if (line === 1) this.damagedHeaderText = text;
      this.corrupt.add(line, 'not valid JSON (a line must be one JSON object, {…})');
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (text.trim().length === 0) return;
      if (line === 1) this.damagedHeaderText = text;
      this.corrupt.add(line, `not valid JSON (${(e as Error).message})`);
      return;
    }
    const taken = line === 1 ? this.firstLineValue(value) : this.entryValue(value, line);
    if (taken.kind !== 'taken') {
      if (line === 1 && taken.kind === 'bad') this.damagedHeaderText = text;
      this.corrupt.add(line, taken.error);
    }
  }

  /** A line with zeroed bytes or over the size limit: every complete entry in it is kept. */
  private damagedLine(raw: RawLine): void {
    let recovered = 0;
    const refused: string[] = [];
    raw.pieces.forEach((_, i) => {
      const text = textOf(raw, i);
      if (text.trim().length === 0) return;
      let value: unknown;
      try {
        if (!mayBeJsonObject(text)) throw new Error('not an object');
        value = JSON.parse(text);
      } catch {
        if (raw.line === 1 && i === 0) this.damagedHeaderText = text;
        return;
      }
      const taken = raw.line === 1 && i === 0 ? this.firstLineValue(value) : this.entryValue(value, raw.line);
      if (taken.kind === 'taken') recovered++;
      else if (taken.kind === 'refused') refused.push(taken.error);
      else if (raw.line === 1 && i === 0) this.damagedHeaderText = text;
    });
    this.corrupt.add(raw.line, this.describeDamage(raw, recovered, refused));
  }

  /** The last line, without "\n": kept if it holds something complete, else a torn tail. */
  private lastLine(raw: RawLine): void {
    if (isCleanLine(raw)) {
      const text = textOf(raw, 0);
      if (isCompleteJson(text)) {
        this.cleanLine(text, raw.line);
        this.missingFinalNewline = true;
        return;
      }
      if (raw.line === 1) this.damagedHeaderText = text;
    } else if (this.holdsSomething(raw)) {
      // The torn end stays in the file with the rest of this damaged line; the line reads the
      // same way again once the next entry's "\n" ends it.
      this.damagedLine(raw);
      this.missingFinalNewline = true;
      return;
    } else if (raw.line === 1 && raw.pieces.length > 0) {
      this.damagedHeaderText = textOf(raw, 0);
    }
    this.tornTail = { offset: raw.offset, bytes: raw.bytes };
  }

  private holdsSomething(raw: RawLine): boolean {
    return raw.pieces.some((_, i) => {
      try {
        const text = textOf(raw, i);
        if (!mayBeJsonObject(text)) return false;
        const value: unknown = JSON.parse(text);
        return checkStoredEntry(value, this.formatVersion).ok || (raw.line === 1 && i === 0 && checkHeader(value).kind === 'header');
      } catch {
        return false;
      }
    });
  }

  // ---------------------------------------------------------------- values

  /** The header's version decides how lines read; a recovered header reads every version's lines. */
  get formatVersion(): SessionFormatVersion {
    return this.header?.version ?? SESSION_FORMAT_VERSION;
  }

  private entryValue(value: unknown, line: number): Taken {
    const checked = checkStoredEntry(value, this.formatVersion);
    if (!checked.ok) return { kind: 'bad', error: checked.error };
    const rejected = this.sink(checked.value, line);
    if (rejected !== undefined) return { kind: 'refused', error: rejected };
    if (this.firstEntryTs === undefined) this.firstEntryTs = checked.value.ts;
    this.entryCount++;
    return { kind: 'taken' };
  }

  private firstLineValue(value: unknown): Taken {
    const checked = checkHeader(value);
    if (checked.kind === 'header') {
      this.header = checked.header;
      return { kind: 'taken' };
    }
    if (checked.kind === 'newer-version') {
      throw new SessionError(
        'newer-version',
        `This session was written by a newer version of Worldline (format ${checked.version}; ` +
          `this version reads formats up to ${SESSION_FORMAT_VERSION}). Update the Worldline extension to open it.`,
      );
    }
    // Not a header. If it is an entry (someone removed the header), keep the entry.
    if (checkStoredEntry(value, this.formatVersion).ok) {
      this.warnings.push('Line 1 is an entry, not the session header; the header was recovered.');
      return this.entryValue(value, 1);
    }
    return { kind: 'bad', error: checked.error };
  }

  private describeDamage(raw: RawLine, recovered: number, refused: string[]): string {
    const what: string[] = [];
    if (raw.zeroBytes > 0) what.push(`${formatBytes(raw.zeroBytes)} of it are zeros, as a power cut or a failing disk can leave`);
    if (raw.droppedBytes > 0) {
      what.push(
        raw.zeroBytes === 0 && raw.pieces.length === 0
          ? `it is ${formatBytes(raw.bytes)} long, over the ${formatBytes(this.maxLineBytes)} limit for one entry, so it was skipped without being read`
          : `${formatBytes(raw.droppedBytes)} of it could not be read (over the ${formatBytes(this.maxLineBytes)} limit for one entry)`,
      );
    }
    const found =
      recovered > 0
        ? `${recovered} complete entr${recovered === 1 ? 'y' : 'ies'} on it ${recovered === 1 ? 'was' : 'were'} recovered; the rest of the line is lost`
        : 'no complete entry on it could be recovered';
    return `damaged line: ${what.join('; ')}. ${found}${refused.length > 0 ? ` (refused: ${refused[0]})` : ''}`;
  }
}

/** Parses a whole buffer (pure; tests and small files). */
export function parseSessionBuffer(
  buf: Buffer,
  fallback: ParseFallback,
  sink: EntrySink,
  maxLineBytes: number = DEFAULT_SESSION_LIMITS.maxLineBytes,
): ParsedSession {
  const parser = new SessionParser(fallback, sink, maxLineBytes);
  splitLines(buf, maxLineBytes, (raw) => parser.line(raw));
  return parser.finish(buf.length);
}

function textOf(raw: RawLine, piece: number): string {
  const text = raw.pieces[piece].toString('utf8');
  return raw.line === 1 && piece === 0 ? stripBom(text) : text;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Pulls the title out of a damaged header line, e.g. `{"type":"session",…,"title":"雨夜"` cut later. */
function salvageTitle(text: string): string | undefined {
  const m = /"title"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text.slice(0, 64 * 1024));
  if (!m) return undefined;
  try {
    const title: unknown = JSON.parse(m[1]);
    return typeof title === 'string' && title.trim() ? title : undefined;
  } catch {
    return undefined;
  }
}
