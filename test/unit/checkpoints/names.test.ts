// Paths with spaces and Chinese, and symlinks: a symlink is never tracked and never written
// through, so a link pointing outside the book can never be used to change a file out there.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupTmp, filesAt, ok, openRepo, read, remove, tmpDir, write } from './helpers';
import { RestoreBlockedError } from '../../../src/checkpoints';

describe('checkpoints: names and symlinks', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  it('spaces, Chinese, quotes and odd characters in folders and file names', async () => {
    const root = tmpDir('wl ckpt 书 ');
    const names = ['第一卷 风起/第一章 雨夜.md', 'part two/"quoted" name.md', 'ünïcödé/é ß.txt', 'a\tb/tab name.md', '-dash.md', 'x/[brackets]*.md'];
    names.forEach((n, i) => write(root, n, `内容 ${i}\n`));
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));
    assert.deepEqual([...c1.changed].sort(), [...names].sort());
    assert.deepEqual(Object.keys(filesAt(root, c1.commit)).sort(), [...names].sort());
    for (const [i, n] of names.entries()) assert.equal(await repo.readAt(c1.commit, n), `内容 ${i}\n`);

    write(root, names[0], '改写\n');
    remove(root, names[1]);
    write(root, '新 卷/新的一章.md', 'new\n');
    const c2 = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual([...c2.changed].sort(), [names[0], names[1], '新 卷/新的一章.md'].sort());
    assert.deepEqual(await repo.changedFiles(c1.commit, c2.commit), [
      { path: names[0], status: 'M' },
      { path: names[1], status: 'D' },
      { path: '新 卷/新的一章.md', status: 'A' },
    ].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path))));

    const res = await repo.restore(c1.commit);
    assert.deepEqual(res.deleted, ['新 卷/新的一章.md']);
    for (const [i, n] of names.entries()) assert.equal(read(root, n), `内容 ${i}\n`);
    assert.ok(!fs.existsSync(path.join(root, '新 卷')));
  });

  it('symlinks to files and folders are not tracked, and are reported', async () => {
    const outside = tmpDir();
    write(outside, 'secret.md', 'outside the book\n');
    write(outside, 'dir/other.md', 'outside too\n');
    const root = tmpDir();
    write(root, 'ch.md', 'real\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'link.md'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'linked'));
    const logs: string[] = [];
    const repo = await openRepo(root, { log: (m) => logs.push(m) });
    const c1 = ok(await repo.checkpoint('t1', 's'));
    assert.deepEqual(c1.changed, ['ch.md']);
    assert.ok(logs.some((l) => /symlink.*link\.md/.test(l)));
    assert.ok(logs.some((l) => /symlink.*linked/.test(l)));
  });

  it('a restore never writes through a symlinked file or folder, even when the checkpoint had real files there', async () => {
    const outside = tmpDir();
    write(outside, 'target.md', 'must stay\n');
    write(outside, 'dir/a.md', 'must stay too\n');
    const root = tmpDir();
    write(root, 'x.md', 'real x\n');
    write(root, 'part/a.md', 'real a\n');
    const repo = await openRepo(root);
    const c1 = ok(await repo.checkpoint('t1', 's'));

    // The novelist (or a tool) replaces both with links pointing outside the book.
    remove(root, 'x.md');
    fs.symlinkSync(path.join(outside, 'target.md'), path.join(root, 'x.md'));
    fs.rmSync(path.join(root, 'part'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'part'));
    const c2 = ok(await repo.checkpoint('t2', 's'));
    assert.deepEqual([...c2.changed].sort(), ['part/a.md', 'x.md'], 'links are untracked, not followed');

    // The links are in the way of the checkpoint's chapters: the restore is refused whole, naming them.
    await assert.rejects(repo.restore(c1.commit), (err: unknown) => {
      assert.ok(err instanceof RestoreBlockedError);
      assert.deepEqual(err.blockers.map((b) => `${b.path}:${b.kind}`).sort(), ['part:link', 'x.md:link']);
      assert.match(err.message, /"part".*symbolic link.*"x\.md"/);
      return true;
    });
    assert.equal(read(outside, 'target.md'), 'must stay\n');
    assert.equal(read(outside, 'dir/a.md'), 'must stay too\n');
    assert.ok(fs.lstatSync(path.join(root, 'x.md')).isSymbolicLink());
    assert.ok(fs.lstatSync(path.join(root, 'part')).isSymbolicLink());
  });
});
