// Reads the bytes of a session file into a header and entries, tolerating damage:
//  - a torn last line (no newline, not complete JSON) is reported as `tornTail` for the caller to
//    set aside; every complete line before it is kept;
//  - a last line that *is* complete JSON but lacks its newline (the crash hit between the text and
//    the "\n", or another tool stripped it) is kept, and `missingFinalNewline` tells the writer to
//    put a "\n" in front of the next entry;
//  - a corrupt line anywhere else is reported with its 1-based line number and skipped;
//  - blank lines are skipped (they hold nothing to lose);
//  - a missing or damaged header is recovered (id from the file name, title salvaged when
//    possible) so the entries stay usable; a header from a newer format version is refused.
// Pure: no fs. The caller decides what to do with the file.

import { Entry, SESSION_FORMAT_VERSION, SessionHeader } from './entries';
import { SessionError } from './errors';
import { checkEntry, checkHeader } from './validate';

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
}

/** Called for each well-formed entry in file order; returns an error to reject it as corrupt. */
export type EntrySink = (entry: Entry, line: number) => string | undefined;

export const RECOVERED_TITLE = 'Recovered session';

const NEWLINE = 0x0a;
// Decoding the whole file at once would hit V8's string limit on huge files; decode in chunks
// that end on a newline instead, which is as fast as one decode and bounded in memory.
const DECODE_CHUNK_BYTES = 16 * 1024 * 1024;

export function parseSessionBuffer(buf: Buffer, fallback: ParseFallback, sink: EntrySink): ParsedSession {
  const corruptLines: CorruptLine[] = [];
  const warnings: string[] = [];
  let header: SessionHeader | undefined;
  let damagedHeaderText: string | undefined;
  let firstEntryTs: string | undefined;
  let entryCount = 0;

  const acceptEntry = (value: unknown, line: number): boolean => {
    const checked = checkEntry(value);
    if (!checked.ok) {
      corruptLines.push({ line, error: checked.error });
      return false;
    }
    const rejected = sink(checked.value, line);
    if (rejected !== undefined) {
      corruptLines.push({ line, error: rejected });
      return false;
    }
    if (firstEntryTs === undefined) firstEntryTs = checked.value.ts;
    entryCount++;
    return true;
  };

  const handleFirstLine = (text: string, value: unknown): void => {
    const checked = checkHeader(value);
    if (checked.kind === 'header') {
      header = checked.header;
      return;
    }
    if (checked.kind === 'newer-version') {
      throw new SessionError(
        'newer-version',
        `This session was written by a newer version of Worldline (format ${checked.version}; ` +
          `this version reads format ${SESSION_FORMAT_VERSION}). Update the Worldline extension to open it.`,
      );
    }
    // Not a header. If it is an entry (someone removed the header), keep the entry.
    if (checkEntry(value).ok) {
      warnings.push('Line 1 is an entry, not the session header; the header was recovered.');
      acceptEntry(value, 1);
      return;
    }
    damagedHeaderText = text;
    corruptLines.push({ line: 1, error: checked.error });
  };

  const handleLine = (text: string, line: number): void => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (text.trim().length === 0) return;
      if (line === 1) damagedHeaderText = text;
      corruptLines.push({ line, error: `not valid JSON (${(e as Error).message})` });
      return;
    }
    if (line === 1) handleFirstLine(text, value);
    else acceptEntry(value, line);
  };

  // Complete lines: everything up to and including the last newline.
  const lastNewline = buf.lastIndexOf(NEWLINE);
  const completeEnd = lastNewline + 1;
  let nextLine = forEachLine(buf, completeEnd, (text, line) => handleLine(line === 1 ? stripBom(text) : text, line));

  let tornTail: ParsedSession['tornTail'];
  let missingFinalNewline = false;
  let keptBytes = completeEnd;
  if (completeEnd < buf.length) {
    const raw = buf.toString('utf8', completeEnd, buf.length);
    const text = nextLine === 1 ? stripBom(raw) : raw;
    if (isCompleteJson(text)) {
      handleLine(text, nextLine++);
      missingFinalNewline = true;
      keptBytes = buf.length;
    } else {
      tornTail = { offset: completeEnd, bytes: buf.length - completeEnd };
      if (nextLine === 1) damagedHeaderText = text;
    }
  }

  const headerRecovered = header === undefined;
  if (!header) {
    header = {
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id: fallback.id,
      createdAt: firstEntryTs ?? fallback.createdAt,
      title: (damagedHeaderText && salvageTitle(damagedHeaderText)) || RECOVERED_TITLE,
    };
    if (buf.length > 0) {
      warnings.push(
        'The session header (line 1) was missing or damaged; the session was opened with a recovered header. ' +
          'Rename the session if its title is wrong.',
      );
    }
  } else if (header.id !== fallback.id) {
    warnings.push(`The session header's id (${header.id}) differs from its file name (${fallback.id}).`);
  }

  return { header, headerRecovered, corruptLines, warnings, tornTail, missingFinalNewline, keptBytes, entryCount };
}

/** Calls `onLine` for each line in buf[0, end) (end must follow a newline); returns the next line number. */
function forEachLine(buf: Buffer, end: number, onLine: (text: string, line: number) => void): number {
  let line = 1;
  let start = 0;
  while (start < end) {
    let chunkEnd = Math.min(start + DECODE_CHUNK_BYTES, end);
    if (chunkEnd < end) {
      const nl = buf.lastIndexOf(NEWLINE, chunkEnd - 1);
      chunkEnd = nl >= start ? nl + 1 : buf.indexOf(NEWLINE, chunkEnd) + 1; // a line longer than a chunk
    }
    const lines = buf.toString('utf8', start, chunkEnd).split('\n');
    // The chunk ends with "\n", so the last piece is empty.
    for (let i = 0; i < lines.length - 1; i++) onLine(lines[i], line++);
    start = chunkEnd;
  }
  return line;
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
  const m = /"title"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  if (!m) return undefined;
  try {
    const title: unknown = JSON.parse(m[1]);
    return typeof title === 'string' && title.trim() ? title : undefined;
  } catch {
    return undefined;
  }
}
