// The lines of a memory file (`.worldline/memory/<sessionId>.jsonl`), and reading its bytes with
// the same tolerance as the session tree: a torn last line is reported for the caller to set aside,
// a corrupt line anywhere is reported by number and skipped, a complete last line without its
// newline is kept, a line with zeroed bytes gives up the complete rows in it. Rows can be handed
// on one at a time as they are read (`onRow`), so a file of any size is never held as parsed rows
// besides what the store keeps of them. Pure: no fs.
import { MAX_LINES_REPORTED, RawLine, formatBytes, isCleanLine, mayBeJsonObject, splitLines } from '../session/jsonl-lines';
import type { LineFileLimits } from '../session/limits';
import type { SourceRole } from './types';
import { decodeVector, dimsOf, type EncodedVector, type Vector } from './vector';

export const MEMORY_FORMAT_VERSION = 1;

export interface MemoryHeader {
  type: 'memory';
  version: 1;
  sessionId: string;
  /** The embedder that made every row's vector. */
  embedder: string;
  dims: number;
  createdAt: string;
}

export interface RowLine {
  type: 'row';
  nodeId: string;
  role: SourceRole;
  text: string;
  vector: EncodedVector;
}

export interface ParsedRow {
  nodeId: string;
  role: SourceRole;
  text: string;
  vector: Vector;
}

export interface CorruptMemoryLine {
  line: number; // 1-based
  error: string;
}

export interface ParsedMemory {
  header?: MemoryHeader;
  /** Set when line 1 is not a usable header. */
  headerProblem?: string;
  newerVersion?: number;
  /** The rows read, unless they were handed to `onRow` instead. */
  rows: ParsedRow[];
  /** Rows read, either way. */
  rowCount: number;
  corruptLines: CorruptMemoryLine[];
  tornTail?: { offset: number; bytes: number };
  missingFinalNewline: boolean;
  keptBytes: number;
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'prose']);

/**
 * Size limits for the memory file: a row is a passage and its vector, far under a megabyte. A row
 * of the local embedder takes 3–4 KB on disk, so the file limit holds about 600,000 rows (200,000,
 * a 20,000-chapter book with its instructions and replies, is about 700 MB).
 */
export interface MemoryLimits extends LineFileLimits {
  maxRows: number;
}

export const DEFAULT_MEMORY_LIMITS: Readonly<MemoryLimits> = Object.freeze({
  maxLineBytes: 16 * 1024 * 1024,
  maxFileBytes: 2 * 1024 * 1024 * 1024,
  maxRows: 2_000_000,
  maxLines: 4_000_000,
});

/** Thrown from the parser when the rows exceed `maxRows`; the store turns it into a clear error. */
export class TooManyRowsError extends Error {
  override readonly name = 'TooManyRowsError';
}

/**
 * Builds a ParsedMemory from the lines of a file (jsonl-lines.ts), fed in order. A line with
 * zeroed bytes (a power cut) is split at the zero runs and every complete row in it is kept; a line
 * over the size limit is skipped unread. Both are reported.
 */
export class MemoryParser {
  private readonly out: ParsedMemory = { rows: [], rowCount: 0, corruptLines: [], missingFinalNewline: false, keptBytes: 0 };
  private unlisted = 0;
  private firstUnlisted = 0;
  private lastUnlisted = 0;
  private readonly take: (row: ParsedRow) => void;

  /** `onRow`: each row as it is read (line 1, the header, always comes first); the result's `rows` then stays empty. */
  constructor(
    private readonly limits: Pick<MemoryLimits, 'maxLineBytes' | 'maxRows'> = DEFAULT_MEMORY_LIMITS,
    onRow?: (row: ParsedRow) => void,
  ) {
    const out = this.out;
    this.take = (row) => {
      out.rowCount++;
      if (onRow) onRow(row);
      else out.rows.push(row);
    };
  }

  /** The header, once line 1 has been read. */
  get header(): MemoryHeader | undefined {
    return this.out.header;
  }

  line(raw: RawLine): void {
    if (raw.terminated) {
      if (isCleanLine(raw)) readLine(this.out, pieceText(raw, 0), raw.line, this.take);
      else this.damagedLine(raw);
    } else if (isCleanLine(raw)) {
      const tail = pieceText(raw, 0);
      if (parses(tail)) {
        readLine(this.out, tail, raw.line, this.take);
        this.out.missingFinalNewline = true;
      } else {
        this.out.tornTail = { offset: raw.offset, bytes: raw.bytes };
      }
    } else if (raw.pieces.some((_, i) => this.usable(raw, i))) {
      // The torn end stays with the rest of this damaged line; it reads the same once ended.
      this.damagedLine(raw);
      this.out.missingFinalNewline = true;
    } else {
      this.out.tornTail = { offset: raw.offset, bytes: raw.bytes };
    }
    if (this.out.rowCount > this.limits.maxRows) throw new TooManyRowsError(`more than ${this.limits.maxRows} rows`);
    // Bounded memory however damaged the file: past MAX_LINES_REPORTED, reports are only counted.
    while (this.out.corruptLines.length > MAX_LINES_REPORTED) {
      const extra = this.out.corruptLines.pop() as CorruptMemoryLine;
      if (this.unlisted === 0) this.firstUnlisted = extra.line;
      this.unlisted++;
      this.lastUnlisted = extra.line;
    }
  }

  finish(totalBytes: number): ParsedMemory {
    const out = this.out;
    if (this.unlisted > 0) {
      out.corruptLines.push({ line: this.firstUnlisted, error: `${this.unlisted} more damaged lines (lines ${this.firstUnlisted}–${this.lastUnlisted}) were skipped too` });
    }
    out.keptBytes = out.tornTail ? out.tornTail.offset : totalBytes;
    if (!out.header && out.headerProblem === undefined && out.newerVersion === undefined && (out.rowCount > 0 || out.corruptLines.length > 0)) {
      out.headerProblem = 'the file has no header line';
    }
    return out;
  }

  private damagedLine(raw: RawLine): void {
    let recovered = 0;
    raw.pieces.forEach((_, i) => {
      const text = pieceText(raw, i);
      let value: unknown;
      try {
        if (!mayBeJsonObject(text)) return;
        value = JSON.parse(text);
      } catch {
        return;
      }
      const o = asRecord(value);
      if (!o) return;
      if (raw.line === 1 && i === 0 && o['type'] === 'memory') {
        const before = this.out.corruptLines.length;
        readHeader(this.out, o);
        this.out.corruptLines.length = before; // reported once below, with the rest of the line
        if (this.out.header) recovered++;
        return;
      }
      const row = checkRow(o, this.out.header?.dims);
      if (typeof row !== 'string') {
        this.take(row);
        recovered++;
      }
    });
    if (raw.line === 1 && !this.out.header && this.out.newerVersion === undefined) this.out.headerProblem = 'line 1 is damaged';
    const what: string[] = [];
    if (raw.zeroBytes > 0) what.push(`${formatBytes(raw.zeroBytes)} of it are zeros, as a power cut or a failing disk can leave`);
    if (raw.droppedBytes > 0) what.push(`${formatBytes(raw.droppedBytes)} of it could not be read (over the ${formatBytes(this.limits.maxLineBytes)} limit for one row)`);
    const found = recovered > 0 ? `${recovered} complete line${recovered === 1 ? '' : 's'} on it recovered; the rest is lost` : 'nothing on it could be recovered';
    this.out.corruptLines.push({ line: raw.line, error: `damaged line: ${what.join('; ')}. ${found}` });
  }

  private usable(raw: RawLine, i: number): boolean {
    try {
      const text = pieceText(raw, i);
      if (!mayBeJsonObject(text)) return false;
      const o = asRecord(JSON.parse(text));
      return o !== undefined && (o['type'] === 'memory' || typeof checkRow(o, this.out.header?.dims) !== 'string');
    } catch {
      return false;
    }
  }
}

export function parseMemoryBuffer(buf: Buffer, limits: Pick<MemoryLimits, 'maxLineBytes' | 'maxRows'> = DEFAULT_MEMORY_LIMITS): ParsedMemory {
  const parser = new MemoryParser(limits);
  splitLines(buf, limits.maxLineBytes, (raw) => parser.line(raw));
  return parser.finish(buf.length);
}

function pieceText(raw: RawLine, i: number): string {
  const text = raw.pieces[i].toString('utf8');
  return raw.line === 1 && i === 0 ? text.replace(/^\uFEFF/, '') : text;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function readLine(out: ParsedMemory, text: string, line: number, take: (row: ParsedRow) => void): void {
  if (text.trim() === '') return;
  if (!mayBeJsonObject(text)) {
    out.corruptLines.push({ line, error: 'not valid JSON (a line must be one JSON object, {…})' });
    if (line === 1) out.headerProblem = 'line 1 is not valid JSON';
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    out.corruptLines.push({ line, error: `not valid JSON (${(e as Error).message})` });
    if (line === 1) out.headerProblem = 'line 1 is not valid JSON';
    return;
  }
  const o = asRecord(value);
  if (line === 1 && o?.['type'] === 'memory') {
    readHeader(out, o);
    return;
  }
  if (line === 1 && o?.['type'] !== 'row') out.headerProblem = 'line 1 is not a memory header';
  const row = o ? checkRow(o, out.header?.dims) : 'not a JSON object';
  if (typeof row === 'string') out.corruptLines.push({ line, error: row });
  else take(row);
}

function readHeader(out: ParsedMemory, o: Record<string, unknown>): void {
  const version = o['version'];
  if (typeof version === 'number' && version > MEMORY_FORMAT_VERSION) {
    out.newerVersion = version;
    return;
  }
  const ok =
    version === MEMORY_FORMAT_VERSION &&
    typeof o['sessionId'] === 'string' &&
    typeof o['embedder'] === 'string' &&
    typeof o['dims'] === 'number' &&
    Number.isInteger(o['dims']) &&
    (o['dims'] as number) >= 0 &&
    typeof o['createdAt'] === 'string';
  if (!ok) {
    out.headerProblem = 'the header on line 1 is damaged';
    out.corruptLines.push({ line: 1, error: out.headerProblem });
    return;
  }
  out.header = o as unknown as MemoryHeader;
}

function checkRow(o: Record<string, unknown>, dims: number | undefined): ParsedRow | string {
  if (o['type'] !== 'row') return `unknown line type ${JSON.stringify(o['type'])}`;
  const { nodeId, role, text, vector } = o;
  if (typeof nodeId !== 'string' || nodeId === '') return 'a row without nodeId';
  if (typeof role !== 'string' || !ROLES.has(role)) return `a row with an unknown role ${JSON.stringify(role)}`;
  if (typeof text !== 'string') return 'a row without text';
  const v = decodeVector(vector);
  if (!v) return 'a row whose vector is damaged';
  if (dims !== undefined && dims > 0 && dimsOf(v) !== dims) return `a row whose vector has ${dimsOf(v)} dimensions, not ${dims}`;
  return { nodeId, role: role as SourceRole, text, vector: v };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
