// The shadow repo on disk: where it lives, creating it, reading its HEAD, checking git, and moving
// a broken one aside. Nothing here ever deletes a store.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, messages } from './errors';
import { writeOwnConfig } from './configCheck';
import { SHADOW_ATTRIBUTES, SHADOW_EXCLUDE, type ShadowPaths } from './gitEnv';
import { classifyGitError, type GitRunner } from './gitRunner';
import { isErrno } from './safePaths';
import { lstatOrNone, replaceFile, setAside, stampOf } from './storeFiles';

export const WORLDLINE_DIR = '.worldline';
export const STORE_NAME = 'checkpoints.git';

export interface Head {
  commit: string;
  tree: string;
}

export function storePaths(root: string): ShadowPaths {
  const abs = path.resolve(root);
  return { root: abs, gitDir: path.join(abs, WORLDLINE_DIR, STORE_NAME) };
}

/** Throws gitMissing when git cannot be run or is older than 2.20. */
export async function checkGit(runner: GitRunner): Promise<string> {
  const out = await runner.run(['--version']);
  const m = /git version (\d+)\.(\d+)/.exec(out);
  if (!m) throw new CheckpointError('gitMissing', messages.gitMissing(runner.binary), out);
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major < 2 || (major === 2 && minor < 20)) throw new CheckpointError('gitMissing', messages.gitTooOld(`${major}.${minor}`), out);
  return `${major}.${minor}`;
}

export async function storeExists(gitDir: string): Promise<boolean> {
  try {
    await fsp.lstat(gitDir);
    return true;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return false;
    throw err;
  }
}

/**
 * A new, empty store: no templates (so no sample hooks), and our own config (configCheck.ts), in
 * which `git init`'s core.worktree is not kept (the work tree is always passed).
 */
export async function createStore(runner: GitRunner): Promise<void> {
  const { gitDir } = runner.paths;
  await fsp.mkdir(path.dirname(gitDir), { recursive: true });
  await runner.run(['init', '-q', '--template=']);
  await writeOwnConfig(runner);
  await ensureInfoFiles(gitDir);
}

/**
 * info/attributes and info/exclude, rewritten when someone changed them; plus a ".gitignore" of
 * "*" inside the store, so the novelist's own repo never lists the store as untracked files
 * (without touching their .gitignore or their .git). A link in their place is replaced, never
 * written through; a folder there is kept aside.
 */
export async function ensureInfoFiles(gitDir: string): Promise<void> {
  await fsp.mkdir(path.join(gitDir, 'info'), { recursive: true });
  for (const [name, text] of [
    ['info/attributes', SHADOW_ATTRIBUTES],
    ['info/exclude', SHADOW_EXCLUDE],
    ['.gitignore', '*\n'],
  ] as const) {
    const file = path.join(gitDir, ...name.split('/'));
    const st = await lstatOrNone(file);
    if (st && !st.isFile() && !st.isSymbolicLink()) await setAside(file, 'untrusted', new Date());
    const ours = st?.isFile() === true && st.nlink === 1 && (await fsp.readFile(file, 'utf8')) === text;
    if (!ours) await replaceFile(file, text);
  }
}

/**
 * The latest checkpoint (HEAD is detached and points at it), or null before the first one.
 * Throws `corrupt` when HEAD or the objects it needs cannot be read.
 */
export async function readHead(runner: GitRunner): Promise<Head | null> {
  const { gitDir } = runner.paths;
  let text: string;
  try {
    text = (await fsp.readFile(path.join(gitDir, 'HEAD'), 'utf8')).trim();
  } catch {
    throw new CheckpointError('corrupt', messages.corrupt('its HEAD file is missing'));
  }
  let commit: string;
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text)) {
    commit = text;
  } else if (text.startsWith('ref: refs/')) {
    const target = text.slice(5);
    const resolved = ((await runner.tryRun(['rev-parse', '--verify', '-q', 'HEAD'])) ?? '').trim();
    if (resolved === '') {
      if (await refFileExists(gitDir, target)) throw new CheckpointError('corrupt', messages.corrupt(`the ref ${target} is broken`));
      return null; // unborn: no checkpoint yet
    }
    commit = resolved;
  } else {
    throw new CheckpointError('corrupt', messages.corrupt('its HEAD file is unreadable'));
  }
  try {
    const out = (await runner.run(['rev-parse', `${commit}^{commit}`, `${commit}^{tree}`])).trim().split('\n');
    return { commit: out[0], tree: out[1] };
  } catch (err) {
    if (err instanceof CheckpointError && (err.kind === 'gitMissing' || err.kind === 'locked')) throw err;
    throw new CheckpointError('corrupt', messages.corrupt(`the latest checkpoint (${commit.slice(0, 10)}) cannot be read`), String(err));
  }
}

async function refFileExists(gitDir: string, ref: string): Promise<boolean> {
  if (await storeExists(path.join(gitDir, ...ref.split('/')))) return true;
  const packed = await fsp.readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
  return packed.split('\n').some((l) => l.endsWith(` ${ref}`));
}

/** Renames a (broken) store to checkpoints.broken-<time>.git next to it and returns the new path. */
export async function moveStoreAside(gitDir: string, now = new Date()): Promise<string> {
  const stamp = stampOf(now);
  for (let n = 0; ; n++) {
    const target = path.join(path.dirname(gitDir), `checkpoints.broken-${stamp}${n ? `-${n}` : ''}.git`);
    if (await storeExists(target)) continue;
    await fsp.rename(gitDir, target);
    return target;
  }
}

/** fsck's report (connectivity only: every object reachable from a ref exists and parses). */
export async function fsckReport(runner: GitRunner): Promise<string> {
  try {
    return await runner.run(['fsck', '--connectivity-only', '--no-dangling', '--no-progress']);
  } catch (err) {
    // fsck lists problems on stdout and exits non-zero, which arrives as an error
    const e = classifyGitError(err, runner.binary);
    if (/^(missing|broken|bad) /im.test(e.detail ?? '')) return e.detail ?? '';
    throw e;
  }
}

/** A checkpoint id (hex, checked by the caller) → its commit and tree; notFound when absent. */
export async function resolveCommit(runner: GitRunner, commit: string): Promise<Head> {
  let out: string[];
  try {
    out = (await runner.run(['rev-parse', `${commit}^{commit}`, `${commit}^{tree}`])).trim().split('\n');
  } catch (err) {
    const e = classifyGitError(err, runner.binary);
    if (e.kind === 'error') throw new CheckpointError('notFound', messages.notFound(), e.detail);
    throw e;
  }
  return { commit: out[0], tree: out[1] };
}
