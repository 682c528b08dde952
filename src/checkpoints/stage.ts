// Brings the shadow index in line with the manuscript on disk, touching git only for what changed.
// One `ls-files` (run while Node walks the folder) tells which index entries are stat-dirty or
// gone; only new, dirty and removed paths are passed to `update-index`. With 5,000 chapters and
// one edited, that is one stat pass in git plus an update of one path.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError } from './errors';
import type { ManuscriptMatcher } from '../project/manuscript';
import type { GitRunner } from './gitRunner';
import { parseLsFilesTagged } from './parse';
import { walkManuscript, type SkippedPath } from './walk';

export interface SyncResult {
  /** True when update-index ran (the index may now differ from the last commit). */
  staged: boolean;
  skipped: SkippedPath[];
  nestedRepos: string[];
}

export async function syncIndex(runner: GitRunner, matcher: ManuscriptMatcher, maxFiles: number): Promise<SyncResult> {
  const [walk, lsOut] = await Promise.all([walkManuscript(runner.paths.root, matcher, maxFiles), runner.run(['ls-files', '-z', '-t', '-c', '-m', '-d'])]);
  const index = parseLsFilesTagged(lsOut);
  const onDisk = new Set(walk.files);

  const add: string[] = [];
  for (const f of walk.files) if (!index.indexed.has(f) || index.dirty.has(f)) add.push(f);
  // Deleted, no longer matching the globs, replaced by a symlink, or now under a symlinked
  // folder: dropped from the index without git looking at the path again (and never following it).
  const untrack: string[] = [];
  for (const f of index.indexed) if (!onDisk.has(f)) untrack.push(f);
  if (untrack.length > 0) await runner.runForPaths(['update-index', '--force-remove'], untrack);
  // --remove: a file deleted since the walk is dropped rather than failing the checkpoint.
  if (add.length > 0) await runner.runForPaths(['update-index', '--add', '--remove', '--replace'], add);
  return { staged: add.length + untrack.length > 0, skipped: walk.skipped, nestedRepos: walk.nestedRepos };
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
