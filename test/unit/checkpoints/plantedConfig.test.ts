// A novel folder received from someone else: its store's config, hooks, attributes and the files
// beside the config name programs (marker scripts that leave a file behind when run), and the host
// environment adds more. Every store operation is run; no marker may appear, and checkpoints must
// still work.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { ShadowRepo, isCheckpointProblem } from '../../../src/checkpoints';
import { ALLOWED_KEYS, safeConfig, vetStore } from '../../../src/checkpoints/configCheck';
import { SHADOW_CONFIG } from '../../../src/checkpoints/gitEnv';
import { GitRunner } from '../../../src/checkpoints/gitRunner';
import { storePaths } from '../../../src/checkpoints/store';
import { runs } from '../long-mode';
import { cleanupTmp, DEFAULT_GLOBS, ok, openRepo, read, storeGit, tmpDir, withEnv, write } from './helpers';

const onWindows = process.platform === 'win32';
const HOOKS = ['pre-commit', 'commit-msg', 'post-commit', 'reference-transaction', 'post-checkout', 'post-index-change', 'pre-auto-gc', 'post-rewrite', 'post-merge'];

/** Marker programs: each leaves marks/<name> behind when anything runs it. */
class Evil {
  readonly marks: string;
  readonly bin: string;
  constructor(readonly dir: string) {
    this.marks = path.join(dir, 'marks');
    this.bin = path.join(dir, 'bin');
    fs.mkdirSync(this.marks, { recursive: true });
    fs.mkdirSync(this.bin, { recursive: true });
  }

  /** A program at `at` (default: bin/<name>) that marks `name`; `then` runs after the mark. */
  program(name: string, at = path.join(this.bin, name.replace(/[^\w.-]/g, '_')), then = 'exit 0'): string {
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.writeFileSync(at, `#!/bin/sh\n: > "${path.join(this.marks, name.replace(/[^\w.-]/g, '_'))}"\n${then}\n`);
    fs.chmodSync(at, 0o755);
    return at;
  }

  hooks(folder: string, label: string): void {
    for (const h of HOOKS) this.program(`hook.${label}.${h}`, path.join(folder, h));
  }

  fired(): string[] {
    return fs.readdirSync(this.marks).sort();
  }
}

function storeDir(root: string): string {
  return path.join(root, '.worldline', 'checkpoints.git');
}


/** A novel with two checkpoints, as its author had it. */
async function authorsNovel(): Promise<string> {
  const root = tmpDir('wl-author-');
  write(root, 'chapters/01.md', 'one\n');
  write(root, 'chapters/02.md', 'two\n');
  const repo = await openRepo(root);
  ok(await repo.checkpoint('t1', 'author'));
  write(root, 'chapters/02.md', 'two, revised\n');
  ok(await repo.checkpoint('t2', 'author'));
  return root;
}

/** The author's folder as the novelist receives it: copied whole, .worldline included. */
function copied(from: string): string {
  const root = tmpDir('wl-received-');
  fs.cpSync(from, root, { recursive: true });
  return root;
}

const realGit = onWindows ? 'git' : execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** Plants every way we know for a store config to start a program. Returns what was planted. */
function plant(root: string, evil: Evil): { keys: string[]; other: string[]; configText: string } {
  const gitDir = storeDir(root);
  const p = (name: string) => evil.program(name);
  const hooksPath = path.join(evil.dir, 'hooks');
  evil.hooks(hooksPath, 'hooksPath');
  evil.hooks(path.join(gitDir, 'hooks'), 'store');
  const attrs = '* filter=x diff=x merge=x\n*.md filter=x diff=x merge=x\n';
  write(evil.dir, 'attributes', attrs);
  const include = (label: string) =>
    `[core]\n\tfsmonitor = ${p(`${label}.core.fsmonitor`)}\n\thooksPath = ${hooksPath}\n` +
    `[filter "x"]\n\tclean = ${p(`${label}.filter.x.clean`)}\n\tsmudge = ${p(`${label}.filter.x.smudge`)}\n` +
    `[diff "x"]\n\ttextconv = ${p(`${label}.diff.x.textconv`)}\n`;
  write(evil.dir, 'include.cfg', include('include.path'));
  write(evil.dir, 'includeif.cfg', include('includeIf'));
  const planted: Array<[string, string, string]> = [
    ['core', 'fsmonitor', p('core.fsmonitor')],
    ['core', 'hooksPath', hooksPath],
    ['core', 'pager', p('core.pager')],
    ['core', 'editor', p('core.editor')],
    ['core', 'sshCommand', p('core.sshCommand')],
    ['core', 'askPass', p('core.askPass')],
    ['core', 'gitProxy', p('core.gitProxy')],
    ['core', 'alternateRefsCommand', p('core.alternateRefsCommand')],
    ['core', 'attributesFile', path.join(evil.dir, 'attributes')],
    ['core', 'worktree', path.join(evil.dir, 'elsewhere')],
    ['core', 'untrackedCache', 'true'],
    ['sequence', 'editor', p('sequence.editor')],
    ['credential', 'helper', `!${p('credential.helper')}`],
    ['filter "x"', 'clean', p('filter.x.clean')],
    ['filter "x"', 'smudge', p('filter.x.smudge')],
    ['filter "x"', 'process', p('filter.x.process')],
    ['filter "x"', 'required', 'true'],
    ['diff "x"', 'textconv', p('diff.x.textconv')],
    ['diff "x"', 'command', p('diff.x.command')],
    ['diff', 'external', p('diff.external')],
    ['merge "x"', 'driver', p('merge.x.driver')],
    ['pager', 'ls-files', p('pager.ls-files')],
    ['pager', 'diff-tree', p('pager.diff-tree')],
    ['gpg', 'program', p('gpg.program')],
    ['gpg "ssh"', 'program', p('gpg.ssh.program')],
    ['gpg "x509"', 'program', p('gpg.x509.program')],
    ['commit', 'gpgSign', 'true'],
    ['alias', 'update-index', `!${p('alias.update-index')}`],
    ['alias', 'ls-files', `!${p('alias.ls-files')}`],
    ['alias', 'write-tree', `!${p('alias.write-tree')}`],
    ['uploadpack', 'packObjectsHook', p('uploadpack.packObjectsHook')],
    ['submodule', 'recurse', 'true'],
    ['protocol "ext"', 'allow', 'always'],
    ['remote "origin"', 'url', `ext::${p('remote.origin.url')}`],
    ['remote "origin"', 'promisor', 'true'],
    ['extensions', 'partialClone', 'origin'],
    ['extensions', 'worktreeConfig', 'true'],
    ['include', 'path', path.join(evil.dir, 'include.cfg')],
    [`includeIf "gitdir:${gitDir.split(path.sep).join('/')}/"`, 'path', path.join(evil.dir, 'includeif.cfg')],
  ];
  const configFile = path.join(gitDir, 'config');
  let text = fs.readFileSync(configFile, 'utf8');
  for (const [section, key, value] of planted) text += `[${section}]\n\t${key} = ${value}\n`;
  fs.writeFileSync(configFile, text);
  // Read in addition to the config when extensions.worktreeConfig is on.
  write(gitDir, 'config.worktree', `[core]\n\tfsmonitor = ${p('config.worktree.core.fsmonitor')}\n`);
  write(gitDir, 'info/attributes', attrs);
  write(root, '.gitattributes', attrs);
  write(root, 'chapters/.gitattributes', attrs);
  // A "git" for a PATH that has "." in it, and one in a PATH folder inside the book.
  evil.program('path.dot.git', path.join(root, 'git'), `exec "${realGit}" "$@"`);
  evil.program('path.inside.git', path.join(root, 'tools', 'git'), `exec "${realGit}" "$@"`);
  const other = [
    ...HOOKS.map((h) => `hooks/${h}`),
    ...HOOKS.map((h) => `core.hooksPath/${h}`),
    'include.path file (core.fsmonitor, hooksPath, filter.x.clean/smudge, diff.x.textconv)',
    'includeIf file (the same)',
    'config.worktree (core.fsmonitor)',
    'info/attributes, .gitattributes ×2, core.attributesFile (filter=x diff=x merge=x)',
    'git in the book root (PATH ".") and in book/tools (PATH entry inside the book)',
  ];
  return { keys: planted.map(([s, k]) => `${s}.${k}`), other, configText: text };
}

/** The host environment of a hostile machine (or a careless shell profile). */
function hostileEnv(root: string, evil: Evil): Record<string, string> {
  const p = (name: string) => evil.program(name);
  return {
    PATH: ['.', '', path.join(root, 'tools'), process.env.PATH ?? ''].join(path.delimiter),
    GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${p('env.GIT_CONFIG_PARAMETERS')}'`,
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'core.fsmonitor',
    GIT_CONFIG_VALUE_0: p('env.GIT_CONFIG_VALUE_0'),
    GIT_CONFIG_KEY_1: 'core.hooksPath',
    GIT_CONFIG_VALUE_1: path.join(evil.dir, 'hooks'),
    GIT_CONFIG_GLOBAL: path.join(evil.dir, 'include.cfg'),
    GIT_CONFIG_SYSTEM: path.join(evil.dir, 'include.cfg'),
    GIT_EXTERNAL_DIFF: p('env.GIT_EXTERNAL_DIFF'),
    GIT_PAGER: p('env.GIT_PAGER'),
    PAGER: p('env.PAGER'),
    GIT_EDITOR: p('env.GIT_EDITOR'),
    EDITOR: p('env.EDITOR'),
    VISUAL: p('env.VISUAL'),
    GIT_SEQUENCE_EDITOR: p('env.GIT_SEQUENCE_EDITOR'),
    GIT_ASKPASS: p('env.GIT_ASKPASS'),
    SSH_ASKPASS: p('env.SSH_ASKPASS'),
    GIT_SSH: p('env.GIT_SSH'),
    GIT_SSH_COMMAND: p('env.GIT_SSH_COMMAND'),
    GIT_PROXY_COMMAND: p('env.GIT_PROXY_COMMAND'),
    GIT_ATTR_SOURCE: 'HEAD',
  };
}

describe('checkpoints: a store planted with programs never runs them', function () {
  this.timeout(60_000);
  afterEach(cleanupTmp);
  before(function () {
    if (onWindows) this.skip(); // the marker programs are shell scripts
  });

  it('every planted key, hook, attribute and variable: all operations run, 0 markers, checkpoints still work', async () => {
    const author = await authorsNovel();
    const root = copied(author);
    const evil = new Evil(tmpDir('wl-evil-'));
    const planted = plant(root, evil);
    const recorded = storeGit(author, ['for-each-ref', '--format=%(objectname)', 'refs/worldline/turns']).split('\n').filter(Boolean);
    assert.equal(recorded.length, 2);
    const logs: string[] = [];
    const opts = { globs: DEFAULT_GLOBS, log: (m: string) => logs.push(m) };
    const ops: string[] = [];
    const op = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      ops.push(name);
      const r = await fn();
      assert.deepEqual(evil.fired(), [], `no marker after ${name}`);
      return r;
    };

    let rebuiltAside: string | undefined;
    await withEnv(hostileEnv(root, evil), async () => {
      const opened = await op('open', () => ShadowRepo.open(root, opts));
      if (!(opened instanceof ShadowRepo)) assert.fail(`open failed: ${opened.message}`);
      const repo = opened;
      assert.deepEqual(await op('health', () => repo.health(recorded)), { ok: true });
      write(root, 'chapters/02.md', 'two, the novelist\'s own\n');
      write(root, 'chapters/03.md', 'three\n');
      const c3 = ok(await op('checkpoint', () => repo.checkpoint('t3', 's')));
      assert.deepEqual([...c3.changed].sort(), ['chapters/02.md', 'chapters/03.md']);
      assert.equal(await op('checkpointIfChanged (unchanged)', () => repo.checkpointIfChanged('t4', 's', c3.commit)), null);
      write(root, 'chapters/01.md', 'one, again\n');
      const c4r = await op('checkpointIfChanged (changed)', () => repo.checkpointIfChanged('t4', 's', c3.commit));
      assert.ok(c4r !== null && !isCheckpointProblem(c4r));
      const c4 = c4r;
      assert.deepEqual(await op('changedFiles (two checkpoints)', () => repo.changedFiles(recorded[0], c4.commit)), [
        { path: 'chapters/01.md', status: 'M' },
        { path: 'chapters/02.md', status: 'M' },
        { path: 'chapters/03.md', status: 'A' },
      ]);
      write(root, 'chapters/03.md', 'three, edited\n');
      assert.deepEqual(await op('changedFiles (working copy)', () => repo.changedFiles(c4.commit)), [{ path: 'chapters/03.md', status: 'M' }]);
      assert.deepEqual(await op('filesAt', () => repo.filesAt(c4.commit)), ['chapters/01.md', 'chapters/02.md', 'chapters/03.md']);
      assert.equal(await op('readAt', () => repo.readAt(c3.commit, 'chapters/02.md')), 'two, the novelist\'s own\n');
      const r1 = await op('restore', () => repo.restore(recorded[0]));
      assert.equal(read(root, 'chapters/02.md'), 'two\n');
      assert.equal(read(root, 'chapters/03.md'), undefined);
      assert.ok(r1.undo);
      await op('undoLastRestore', () => repo.undoLastRestore(r1.undo));
      assert.equal(read(root, 'chapters/03.md'), 'three, edited\n');
      await op('restore (not undoable)', () => repo.restore(c3.commit, { undoable: false }));
      assert.equal(read(root, 'chapters/01.md'), 'one\n');
      const extra = ok(await op('checkpoint (again)', () => repo.checkpoint('t5', 's')));
      assert.equal(await op('discard', () => repo.discard(extra)), true);
      await op('maintain', () => repo.maintain());
      repo.setGlobs(['chapters/**/*.md']);
      write(root, 'chapters/04.md', 'four\n');
      ok(await op('checkpoint (new globs)', () => repo.checkpoint('t6', 's')));
      const again = await op('open (a second handle)', () => ShadowRepo.open(root, opts));
      assert.ok(again instanceof ShadowRepo);
      assert.deepEqual(await op('health (second handle)', () => again.health([...recorded, c3.commit, c4.commit])), { ok: true });
      const rebuilt = await op('rebuild', () => ShadowRepo.rebuild(root, opts));
      rebuiltAside = rebuilt.movedAside;
      write(root, 'chapters/04.md', 'four, after the rebuild\n');
      const c7 = ok(await op('checkpoint (rebuilt store)', () => rebuilt.checkpoint('t7', 's')));
      write(root, 'chapters/04.md', 'gone\n');
      await op('restore (rebuilt store)', () => rebuilt.restore(c7.commit));
      assert.equal(read(root, 'chapters/04.md'), 'four, after the rebuild\n');
      assert.deepEqual(await op('health (rebuilt store)', () => rebuilt.health()), { ok: true });
    });

    assert.deepEqual(evil.fired(), [], 'no planted program ran');
    const markers = evil.fired().length;

    // What open did to the received store (kept aside by the rebuild, so look there).
    const received = rebuiltAside ?? assert.fail('rebuild moved the store aside');
    const names = fs.readdirSync(received);
    const keptConfig = names.find((n) => /^config\.untrusted-\d{8}T\d{6}$/.test(n));
    assert.ok(keptConfig, `the planted config is kept: ${names.join(' ')}`);
    assert.equal(fs.readFileSync(path.join(received, keptConfig), 'utf8'), planted.configText, 'kept byte for byte');
    assert.equal(fs.readFileSync(path.join(received, 'config'), 'utf8'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true' + SHADOW_CONFIG);
    assert.ok(names.some((n) => /^config\.worktree\.untrusted-/.test(n)), 'config.worktree set aside');
    assert.ok(!names.includes('config.worktree') && !names.includes('hooks'));
    const keptHooks = names.find((n) => n.startsWith('hooks.untrusted-'));
    assert.ok(keptHooks && fs.existsSync(path.join(received, keptHooks, 'reference-transaction')), 'the hooks are kept, not deleted');
    assert.equal(fs.readFileSync(path.join(received, 'info', 'attributes'), 'utf8'), '* -text -filter -diff -merge -ident !eol !working-tree-encoding\n');
    const replaced = logs.find((l) => l.includes('config had settings Worldline never writes'));
    assert.ok(replaced, logs.join('\n'));
    for (const k of ['core.fsmonitor', 'core.hookspath', 'filter.x.clean', 'diff.x.textconv', 'include.path', 'alias.update-index', 'extensions.worktreeconfig']) {
      assert.ok(replaced.includes(k), `the log names ${k}: ${replaced}`);
    }
    // "No marker" proves something only if the programs work: run two of them by hand.
    execFileSync(path.join(evil.bin, 'core.fsmonitor'));
    execFileSync(path.join(received, keptHooks, 'post-commit'));
    assert.deepEqual(evil.fired(), ['core.fsmonitor', 'hook.store.post-commit']);
    // The book's own files are the novelist's: the planted .gitattributes stay where they were.
    assert.ok(fs.existsSync(path.join(root, '.gitattributes')));
    console.log(`      planted: ${planted.keys.length} config keys + ${planted.other.length} hooks, files and programs + ${Object.keys(hostileEnv(root, evil)).length} host variables; ${ops.length} operations run; ${markers} markers`);
  });

  it('a commondir file pointing at a planted repository is set aside: git reads only the store', async () => {
    const author = await authorsNovel();
    const root = copied(author);
    const evil = new Evil(tmpDir('wl-evil-'));
    const elsewhere = path.join(evil.dir, 'common.git');
    execFileSync(realGit, ['init', '-q', '--bare', elsewhere], { env: { PATH: process.env.PATH ?? '', HOME: evil.dir, GIT_CONFIG_NOSYSTEM: '1' } });
    fs.appendFileSync(path.join(elsewhere, 'config'), `[core]\n\tfsmonitor = ${evil.program('common.core.fsmonitor')}\n[filter "x"]\n\tclean = ${evil.program('common.filter')}\n`);
    fs.writeFileSync(path.join(elsewhere, 'info', 'attributes'), '* filter=x\n');
    evil.hooks(path.join(elsewhere, 'hooks'), 'common');
    write(storeDir(root), 'commondir', `${elsewhere}\n`);
    const first = storeGit(author, ['for-each-ref', '--format=%(objectname)', 'refs/worldline/turns']).split('\n')[0];
    const logs: string[] = [];
    const repo = await openRepo(root, { log: (m) => logs.push(m) });
    assert.ok(logs.some((l) => l.includes('"commondir"')), logs.join('\n'));
    write(root, 'chapters/01.md', 'changed\n');
    ok(await repo.checkpoint('t3', 's'));
    await repo.restore(first);
    assert.equal(read(root, 'chapters/01.md'), 'one\n', 'the store\'s own objects were used');
    assert.deepEqual(evil.fired(), []);
    assert.ok(fs.readdirSync(storeDir(root)).some((n) => n.startsWith('commondir.untrusted-')));
  });

  it('a config or info file that is a link to a file outside is replaced, and the outside file is never written', async () => {
    const author = await authorsNovel();
    const root = copied(author);
    const outside = tmpDir('wl-outside-');
    const victimConfig = path.join(outside, 'victim.gitconfig');
    const victimAttrs = path.join(outside, 'victim.attributes');
    const victimExclude = path.join(outside, 'victim.exclude');
    fs.writeFileSync(victimConfig, '[user]\n\tname = Victim\n');
    fs.writeFileSync(victimAttrs, 'victim attributes\n');
    fs.writeFileSync(victimExclude, 'victim exclude\n');
    const gitDir = storeDir(root);
    fs.rmSync(path.join(gitDir, 'config'));
    fs.symlinkSync(victimConfig, path.join(gitDir, 'config'));
    fs.rmSync(path.join(gitDir, 'info', 'attributes'));
    fs.linkSync(victimAttrs, path.join(gitDir, 'info', 'attributes')); // a hard link
    fs.rmSync(path.join(gitDir, 'info', 'exclude'));
    fs.symlinkSync(victimExclude, path.join(gitDir, 'info', 'exclude'));
    const repo = await openRepo(root);
    write(root, 'chapters/01.md', 'changed\n');
    ok(await repo.checkpoint('t3', 's'));
    assert.equal(fs.readFileSync(victimConfig, 'utf8'), '[user]\n\tname = Victim\n');
    assert.equal(fs.readFileSync(victimAttrs, 'utf8'), 'victim attributes\n');
    assert.equal(fs.readFileSync(victimExclude, 'utf8'), 'victim exclude\n');
    for (const f of ['config', 'info/attributes', 'info/exclude']) {
      const st = fs.lstatSync(path.join(gitDir, ...f.split('/')));
      assert.ok(st.isFile() && st.nlink === 1, `${f} is a file of its own now`);
    }
    assert.ok(fs.lstatSync(path.join(gitDir, fs.readdirSync(gitDir).find((n) => n.startsWith('config.untrusted-')) ?? 'none')).isSymbolicLink(), 'the link itself is kept aside');
  });

  it('a store that is a link to a folder elsewhere is not used (and not changed)', async () => {
    const author = await authorsNovel();
    const root = tmpDir();
    write(root, 'ch.md', 'x\n');
    fs.mkdirSync(path.join(root, '.worldline'));
    fs.symlinkSync(storeDir(author), storeDir(root));
    const configBefore = fs.readFileSync(path.join(storeDir(author), 'config'), 'utf8');
    const refsBefore = storeGit(author, ['for-each-ref']);
    const r = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS });
    assert.ok(!(r instanceof ShadowRepo));
    assert.equal(r.kind, 'corrupt');
    assert.match(r.message, /link or a file, not a folder/);
    assert.equal(fs.readFileSync(path.join(storeDir(author), 'config'), 'utf8'), configBefore);
    assert.equal(storeGit(author, ['for-each-ref']), refsBefore);
  });

  it('our own store is left as it is: a new store passes the check, and reopening rewrites nothing', async () => {
    const root = tmpDir();
    write(root, 'ch.md', 'x\n');
    const logs: string[] = [];
    const first = await openRepo(root, { log: (m) => logs.push(m) });
    assert.ok(first.created);
    const gitDir = storeDir(root);
    assert.ok(!fs.existsSync(path.join(gitDir, 'hooks')), 'no template: no sample hooks');
    const config = fs.readFileSync(path.join(gitDir, 'config'), 'utf8');
    for (let i = 0; i < 3; i++) await openRepo(root, { log: (m) => logs.push(m) });
    assert.equal(fs.readFileSync(path.join(gitDir, 'config'), 'utf8'), config);
    assert.deepEqual(fs.readdirSync(gitDir).filter((n) => n.includes('untrusted')), []);
    assert.ok(!logs.some((l) => l.includes('never writes')), logs.join('\n'));
    // A store made by an earlier version (git init with templates: sample hooks) passes too.
    fs.mkdirSync(path.join(gitDir, 'hooks'));
    fs.writeFileSync(path.join(gitDir, 'hooks', 'pre-commit.sample'), '#!/bin/sh\n');
    fs.writeFileSync(path.join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tlogallrefupdates = true\n' + SHADOW_CONFIG);
    assert.deepEqual(await vetStore(new GitRunner(storePaths(root))), { dropped: [], keptAside: [] });
  });

  it('the check agrees with git on any spelling: case, spacing, quoted and dotted subsections, continuation lines, comments', async () => {
    const root = tmpDir();
    write(root, 'ch.md', 'x\n');
    await openRepo(root);
    const gitDir = storeDir(root);
    const runner = new GitRunner(storePaths(root));
    const configFile = path.join(gitDir, 'config');
    const good = fs.readFileSync(configFile, 'utf8');
    const mixCase = (s: string, bits: number[]) => [...s].map((c, i) => ((bits[i % bits.length] ?? 0) ? c.toUpperCase() : c)).join('');
    const dangerous = ['core.fsmonitor', 'core.hooksPath', 'include.path', 'filter.x.clean', 'diff.x.textconv', 'alias.st', 'core.worktree', 'includeIf.gitdir:/.path', 'gpg.program', 'core.sshCommand', 'merge.x.driver'];
    const allowed = [...ALLOWED_KEYS];
    const spelling = (key: string, bits: number[], style: number, pad: string): string => {
      const parts = key.split('.');
      const name = mixCase(parts[parts.length - 1], bits);
      const section = mixCase(parts[0], bits.slice(1));
      const sub = parts.slice(1, -1).join('.');
      const head = sub === '' ? `[${section}]` : style % 2 === 0 || !/^[\w-]+$/.test(sub) ? `[${section} "${sub}"]` : `[${section}.${sub}]`;
      const value = style % 3 === 0 ? `"a\\\n b"` : 'x';
      return `${pad}${head} ; comment\n${pad}${name}${pad}=${pad}${value} # more\n`;
    };
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...dangerous, ...allowed),
        fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 5 }),
        fc.constantFrom('', ' ', '\t', '  \t'),
        async (key, bits, style, pad) => {
          tried++;
          const text = good + spelling(key, bits, style, pad);
          fs.writeFileSync(configFile, text);
          const r = await vetStore(runner, undefined, new Date(Date.UTC(2025, 0, 1, 0, 0, tried % 60, 0)));
          const isAllowed = ALLOWED_KEYS.has(key);
          if (isAllowed) {
            assert.deepEqual(r.dropped, [], `${JSON.stringify(text)}`);
            return;
          }
          assert.equal(r.dropped.length, 1, JSON.stringify(text));
          assert.equal(r.dropped[0].toLowerCase(), key.toLowerCase());
          const now = fs.readFileSync(configFile, 'utf8');
          assert.equal(now, safeConfig([{ key: 'core.repositoryformatversion', value: '0' }, { key: 'core.filemode', value: 'true' }]));
          for (const f of r.keptAside) fs.rmSync(f, { recursive: true, force: true }); // keep the folder small between runs
        },
      ),
      { numRuns: runs(40, 400) },
    );
    assert.ok(tried >= runs(40, 400));
  });

  it('a store owned by another user (a copied folder, CI running as root) is used: no safe.directory needed', async function () {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) this.skip(); // only root can give files away
    const author = await authorsNovel();
    const root = copied(author);
    execFileSync('chown', ['-R', '65534:65534', root]);
    const repo = await openRepo(root);
    write(root, 'chapters/01.md', 'changed\n');
    const c = ok(await repo.checkpoint('t3', 's'));
    await repo.restore(storeGit(root, ['rev-list', '--max-parents=0', c.commit]).trim());
    assert.equal(read(root, 'chapters/01.md'), 'one\n');
  });
});
