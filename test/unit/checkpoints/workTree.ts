// The whole work tree of a test book as a value, folders, links and FIFOs included, so a test can
// say "nothing changed at all" (a refused restore) rather than only "the manuscript is the same".
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export type Shape = Record<string, string>;

/** path → "dir", "file:<sha1>", "link:<target>" or "special"; the store (.worldline) is left out. */
export function shape(root: string): Shape {
  const out: Shape = {};
  const visit = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (r === '.worldline') continue;
      const abs = path.join(root, r);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link:${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[r] = 'dir';
        visit(r);
      } else if (st.isFile()) out[r] = `file:${createHash('sha1').update(fs.readFileSync(abs)).digest('hex')}`;
      else out[r] = 'special';
    }
  };
  visit('');
  return out;
}

/** The shape without folders: every file, link and FIFO (a folder shows through what it holds). */
export function filesOf(s: Shape): Shape {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== 'dir'));
}
