// The vector memory of one session: `.worldline/memory/<sessionId>.jsonl`, append-only like the
// tree. Line 1 is a header naming the embedder; every other line is one row {nodeId, role, text,
// vector}. One `write` per row, fsync on flush. Opening tolerates a torn last line (set aside to
// `<id>.torn-<time>.jsonl` when writable, like the tree) and corrupt lines (reported, skipped, left
// in the file). The file is derived data: every row's text is also in the session file, so when
// the embedder changes the rows are re-embedded and the file is rewritten whole (atomically)
// rather than mixing vectors from two models.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { syncDirectory, tempPathFor } from '../common/atomic-write';
import type { Embedder } from './embed';
import { copyRangeToNewFile, formatBytes, openForLines, readLines } from '../session/jsonl-lines';
import {
  DEFAULT_MEMORY_LIMITS,
  MEMORY_FORMAT_VERSION,
  MemoryParser,
  TooManyRowsError,
  type CorruptMemoryLine,
  type MemoryHeader,
  type MemoryLimits,
  type ParsedMemory,
  type RowLine,
} from './storeFormat';
import { fail, messageOf, ok, type MemoryError, type MemoryRow, type Result, type SourceText } from './types';
import { DocFreq } from './docFreq';
import { dimsOf, encodeVector, type Vector } from './vector';

export function memoryFileFor(novelRoot: string, sessionId: string): string {
  return path.join(novelRoot, '.worldline', 'memory', `${sessionId}.jsonl`);
}

export interface MemoryStoreOptions {
  file: string;
  sessionId: string;
  /** The embedder in use now: rows made by another one are kept as text until `reembed`. */
  embedder: Pick<Embedder, 'id' | 'dims'>;
  /** Another window owns the novel: change nothing on disk. */
  readOnly?: boolean;
  now?: () => number;
  /** Size limits (tests lower them); defaults in storeFormat.ts. */
  limits?: Partial<MemoryLimits>;
}

export interface MemoryLoadReport {
  warnings: string[];
  corruptLines: CorruptMemoryLine[];
  tornTail?: { bytes: number; movedTo?: string };
  /** Set when the file's rows were made by another embedder (or the header was lost). */
  embedderChanged?: { from: string; to: string };
}

export interface NewRow extends SourceText {
  vector: Vector;
}

export class MemoryStore {
  private queue: Promise<unknown> = Promise.resolve();
  private handle: fsp.FileHandle | undefined;
  private closed = false;
  private readonly keys = new Set<string>();
  private freq = new DocFreq();

  private constructor(
    readonly file: string,
    private readonly opts: MemoryStoreOptions,
    private header: MemoryHeader | undefined,
    private readonly list: MemoryRow[],
    /** True while rows lack vectors from the current embedder: appends wait for `reembed`. */
    private mismatch: boolean,
    private size: number,
    private needsNewline: boolean,
    /** Damaged lines were found: a rewrite keeps a copy of the old file first. */
    private readonly hadDamage: boolean,
    private readonly limits: MemoryLimits,
  ) {
    for (const r of list) {
      this.keys.add(keyOf(r.nodeId, r.text));
      this.freq.add(r.vector);
    }
  }

  static async open(opts: MemoryStoreOptions): Promise<Result<{ store: MemoryStore; report: MemoryLoadReport }>> {
    const report: MemoryLoadReport = { warnings: [], corruptLines: [] };
    const limits = { ...DEFAULT_MEMORY_LIMITS, ...opts.limits };
    const empty = () => ok({ store: new MemoryStore(opts.file, opts, undefined, [], false, 0, false, false, limits), report });
    // Read line by line within the limits: no memory file, however large or damaged, is read whole.
    let parsed: ParsedMemory;
    try {
      const opened = await openForLines(opts.file, limits.maxFileBytes);
      if (opened.kind === 'missing') return empty();
      if (opened.kind === 'not-a-file') return fail('io', `${opts.file} is not a regular file, so memory cannot be read from it. Move it away; memory then starts afresh.`);
      if (opened.kind === 'too-large') return fail('io', tooLargeMessage(opts.file, `${formatBytes(opened.size)}, over the ${formatBytes(limits.maxFileBytes)} limit`));
      try {
        const parser = new MemoryParser(limits);
        const read = await readLines(opened.handle, limits, (raw) => parser.line(raw));
        if (read.tooLarge === 'bytes') return fail('io', tooLargeMessage(opts.file, `it grew past the ${formatBytes(limits.maxFileBytes)} limit while being read`));
        if (read.tooLarge === 'lines') return fail('io', tooLargeMessage(opts.file, `more than ${limits.maxLines} lines`));
        parsed = parser.finish(read.bytes);
      } finally {
        await opened.handle.close();
      }
    } catch (e) {
      if (e instanceof TooManyRowsError) return fail('io', tooLargeMessage(opts.file, e.message));
      return fail('io', `The memory file ${opts.file} could not be read (${messageOf(e)}).`);
    }
    if (parsed.newerVersion !== undefined) {
      return fail('io', `The memory file was written by a newer Worldline (format ${parsed.newerVersion}). Update the extension to use it.`);
    }
    report.corruptLines = parsed.corruptLines;
    if (parsed.corruptLines.length > 0) {
      report.warnings.push(
        `${parsed.corruptLines.length} damaged line(s) in the memory file were skipped (line ${lineList(parsed.corruptLines.map((c) => c.line))}); they stay in the file untouched.`,
      );
    }
    if (parsed.tornTail) {
      const moved = await setTornTailAside(opts, parsed.tornTail.offset, parsed.tornTail.bytes);
      if (!moved.ok) return moved;
      report.tornTail = moved.value === undefined ? { bytes: parsed.tornTail.bytes } : { bytes: parsed.tornTail.bytes, movedTo: moved.value };
      report.warnings.push(
        moved.value === undefined
          ? `The memory file's last line is incomplete (${parsed.tornTail.bytes} bytes); left in place (read-only).`
          : `The memory file's last line was incomplete (${parsed.tornTail.bytes} bytes, probably a crash); moved to ${path.basename(moved.value)}. Every complete row was kept.`,
      );
    }
    const usable = parsed.header !== undefined && compatible(parsed.header, opts.embedder);
    const rows: MemoryRow[] = parsed.rows.map((r, seq) => ({ seq, nodeId: r.nodeId, role: r.role, text: r.text, vector: usable ? r.vector : undefined }));
    // Anything on disk without a usable header (rows, a damaged header, only damaged lines) waits
    // for `reembed`, which rewrites the file with a proper header.
    const mismatch = !usable && parsed.keptBytes > 0;
    if (mismatch) {
      report.embedderChanged = { from: parsed.header?.embedder ?? 'unknown', to: opts.embedder.id };
      report.warnings.push(
        parsed.header
          ? `Memory rows were made by "${parsed.header.embedder}"; they will be re-embedded with "${opts.embedder.id}".`
          : `The memory file's header is missing (${parsed.headerProblem ?? 'unknown'}); its rows will be re-embedded.`,
      );
    }
    const store = new MemoryStore(opts.file, opts, parsed.header, rows, mismatch, parsed.keptBytes, parsed.missingFinalNewline, parsed.corruptLines.length > 0, limits);
    return ok({ store, report });
  }

  /** Every row, in archive order. Rows without a vector (awaiting `reembed`) are included. */
  rows(): readonly MemoryRow[] {
    return this.list;
  }

  /** Row counts per bucket, for weighing queries (local embedder only). */
  get docFreq(): DocFreq {
    return this.freq;
  }

  get embedderId(): string {
    return this.opts.embedder.id;
  }

  /** Rows that must be re-embedded before new rows can be appended. */
  get needsReembed(): boolean {
    return this.mismatch;
  }

  /** True when this exact text of this node is already stored (archiving is idempotent). */
  has(nodeId: string, text: string): boolean {
    return this.keys.has(keyOf(nodeId, text));
  }

  /** Appends rows, one write each; the file and header are created on the first row. */
  append(rows: readonly NewRow[]): Promise<Result<number>> {
    const refused = this.refusal(true);
    if (refused) return Promise.resolve(refused);
    return this.enqueue(async () => {
      let added = 0;
      for (const row of rows) {
        if (this.has(row.nodeId, row.text)) continue;
        const line: RowLine = { type: 'row', nodeId: row.nodeId, role: row.role, text: row.text, vector: encodeVector(row.vector) };
        const written = await this.writeLine(JSON.stringify(line), dimsOf(row.vector));
        if (!written.ok) return written;
        this.list.push({ seq: this.list.length, nodeId: row.nodeId, role: row.role, text: row.text, vector: row.vector });
        this.freq.add(row.vector);
        this.keys.add(keyOf(row.nodeId, row.text));
        added++;
      }
      return ok(added);
    });
  }

  /** Makes the rows written so far durable. */
  flush(): Promise<Result<void>> {
    if (this.closed || !this.handle) return Promise.resolve(ok(undefined));
    return this.enqueue(async () => {
      try {
        await this.handle?.sync();
        return ok(undefined);
      } catch (e) {
        return fail('io', `The memory file could not be synced (${messageOf(e)}).`);
      }
    });
  }

  /**
   * Gives every row a vector from `embedder` and, when writable, rewrites the file with the new
   * header (temp file + rename, so a crash leaves the old file or the new one, never a mix).
   */
  reembed(embedder: Embedder, signal?: AbortSignal): Promise<Result<number>> {
    const refused = this.refusal(false);
    if (refused) return Promise.resolve(refused);
    return this.enqueue(async () => {
      if (embedder.id !== this.opts.embedder.id) return fail('embedder-mismatch', `The store expects "${this.opts.embedder.id}", not "${embedder.id}".`);
      const embedded = await embedder.embed(this.list.map((r) => r.text), signal);
      if (!embedded.ok) return embedded;
      const vectors = embedded.value;
      if (!this.opts.readOnly) {
        const written = await this.rewrite(vectors);
        if (!written.ok) return written;
      }
      this.freq = new DocFreq();
      this.list.forEach((r, i) => {
        r.vector = vectors[i];
        this.freq.add(r.vector);
      });
      this.mismatch = false;
      return ok(this.list.length);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    const h = this.handle;
    this.handle = undefined;
    if (h) {
      await h.sync().catch(() => undefined);
      await h.close().catch(() => undefined);
    }
  }

  // ---------------------------------------------------------------- internals

  private refusal(appending: boolean): { ok: false; error: MemoryError } | undefined {
    if (this.closed) return fail('closed', 'The memory store was closed; open it again.');
    if (appending && this.opts.readOnly) return fail('read-only', 'Memory is read-only in this window: another window owns the novel.');
    if (appending && this.mismatch) return fail('embedder-mismatch', 'The memory rows must be re-embedded with the current embedder before new rows are added.');
    return undefined;
  }

  private async writeLine(line: string, dims: number): Promise<Result<void>> {
    try {
      if (!this.handle) await this.create(dims);
      const data = Buffer.from(this.needsNewline ? `\n${line}\n` : `${line}\n`, 'utf8');
      // Nothing is written that the next open would refuse.
      if (data.length > this.limits.maxLineBytes || this.size + data.length > this.limits.maxFileBytes || this.list.length >= this.limits.maxRows) {
        return fail('io', `The memory file ${this.file} is full (its size limit is ${formatBytes(this.limits.maxFileBytes)}); new passages are not remembered. Start a new session to get memory for new writing.`);
      }
      let written = 0;
      try {
        while (written < data.length) written += (await (this.handle as fsp.FileHandle).write(data, written, data.length - written)).bytesWritten;
      } catch (e) {
        if (written > 0) await this.handle?.truncate(this.size).catch(() => undefined); // never leave half a row
        throw e;
      }
      this.size += data.length;
      this.needsNewline = false;
      return ok(undefined);
    } catch (e) {
      return fail('io', `A memory row could not be written to ${this.file} (${messageOf(e)}). Memory recall still works; the row will be retried with the next summary.`);
    }
  }

  /** Opens the append handle, first writing the header when the file does not exist yet. */
  private async create(dims: number): Promise<void> {
    if (!this.header) {
      await fsp.mkdir(path.dirname(this.file), { recursive: true });
      const header = this.newHeader(dims);
      const data = `${JSON.stringify(header)}\n`;
      // 'w': the file is missing or empty (a torn header was set aside).
      const h = await fsp.open(this.file, 'w');
      try {
        await h.writeFile(data, 'utf8');
        await h.sync();
      } finally {
        await h.close();
      }
      await syncDirectory(path.dirname(this.file));
      this.header = header;
      this.size = Buffer.byteLength(data);
      this.needsNewline = false;
    }
    this.handle = await fsp.open(this.file, 'a');
  }

  private newHeader(dims: number): MemoryHeader {
    const now = this.opts.now ? this.opts.now() : Date.now();
    return { type: 'memory', version: MEMORY_FORMAT_VERSION, sessionId: this.opts.sessionId, embedder: this.opts.embedder.id, dims, createdAt: new Date(now).toISOString() };
  }

  private async rewrite(vectors: readonly Vector[]): Promise<Result<void>> {
    const first = vectors[0];
    const header = this.newHeader(first ? dimsOf(first) : this.opts.embedder.dims);
    const lines = [JSON.stringify(header)];
    this.list.forEach((r, i) => {
      const line: RowLine = { type: 'row', nodeId: r.nodeId, role: r.role, text: r.text, vector: encodeVector(vectors[i] as Vector) };
      lines.push(JSON.stringify(line));
    });
    const data = `${lines.join('\n')}\n`;
    const temp = tempPathFor(this.file);
    try {
      await fsp.mkdir(path.dirname(this.file), { recursive: true });
      const h = await fsp.open(temp, 'wx');
      try {
        await h.writeFile(data, 'utf8');
        await h.sync();
      } finally {
        await h.close();
      }
      const old = this.handle;
      this.handle = undefined;
      await old?.close();
      if (this.hadDamage) await fsp.copyFile(this.file, `${this.file.replace(/\.jsonl$/, '')}.damaged-${stampOf(this.opts)}.jsonl`).catch(() => undefined);
      await fsp.rename(temp, this.file);
      await syncDirectory(path.dirname(this.file));
    } catch (e) {
      await fsp.unlink(temp).catch(() => undefined);
      return fail('io', `The memory file could not be rewritten for the new embedder (${messageOf(e)}).`);
    }
    this.header = header;
    this.size = Buffer.byteLength(data);
    this.needsNewline = false;
    return ok(undefined);
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function keyOf(nodeId: string, text: string): string {
  return `${nodeId}\u0000${text}`;
}

function compatible(header: MemoryHeader, embedder: Pick<Embedder, 'id' | 'dims'>): boolean {
  return header.embedder === embedder.id && (embedder.dims === 0 || header.dims === 0 || header.dims === embedder.dims);
}

function stampOf(opts: Pick<MemoryStoreOptions, 'now'>): string {
  return new Date(opts.now ? opts.now() : Date.now()).toISOString().replace(/[:.]/g, '-');
}

/** Moves a torn tail to `<stem>.torn-<time>.jsonl` (copied in chunks) and cuts the file back; read-only: nothing. */
async function setTornTailAside(opts: MemoryStoreOptions, offset: number, bytes: number): Promise<Result<string | undefined>> {
  if (opts.readOnly) return ok(undefined);
  const base = path.join(path.dirname(opts.file), `${path.basename(opts.file, '.jsonl')}.torn-${stampOf(opts)}`);
  try {
    const source = await fsp.open(opts.file, 'r+');
    try {
      for (let n = 0; ; n++) {
        const target = n === 0 ? `${base}.jsonl` : `${base}-${n}.jsonl`;
        try {
          await copyRangeToNewFile(source, offset, bytes, target);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EEXIST' && n < 100) continue;
          throw e;
        }
        await source.truncate(offset);
        await source.sync();
        return ok(target);
      }
    } finally {
      await source.close();
    }
  } catch (e) {
    return fail('io', `The torn end of the memory file could not be set aside (${messageOf(e)}).`);
  }
}

function tooLargeMessage(file: string, why: string): string {
  return (
    `The memory file ${file} is too large to read (${why}), so memory recall is off for this session. ` +
    'The file is kept untouched. Start a new session, or move the file away to let memory start afresh (its text is all in the session).'
  );
}

/** "3, 7, 9, …" */
function lineList(lines: number[]): string {
  return lines.length > 20 ? `${lines.slice(0, 20).join(', ')}, …` : lines.join(', ');
}
