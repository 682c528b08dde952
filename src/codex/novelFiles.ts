// The files of the open novel as the codex flows touch them (src/codex/codexFlows.ts,
// src/import/codexImportFlow.ts): POSIX paths relative to the book folder. A new file never
// replaces one that is there ('wx'), and a rename never lands on one; only `replace` overwrites,
// and only the file the novelist chose to change.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export interface NovelFiles {
  /** True when a file or folder is at the path. */
  exists(file: string): Promise<boolean>;
  read(file: string): Promise<string>;
  /** Writes a new file, making its folders; fails when a file is there already. */
  writeNew(file: string, text: string): Promise<void>;
  /** Replaces the text of a file that is there. */
  replace(file: string, text: string): Promise<void>;
  /** Moves a file; fails when a file is at `to` already. */
  rename(from: string, to: string): Promise<void>;
  /** Every path under the folder (files and folders, prefixed with it); [] when there is no such folder. */
  list(folder: string): Promise<string[]>;
}

/** The novel's files on disk under `root` (an absolute folder). */
export function diskNovelFiles(root: string): NovelFiles {
  const at = (file: string): string => path.join(root, ...file.split('/'));
  const exists = (full: string): Promise<boolean> => fs.access(full).then(() => true, () => false);
  return {
    exists: (file) => exists(at(file)),
    read: (file) => fs.readFile(at(file), 'utf8'),
    async writeNew(file, text) {
      const full = at(file);
      await fs.mkdir(path.dirname(full), { recursive: true });
      // 'wx': a file that appeared since the path was chosen is never overwritten.
      await fs.writeFile(full, text, { flag: 'wx' });
    },
    async replace(file, text) {
      const full = at(file);
      // r+ fails on a missing file: a replace never makes one the novelist did not have.
      const handle = await fs.open(full, 'r+');
      try {
        await handle.truncate(0);
        await handle.write(text, 0, 'utf8');
      } finally {
        await handle.close();
      }
    },
    async rename(from, to) {
      const target = at(to);
      // fs.rename replaces a file at the target on POSIX; checked first so it never does.
      if (await exists(target)) throw new Error(`${to} is already there`);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.rename(at(from), target);
    },
    async list(folder) {
      const found = await fs.readdir(at(folder), { recursive: true }).catch(() => [] as string[]);
      return found.map((p) => `${folder}/${p.split(path.sep).join('/')}`);
    },
  };
}
