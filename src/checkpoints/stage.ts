// The full walk: brings the shadow index in line with the whole manuscript on disk, touching git
// only for what changed, and rebuilds the in-memory picture of the index (indexView.ts) from git's
// own listings. It runs when the store opens, when the store has been idle a while (the safety
// net under the change feed), whenever the changed paths are not known ('all': the watcher
// overflowed, the globs changed) and on every sync of a handle with no change feed. One
// `ls-files` (run while Node walks the folder) tells which entries are stat-dirty or gone; only
// new, dirty and removed paths go to `update-index`. The dirty-set path is dirtySync.ts.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError } from './errors';
import type { ManuscriptMatcher } from '../project/manuscript';
import { classifyGitError, type GitRunner } from './gitRunner';
import { IndexView, parseEntries, type IndexEntry } from './indexView';
import type { Head } from './store';
import { walkManuscript, yieldToLoop, type SkippedPath } from './walk';

export interface SyncResult {
  /** True when update-index ran (the index may now differ from the last commit). */
  staged: boolean;
  skipped: SkippedPath[];
  nestedRepos: string[];
}

export interface FullSyncOptions {
  runner: GitRunner;
  matcher: ManuscriptMatcher;
  maxFiles: number;
  head: Head | null;
  /** The picture of the index so far, when it is one of `head` (its HEAD files are reused). */
  view: IndexView | undefined;
}

/** Past this many characters of new paths, the index is listed whole rather than path by path. */
const LIST_PATHS_CHARS = 16_000;

export async function syncFull(opts: FullSyncOptions): Promise<SyncResult & { view: IndexView }> {
  const { runner } = opts;
  // Paths staged from the dirty set carry no stat data (update-index --index-info); every later
  // walk would compare their contents again. The refresh records their stat once.
  await runner.run(['update-index', '-q', '--refresh']).catch((err: unknown) => {
    const e = classifyGitError(err, runner.binary);
    if (e.kind !== 'error') throw e; // a damaged index or a lock, not "some files need an update"
  });
  const [walk, lsOut] = await Promise.all([walkManuscript(runner.paths.root, opts.matcher, opts.maxFiles), runner.run(['ls-files', '-z', '-s', '-t', '-c', '-m', '-d'])]);
  const index = await parseTagged(lsOut);
  const onDisk = new Set(walk.files);

  const add: string[] = [];
  for (const f of walk.files) if (!index.entries.has(f) || index.dirty.has(f)) add.push(f);
  // Deleted, no longer matching the globs, replaced by a symlink, or now under a symlinked
  // folder: dropped from the index without git looking at the path again (and never following it).
  const untrack: string[] = [];
  for (const f of index.entries.keys()) if (!onDisk.has(f)) untrack.push(f);
  if (untrack.length > 0) await runner.runInput(['update-index', '-z', '--force-remove', '--stdin'], untrack.map((p) => `${p}\0`).join(''));
  // --remove: a file deleted since the walk is dropped rather than failing the checkpoint.
  if (add.length > 0) await runner.runInput(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], add.map((p) => `${p}\0`).join(''));

  // The index as git now holds it: the listing, less what was untracked, plus the added entries as git hashed them.
  const entries = index.entries;
  for (const p of untrack) entries.delete(p);
  if (add.length > 0) {
    const byPath = add.reduce((n, p) => n + p.length + 1, 0) <= LIST_PATHS_CHARS;
    const listed = await parseEntries(await runner.run(byPath ? ['ls-files', '-s', '-z', '--', ...add] : ['ls-files', '-s', '-z']), yieldToLoop);
    for (const p of add) {
      const e = listed.get(p);
      if (e) entries.set(p, e);
      else entries.delete(p); // gone between the walk and update-index (--remove dropped it)
    }
  }
  const view = await buildView(opts, entries);
  return { staged: add.length + untrack.length > 0, skipped: walk.skipped, nestedRepos: walk.nestedRepos, view };
}

/** The picture of an index holding `entries`, measured against HEAD's tree. */
async function buildView(opts: FullSyncOptions, entries: Map<string, IndexEntry>): Promise<IndexView> {
  const { head } = opts;
  let files: Map<string, IndexEntry>;
  if (!head) files = new Map();
  else if (opts.view && opts.view.commit === head.commit) files = opts.view.headFiles();
  else files = await parseEntries(await opts.runner.run(['ls-tree', '-r', '-z', '--full-tree', head.tree]), yieldToLoop);
  const view = new IndexView(head?.commit ?? null, files);
  let n = 0;
  for (const [p, e] of entries) {
    if (++n % 2000 === 0) await yieldToLoop();
    view.stage(p, e);
  }
  for (const p of [...files.keys()]) if (!entries.has(p)) view.stage(p, null);
  return view;
}

interface TaggedListing {
  /** Every index entry. */
  entries: Map<string, IndexEntry>;
  /** Index paths whose file on disk differs by stat, or is gone. */
  dirty: Set<string>;
}

/** `git ls-files -z -s -t -c -m -d`: "H mode oid stage\tpath" per entry, plus "C …" (changed) and "R …" (removed). */
async function parseTagged(out: string): Promise<TaggedListing> {
  const listing: TaggedListing = { entries: new Map(), dirty: new Set() };
  let n = 0;
  for (const rec of out.split('\0')) {
    if (rec === '') continue;
    if (++n % 5000 === 0) await yieldToLoop();
    const tab = rec.indexOf('\t');
    if (tab < 0) continue;
    const [tag, mode, oid] = rec.slice(0, tab).split(' ') as [string, string, string];
    const p = rec.slice(tab + 1);
    if (tag === 'C' || tag === 'R') listing.dirty.add(p);
    else listing.entries.set(p, { mode, oid });
  }
  return listing;
}

export function isIndexCorruption(err: unknown): boolean {
  return err instanceof CheckpointError && err.kind === 'corrupt' && /index file|bad signature|bad index/i.test(err.detail ?? '');
}

/**
 * The index is only a cache of the last commit: a damaged one is moved aside (kept) and rebuilt
 * from `tree`, then refreshed so unchanged files are not hashed again.
 */
export async function healIndex(runner: GitRunner, tree: string | undefined, log?: (m: string) => void): Promise<void> {
  const index = path.join(runner.paths.gitDir, 'index');
  const aside = `${index}.corrupt-${Date.now()}`;
  await fsp.rename(index, aside).catch(() => undefined);
  log?.(`checkpoints: the store's index was damaged; kept it as ${aside} and rebuilt it`);
  if (tree !== undefined) {
    await runner.run(['read-tree', tree]);
    await runner.run(['update-index', '-q', '--refresh']).catch(() => undefined); // exit 1 when files differ: fine
  }
}
