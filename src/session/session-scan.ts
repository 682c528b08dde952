// A quick look at a session file for listings, without building the tree: the header, the
// current title (the latest title label) and the number of entry lines. Only line 1 and lines
// holding `"label"` are decoded, so a large session costs one streamed read and no full parse.
// A file over the size limit is not read past its first 64 KB.

import { promises as fsp } from 'node:fs';
import { SessionHeader } from './entries';
import { RawLine, isCleanLine, openForLines, readLines, splitLines } from './jsonl-lines';
import { DEFAULT_SESSION_LIMITS, SessionLimits } from './limits';
import { checkHeader } from './validate';

export interface SessionScan {
  header: SessionHeader | undefined;
  title: string | undefined;
  entryLines: number;
  /** Over the size limit: only the header was read, `entryLines` is 0. */
  tooLarge?: boolean;
}

const LABEL_NEEDLE = Buffer.from('"label"');
const HEAD_BYTES = 64 * 1024;

class Scanner {
  private header: SessionHeader | undefined;
  private latest: string | undefined;
  private lines = 0;

  line(raw: RawLine): void {
    this.lines++;
    if (raw.line === 1) {
      if (isCleanLine(raw)) this.header = parseHeader(raw.pieces[0].toString('utf8'));
      return;
    }
    if (!this.header || !isCleanLine(raw)) return;
    const piece = raw.pieces[0];
    if (piece.indexOf(LABEL_NEEDLE) === -1) return;
    const label = titleLabel(piece.toString('utf8'), this.header.id);
    if (label !== undefined) this.latest = label;
  }

  result(): SessionScan {
    return { header: this.header, title: this.latest || this.header?.title, entryLines: Math.max(0, this.lines - 1) };
  }
}

export function scanSessionBuffer(buf: Buffer, maxLineBytes = DEFAULT_SESSION_LIMITS.maxLineBytes): SessionScan {
  const scanner = new Scanner();
  splitLines(buf, maxLineBytes, (raw) => scanner.line(raw));
  return scanner.result();
}

/** Scans a session file in chunks. Missing or unreadable files throw as fs errors do. */
export async function scanSessionFile(file: string, limits: Pick<SessionLimits, 'maxLineBytes' | 'maxFileBytes' | 'maxLines'>): Promise<SessionScan> {
  const opened = await openForLines(file, limits.maxFileBytes);
  if (opened.kind === 'missing' || opened.kind === 'not-a-file') return { header: undefined, title: undefined, entryLines: 0 };
  if (opened.kind === 'too-large') {
    const handle = await fsp.open(file, 'r');
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      const scanner = new Scanner();
      splitLines(buf.subarray(0, bytesRead), HEAD_BYTES, (raw) => {
        if (raw.line === 1) scanner.line(raw);
      });
      return { ...scanner.result(), entryLines: 0, tooLarge: true };
    } finally {
      await handle.close();
    }
  }
  try {
    const scanner = new Scanner();
    const read = await readLines(opened.handle, limits, (raw) => scanner.line(raw));
    return read.tooLarge ? { ...scanner.result(), entryLines: 0, tooLarge: true } : scanner.result();
  } finally {
    await opened.handle.close();
  }
}

function parseHeader(text: string): SessionHeader | undefined {
  try {
    const checked = checkHeader(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    return checked.kind === 'header' ? checked.header : undefined;
  } catch {
    return undefined;
  }
}

function titleLabel(line: string, headerId: string): string | undefined {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    return v && v.type === 'label' && v.targetId === headerId && typeof v.label === 'string' ? v.label : undefined;
  } catch {
    return undefined;
  }
}
