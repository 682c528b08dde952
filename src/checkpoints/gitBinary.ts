// Which git program we start, found by us rather than by the operating system. We run git with
// the book folder as its working directory, and a bare "git" would then be looked up in that
// folder first on Windows (and wherever PATH has "." or an empty entry): a git.exe planted in a
// novel received from someone else would run. So the name is resolved against the safe PATH
// folders only (absolute, outside the book) and git is started by its full path.
import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, messages } from './errors';
import { isInside, safePathEntries } from './gitEnv';

/** What Node's spawn can start directly on Windows (no shell): .cmd/.bat need one, so not those. */
const WINDOWS_EXTENSIONS = ['.exe', '.com'];

export interface ResolveOptions {
  /** The host's PATH (default: process.env.PATH, or Path on Windows). */
  pathValue?: string;
  platform?: NodeJS.Platform;
}

/**
 * The full path of the git to run for the book at `root`. `binary` is "git" (looked up on the safe
 * PATH) or a full path chosen by the caller. Throws gitMissing when there is no such program, when
 * a relative path is given, or when the program lies inside the book folder.
 */
export async function resolveGitBinary(binary: string, root: string, opts: ResolveOptions = {}): Promise<string> {
  const platform = opts.platform ?? process.platform;
  const missing = (why: string) => new CheckpointError('gitMissing', messages.gitMissing(binary), why);
  if (path.isAbsolute(binary)) {
    if (isInside(root, binary, platform)) throw missing('the git program is inside the book folder');
    return binary; // a missing file fails at spawn with ENOENT, reported as gitMissing
  }
  if (binary.includes('/') || binary.includes('\\')) throw missing('a relative path to git is not used');
  const pathValue = opts.pathValue ?? process.env.PATH ?? process.env.Path;
  const names = platform === 'win32' && path.extname(binary) === '' ? WINDOWS_EXTENSIONS.map((e) => binary + e) : [binary];
  for (const dir of safePathEntries(pathValue, root)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (await isProgram(candidate, platform)) return candidate;
    }
  }
  throw missing(`no ${binary} in any folder of PATH outside the book`);
}

// Asynchronous: this runs on the extension host's thread, where a blocking stat per PATH folder
// would stall the editor (a network drive on PATH can take seconds).
async function isProgram(p: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    if (!(await fsp.stat(p)).isFile()) return false;
    if (platform !== 'win32') await fsp.access(p, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}
