// The novelist's own repositories are never touched, and nothing from the host environment
// (GIT_DIR, templates, global config, editor variables) reaches the shadow repo.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupTmp, fingerprint, git, manuscript, ok, openRepo, read, storeGit, tmpDir, withEnv, write } from './helpers';


function novelistRepo(root: string): void {
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'my book']);
}

/** Everything observable about a repo, read without writing to it. */
function observe(repoRoot: string): { git: Map<string, string>; head: string; status: string; refs: string } {
  return {
    git: fingerprint(path.join(repoRoot, '.git'), []),
    head: git(repoRoot, ['rev-parse', 'HEAD']),
    status: git(repoRoot, ['status', '--porcelain=v1', '-uall'], { GIT_OPTIONAL_LOCKS: '0' }),
    refs: git(repoRoot, ['for-each-ref']),
  };
}

function hostileHooks(dir: string, marker: string): string {
  const hooks = path.join(dir, 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  for (const h of ['pre-commit', 'commit-msg', 'post-commit', 'reference-transaction', 'post-index-change']) {
    const f = path.join(hooks, h);
    fs.writeFileSync(f, `#!/bin/sh\necho ${h} >> "${marker}"\nexit 1\n`);
    fs.chmodSync(f, 0o755);
  }
  return hooks;
}

describe('checkpoints: isolation from the novelist\'s repositories and environment', function () {
  this.timeout(60_000);
  afterEach(cleanupTmp);

  it('the book folder being a git repo: its HEAD, index, refs, status and .git stay identical', async () => {
    const root = tmpDir();
    write(root, 'chapters/01.md', 'one\n');
    write(root, 'chapters/02.md', 'two\n');
    write(root, 'README.txt', 'readme\n');
    novelistRepo(root);
    write(root, 'chapters/02.md', 'two, staged\n');
    git(root, ['add', 'chapters/02.md']);
    write(root, 'chapters/01.md', 'one, unstaged\n');
    const startText = manuscript(root);
    const before = observe(root);

    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    write(root, 'chapters/01.md', 'agent rewrote this\n');
    write(root, 'chapters/03.md', 'three\n');
    ok(await repo.checkpoint('t2', 's'));
    await repo.restore(c1.commit);
    await repo.undoLastRestore();
    await repo.restore(c1.commit);
    assert.deepEqual(manuscript(root), startText);

    const after = observe(root);
    assert.equal(after.head, before.head);
    assert.equal(after.refs, before.refs);
    assert.equal(after.status, before.status);
    assert.deepEqual(after.git, before.git, '.git (index, objects, refs, config) is byte-identical');
  });

  it('the book folder inside a bigger repo, and a plain folder, both work and the outer repo is untouched', async () => {
    const outer = tmpDir();
    write(outer, 'other/file.md', 'outer\n');
    novelistRepo(outer);
    const root = path.join(outer, 'books', 'novel');
    write(root, 'ch.md', 'inner book\n');
    const before = observe(outer);
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    write(root, 'ch.md', 'changed\n');
    ok(await repo.checkpoint('t2', 's'));
    await repo.restore(c1.commit);
    assert.equal(read(root, 'ch.md'), 'inner book\n');
    const after = observe(outer);
    assert.deepEqual(after.git, before.git);
    assert.equal(after.head, before.head);
  });

  it('nested repositories: their files are checkpointed and restored, their .git is never touched or renamed', async () => {
    const root = tmpDir();
    write(root, 'chapters/01.md', 'one\n');
    write(root, 'research/places.md', 'harbour\n');
    write(root, 'research/deep/people.md', 'Qingwu\n');
    novelistRepo(path.join(root, 'research'));
    const nestedBefore = observe(path.join(root, 'research'));
    const logs: string[] = [];
    const repo = await openRepo(root, { log: (m) => logs.push(m) });
    const c1 = ok(await repo.checkpoint('t1', 's'));
    assert.deepEqual([...c1.changed].sort(), ['chapters/01.md', 'research/deep/people.md', 'research/places.md']);
    assert.ok(logs.some((l) => l.includes('research/ is its own git repository')));
    write(root, 'research/places.md', 'harbour, burned\n');
    write(root, 'research/new.md', 'new\n');
    const c2 = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual([...c2.changed].sort(), ['research/new.md', 'research/places.md']);
    await repo.restore(c1.commit);
    assert.equal(read(root, 'research/places.md'), 'harbour\n');
    assert.equal(read(root, 'research/new.md'), undefined);
    assert.ok(fs.statSync(path.join(root, 'research', '.git')).isDirectory());
    const nestedAfter = observe(path.join(root, 'research'));
    assert.deepEqual(nestedAfter.git, nestedBefore.git);
    assert.equal(nestedAfter.status, nestedBefore.status);
  });

  it('GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE and GIT_OBJECT_DIRECTORY in the host environment are ignored', async () => {
    const other = tmpDir();
    write(other, 'x.md', 'other repo\n');
    novelistRepo(other);
    const before = observe(other);
    const root = tmpDir();
    write(root, 'ch.md', 'one\n');
    await withEnv(
      {
        GIT_DIR: path.join(other, '.git'),
        GIT_WORK_TREE: other,
        GIT_INDEX_FILE: path.join(other, '.git', 'index'),
        GIT_OBJECT_DIRECTORY: path.join(other, '.git', 'objects'),
      },
      async () => {
        const repo = await openRepo(root);
        const c1 = ok(await repo.checkpoint('t1', 's'));
        write(root, 'ch.md', 'two\n');
        ok(await repo.checkpoint('t2', 's'));
        await repo.restore(c1.commit);
        assert.equal(read(root, 'ch.md'), 'one\n');
      },
    );
    const after = observe(other);
    assert.deepEqual(after.git, before.git, 'the other repo got no objects, commits or index changes');
    assert.equal(git(other, ['rev-list', '--count', 'HEAD']).trim(), '1');
  });

  it('a hostile template dir, global config and editor/askpass variables change nothing', async () => {
    const evil = tmpDir();
    const marker = path.join(evil, 'hooks-ran.log');
    const template = path.join(evil, 'template');
    hostileHooks(template, marker);
    const globalHooks = hostileHooks(path.join(evil, 'global'), marker);
    const home = path.join(evil, 'home');
    write(
      home,
      '.gitconfig',
      `[core]\n\thooksPath = ${globalHooks}\n\tautocrlf = true\n\tfsmonitor = true\n[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = false\n[init]\n\ttemplateDir = ${template}\n`,
    );
    const root = tmpDir();
    const crlf = 'a\r\nb\r\n';
    write(root, 'ch.md', crlf);
    let t2 = '';
    await withEnv(
      { GIT_TEMPLATE_DIR: template, HOME: home, XDG_CONFIG_HOME: home, EDITOR: 'vim', GIT_EDITOR: 'vim', GIT_ASKPASS: '/bin/false', PAGER: 'less', GIT_SSH_COMMAND: 'false', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: globalHooks },
      async () => {
        const repo = await openRepo(root);
        const c1 = ok(await repo.checkpoint('t1', 's'));
        write(root, 'ch.md', 'lf only\n');
        t2 = ok(await repo.checkpoint('t2', 's')).ref;
        await repo.restore(c1.commit);
      },
    );
    assert.equal(fs.readFileSync(path.join(root, 'ch.md'), 'utf8'), crlf);
    assert.ok(!fs.existsSync(marker), 'no hook ran');
    const storeHooks = path.join(root, '.worldline', 'checkpoints.git', 'hooks');
    assert.ok(!fs.existsSync(path.join(storeHooks, 'pre-commit')), 'the template was not copied');
    assert.equal(storeGit(root, ['log', '-1', '--format=%an <%ae> %G?', t2]).trim(), 'Worldline <checkpoints@worldline.invalid> N');
  });

  it('hooks placed inside the store itself never run (hooks are off, including reference-transaction)', async () => {
    const root = tmpDir();
    write(root, 'ch.md', 'one\n');
    const repo = await openRepo(root);
    const marker = path.join(root, 'hook-ran.log');
    hostileHooks(path.join(root, '.worldline', 'checkpoints.git'), marker);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    write(root, 'ch.md', 'two\n');
    ok(await repo.checkpoint('t2', 's'));
    await repo.restore(c1.commit);
    await repo.undoLastRestore();
    assert.equal(read(root, 'ch.md'), 'two\n');
    assert.ok(!fs.existsSync(marker));
  });
});
