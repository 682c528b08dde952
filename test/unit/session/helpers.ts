// Shared test helpers for the session store: temp folders, a controllable clock and timers,
// realistic entries.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock, Timers } from '../../../src/session/clock';
import type { NewChainEntry } from '../../../src/session/entries';

const made: string[] = [];

export function tempDir(prefix = 'wl-session-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export class FakeClock implements Clock {
  constructor(public t = Date.UTC(2025, 2, 1, 12, 0, 0, 0)) {}
  now(): number {
    return this.t;
  }
}

/** Timers that fire only when the test advances the clock. */
export class FakeTimers implements Timers {
  private next = 1;
  private readonly pending = new Map<number, { due: number; fn: () => void }>();
  constructor(private readonly clock: FakeClock) {}
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { due: this.clock.t + ms, fn: callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  get count(): number {
    return this.pending.size;
  }
  /** Moves the clock forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.clock.t + ms;
    for (;;) {
      let firstId: number | undefined;
      let first: { due: number; fn: () => void } | undefined;
      for (const [id, t] of this.pending) if (t.due <= target && (!first || t.due < first.due)) [firstId, first] = [id, t];
      if (!first || firstId === undefined) break;
      this.pending.delete(firstId);
      this.clock.t = Math.max(this.clock.t, first.due);
      first.fn();
    }
    this.clock.t = target;
  }
}

/** Waits until `check` passes (async work such as a backup copy), or fails after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function user(text: string): NewChainEntry {
  return { type: 'user', text };
}

export function assistant(text: string, extra: Partial<Extract<NewChainEntry, { type: 'assistant' }>> = {}): NewChainEntry {
  return { type: 'assistant', text, model: 'test-model', finish: 'stop', ...extra };
}

export function tool(callId: string, result: string, name = 'append_file'): NewChainEntry {
  return { type: 'tool', callId, name, result, isError: false };
}

/** Byte ranges of each entry line (without its newline), in file order. */
export function entryLines(buf: Buffer): { id: string; start: number; end: number }[] {
  const out: { id: string; start: number; end: number }[] = [];
  let start = buf.indexOf(0x0a) + 1;
  while (start < buf.length) {
    const end = buf.indexOf(0x0a, start);
    out.push({ id: (JSON.parse(buf.toString('utf8', start, end)) as { id: string }).id, start, end });
    start = end + 1;
  }
  return out;
}
