// Writes a new JSONL file line by line in buffered chunks, for rewriting the memory file: the
// whole file never exists as one string (past ~512 MB that is ERR_STRING_TOO_LONG, and long
// before that it doubles the memory). Exclusive create; the caller fsyncs, renames, or abandons.
import { promises as fsp } from 'node:fs';

const FLUSH_CHARS = 256 * 1024;

export class LineWriter {
  private parts: string[] = [];
  private chars = 0;
  private total = 0;

  private constructor(
    readonly file: string,
    private readonly handle: fsp.FileHandle,
  ) {}

  /** Creates `file`; EEXIST if it exists. */
  static async create(file: string): Promise<LineWriter> {
    return new LineWriter(file, await fsp.open(file, 'wx'));
  }

  /** Bytes in the file once everything given so far is flushed. */
  get bytes(): number {
    return this.total;
  }

  /** Adds one line (without its "\n"). */
  async line(text: string): Promise<void> {
    this.parts.push(text, '\n');
    this.chars += text.length + 1;
    this.total += Buffer.byteLength(text) + 1;
    if (this.chars >= FLUSH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.chars === 0) return;
    const data = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.chars = 0;
    let done = 0;
    while (done < data.length) done += (await this.handle.write(data, done, data.length - done)).bytesWritten;
  }

  /** Flushes, fsyncs and closes. */
  async finish(): Promise<void> {
    try {
      await this.flush();
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  /** Closes and removes the file; never throws. */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fsp.unlink(this.file).catch(() => undefined);
  }
}
