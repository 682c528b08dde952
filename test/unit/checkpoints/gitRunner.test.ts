import { strict as assert } from 'node:assert';
import { CheckpointError } from '../../../src/checkpoints';
import { classifyGitError, GitRunner, stripTrace } from '../../../src/checkpoints/gitRunner';
import { storePaths } from '../../../src/checkpoints/store';
import { cleanupTmp, openRepo, storeGit, tmpDir, write } from './helpers';

describe('checkpoints: git runner', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  it('splits long path lists over several git calls (Windows command lines are short)', async () => {
    const root = tmpDir();
    const names = Array.from({ length: 40 }, (_, i) => `第${i}章 with a rather long name.md`);
    for (const n of names) write(root, n, n);
    await openRepo(root);
    const runner = new GitRunner({ ...storePaths(root), maxArgvChars: 120 });
    await runner.runForPaths(['update-index', '--add'], names);
    assert.deepEqual(storeGit(root, ['ls-files', '-z']).split('\0').filter(Boolean).sort(), [...names].sort());
  });

  it('classifies git failures into errors a novelist can act on', () => {
    const lock = classifyGitError(new Error("fatal: Unable to create '/b/.worldline/checkpoints.git/index.lock': File exists.\n"), 'git');
    assert.equal(lock.kind, 'locked');
    assert.equal(lock.detail, '/b/.worldline/checkpoints.git/index.lock');
    const missing = classifyGitError(new Error('Error: spawn /x/git ENOENT'), '/x/git');
    assert.equal(missing.kind, 'gitMissing');
    assert.match(missing.message, /\/x\/git/);
    const corrupt = classifyGitError(new Error('error: object file .git/objects/ab/cd is empty\nfatal: loose object abcd is corrupt\n'), 'git');
    assert.equal(corrupt.kind, 'corrupt');
    assert.match(corrupt.message, /Rebuild Checkpoints/);
    const io = classifyGitError(Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open', path: '/b/ch.md' }), 'git');
    assert.equal(io.kind, 'io');
    assert.ok(classifyGitError(new CheckpointError('closed', 'x'), 'git').kind === 'closed');
  });

  it('drops GIT_TRACE lines from messages', () => {
    assert.equal(stripTrace('23:01:02.123456 git.c:460               trace: built-in: git rev-parse x\nfatal: bad\n'), 'fatal: bad\n');
  });
});
