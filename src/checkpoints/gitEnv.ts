// The shadow repo's isolated environment. Nothing is inherited from the extension host except
// what is needed to find and run git: an inherited GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY
// or GIT_TEMPLATE_DIR would send our commits into the novelist's repo (Roo Code #4567), and the
// novelist's global config could turn on hooks, signing, autocrlf or fsmonitor. HOME points at a
// folder that does not exist, so no ~/.gitconfig, no XDG config and no global attributes apply.
// PATH keeps only absolute folders outside the book: a relative entry ("." or an empty one) would
// let a program planted in the book folder stand in for one git starts.
import * as path from 'node:path';

export const AUTHOR_NAME = 'Worldline';
export const AUTHOR_EMAIL = 'checkpoints@worldline.invalid';

/** Host variables git itself may need to start (PATH everywhere, the rest on Windows). */
const PASS_THROUGH = ['PATH', 'Path', 'SystemRoot', 'SYSTEMROOT', 'windir', 'WINDIR', 'TEMP', 'TMP', 'TMPDIR', 'PATHEXT', 'ComSpec', 'COMSPEC'];

export interface ShadowPaths {
  root: string;
  gitDir: string;
}

/** True when `p` is `root` or inside it (case-insensitively on Windows and macOS file systems). */
export function isInside(root: string, p: string, platform: NodeJS.Platform = process.platform): boolean {
  const fold = (s: string) => (platform === 'win32' || platform === 'darwin' ? s.toLowerCase() : s);
  const rel = path.relative(fold(path.resolve(root)), fold(path.resolve(p)));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The PATH folders it is safe to run programs from: absolute, and not inside the book folder. */
export function safePathEntries(value: string | undefined, root: string): string[] {
  if (value === undefined) return [];
  return value.split(path.delimiter).filter((d) => d !== '' && path.isAbsolute(d) && !isInside(root, d));
}

export function isolatedEnv(p: ShadowPaths, extra: Record<string, string> = {}, host: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS_THROUGH) {
    const raw = host[k];
    const v = k === 'PATH' || k === 'Path' ? safePathEntries(raw, p.root).join(path.delimiter) : raw;
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
    // No transport, ever: the environment's allow-list beats any protocol.<name>.allow in the
    // repo config (protocol.allow=never alone would not), and a partial clone never fetches.
    GIT_ALLOW_PROTOCOL: 'worldline-no-protocol',
    GIT_NO_LAZY_FETCH: '1',
    LC_ALL: 'C', // stable, parseable messages
    GIT_AUTHOR_NAME: AUTHOR_NAME,
    GIT_AUTHOR_EMAIL: AUTHOR_EMAIL,
    GIT_COMMITTER_NAME: AUTHOR_NAME,
    GIT_COMMITTER_EMAIL: AUTHOR_EMAIL,
  });
  return Object.assign(env, extra);
}

/**
 * `-c` settings on every command. Command-line config beats every config file, the store's own
 * included, so these hold even if a folder from someone else planted a hostile store config:
 * - hooksPath points at a folder that never exists: hooks off, including the reference-transaction
 *   and post-index-change hooks that plain update-ref, update-index and read-tree would run;
 * - fsmonitor off (it would run a program on every index refresh), no untracked cache;
 * - every program git might start is a no-op or off: pager, editors, ssh, askpass, credential
 *   helpers, signing programs. Most are never reached by the plumbing we run; they are set anyway.
 * What `-c` cannot reach (include/includeIf, filter.<driver>.*, diff.<driver>.*, merge drivers,
 * aliases) is handled by the config allow-list (configCheck.ts) and by info/attributes. diff.external
 * is not set: an empty value would be worse than none, and plumbing never runs it (no --ext-diff).
 * safe.directory is not needed: git checks ownership only when it discovers a repo, and we always
 * name GIT_DIR, so a store copied from another user (or read by CI running as root) just works;
 * the checks here and in configCheck.ts are what make that safe.
 */
export function commandConfig(gitDir: string): string[] {
  return [
    `core.hooksPath=${path.join(gitDir, 'worldline-no-hooks')}`,
    'core.fsmonitor=false',
    'core.untrackedCache=false',
    'core.autocrlf=false',
    'core.safecrlf=false',
    'core.quotepath=false',
    'core.longpaths=true',
    'core.sparseCheckout=false',
    'core.pager=cat', // "cat" is git's word for "no pager": nothing is started
    'core.editor=:', // ":" is git's word for "no editor"
    'sequence.editor=:',
    'core.askPass=', // empty: no askpass program
    'core.sshCommand=false',
    'credential.helper=', // an empty value clears the list of helpers
    'protocol.allow=never',
    'submodule.recurse=false',
    'gc.auto=0',
    'maintenance.auto=false',
    'commit.gpgSign=false',
    'gpg.program=false',
    'gpg.ssh.program=false',
    'gpg.x509.program=false',
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
 * info/attributes wins over every .gitattributes in the book (and core.attributesFile): bytes go in
 * and come out unchanged (no end-of-line conversion, no filters such as LFS, no re-encoding), and
 * no diff driver (textconv, command) or merge driver named by a planted attribute is ever used.
 */
export const SHADOW_ATTRIBUTES = '* -text -filter -diff -merge -ident !eol !working-tree-encoding\n';

/** Defensive only: we never let git walk the tree, but a human running git on the store might. */
export const SHADOW_EXCLUDE = '/.worldline/\n.git/\nnode_modules/\n';
