// The write side of a session file: an open append-mode handle, one `write` per complete line,
// fsync on demand. A failed write is cut back to the last complete line so a half-written entry
// never sits in the middle of the file.

import { promises as fsp } from 'node:fs';

export class AppendLog {
  private broken: Error | undefined;

  private constructor(
    private readonly handle: fsp.FileHandle,
    private size: number,
    /** The last line lacks its "\n": the next write starts with one. */
    private needsNewline: boolean,
  ) {}

  /** `size` is the file's length when loaded (after any torn tail was cut off). */
  static async open(file: string, size: number, needsNewline: boolean): Promise<AppendLog> {
    const handle = await fsp.open(file, 'a');
    return new AppendLog(handle, size, needsNewline);
  }

  /** Bytes of complete lines written so far. */
  get bytes(): number {
    return this.size;
  }

  /** Writes one line (`line` must not contain "\n"). One write call, unless the OS writes short. */
  async appendLine(line: string): Promise<void> {
    if (this.broken) throw this.broken;
    const data = Buffer.from(this.needsNewline ? `\n${line}\n` : `${line}\n`, 'utf8');
    let written = 0;
    try {
      while (written < data.length) {
        const { bytesWritten } = await this.handle.write(data, written, data.length - written);
        written += bytesWritten;
      }
    } catch (e) {
      if (written > 0) await this.cutBack(e);
      throw e;
    }
    this.size += data.length;
    this.needsNewline = false;
  }

  async sync(): Promise<void> {
    if (this.broken) return;
    await this.handle.sync();
  }

  async close(): Promise<void> {
    try {
      if (!this.broken) await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  private async cutBack(cause: unknown): Promise<void> {
    try {
      await this.handle.truncate(this.size);
    } catch {
      this.broken = new Error(
        `The session file could not be written and could not be repaired (${String(cause)}). ` +
          'Close and reopen the session; the damaged last line will be set aside.',
      );
    }
  }
}
