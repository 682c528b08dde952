// The vector memory of one session: `.worldline/memory/<sessionId>.jsonl`, append-only like the
// tree. Line 1 is a header naming the embedder; every other line is one row {nodeId, role, text,
// vector}. One `write` per row, fsync on flush. Opening tolerates a torn last line (set aside to
// `<id>.torn-<time>.jsonl` when writable, like the tree) and corrupt lines (reported, skipped, left
// in the file). The file is derived data: every row's text is also in the session file, so when
// the embedder changes the rows are re-embedded and the file is rewritten whole (atomically)
// rather than mixing vectors from two models.
//
// In memory the rows' vectors live in a `RowIndex` (compact arrays and posting lists, see
// rowIndex.ts), not in the row objects: a row's `vector` is read from it on demand. The file is
// read in chunks and each row goes into the index as it is parsed, so opening holds no second copy
// of the rows; a rewrite is written line by line.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { syncDirectory, tempPathFor } from '../common/atomic-write';
import type { Embedder } from './embed';
import { copyRangeToNewFile, formatBytes, openForLines, readLines } from '../session/jsonl-lines';
import { LineWriter } from './lineWriter';
import { RowIndex, type RecallIndex } from './rowIndex';
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
import { fail, messageOf, ok, type MemoryError, type MemoryRow, type Result, type SourceRole, type SourceText } from './types';
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
  /** Size limits (tests lower them); defaults in storeFormat.ts and `memoryBudget()`. */
  limits?: Partial<StoreLimits>;
  /** Rows per index segment (tests lower it to seal segments with a few rows). */
  segmentRows?: number;
}

export interface StoreLimits extends MemoryLimits {
  /** Memory the loaded rows may take (estimated from the file's size before reading it). */
  maxMemoryBytes: number;
}

/** Half of this computer's memory: a memory file that needs more is refused, not loaded until the window dies. */
export function memoryBudget(): number {
  return Math.floor(os.totalmem() / 2);
}

/**
 * Memory the loaded rows take per byte of file (texts, row objects, posting lists), measured on
 * the local embedder's rows (bench/memory.bench.ts: ~540 MB for a 536 MB file of 200,000 rows);
 * rounded up, so the estimate errs on the safe side.
 */
export const MEMORY_PER_FILE_BYTE = 1.1;

/** Rows embedded per call when re-embedding (bounded memory, and a remote model's request size). */
export const REEMBED_BATCH = 256;

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

/** A row as the store holds it: its vector is read from the store's index when asked for. */
class StoredRow implements MemoryRow {
  constructor(
    readonly seq: number,
    readonly nodeId: string,
    readonly role: SourceRole,
    readonly text: string,
    private readonly set: RowSet,
  ) {}

  get vector(): Vector | undefined {
    return this.set.index.vectorOf(this.seq);
  }
}

/** The rows, their index and bucket counts, and which texts each node already has. */
class RowSet {
  readonly list: StoredRow[] = [];
  index: RowIndex;
  freq = new DocFreq();
  /** Node id → its rows (one number for the usual single row, else a list). */
  private readonly byNode = new Map<string, number | number[]>();

  constructor(private readonly segmentRows?: number) {
    this.index = this.newIndex();
  }

  newIndex(): RowIndex {
    return new RowIndex(this.segmentRows === undefined ? {} : { segmentRows: this.segmentRows });
  }

  add(nodeId: string, role: SourceRole, text: string, vector: Vector | undefined): void {
    const seq = this.list.length;
    const known = this.byNode.get(nodeId);
    // The rows of a node share one id string (the parser makes one per line).
    const id = known === undefined ? nodeId : (this.list[typeof known === 'number' ? known : (known[0] as number)] as StoredRow).nodeId;
    this.list.push(new StoredRow(seq, id, role, text, this));
    if (known === undefined) this.byNode.set(id, seq);
    else if (typeof known === 'number') this.byNode.set(id, [known, seq]);
    else known.push(seq);
    this.index.add(vector);
    this.freq.add(vector);
  }

  has(nodeId: string, text: string): boolean {
    const known = this.byNode.get(nodeId);
    if (known === undefined) return false;
    if (typeof known === 'number') return (this.list[known] as StoredRow).text === text;
    return known.some((seq) => (this.list[seq] as StoredRow).text === text);
  }
}

export class MemoryStore {
  private queue: Promise<unknown> = Promise.resolve();
  private handle: fsp.FileHandle | undefined;
  private closed = false;

  private constructor(
    readonly file: string,
    private readonly opts: MemoryStoreOptions,
    private header: MemoryHeader | undefined,
    private readonly set: RowSet,
    /** True while rows lack vectors from the current embedder: appends wait for `reembed`. */
    private mismatch: boolean,
    private size: number,
    private needsNewline: boolean,
    /** Damaged lines were found: a rewrite keeps a copy of the old file first. */
    private readonly hadDamage: boolean,
    private readonly limits: StoreLimits,
  ) {
    set.index.settle();
  }

  static async open(opts: MemoryStoreOptions): Promise<Result<{ store: MemoryStore; report: MemoryLoadReport }>> {
    const report: MemoryLoadReport = { warnings: [], corruptLines: [] };
    const limits: StoreLimits = { ...DEFAULT_MEMORY_LIMITS, maxMemoryBytes: memoryBudget(), ...opts.limits };
    const empty = () => ok({ store: new MemoryStore(opts.file, opts, undefined, new RowSet(opts.segmentRows), false, 0, false, false, limits), report });
    // Read line by line within the limits: no memory file, however large or damaged, is read whole.
    let parsed: ParsedMemory;
    let set: RowSet;
    try {
      const opened = await openForLines(opts.file, limits.maxFileBytes);
      if (opened.kind === 'missing') return empty();
      if (opened.kind === 'not-a-file') return fail('io', `${opts.file} is not a regular file, so memory cannot be read from it. Move it away; memory then starts afresh.`);
      if (opened.kind === 'too-large') return fail('io', tooLargeMessage(opts.file, `${formatBytes(opened.size)}, over the ${formatBytes(limits.maxFileBytes)} limit`));
      try {
        const needs = opened.size * MEMORY_PER_FILE_BYTE;
        if (needs > limits.maxMemoryBytes) {
          return fail('io', tooLargeMessage(opts.file, `${formatBytes(opened.size)}; loading it would take about ${formatBytes(needs)} of memory, over the ${formatBytes(limits.maxMemoryBytes)} it may use (half of this computer's)`));
        }
        const rows = new RowSet(opts.segmentRows);
        let usable: boolean | undefined;
        const parser: MemoryParser = new MemoryParser(limits, (r) => {
          // The header is line 1, so it is settled by the first row.
          usable ??= parser.header !== undefined && compatible(parser.header, opts.embedder);
          rows.add(r.nodeId, r.role, r.text, usable ? r.vector : undefined);
        });
        const read = await readLines(opened.handle, limits, (raw) => parser.line(raw));
        if (read.tooLarge === 'bytes') return fail('io', tooLargeMessage(opts.file, `it grew past the ${formatBytes(limits.maxFileBytes)} limit while being read`));
        if (read.tooLarge === 'lines') return fail('io', tooLargeMessage(opts.file, `more than ${limits.maxLines} lines`));
        parsed = parser.finish(read.bytes);
        set = rows;
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
    const store = new MemoryStore(opts.file, opts, parsed.header, set, mismatch, parsed.keptBytes, parsed.missingFinalNewline, parsed.corruptLines.length > 0, limits);
    return ok({ store, report });
  }

  /** Every row, in archive order. Rows without a vector (awaiting `reembed`) are included. */
  rows(): readonly MemoryRow[] {
    return this.set.list;
  }

  /** Row counts per bucket, for weighing queries (local embedder only). */
  get docFreq(): DocFreq {
    return this.set.freq;
  }

  /** The posting lists over `rows()`, for recall. */
  get index(): RecallIndex {
    return this.set.index;
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
    return this.set.has(nodeId, text);
  }

  /** Appends rows, one write each; the file and header are created on the first row. */
  append(rows: readonly NewRow[]): Promise<Result<number>> {
    const refused = this.refusal(true);
    if (refused) return Promise.resolve(refused);
    return this.enqueue(async () => {
      let added = 0;
      try {
        for (const row of rows) {
          if (this.has(row.nodeId, row.text)) continue;
          const line: RowLine = { type: 'row', nodeId: row.nodeId, role: row.role, text: row.text, vector: encodeVector(row.vector) };
          const written = await this.writeLine(JSON.stringify(line), dimsOf(row.vector));
          if (!written.ok) return written;
          this.set.add(row.nodeId, row.role, row.text, row.vector);
          added++;
        }
        return ok(added);
      } finally {
        this.set.index.settle(); // the posting lists catch up here, not in the next recall
      }
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
   * Gives every row a vector from `embedder`, `REEMBED_BATCH` rows a call, and, when writable,
   * rewrites the file with the new header (temp file + rename, so a crash leaves the old file or
   * the new one, never a mix). Nothing changes unless every row was embedded (and written).
   */
  reembed(embedder: Embedder, signal?: AbortSignal): Promise<Result<number>> {
    const refused = this.refusal(false);
    if (refused) return Promise.resolve(refused);
    return this.enqueue(async () => {
      if (embedder.id !== this.opts.embedder.id) return fail('embedder-mismatch', `The store expects "${this.opts.embedder.id}", not "${embedder.id}".`);
      const list = this.set.list;
      const index = this.set.newIndex();
      const freq = new DocFreq();
      let out: LineWriter | undefined;
      let header: MemoryHeader | undefined;
      try {
        if (!this.opts.readOnly) {
          await fsp.mkdir(path.dirname(this.file), { recursive: true });
          out = await LineWriter.create(tempPathFor(this.file));
        }
        for (let from = 0; from < list.length; from += REEMBED_BATCH) {
          const batch = list.slice(from, from + REEMBED_BATCH);
          const embedded = await embedder.embed(batch.map((r) => r.text), signal);
          if (!embedded.ok) {
            await out?.abandon();
            return embedded;
          }
          if (embedded.value.length !== batch.length) {
            await out?.abandon();
            return fail('embed', `The embedder returned ${embedded.value.length} vectors for ${batch.length} texts.`);
          }
          for (let i = 0; i < batch.length; i++) {
            const r = batch[i] as StoredRow;
            const v = embedded.value[i] as Vector;
            index.add(v);
            freq.add(v);
            if (!out) continue;
            if (!header) {
              header = this.newHeader(dimsOf(v));
              await out.line(JSON.stringify(header));
            }
            const line: RowLine = { type: 'row', nodeId: r.nodeId, role: r.role, text: r.text, vector: encodeVector(v) };
            await out.line(JSON.stringify(line));
          }
          if (out && out.bytes > this.limits.maxFileBytes) {
            await out.abandon();
            return fail('io', `The memory file cannot be rewritten for the new embedder: it would pass its size limit of ${formatBytes(this.limits.maxFileBytes)}. Start a new session to get memory for new writing.`);
          }
        }
        if (out && !header) {
          header = this.newHeader(this.opts.embedder.dims);
          await out.line(JSON.stringify(header));
        }
      } catch (e) {
        await out?.abandon();
        return fail('io', `The memory file could not be rewritten for the new embedder (${messageOf(e)}).`);
      }
      if (out && header) {
        const replaced = await this.replaceWith(out, header);
        if (!replaced.ok) return replaced;
      }
      index.settle();
      this.set.index = index;
      this.set.freq = freq;
      this.mismatch = false;
      return ok(list.length);
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
      if (data.length > this.limits.maxLineBytes || this.size + data.length > this.limits.maxFileBytes || this.set.list.length >= this.limits.maxRows) {
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

  /** Puts the finished temp file in place of the memory file (a damaged one is copied aside first). */
  private async replaceWith(out: LineWriter, header: MemoryHeader): Promise<Result<void>> {
    try {
      await out.finish();
      const old = this.handle;
      this.handle = undefined;
      await old?.close();
      if (this.hadDamage) await fsp.copyFile(this.file, `${this.file.replace(/\.jsonl$/, '')}.damaged-${stampOf(this.opts)}.jsonl`).catch(() => undefined);
      await fsp.rename(out.file, this.file);
      await syncDirectory(path.dirname(this.file));
    } catch (e) {
      await fsp.unlink(out.file).catch(() => undefined);
      return fail('io', `The memory file could not be rewritten for the new embedder (${messageOf(e)}).`);
    }
    this.header = header;
    this.size = out.bytes;
    this.needsNewline = false;
    return ok(undefined);
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }
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
