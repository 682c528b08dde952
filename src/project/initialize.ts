// "Initialize Novel": the template files (template.ts) written into the book folder. A folder that
// already has worldline.yaml is left as it is; otherwise every template file that does not exist
// yet is written, and nothing the novelist already has is ever overwritten. Plain Node.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CONFIG_FILE, type ProjectLanguage } from './config';
import { newNovelFiles } from './template';

export type InitializeResult =
  /** The folder already has worldline.yaml: nothing was written. */
  | { initialized: false }
  /** `written`: the files created; `kept`: template paths that already existed and were left untouched. */
  | { initialized: true; written: string[]; kept: string[] };

export async function initializeNovelFolder(root: string, lang: ProjectLanguage, title: string): Promise<InitializeResult> {
  if (await exists(path.join(root, CONFIG_FILE))) return { initialized: false };
  const written: string[] = [];
  const kept: string[] = [];
  for (const file of newNovelFiles(lang, title)) {
    const abs = path.join(root, ...file.path.split('/'));
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    try {
      // 'wx' creates or fails in one step: a file (or a link, even a dangling one) that appears
      // meanwhile is never overwritten or followed.
      await fsp.writeFile(abs, file.content, { flag: 'wx' });
      written.push(file.path);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EEXIST') throw err;
      kept.push(file.path);
    }
  }
  return { initialized: true, written, kept };
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}
