// The shadow repo's isolated environment. Nothing is inherited from the extension host except
// what is needed to find and run git: an inherited GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY
// or GIT_TEMPLATE_DIR would send our commits into the novelist's repo (Roo Code #4567), and the
// novelist's global config could turn on hooks, signing, autocrlf or fsmonitor. HOME points at a
// folder that does not exist, so no ~/.gitconfig, no XDG config and no global attributes apply.
import * as path from 'node:path';

export const AUTHOR_NAME = 'Worldline';
export const AUTHOR_EMAIL = 'checkpoints@worldline.invalid';

/** Host variables git itself may need to start (PATH everywhere, the rest on Windows). */
const PASS_THROUGH = ['PATH', 'Path', 'SystemRoot', 'SYSTEMROOT', 'windir', 'WINDIR', 'TEMP', 'TMP', 'TMPDIR', 'PATHEXT', 'ComSpec', 'COMSPEC'];

export interface ShadowPaths {
  root: string;
  gitDir: string;
}

export function isolatedEnv(p: ShadowPaths, extra: Record<string, string> = {}, host: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS_THROUGH) {
    const v = host[k];
    if (typeof v === 'string' && v !== '') env[k] = v;
  }
  const nowhere = path.join(p.gitDir, 'worldline-no-home'); // never created
  Object.assign(env, {
    GIT_DIR: p.gitDir,
    GIT_WORK_TREE: p.root,
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: nowhere,
    XDG_CONFIG_HOME: nowhere,
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_LITERAL_PATHSPECS: '1', // paths we pass are file names, never patterns
    LC_ALL: 'C', // stable, parseable messages
    // simple-git waits an extra 50 ms after any command that printed nothing (update-ref,
    // update-index, read-tree…). One trace line on stderr avoids that wait; we drop it again.
    GIT_TRACE: '1',
    GIT_AUTHOR_NAME: AUTHOR_NAME,
    GIT_AUTHOR_EMAIL: AUTHOR_EMAIL,
    GIT_COMMITTER_NAME: AUTHOR_NAME,
    GIT_COMMITTER_EMAIL: AUTHOR_EMAIL,
  });
  return Object.assign(env, extra);
}

/**
 * `-c` settings on every command, so they hold even if the shadow config is edited or lost.
 * hooksPath points at a folder that never exists: hooks off, including reference-transaction
 * hooks that plain update-ref would run.
 */
export function commandConfig(gitDir: string): string[] {
  return [
    `core.hooksPath=${path.join(gitDir, 'worldline-no-hooks')}`,
    'core.autocrlf=false',
    'core.safecrlf=false',
    'core.quotepath=false',
    'core.longpaths=true',
    'core.sparseCheckout=false',
    'gc.auto=0',
    'maintenance.auto=false',
    'commit.gpgSign=false',
    'diff.renames=false',
    'init.defaultBranch=checkpoints',
  ];
}

/** Written into the shadow repo's own config at creation (for anyone who inspects it by hand). */
export const SHADOW_CONFIG = `
[core]
\tbare = false
\tautocrlf = false
\tquotepath = false
\tlogAllRefUpdates = true
\tuntrackedCache = false
[gc]
\tauto = 0
[maintenance]
\tauto = false
[commit]
\tgpgSign = false
[user]
\tname = ${AUTHOR_NAME}
\temail = ${AUTHOR_EMAIL}
`;

/**
 * info/attributes wins over every .gitattributes in the book: bytes go in and come out unchanged
 * (no end-of-line conversion, no filters such as LFS, no re-encoding).
 */
export const SHADOW_ATTRIBUTES = '* -text -filter -ident !eol !working-tree-encoding\n';

/** Defensive only: we never let git walk the tree, but a human running git on the store might. */
export const SHADOW_EXCLUDE = '/.worldline/\n.git/\nnode_modules/\n';
