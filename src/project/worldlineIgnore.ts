// `.worldline/.gitignore`: a novelist who keeps the book in git sees the book's history there (the
// session trees and worldlines.json) and nothing of what Worldline rebuilds or keeps only for this
// machine. Written by Initialize Novel and at the first open of a novel that has none; one that
// exists is never touched (the novelist may have written their own). Plain Node.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

export const WORLDLINE_IGNORE_FILE = '.worldline/.gitignore';

/**
 * What is ignored, and why. Kept visible on purpose: sessions/ (every conversation tree, append
 * only) and worldlines.json (worldline names, deleted saves), and files set aside for the novelist
 * (a torn session line, a damaged worldlines.json).
 */
export const WORLDLINE_IGNORE = `# Written by Worldline. Your git keeps sessions/ and worldlines.json: they are the book's history.
# Left out: what Worldline rebuilds, or needs only on this computer.

# Copies of the sessions, taken as you write (Restore Session from Backup)
backups/
# Which window writes the novel, and which session is open in it
lock
lock.*.tmp
current-session.json
# The checkpoint store (a git repository of its own), and stores set aside by Rebuild Checkpoints
checkpoints.git/
checkpoints.broken-*.git/
# The memory store, made from the text of the sessions for recall
memory/
# Words written per day on this computer (goals), and the chats imported here
goals.json
goals.json.broken-*
imports.json
# Files being written
*.tmp
`;

/** Writes `.worldline/.gitignore` unless something is there already; 'kept' when it was. */
export async function ensureWorldlineIgnore(root: string): Promise<'written' | 'kept'> {
  const file = path.join(root, ...WORLDLINE_IGNORE_FILE.split('/'));
  await fsp.mkdir(path.dirname(file), { recursive: true });
  try {
    // 'wx' creates or fails in one step: a file or a link (even a dangling one) is never overwritten or followed.
    await fsp.writeFile(file, WORLDLINE_IGNORE, { flag: 'wx' });
    return 'written';
  } catch (err) {
    if ((err as { code?: unknown }).code === 'EEXIST') return 'kept';
    throw err;
  }
}
