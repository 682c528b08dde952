// Splits the bytes of a JSONL file into lines without ever holding more than a bounded amount of
// it, for the session tree and the memory store alike.
//
// - Lines are fed chunk by chunk; a line longer than `maxLineBytes` is not buffered: its bytes are
//   counted and dropped, and the line is reported with nothing to read.
// - A run of NUL bytes (what a power cut can leave where data never reached the disk) splits a line
//   into pieces: our writers escape U+0000, so a raw NUL is always damage, never content. When such
//   a block swallowed a newline, the intact entry after it is its own piece and can be recovered.
//   At most `MAX_PIECES` pieces and `maxLineBytes` bytes of them are kept per line (the latest);
//   the rest are counted as dropped.
//
// The splitter is pure (bytes in, lines out); `readLinesFromFile` is the thin fs loop around it.

import { constants as fsConstants, promises as fsp } from 'node:fs';
import type { LineFileLimits } from './limits';

export interface RawLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length in bytes, without the "\n". */
  bytes: number;
  /** False for a last line that has no "\n" after it. */
  terminated: boolean;
  /**
   * The line's text between NUL runs, oldest first. A clean line (no NUL, within the cap) is one
   * piece, the whole line (possibly empty).
   */
  pieces: Buffer[];
  /** NUL bytes on the line. */
  zeroBytes: number;
  /** Other bytes not kept: pieces over the cap, or beyond the pieces kept. */
  droppedBytes: number;
}

/** A line that is one piece with nothing zeroed or dropped: the normal case. */
export function isCleanLine(raw: RawLine): boolean {
  return raw.zeroBytes === 0 && raw.droppedBytes === 0 && raw.pieces.length <= 1;
}

/** Pieces kept per damaged line: a power cut leaves a handful; more is hostile. */
export const MAX_PIECES = 1000;

const NEWLINE = 0x0a;
const NUL = 0x00;

export class LineSplitter {
  private line = 1;
  private lineStart = 0;
  private lineBytes = 0;
  private zeroBytes = 0;
  private droppedBytes = 0;
  private pieces: Buffer[] = [];
  private keptBytes = 0;
  /** The piece being read: slices of chunks. */
  private current: Buffer[] = [];
  private currentBytes = 0;
  /** The current piece grew past the cap: drop the rest of it. */
  private overflow = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (raw: RawLine) => void,
  ) {}

  /**
   * Feeds the next bytes of the file. Nothing of the chunk is kept after the call, so the caller
   * may reuse it; a RawLine's pieces are only valid during the `onLine` call.
   */
  push(chunk: Buffer): void {
    const n = chunk.length;
    let pos = 0;
    let nextNl = chunk.indexOf(NEWLINE, 0);
    let nextZero = chunk.indexOf(NUL, 0);
    while (pos < n) {
      if (nextNl !== -1 && nextNl < pos) nextNl = chunk.indexOf(NEWLINE, pos);
      if (nextZero !== -1 && nextZero < pos) nextZero = chunk.indexOf(NUL, pos);
      const nl = nextNl === -1 ? n : nextNl;
      const zero = nextZero === -1 ? n : nextZero;
      const stop = Math.min(nl, zero);
      if (stop > pos) this.take(chunk, pos, stop);
      if (stop === n) break;
      if (stop === zero) {
        let end = zero;
        while (end < n && chunk[end] === NUL) end++;
        this.finishPiece();
        this.zeroBytes += end - zero;
        this.lineBytes += end - zero;
        pos = end;
      } else {
        this.endLine(true);
        pos = nl + 1;
      }
    }
    // What the unfinished line keeps is copied out of the chunk, so the chunk can be reused.
    for (let i = 0; i < this.pieces.length; i++) {
      if (this.pieces[i].buffer === chunk.buffer) this.pieces[i] = Buffer.from(this.pieces[i]);
    }
    for (let i = 0; i < this.current.length; i++) {
      if (this.current[i].buffer === chunk.buffer) this.current[i] = Buffer.from(this.current[i]);
    }
  }

  /** Lines begun so far (the one being read included). */
  get lines(): number {
    return this.line;
  }

  /** The end of the file: a last line without "\n" is delivered with `terminated: false`. */
  end(): void {
    if (this.lineBytes > 0) this.endLine(false);
  }

  private take(chunk: Buffer, from: number, to: number): void {
    const len = to - from;
    this.lineBytes += len;
    if (this.overflow) {
      this.droppedBytes += len;
      return;
    }
    this.current.push(chunk.subarray(from, to));
    this.currentBytes += len;
    if (this.currentBytes > this.maxLineBytes) {
      this.droppedBytes += this.currentBytes;
      this.current = [];
      this.currentBytes = 0;
      this.overflow = true;
    }
  }

  private finishPiece(): void {
    if (this.overflow) {
      this.overflow = false;
      return;
    }
    if (this.currentBytes === 0) return;
    const piece = this.current.length === 1 ? this.current[0] : Buffer.concat(this.current, this.currentBytes);
    this.current = [];
    this.currentBytes = 0;
    this.pieces.push(piece);
    this.keptBytes += piece.length;
    while (this.pieces.length > 1 && (this.keptBytes > this.maxLineBytes || this.pieces.length > MAX_PIECES)) {
      const old = this.pieces.shift() as Buffer;
      this.keptBytes -= old.length;
      this.droppedBytes += old.length;
    }
  }

  private endLine(terminated: boolean): void {
    this.finishPiece();
    const clean = this.zeroBytes === 0 && this.droppedBytes === 0;
    this.onLine({
      line: this.line,
      offset: this.lineStart,
      bytes: this.lineBytes,
      terminated,
      pieces: clean && this.pieces.length === 0 ? [EMPTY] : this.pieces,
      zeroBytes: this.zeroBytes,
      droppedBytes: this.droppedBytes,
    });
    this.line++;
    this.lineStart += this.lineBytes + 1;
    this.lineBytes = 0;
    this.zeroBytes = 0;
    this.droppedBytes = 0;
    this.pieces = [];
    this.keptBytes = 0;
  }
}

const EMPTY = Buffer.alloc(0);

/** Damaged lines reported one by one; past this, one report covers the rest (bounded memory). */
export const MAX_LINES_REPORTED = 1000;

/**
 * A list of damaged-line reports that stays bounded: the first MAX_LINES_REPORTED are kept as
 * they are, the rest counted and summed up in one final report.
 */
export class LineReports {
  readonly items: { line: number; error: string }[] = [];
  private more = 0;
  private firstMore = 0;
  private lastMore = 0;

  add(line: number, error: string): void {
    if (this.items.length < MAX_LINES_REPORTED) {
      this.items.push({ line, error });
      return;
    }
    if (this.more === 0) this.firstMore = line;
    this.more++;
    this.lastMore = line;
  }

  /** Reports not kept one by one. */
  get hidden(): number {
    return this.more;
  }

  /** The reports, with the summary of the rest last. */
  finish(what: string): { line: number; error: string }[] {
    if (this.more > 0) {
      this.items.push({ line: this.firstMore, error: `${this.more} more ${what} (lines ${this.firstMore}–${this.lastMore}) were skipped too` });
      this.more = 0;
    }
    return this.items;
  }
}

/** Splits a whole buffer (tests, small files). */
export function splitLines(buf: Buffer, maxLineBytes: number, onLine: (raw: RawLine) => void): void {
  const splitter = new LineSplitter(maxLineBytes, onLine);
  splitter.push(buf);
  splitter.end();
}

export type OpenedForLines =
  | { kind: 'ok'; handle: fsp.FileHandle; size: number; mtimeMs: number }
  | { kind: 'missing' }
  | { kind: 'not-a-file' }
  | { kind: 'too-large'; size: number };

/**
 * Opens a file for reading lines. Non-blocking, so a FIFO or device with the file's name cannot
 * hang the open; anything but a regular file, or a file over `maxFileBytes`, is refused before a
 * byte is read.
 */
export async function openForLines(file: string, maxFileBytes: number): Promise<OpenedForLines> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      return { kind: 'not-a-file' };
    }
    if (stat.size > maxFileBytes) {
      await handle.close();
      return { kind: 'too-large', size: stat.size };
    }
    return { kind: 'ok', handle, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  }
}

const READ_CHUNK_BYTES = 1024 * 1024;

/** Reads a whole file of at most `maxBytes`, refusing (without blocking) anything but a regular file. */
export async function readBoundedFile(
  file: string,
  maxBytes: number,
): Promise<{ kind: 'ok'; bytes: Buffer } | Exclude<OpenedForLines, { kind: 'ok' }>> {
  const opened = await openForLines(file, maxBytes);
  if (opened.kind !== 'ok') return opened;
  try {
    const bytes = Buffer.alloc(opened.size);
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await opened.handle.read(bytes, read, bytes.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { kind: 'ok', bytes: bytes.subarray(0, read) };
  } finally {
    await opened.handle.close();
  }
}

/**
 * Reads a small bookkeeping file (the lock, the current-session pointer) without blocking on a
 * FIFO and without reading more than `maxBytes`. Undefined when missing; '' when it is not a
 * regular file or is larger than `maxBytes` (present, but unreadable as what it should be).
 */
export async function readSmallFile(file: string, maxBytes: number): Promise<string | undefined> {
  const read = await readBoundedFile(file, maxBytes);
  if (read.kind === 'missing') return undefined;
  return read.kind === 'ok' ? read.bytes.toString('utf8') : '';
}

/**
 * Reads an open file from the start through the splitter. Stops with `tooLarge` if the file grew
 * past `maxFileBytes` while being read, or has more than `maxLines` lines (however short, each
 * line costs time: a file of millions of one-character lines must not keep the window busy).
 */
export async function readLines(
  handle: fsp.FileHandle,
  limits: LineFileLimits,
  onLine: (raw: RawLine) => void,
): Promise<{ bytes: number; tooLarge?: 'bytes' | 'lines' }> {
  const splitter = new LineSplitter(limits.maxLineBytes, onLine);
  let position = 0;
  // One buffer for the whole file: the splitter copies what it keeps.
  const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    if (position > limits.maxFileBytes) return { bytes: position, tooLarge: 'bytes' };
    splitter.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    if (splitter.lines > limits.maxLines) return { bytes: position, tooLarge: 'lines' };
  }
  splitter.end();
  return { bytes: position };
}

/**
 * A cheap test that a line can hold one JSON object: its first and last non-blank characters are
 * "{" and "}". Damaged lines mostly fail it, and skipping JSON.parse for them matters: a thrown
 * SyntaxError costs microseconds, and a damaged file can have millions of lines.
 */
export function mayBeJsonObject(text: string): boolean {
  let a = 0;
  let b = text.length - 1;
  while (a <= b && isJsonSpace(text.charCodeAt(a))) a++;
  while (b >= a && isJsonSpace(text.charCodeAt(b))) b--;
  return a < b && text.charCodeAt(a) === 0x7b && text.charCodeAt(b) === 0x7d;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Copies `length` bytes at `offset` of `from` into the new file `to` (exclusive create, fsynced), in chunks. */
export async function copyRangeToNewFile(from: fsp.FileHandle, offset: number, length: number, to: string): Promise<void> {
  const out = await fsp.open(to, 'wx');
  try {
    const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(1, length)));
    let done = 0;
    while (done < length) {
      const { bytesRead } = await from.read(chunk, 0, Math.min(chunk.length, length - done), offset + done);
      if (bytesRead === 0) break;
      let written = 0;
      while (written < bytesRead) written += (await out.write(chunk, written, bytesRead - written)).bytesWritten;
      done += bytesRead;
    }
    await out.sync();
  } finally {
    await out.close();
  }
}

/** "1.5 MB" */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
