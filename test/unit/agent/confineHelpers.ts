// Fixtures for the file-system confinement tests: a novel with chapters/ next to an "outside"
// folder laid out like a chapters folder (same file names, canary contents), so that any write
// redirected by a swapped link or hard link would land on a canary and show.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { ConfineOptions, Strategy } from '../../../src/agent/confinedFile';
import { handleStrategyAvailable } from '../../../src/agent/confinedFile';
import { NodeManuscriptFs } from '../../../src/agent/fsNode';
import { executeTool, type ToolContext, type ToolOutcome } from '../../../src/agent/tools';
import { snapshot } from './toolsHelpers';

export const CANARY = 'CANARY-OUTSIDE-41c9';
export const GLOBS = ['**/*.md'];

export interface Novel {
  base: string;
  root: string;
  outside: string;
  fs: NodeManuscriptFs;
  ctx: ToolContext;
  run(name: string, args: unknown): Promise<ToolOutcome>;
  /** A fresh snapshot of the outside folder (links not followed). */
  outsideNow(): Map<string, string>;
  /** Top-level names in `base`, where a redirected write could also land. */
  baseNow(): string[];
  cleanup(): void;
}

export function makeNovel(confine: ConfineOptions = {}): Novel {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wl-confine-')));
  const root = path.join(base, 'novel');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'chapters'), { recursive: true });
  fs.mkdirSync(outside);
  for (const n of ['01', '02', '03']) fs.writeFileSync(path.join(outside, `${n}.md`), `${CANARY} ${n}\n`);
  fs.writeFileSync(path.join(root, 'chapters', '01.md'), 'One. MARK\n');
  fs.writeFileSync(path.join(root, 'chapters', '02.md'), 'Two.\n');
  const mfs = new NodeManuscriptFs(root, confine);
  const ctx: ToolContext = { fs: mfs, root, globs: GLOBS, getState: () => undefined, lang: 'en' };
  return {
    base,
    root,
    outside,
    fs: mfs,
    ctx,
    run: (name, args) => executeTool(ctx, name, JSON.stringify(args)),
    outsideNow: () => snapshot(outside),
    baseNow: () => fs.readdirSync(base).sort(),
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/** The strategies this platform can run: 'path' always, 'handle' where /proc/self/fd works. */
export async function strategies(): Promise<Strategy[]> {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-probe-'));
  try {
    return handleStrategyAvailable(probe) ? ['handle', 'path'] : ['path'];
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

/** Creates a FIFO with the system's mkfifo; false where there is none (Windows). */
export function tryMkfifo(at: string): boolean {
  if (process.platform === 'win32') return false;
  try {
    execFileSync('mkfifo', [at], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Rejects when `p` does not settle within `ms`, so a hang fails the test with a message. */
export async function within<T>(ms: number, what: string, p: Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    const value = await Promise.race([p, timeout]);
    return { value, ms: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}
