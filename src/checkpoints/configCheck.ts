// A store we did not just create may come from someone else (a novel copied, cloned or unzipped
// with its .worldline folder). Its config can name programs git would run (core.fsmonitor, filter
// and diff drivers, or anything pulled in by include/includeIf, which `-c` cannot override), and
// files beside it can move git's config elsewhere (commondir) or add to it (config.worktree). So
// before the first git command on an existing store, its config is read and checked against the
// keys we write ourselves; anything else and the file is replaced by our own config, the old one
// kept beside it. The config is read by git itself (`git config --file … --no-includes --list`),
// not by a parser of ours: a parser that disagreed with git on one corner of the syntax (quoting,
// case, subsections, continuation lines) would be a way past the check. Reading a config file
// runs nothing, and it is read as a plain file with no repository around it.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, messages } from './errors';
import { SHADOW_CONFIG } from './gitEnv';
import type { GitRunner } from './gitRunner';
import { lstatOrNone, replaceFile, setAside } from './storeFiles';

/** Keys (as git lists them: section and name in lower case) that our config or `git init` writes. */
export const ALLOWED_KEYS: ReadonlySet<string> = new Set([
  'core.repositoryformatversion',
  'core.filemode',
  'core.bare',
  'core.logallrefupdates',
  'core.autocrlf',
  'core.quotepath',
  'core.untrackedcache',
  // written by `git init` on Windows and macOS
  'core.symlinks',
  'core.ignorecase',
  'core.precomposeunicode',
  'gc.auto',
  'maintenance.auto',
  'commit.gpgsign',
  'user.name',
  'user.email',
  // how objects and refs are stored (a SHA-256 or reftable store); data formats, no programs
  'extensions.objectformat',
  'extensions.refstorage',
]);

/** Files beside the config that we never write and that make git read config or objects elsewhere. */
const FOREIGN_FILES = ['commondir', 'config.worktree'];

export interface ConfigEntry {
  key: string;
  value: string | null;
}

/** `git config --list --null` output: "key\nvalue\0" per entry, "key\0" for a key with no value. */
export function parseConfigList(out: string): ConfigEntry[] {
  return out
    .split('\0')
    .filter((chunk) => chunk !== '')
    .map((chunk) => {
      const nl = chunk.indexOf('\n');
      return nl < 0 ? { key: chunk, value: null } : { key: chunk.slice(0, nl), value: chunk.slice(nl + 1) };
    });
}

/** The keys not on the allow-list, each once, in the order they appear. */
export function disallowedKeys(entries: readonly ConfigEntry[]): string[] {
  return [...new Set(entries.map((e) => e.key).filter((k) => !ALLOWED_KEYS.has(k.toLowerCase())))];
}

const BOOL = /^(true|false|yes|no|on|off|1|0)$/i;
/** Keys whose value we keep when we write our config (the rest are fixed, or dropped). */
const CARRIED: Record<string, RegExp> = {
  'core.filemode': BOOL,
  'core.symlinks': BOOL,
  'core.ignorecase': BOOL,
  'core.precomposeunicode': BOOL,
  'extensions.objectformat': /^(sha1|sha256)$/i,
  'extensions.refstorage': /^(files|reftable)$/i,
};

/**
 * Our own config. From `entries` (the config found there) only the values that describe the
 * store or the file system are kept, and only when they are plain words: nothing is copied
 * through that could be quoted, continued or mean a program.
 */
export function safeConfig(entries: readonly ConfigEntry[]): string {
  const carried = new Map<string, string>();
  for (const e of entries) {
    const key = e.key.toLowerCase();
    const shape = CARRIED[key];
    if (shape && e.value !== null && shape.test(e.value)) carried.set(key, e.value.toLowerCase()); // last one wins, as in git
  }
  const ext = ['objectformat', 'refstorage'].filter((k) => carried.has(`extensions.${k}`));
  const lines = ['[core]', `\trepositoryformatversion = ${ext.length > 0 ? 1 : 0}`, `\tfilemode = ${carried.get('core.filemode') ?? 'true'}`];
  for (const k of ['symlinks', 'ignorecase', 'precomposeunicode']) {
    const v = carried.get(`core.${k}`);
    if (v !== undefined) lines.push(`\t${k} = ${v}`);
  }
  if (ext.length > 0) lines.push('[extensions]', ...ext.map((k) => `\t${k} = ${carried.get(`extensions.${k}`)}`));
  return lines.join('\n') + SHADOW_CONFIG;
}

/** git's own reading of a config file, includes not followed. Undefined when git cannot parse it. */
export async function readConfigFile(runner: GitRunner, file: string): Promise<ConfigEntry[] | undefined> {
  try {
    // GIT_DIR names a folder that does not exist: git reads the file alone, outside any repository.
    const out = await runner.run(['config', '--file', file, '--no-includes', '--list', '--null'], { GIT_DIR: path.join(runner.paths.gitDir, 'worldline-no-repo') });
    return parseConfigList(out);
  } catch (err) {
    if (err instanceof CheckpointError && err.kind === 'gitMissing') throw err;
    return undefined;
  }
}

/** Writes our own config into a new store, keeping what `git init` said about the file system. */
export async function writeOwnConfig(runner: GitRunner): Promise<void> {
  const file = path.join(runner.paths.gitDir, 'config');
  const entries = (await readConfigFile(runner, file)) ?? [];
  await replaceFile(file, safeConfig(entries));
}

export interface VetResult {
  /** Keys found in the config that we do not write; empty when the config was ours. */
  dropped: string[];
  /** Where the replaced config, and any foreign file or hooks folder, was kept. */
  keptAside: string[];
}

/**
 * Checks an existing store before git runs on it (see the top of this file). Throws `corrupt` when
 * the store is a link rather than a folder: following it would put git, and our writes, elsewhere.
 */
export async function vetStore(runner: GitRunner, log?: (m: string) => void, now: Date = new Date()): Promise<VetResult> {
  const { gitDir } = runner.paths;
  const st = await lstatOrNone(gitDir);
  if (!st || st.isSymbolicLink() || !st.isDirectory()) throw new CheckpointError('corrupt', messages.corrupt(messages.storeNotAFolder()));
  const result: VetResult = { dropped: [], keptAside: [] };
  const keep = async (name: string, why: string) => {
    const aside = await setAside(path.join(gitDir, name), 'untrusted', now);
    if (aside === undefined) return;
    result.keptAside.push(aside);
    log?.(`checkpoints: ${why}; it was moved aside to ${aside}`);
  };

  for (const name of FOREIGN_FILES) {
    if (await lstatOrNone(path.join(gitDir, name))) await keep(name, `the store held "${name}", which Worldline never writes (it makes git read settings from elsewhere)`);
  }
  // Hooks are off anyway (core.hooksPath on every command); a hooks folder with anything but
  // git's own samples in it is still not left where a hand-run git would find it.
  const hooks = await lstatOrNone(path.join(gitDir, 'hooks'));
  if (hooks && (!hooks.isDirectory() || (await fsp.readdir(path.join(gitDir, 'hooks'))).some((n) => !n.endsWith('.sample')))) {
    await keep('hooks', 'the store held hooks, which Worldline never runs');
  }
  // info/ is rewritten by ensureInfoFiles; a link there would carry those writes elsewhere.
  const info = await lstatOrNone(path.join(gitDir, 'info'));
  if (info && !info.isDirectory()) await keep('info', 'the store\'s info folder was not a folder');

  const file = path.join(gitDir, 'config');
  const cst = await lstatOrNone(file);
  let entries: ConfigEntry[] = [];
  if (!cst) {
    result.dropped.push('(no config file)');
  } else if (!cst.isFile() || cst.nlink > 1) {
    // A link (symbolic or hard) would let a file outside the store be our config.
    result.dropped.push('(the config file is a link)');
  } else {
    const read = await readConfigFile(runner, file);
    if (read === undefined) result.dropped.push('(the config file cannot be read)');
    else {
      entries = read;
      result.dropped.push(...disallowedKeys(read));
    }
  }
  if (result.dropped.length === 0) return result;

  const fresh = `${file}.worldline-new`;
  await replaceFile(fresh, safeConfig(entries));
  const aside = cst ? await setAside(file, 'untrusted', now) : undefined;
  await fsp.rename(fresh, file);
  if (aside) result.keptAside.push(aside);
  log?.(messages.configReplaced(result.dropped, aside));
  return result;
}
