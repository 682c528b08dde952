// The environment and command line every git call gets: what is dropped from the host, which PATH
// folders programs may come from, and that the `-c` values beat a hostile store config.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointError } from '../../../src/checkpoints';
import { resolveGitBinary } from '../../../src/checkpoints/gitBinary';
import { commandConfig, isolatedEnv, safePathEntries } from '../../../src/checkpoints/gitEnv';
import { GitRunner } from '../../../src/checkpoints/gitRunner';
import { storePaths } from '../../../src/checkpoints/store';
import { cleanupTmp, openRepo, tmpDir, write } from './helpers';

const onWindows = process.platform === 'win32';

function program(at: string): string {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.writeFileSync(at, '#!/bin/sh\nexit 0\n');
  fs.chmodSync(at, 0o755);
  return at;
}

describe('checkpoints: git environment and command line', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  it('nothing from the host reaches git but PATH (made safe) and the Windows basics', () => {
    const root = tmpDir();
    const paths = storePaths(root);
    const outside = tmpDir('wl-bin-');
    const host: NodeJS.ProcessEnv = {
      PATH: ['.', '', 'bin', path.join(root, 'tools'), root, outside, '/usr/bin'].join(path.delimiter),
      GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='/x/evil'",
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: '/x/evil',
      GIT_CONFIG_GLOBAL: '/x/evil.cfg',
      GIT_CONFIG_SYSTEM: '/x/evil.cfg',
      GIT_CONFIG: '/x/evil.cfg',
      GIT_EXEC_PATH: '/x/evil-exec',
      GIT_DIR: '/x/other/.git',
      GIT_INDEX_FILE: '/x/index',
      GIT_EXTERNAL_DIFF: '/x/evil',
      GIT_PAGER: '/x/evil',
      GIT_EDITOR: '/x/evil',
      GIT_SSH_COMMAND: '/x/evil',
      GIT_ASKPASS: '/x/evil',
      GIT_ALLOW_PROTOCOL: 'ext',
      HOME: '/home/novelist',
      TMPDIR: '/tmp',
    };
    const env = isolatedEnv(paths, {}, host);
    assert.equal(env.PATH, [outside, '/usr/bin'].join(path.delimiter), 'only absolute folders outside the book, in order');
    for (const k of Object.keys(host)) {
      if (['PATH', 'TMPDIR', 'HOME', 'GIT_DIR', 'GIT_ALLOW_PROTOCOL'].includes(k)) continue;
      assert.equal(env[k], undefined, `${k} is not passed on`);
    }
    assert.equal(env.GIT_DIR, paths.gitDir);
    assert.equal(env.TMPDIR, '/tmp');
    assert.notEqual(env.HOME, '/home/novelist');
    assert.equal(env.GIT_ALLOW_PROTOCOL, 'worldline-no-protocol', 'no transport is allowed, whatever the config says');
    assert.deepEqual(safePathEntries(undefined, root), []);
  });

  it('the -c values beat a hostile store config, key by key (read back through git)', async () => {
    const root = tmpDir();
    write(root, 'ch.md', 'x\n');
    await openRepo(root);
    const paths = storePaths(root);
    const forced = commandConfig(paths.gitDir).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const);
    const mustHave = ['core.fsmonitor', 'core.hooksPath', 'core.pager', 'core.editor', 'sequence.editor', 'core.askPass', 'core.sshCommand', 'credential.helper', 'protocol.allow', 'gpg.program', 'commit.gpgSign', 'core.untrackedCache', 'submodule.recurse'];
    for (const k of mustHave) assert.ok(forced.some(([f]) => f === k), `${k} is forced`);
    // Written straight into the config, past the check that open() does: the -c layer alone.
    fs.appendFileSync(path.join(paths.gitDir, 'config'), forced.map(([k]) => {
      const dot = k.lastIndexOf('.');
      return `[${k.slice(0, dot)}]\n\t${k.slice(dot + 1)} = /planted/program\n`;
    }).join(''));
    const runner = new GitRunner(paths);
    for (const [k, v] of forced) {
      const got = (await runner.run(['config', '--get', k])).replace(/\n$/, '');
      assert.equal(got, v, `${k}: git sees our value, not the planted one`);
    }
  });

  it('git is found on the safe PATH only: never ".", an empty entry, a relative folder, or a folder in the book', async () => {
    if (onWindows) return; // shell-script stand-ins
    const root = tmpDir();
    const outside = tmpDir('wl-bin-');
    program(path.join(root, 'git'));
    program(path.join(root, 'tools', 'git'));
    program(path.join(root, 'bin', 'git'));
    const real = program(path.join(outside, 'git'));
    const cwd = process.cwd();
    try {
      process.chdir(root); // "." and "bin" would mean the book folder
      const pathValue = ['.', '', 'bin', path.join(root, 'tools'), outside].join(path.delimiter);
      assert.equal(await resolveGitBinary('git', root, { pathValue }), real);
      const only = ['.', '', 'bin', path.join(root, 'tools')].join(path.delimiter);
      await assert.rejects(resolveGitBinary('git', root, { pathValue: only }), (e: unknown) => e instanceof CheckpointError && e.kind === 'gitMissing');
    } finally {
      process.chdir(cwd);
    }
    const gitMissing = (e: unknown) => e instanceof CheckpointError && e.kind === 'gitMissing';
    await assert.rejects(resolveGitBinary('./git', root), gitMissing, 'a relative path');
    await assert.rejects(resolveGitBinary('tools/git', root), gitMissing, 'a relative path');
    await assert.rejects(resolveGitBinary(path.join(root, 'tools', 'git'), root), gitMissing, 'a full path inside the book');
    assert.equal(await resolveGitBinary('/opt/elsewhere/git', root), '/opt/elsewhere/git', 'a full path outside is the caller\'s choice');
    // A folder named like the program, or a file that cannot be run, is passed over.
    const odd = tmpDir('wl-odd-');
    fs.mkdirSync(path.join(odd, 'git'));
    const noexec = tmpDir('wl-noexec-');
    fs.writeFileSync(path.join(noexec, 'git'), 'not a program');
    assert.equal(await resolveGitBinary('git', root, { pathValue: [odd, noexec, outside].join(path.delimiter) }), real);
  });

  it('on Windows, git.exe is looked for (not a .cmd or .bat, which need a shell), and never in the book folder', async () => {
    const root = tmpDir();
    const scripts = tmpDir('wl-cmd-');
    const outside = tmpDir('wl-bin-');
    fs.writeFileSync(path.join(root, 'git.exe'), '');
    fs.writeFileSync(path.join(scripts, 'git.cmd'), '');
    fs.writeFileSync(path.join(scripts, 'git.bat'), '');
    fs.writeFileSync(path.join(scripts, 'git'), '');
    fs.writeFileSync(path.join(outside, 'git.exe'), '');
    const pathValue = [root, scripts, outside].join(path.delimiter);
    assert.equal(await resolveGitBinary('git', root, { pathValue, platform: 'win32' }), path.join(outside, 'git.exe'));
  });
});
