// The Story's codex: the entries of the book's codex folder and their selection index, kept
// between turns and rebuilt only when the folder's files change. What changed is told by a cheap
// look at the folder (each entry file's path, size and modification time, no file read), skipped
// altogether while a change feed says nothing under the folder changed; the files are read again
// only when that look differs. Then, per turn, the entries the turn names are rendered into one
// block (src/codex/render.ts) for the newest instruction.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeFeed } from '../project/manuscriptChanges';
import { isInCodexFolder } from '../project/codexFolder';
import type { SceneState } from '../state/types';
import { loadCodex, type LoadedCodex } from './load';
import { renderCodexBlock } from './render';
import { CodexIndex } from './select';
import type { CodexEntry, CodexScanInput } from './types';

type Lang = 'zh' | 'en';

/** The codex block's budget in characters (the state block's is 5,500). */
export const CODEX_BLOCK_BUDGET = 4000;
/** How many recent messages an entry without its own `depth` scans. */
export const DEFAULT_CODEX_DEPTH = 4;

export interface CodexCacheOptions {
  /** The book folder, absolute. */
  root: string;
  /** worldline.yaml `codex:`, asked at each look (the config may change). */
  folder(): string;
  /** When given, the folder is looked at only after it reports a change under it (or 'all'). */
  feed?: ChangeFeed;
  /** Reads the codex (default: src/codex/load.ts). */
  load?(root: string, folder: string): Promise<LoadedCodex>;
  /** Files left out, each with why: said once per load. */
  warn?(message: string): void;
}

/** What one turn injects: the block and the entries in it. */
export interface InjectedCodex {
  text: string;
  /** Paths of the entries in the block, in the block's order. */
  paths: string[];
}

export class CodexCache {
  private loaded: { folder: string; signature: string; entries: readonly CodexEntry[]; index: CodexIndex } | undefined;
  /** Since the last look, the feed reported a change that may touch the codex. */
  private dirty = true;
  private readonly stopListening: (() => void) | undefined;
  private pending: Promise<CodexCache['loaded']> | undefined;

  constructor(private readonly options: CodexCacheOptions) {
    this.stopListening = options.feed?.listen((paths) => {
      if (paths === 'all') this.dirty = true;
      else {
        const folder = options.folder();
        if (paths.some((p) => isInCodexFolder(folder, p) || isInCodexFolder(p, folder))) this.dirty = true;
      }
    });
  }

  /** The entries now (path order). Never throws: an unreadable codex is an empty one. */
  async entries(): Promise<readonly CodexEntry[]> {
    return (await this.current())?.entries ?? [];
  }

  /** The block for one turn, '' with no entry selected. */
  async inject(input: CodexScanInput, opts: { lang: Lang; budget?: number }): Promise<InjectedCodex> {
    const now = await this.current();
    if (!now || now.entries.length === 0) return { text: '', paths: [] };
    const selected = now.index.select(input, { defaultDepth: DEFAULT_CODEX_DEPTH });
    if (selected.length === 0) return { text: '', paths: [] };
    const rendered = renderCodexBlock(selected, { budget: opts.budget ?? CODEX_BLOCK_BUDGET, lang: opts.lang });
    return { text: rendered.text, paths: [...rendered.included] };
  }

  dispose(): void {
    this.stopListening?.();
  }

  private current(): Promise<CodexCache['loaded']> {
    // One look at a time: two turns' hooks never read the folder twice.
    this.pending ??= this.refresh().finally(() => { this.pending = undefined; });
    return this.pending;
  }

  private async refresh(): Promise<CodexCache['loaded']> {
    const folder = this.options.folder();
    const known = this.loaded;
    if (known && known.folder === folder && !this.dirty && this.options.feed) return known;
    this.dirty = false;
    const signature = await folderSignature(this.options.root, folder);
    if (known && known.folder === folder && known.signature === signature) return known;
    try {
      const codex = await (this.options.load ?? loadCodex)(this.options.root, folder);
      if (codex.problems.length > 0) this.options.warn?.(codex.problems.map((p) => `${p.path}: ${p.error}`).join('\n'));
      this.loaded = { folder, signature, entries: codex.entries, index: new CodexIndex(codex.entries) };
    } catch (err) {
      this.options.warn?.(`The codex could not be read: ${err instanceof Error ? err.message : String(err)}`);
      this.loaded = undefined;
    }
    return this.loaded;
  }
}

/** Each .md file's path, size and modification time under the folder: changes when any entry file does. */
export async function folderSignature(root: string, folder: string): Promise<string> {
  const parts: string[] = [];
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (depth > 32) return;
    let items: fs.Dirent[];
    try {
      items = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      parts.push(`${rel}/?`);
      return;
    }
    for (const item of items) {
      if (item.name.startsWith('.')) continue;
      const full = path.join(dir, item.name);
      const relPath = `${rel}/${item.name}`;
      if (item.isDirectory()) await walk(full, relPath, depth + 1);
      else if (item.name.toLowerCase().endsWith('.md') || item.isSymbolicLink()) {
        try {
          const st = await fs.promises.stat(full);
          if (st.isDirectory()) await walk(full, relPath, depth + 1);
          else parts.push(`${relPath}\0${st.size}\0${st.mtimeMs}`);
        } catch {
          parts.push(`${relPath}\0!`);
        }
      }
    }
  };
  await walk(path.resolve(root, folder), folder, 0);
  return parts.sort().join('\n');
}

/** The names the scene state holds: characters present, the location, items held. */
export function stateNames(state: SceneState | undefined): string[] {
  if (!state) return [];
  const out = Object.keys(state.characters ?? {});
  if (typeof state.location === 'string' && state.location.trim() !== '') out.push(state.location);
  for (const item of state.items ?? []) {
    if (typeof item !== 'string') continue;
    // "黄铜怀表（青梧持有）": the holder is written inside the string; the selection compares whole names.
    const name = item.replace(/\s*[（(][^（()）]*[)）]\s*$/u, '').trim();
    if (name !== '') out.push(name);
  }
  return out;
}
