// Shared fixtures for the agent tool tests: a real novel folder in a temp dir, with an "outside"
// sibling that nothing may ever read or touch.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeManuscriptFs } from '../../../src/agent/fsNode';
import { executeTool, type ToolContext, type ToolOutcome } from '../../../src/agent/tools';
import type { Lang } from '../../../src/agent/manuscript';

export const GLOBS = ['**/*.md', '**/*.txt'];
export const SECRET = 'SECRET-OUTSIDE-7f3a';

export interface Sandbox {
  base: string;
  root: string;
  outside: string;
  ctx: ToolContext;
  run(name: string, args: unknown): Promise<ToolOutcome>;
  write(rel: string, text: string): void;
  read(rel: string): string;
  cleanup(): void;
}

export function makeSandbox(opts: { lang?: Lang; globs?: string[]; state?: () => unknown } = {}): Sandbox {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wl-tools-')));
  const root = path.join(base, 'novel');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.md'), SECRET);
  const ctx: ToolContext = {
    fs: new NodeManuscriptFs(root),
    root,
    globs: opts.globs ?? GLOBS,
    getState: opts.state ?? (() => ({ time: '傍晚', location: '茶馆' })),
    lang: opts.lang ?? 'en',
  };
  return {
    base,
    root,
    outside,
    ctx,
    run: (name, args) => executeTool(ctx, name, typeof args === 'string' ? args : JSON.stringify(args)),
    write(rel, text) {
      const file = path.join(root, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    },
    read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/** Every entry under `dir` (links not followed) with file contents, for before/after comparisons. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      const rel = path.relative(dir, full).split(path.sep).join('/');
      if (e.isSymbolicLink()) out.set(rel, `link:${fs.readlinkSync(full)}`);
      else if (e.isDirectory()) {
        out.set(rel, 'dir');
        walk(full);
      } else out.set(rel, `file:${fs.readFileSync(full, 'utf8')}`);
    }
  };
  walk(dir);
  return out;
}

/** Creates a symlink; returns false where the OS does not allow it (Windows without privilege). */
export function trySymlink(target: string, at: string, type: 'file' | 'dir'): boolean {
  try {
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(target, at, type === 'dir' ? 'junction' : 'file');
    return true;
  } catch {
    return false;
  }
}
