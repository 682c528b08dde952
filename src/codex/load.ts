// Reads the codex: every `*.md` below the codex folder, each parsed into an entry. A file that
// cannot be an entry (too large, not UTF-8 text, broken front matter) is a problem with its path,
// never a failure of the whole codex. Links are followed only while they stay inside the folder
// (the checkpoints track the folder, so lore from elsewhere would not follow the branch), hidden
// names (`.git`, `.obsidian`, …) are skipped, and the entries come in path order, whatever order
// the file system lists them in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProjectLanguage } from '../project/config';
import { MAX_CODEX_FILE_CHARS, parseCodexFile } from './file';
import type { CodexEntry } from './types';

/** Larger files are not read (UTF-8 text of at most MAX_CODEX_FILE_CHARS characters, roughly). */
export const MAX_CODEX_FILE_BYTES = MAX_CODEX_FILE_CHARS;
/** More files than this are not read: a folder that large is not a codex (a copied corpus, say). */
export const MAX_CODEX_FILES = 20_000;
/** Files read at once. */
const PARALLEL_READS = 16;

export interface CodexProblem {
  /** POSIX path relative to the book folder. */
  readonly path: string;
  readonly error: string;
}

export interface CodexWarning {
  readonly path: string;
  readonly warning: string;
}

export interface LoadedCodex {
  /** In path order (code units, so the same on every system). */
  readonly entries: CodexEntry[];
  /** Files left out, each with why. */
  readonly problems: CodexProblem[];
  /** Files read with a field ignored or defaulted. */
  readonly warnings: CodexWarning[];
}

export interface LoadCodexOptions {
  /** The language of problems and warnings; default English. */
  readonly uiLang?: ProjectLanguage;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Loads the codex of the book at `root` from its folder `folder` (relative to `root`, e.g.
 * `codex`). A folder that does not exist is an empty codex. Never throws.
 */
export async function loadCodex(root: string, folder: string, options: LoadCodexOptions = {}): Promise<LoadedCodex> {
  const t = (en: string, zh: string): string => (options.uiLang === 'zh' ? zh : en);
  const entries: CodexEntry[] = [];
  const problems: CodexProblem[] = [];
  const warnings: CodexWarning[] = [];
  const result = (): LoadedCodex => {
    const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    // Stable sorts: one file's warnings stay in the order parsing found them.
    return { entries: entries.sort(byPath), problems: problems.sort(byPath), warnings: warnings.sort(byPath) };
  };
  const folderPath = toPosix(folder).replace(/\/+$/, '') || '.';

  let realRoot: string;
  let realBase: string;
  try {
    realRoot = await fs.promises.realpath(root);
    realBase = await fs.promises.realpath(path.resolve(root, folder));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return result();
    problems.push({ path: folderPath, error: t(`The codex folder could not be read: ${(err as Error).message}`, `设定文件夹读不了：${(err as Error).message}`) });
    return result();
  }
  if (!isInside(realRoot, realBase)) {
    problems.push({ path: folderPath, error: t('The codex folder is outside the book folder; it is not read.', '设定文件夹在书的文件夹之外，不读取。') });
    return result();
  }

  // Walk: the found files as [absolute path, path relative to the book]. Visited folders by real
  // path, so a link back up the tree is not walked twice.
  const files: [string, string][] = [];
  const visited = new Set<string>([realBase]);
  let tooMany = false;
  const walk = async (dir: string, rel: string): Promise<void> => {
    let items: fs.Dirent[];
    try {
      items = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch (err) {
      problems.push({ path: rel, error: t(`The folder could not be read: ${(err as Error).message}`, `文件夹读不了：${(err as Error).message}`) });
      return;
    }
    items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const item of items) {
      if (item.name.startsWith('.')) continue;
      const full = path.join(dir, item.name);
      const relPath = rel === '' ? item.name : `${rel}/${item.name}`;
      let isDir = item.isDirectory();
      let isFile = item.isFile();
      if (item.isSymbolicLink()) {
        let target: string;
        let stat: fs.Stats;
        try {
          target = await fs.promises.realpath(full);
          stat = await fs.promises.stat(target);
        } catch {
          if (item.name.toLowerCase().endsWith('.md')) problems.push({ path: relPath, error: t('The link leads nowhere; it is skipped.', '这个链接指向的文件不存在，已跳过。') });
          continue;
        }
        if (!isInside(realBase, target)) {
          if (stat.isDirectory() || item.name.toLowerCase().endsWith('.md')) {
            problems.push({ path: relPath, error: t('The link leads outside the codex folder; it is not followed (the checkpoints would not track what it leads to).', '这个链接指向设定文件夹之外，不跟随（检查点不会记录它指向的内容）。') });
          }
          continue;
        }
        isDir = stat.isDirectory();
        isFile = stat.isFile();
        if (isDir) {
          if (visited.has(target)) continue;
          visited.add(target);
        }
      }
      if (isDir) await walk(full, relPath);
      else if (isFile && item.name.toLowerCase().endsWith('.md')) {
        if (files.length >= MAX_CODEX_FILES) {
          tooMany = true;
          return;
        }
        files.push([full, relPath]);
      }
    }
  };
  await walk(realBase, folderPath === '.' ? '' : folderPath);
  if (tooMany) {
    problems.push({ path: folderPath, error: t(`The codex has more than ${MAX_CODEX_FILES} files; only the first ${MAX_CODEX_FILES} are read.`, `设定文件超过 ${MAX_CODEX_FILES} 个；只读取前 ${MAX_CODEX_FILES} 个。`) });
  }

  const decoder = new TextDecoder('utf-8', { fatal: true });
  const readOne = async ([full, rel]: [string, string]): Promise<void> => {
    try {
      const stat = await fs.promises.stat(full);
      if (stat.size > MAX_CODEX_FILE_BYTES) {
        problems.push({ path: rel, error: t(`The file is too large (${Math.round(stat.size / 1024)} KB; the limit is ${MAX_CODEX_FILE_BYTES / 1024} KB). Split it into several entries.`, `文件太大（${Math.round(stat.size / 1024)} KB，上限 ${MAX_CODEX_FILE_BYTES / 1024} KB）。请拆成几个条目。`) });
        return;
      }
      const bytes = await fs.promises.readFile(full);
      let text: string;
      try {
        text = decoder.decode(bytes);
      } catch {
        problems.push({ path: rel, error: t('The file is not UTF-8 text; save it as UTF-8.', '文件不是 UTF-8 文本；请以 UTF-8 保存。') });
        return;
      }
      const parsed = parseCodexFile(rel, text, options);
      if (!parsed.ok) {
        problems.push({ path: rel, error: parsed.error });
        return;
      }
      entries.push(parsed.entry);
      for (const warning of parsed.warnings) warnings.push({ path: rel, warning });
    } catch (err) {
      problems.push({ path: rel, error: t(`The file could not be read: ${(err as Error).message}`, `文件读不了：${(err as Error).message}`) });
    }
  };
  for (let i = 0; i < files.length; i += PARALLEL_READS) {
    await Promise.all(files.slice(i, i + PARALLEL_READS).map(readOne));
  }
  return result();
}
