// The lines of a memory file (`.worldline/memory/<sessionId>.jsonl`), and reading its bytes with
// the same tolerance as the session tree: a torn last line is reported for the caller to set aside,
// a corrupt line anywhere is reported by number and skipped, a complete last line without its
// newline is kept. Pure: no fs.
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
  rows: ParsedRow[];
  corruptLines: CorruptMemoryLine[];
  tornTail?: { offset: number; bytes: number };
  missingFinalNewline: boolean;
  keptBytes: number;
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'prose']);

export function parseMemoryBuffer(buf: Buffer): ParsedMemory {
  const out: ParsedMemory = { rows: [], corruptLines: [], missingFinalNewline: false, keptBytes: 0 };
  const completeEnd = buf.lastIndexOf(0x0a) + 1;
  const lines = completeEnd > 0 ? buf.toString('utf8', 0, completeEnd).split('\n').slice(0, -1) : [];
  if (completeEnd < buf.length) {
    const tail = buf.toString('utf8', completeEnd);
    if (parses(tail)) {
      lines.push(tail);
      out.missingFinalNewline = true;
      out.keptBytes = buf.length;
    } else {
      out.tornTail = { offset: completeEnd, bytes: buf.length - completeEnd };
      out.keptBytes = completeEnd;
    }
  } else {
    out.keptBytes = completeEnd;
  }
  lines.forEach((text, i) => readLine(out, text, i + 1));
  if (!out.header && out.headerProblem === undefined && out.newerVersion === undefined && (out.rows.length > 0 || out.corruptLines.length > 0)) {
    out.headerProblem = 'the file has no header line';
  }
  return out;
}

function readLine(out: ParsedMemory, text: string, line: number): void {
  if (text.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text);
  } catch (e) {
    out.corruptLines.push({ line, error: `not valid JSON (${(e as Error).message})` });
    if (line === 1) out.headerProblem = 'line 1 is not valid JSON';
    return;
  }
  const o = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  if (line === 1 && o?.['type'] === 'memory') {
    readHeader(out, o);
    return;
  }
  if (line === 1 && o?.['type'] !== 'row') out.headerProblem = 'line 1 is not a memory header';
  const row = o ? checkRow(o, out.header?.dims) : 'not a JSON object';
  if (typeof row === 'string') out.corruptLines.push({ line, error: row });
  else out.rows.push(row);
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
