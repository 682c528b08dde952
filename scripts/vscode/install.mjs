// Installs a pinned code-server (a full VS Code server + web workbench) into .vscode-test/.
// Desktop VS Code can't be downloaded on our machines (npm registry + Debian only), so the
// integration and UI tests run the real VS Code shipped inside the code-server npm package.
//
//   node scripts/vscode/install.mjs            install if missing, print the root dir
//   node scripts/vscode/install.mjs --force    reinstall
//
// Needs Node 20 (code-server 4.100.x refuses others), `rg` on PATH (Debian package ripgrep,
// used instead of the GitHub download of @vscode/ripgrep), libkrb5-dev, python3/make/g++.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Folder of the npm project that holds code-server (override: WORLDLINE_CODE_SERVER_DIR). */
export const INSTALL_DIR = process.env.WORLDLINE_CODE_SERVER_DIR
  ? path.resolve(process.env.WORLDLINE_CODE_SERVER_DIR)
  : path.join(REPO_ROOT, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
const MARKER = path.join(INSTALL_DIR, '.worldline-install-complete.json');
const LOCK_DIR = `${INSTALL_DIR}.lock`;
const INSTALL_TIMEOUT_MS = Number(process.env.WORLDLINE_CODE_SERVER_INSTALL_TIMEOUT_MS) || 20 * 60_000;

// Used only if reading @vscode/ripgrep's postinstall.js from the registry fails.
const KNOWN_RIPGREP_ASSET_VERSIONS = {
  '1.15.11': ['v13.0.0-10', 'v13.0.0-4'],
  '1.15.14': ['v13.0.0-13', 'v13.0.0-4'],
};

/** Root of the code-server package (contains lib/vscode). */
export function codeServerRoot() {
  return path.join(INSTALL_DIR, 'node_modules', 'code-server');
}

/** The VS Code server entry point inside a code-server root. */
export function serverMainPath(root = codeServerRoot()) {
  return path.join(root, 'lib', 'vscode', 'out', 'server-main.js');
}

function log(msg) {
  console.log(`[vscode-install] ${msg}`);
}

function isInstalled() {
  try {
    const marker = JSON.parse(fs.readFileSync(MARKER, 'utf8'));
    // Native modules are built for one Node ABI: a different Node major means reinstall.
    return (
      marker.version === CODE_SERVER_VERSION &&
      marker.nodeMajor === process.versions.node.split('.')[0] &&
      fs.existsSync(serverMainPath())
    );
  } catch {
    return false;
  }
}

/**
 * Ensures code-server is installed (idempotent; a half-finished install is redone).
 * @param {{force?: boolean}} [opts]
 * @returns {Promise<string>} the code-server root directory
 */
export async function ensureVSCodeServer(opts = {}) {
  if (!opts.force && isInstalled()) return codeServerRoot();
  const release = await acquireLock();
  try {
    // Another process may have finished the install while we waited for the lock.
    if (!opts.force && isInstalled()) return codeServerRoot();
    await install();
    return codeServerRoot();
  } finally {
    release();
  }
}

async function install() {
  const nodeMajor = process.versions.node.split('.')[0];
  if (nodeMajor !== '20' && !process.env.FORCE_NODE_VERSION) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} needs Node 20, this is Node ${process.versions.node}`);
  }
  const rg = findOnPath('rg');
  if (!rg) throw new Error('ripgrep (`rg`) is not on PATH: apt-get install -y ripgrep');

  const started = Date.now();
  log(`installing code-server@${CODE_SERVER_VERSION} into ${path.relative(process.cwd(), INSTALL_DIR) || INSTALL_DIR}`);
  await fsp.rm(INSTALL_DIR, { recursive: true, force: true });
  await fsp.mkdir(INSTALL_DIR, { recursive: true });
  // Own package.json so npm never walks up into the repo's project.
  await fsp.writeFile(
    path.join(INSTALL_DIR, 'package.json'),
    JSON.stringify({ name: 'worldline-vscode-server', private: true }, null, 2) + '\n',
  );

  const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'worldline-cs-install-'));
  const tmpForNpm = path.join(work, 'tmp');
  await fsp.mkdir(tmpForNpm);
  const logFile = path.join(work, 'npm-install.log');
  const removeWork = () => fs.rmSync(work, { recursive: true, force: true });
  process.on('exit', removeWork); // also when interrupted
  try {
    await seedRipgrepCache(work, tmpForNpm, rg);

    log('npm install (downloads ~300 MB, builds native modules; 1-3 min)');
    const env = {
      ...process.env,
      // @vscode/ripgrep's postinstall looks for its download in os.tmpdir() first.
      TMPDIR: tmpForNpm,
      // code-server's postinstall refuses to run as root without it.
      npm_config_unsafe_perm: 'true',
      // A nested `npx node-gyp` would otherwise wait for a "yes".
      npm_config_yes: 'true',
      // code-server is useless without its install scripts (they install VS Code's own
      // dependencies and build native modules). Newer npm can gate dependency scripts behind
      // an allowScripts policy; older npm ignores these settings.
      npm_config_dangerously_allow_all_scripts: 'true',
      npm_config_strict_allow_scripts: 'false',
      npm_config_ignore_scripts: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    await runLogged(
      'npm',
      ['install', '--no-save', '--no-package-lock', `code-server@${CODE_SERVER_VERSION}`],
      { cwd: INSTALL_DIR, env, logFile, timeoutMs: INSTALL_TIMEOUT_MS, label: 'npm install' },
    );

    if (!fs.existsSync(serverMainPath())) {
      throw new Error(`install finished but ${serverMainPath()} is missing (see ${logFile})`);
    }
    const bundledRg = path.join(codeServerRoot(), 'lib', 'vscode', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
    if (!fs.existsSync(bundledRg)) throw new Error(`install finished but ${bundledRg} is missing (see ${logFile})`);

    await fsp.writeFile(
      MARKER,
      JSON.stringify(
        { version: CODE_SERVER_VERSION, nodeMajor, installedAt: new Date().toISOString() },
        null,
        2,
      ) + '\n',
    );
    log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (err) {
    try {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
      console.error(`[vscode-install] last lines of ${logFile}:\n${tail}`);
    } catch {
      /* no log yet */
    }
    throw err;
  } finally {
    process.off('exit', removeWork);
    removeWork();
  }
}

/**
 * Puts Debian's rg, packed the way @vscode/ripgrep's postinstall expects, into its cache folder
 * `$TMPDIR/vscode-ripgrep-cache-<pkgversion>/ripgrep-<ASSETVERSION>-<target>.tar.gz`, for every
 * @vscode/ripgrep version code-server's lockfiles pin. Asset versions are read from that
 * package's own postinstall.js (small `npm pack`), falling back to the known table.
 */
async function seedRipgrepCache(work, tmpForNpm, rg) {
  log('reading pinned @vscode/ripgrep versions');
  const csTgz = await npmPack(`code-server@${CODE_SERVER_VERSION}`, work);
  const shrinkwraps = ['package/lib/vscode/npm-shrinkwrap.json', 'package/lib/vscode/extensions/npm-shrinkwrap.json'];
  await run('tar', ['xzf', csTgz, '-C', work, ...shrinkwraps]);
  const pkgVersions = new Set(Object.keys(KNOWN_RIPGREP_ASSET_VERSIONS));
  for (const rel of shrinkwraps) {
    const lock = JSON.parse(await fsp.readFile(path.join(work, rel), 'utf8'));
    for (const [key, value] of Object.entries(lock.packages ?? {})) {
      if (key.endsWith('node_modules/@vscode/ripgrep') && value.version) pkgVersions.add(value.version);
    }
  }

  const rgDir = path.join(work, 'rg');
  await fsp.mkdir(rgDir);
  await fsp.copyFile(rg, path.join(rgDir, 'rg'));
  await fsp.chmod(path.join(rgDir, 'rg'), 0o755);
  const rgTgz = path.join(work, 'rg.tar.gz');
  await run('tar', ['czf', rgTgz, '-C', rgDir, 'rg']);

  const target = ripgrepTarget();
  for (const pkgVersion of pkgVersions) {
    const assetVersions = new Set(KNOWN_RIPGREP_ASSET_VERSIONS[pkgVersion] ?? []);
    try {
      const tgz = await npmPack(`@vscode/ripgrep@${pkgVersion}`, work);
      const dest = path.join(work, `ripgrep-${pkgVersion}`);
      await fsp.mkdir(dest);
      await run('tar', ['xzf', tgz, '-C', dest, 'package/lib/postinstall.js']);
      const src = await fsp.readFile(path.join(dest, 'package/lib/postinstall.js'), 'utf8');
      for (const m of src.matchAll(/const\s+\w*VERSION\s*=\s*['"](v[\w.-]+)['"]/g)) assetVersions.add(m[1]);
    } catch (err) {
      log(`could not read @vscode/ripgrep@${pkgVersion} (${err.message}); using the known table`);
    }
    const cacheDir = path.join(tmpForNpm, `vscode-ripgrep-cache-${pkgVersion}`);
    await fsp.mkdir(cacheDir, { recursive: true });
    for (const v of assetVersions) {
      await fsp.copyFile(rgTgz, path.join(cacheDir, `ripgrep-${v}-${target}.tar.gz`));
    }
    log(`ripgrep cache for @vscode/ripgrep@${pkgVersion}: ${[...assetVersions].join(', ') || '(none)'}`);
  }
}

// Same mapping as @vscode/ripgrep's getTarget() for Linux.
function ripgrepTarget() {
  const arch = process.env.npm_config_arch || os.arch();
  const byArch = {
    x64: 'x86_64-unknown-linux-musl',
    arm64: 'aarch64-unknown-linux-musl',
    arm: 'arm-unknown-linux-gnueabihf',
    ppc64: 'powerpc64le-unknown-linux-gnu',
    s390x: 's390x-unknown-linux-gnu',
  };
  return byArch[arch] ?? 'i686-unknown-linux-musl';
}

async function npmPack(spec, dest) {
  const out = await run('npm', ['pack', spec, '--pack-destination', dest, '--silent'], { capture: true, cwd: dest });
  const file = out.trim().split('\n').pop();
  if (!file) throw new Error(`npm pack ${spec} printed no file name`);
  return path.join(dest, file);
}

function findOnPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.realpathSync(p);
    } catch {
      /* keep looking */
    }
  }
  return null;
}

function run(cmd, args, { capture = false, cwd, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', capture ? 'pipe' : 'ignore', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.trim().slice(-500)}`)),
    );
  });
}

// Runs a long command with output to a log file and a progress line every 20 s.
function runLogged(cmd, args, { cwd, env, logFile, timeoutMs, label }) {
  return new Promise((resolve, reject) => {
    const fd = fs.openSync(logFile, 'a');
    const started = Date.now();
    // detached: own process group, so a timeout kills node-gyp & co. too.
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', fd, fd], detached: true });
    fs.closeSync(fd);
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const onExit = () => killGroup();
    process.on('exit', onExit);
    // npm runs in its own group, so Ctrl+C doesn't reach it: stop it ourselves. Exit too,
    // unless the caller has signal handlers of its own (they decide when to exit).
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const onSignal = (sig) => {
      killGroup();
      if (process.listenerCount(sig) === 1) process.exit(128 + os.constants.signals[sig]);
    };
    for (const sig of signals) process.on(sig, onSignal);
    const tick = setInterval(() => log(`${label}: still running (${Math.round((Date.now() - started) / 1000)} s)`), 20_000);
    const timer = setTimeout(() => {
      killGroup();
      reject(new Error(`${label} timed out after ${Math.round(timeoutMs / 1000)} s (log: ${logFile})`));
    }, timeoutMs);
    const done = () => {
      clearInterval(tick);
      clearTimeout(timer);
      process.off('exit', onExit);
      for (const sig of signals) process.off(sig, onSignal);
    };
    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('close', (code, signal) => {
      done();
      if (code === 0) resolve();
      else reject(new Error(`${label} failed (${code ?? signal}); log: ${logFile}`));
    });
  });
}

// A mkdir-based lock so parallel test runs don't install into the same folder at once.
async function acquireLock() {
  await fsp.mkdir(path.dirname(LOCK_DIR), { recursive: true });
  const deadline = Date.now() + INSTALL_TIMEOUT_MS + 60_000;
  let announced = false;
  for (;;) {
    try {
      await fsp.mkdir(LOCK_DIR);
      await fsp.writeFile(path.join(LOCK_DIR, 'pid'), String(process.pid));
      const release = () => fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      process.once('exit', release);
      return () => {
        process.off('exit', release);
        release();
      };
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    // Stale lock from a killed process?
    let holder = NaN;
    try {
      holder = Number(await fsp.readFile(path.join(LOCK_DIR, 'pid'), 'utf8'));
    } catch {
      /* lock being created right now */
    }
    const stale = Number.isInteger(holder) && holder > 0 ? !isAlive(holder) : lockAgeMs() > 30_000;
    if (stale) {
      await fsp.rm(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for install lock ${LOCK_DIR}`);
    if (!announced) {
      log(`another process (pid ${holder}) is installing; waiting`);
      announced = true;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function lockAgeMs() {
  try {
    return Date.now() - fs.statSync(LOCK_DIR).mtimeMs;
  } catch {
    return 0;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const root = await ensureVSCodeServer({ force: process.argv.includes('--force') });
    console.log(root);
  } catch (err) {
    console.error(`[vscode-install] FAILED: ${err.message}`);
    process.exit(1);
  }
}
