// Starts the VS Code server from code-server (see install.mjs) and launches headless Chromium.
// Every process is started in its own process group and killed as a group, so no
// extension host, pty host or renderer outlives a run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureVSCodeServer, serverMainPath } from './install.mjs';

const START_TIMEOUT_MS = Number(process.env.WORLDLINE_SERVER_START_TIMEOUT_MS) || 60_000;

/** Process groups to SIGKILL if this process exits without stopping them (sync, last resort). */
const liveGroups = new Set();
process.on('exit', () => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
});

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1; `preferred` is used when it is free. */
export async function findFreePort(preferred = 0) {
  const tryPort = (port) =>
    new Promise((resolve) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', () => resolve(null));
      srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        const { port: got } = srv.address();
        srv.close(() => resolve(got));
      });
    });
  if (preferred) {
    const got = await tryPort(preferred);
    if (got) return got;
  }
  const got = await tryPort(0);
  if (!got) throw new Error('no free TCP port on 127.0.0.1');
  return got;
}

function httpStatus(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * Starts `server-main.js` on 127.0.0.1 and waits until it answers HTTP.
 * @param {object} [opts]
 * @param {string} [opts.extensionsDir]  defaults to a fresh temp dir
 * @param {number} [opts.port]           defaults to a free port
 * @param {Record<string,string>} [opts.env]  extra env; reaches the extension host
 * @param {string[]} [opts.extraArgs]    more server-main arguments
 * @param {Record<string,unknown>} [opts.settings]  user settings.json for the workbench
 * @param {(line: string) => void} [opts.onOutput]  server stdout/stderr lines
 * @returns {Promise<{url: string, port: number, pid: number, tempDir: string, extensionsDir: string,
 *   output: () => string, stop: () => Promise<void>, exited: Promise<{code: number|null, signal: string|null}>}>}
 */
export async function startServer(opts = {}) {
  // A port picked by findFreePort can be taken before the server binds it: pick another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(opts);
    } catch (err) {
      if (opts.port || !err.portInUse || attempt >= 3) throw err;
    }
  }
}

async function startServerOnce(opts) {
  const root = await ensureVSCodeServer();
  const tempDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'worldline-vscode-'));
  const extensionsDir = opts.extensionsDir ?? path.join(tempDir, 'extensions');
  const dirs = ['user', 'server', 'xdg-config', 'xdg-data', 'xdg-cache'].map((d) => path.join(tempDir, d));
  for (const d of [extensionsDir, ...dirs]) await fsp.mkdir(d, { recursive: true });
  const [userDir, serverDir, xdgConfig, xdgData, xdgCache] = dirs;
  const port = opts.port || (await findFreePort());
  if (opts.settings) {
    // code-server keeps the web client's user settings on the server, in the user data dir.
    const file = path.join(userDir, 'User', 'settings.json');
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, JSON.stringify(opts.settings, null, 2) + '\n');
  }

  const args = [
    serverMainPath(root),
    '--host', '127.0.0.1',
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--disable-telemetry',
    '--disable-workspace-trust',
    '--extensions-dir', extensionsDir,
    '--user-data-dir', userDir,
    '--server-data-dir', serverDir,
    ...(opts.extraArgs ?? []),
  ];
  const inherited = { ...process.env };
  // Set when started from a VS Code terminal or Electron; they would confuse the server's forks.
  for (const k of Object.keys(inherited)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete inherited[k];
  const env = {
    ...inherited,
    ...opts.env,
    // Keep code-server/VS Code from writing into the real home.
    XDG_CONFIG_HOME: xdgConfig,
    XDG_DATA_HOME: xdgData,
    XDG_CACHE_HOME: xdgCache,
  };

  const child = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  liveGroups.add(child.pid);
  let output = '';
  let exited = null;
  const onData = (chunk) => {
    const text = chunk.toString();
    output = (output + text).slice(-64_000);
    if (opts.onOutput) for (const line of text.split('\n')) if (line.trim()) opts.onOutput(line);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exitPromise = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
    child.on('error', (err) => {
      exited = { code: null, signal: null, err };
      resolve(exited);
    });
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (!exited) {
      killGroup(child.pid, 'SIGTERM');
      const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 3000);
      await exitPromise;
      clearTimeout(t);
    }
    // The group may still hold forked helpers after the leader is gone.
    killGroup(child.pid, 'SIGKILL');
    liveGroups.delete(child.pid);
    await fsp.rm(tempDir, { recursive: true, force: true }).catch(() => {});
  };

  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      await stop();
      const err = new Error(`VS Code server exited during start (${exited.err?.message ?? exited.code ?? exited.signal}):\n${output.slice(-3000)}`);
      err.portInUse = /EADDRINUSE/.test(output);
      throw err;
    }
    if (/EADDRINUSE/.test(output)) {
      // server-main stays alive after a failed listen; another process owns the port.
      await stop();
      const err = new Error(`port ${port} on 127.0.0.1 is already in use`);
      err.portInUse = true;
      throw err;
    }
    // "listening on <port>" proves the answer comes from this server, not from whatever else
    // might be on the port.
    if (new RegExp(`listening on ${port}\\b`).test(output)) {
      const status = await httpStatus(url);
      if (status >= 200 && status < 500) break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`VS Code server did not answer on ${url} within ${START_TIMEOUT_MS / 1000} s:\n${output.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, tempDir, extensionsDir, output: () => output, stop, pid: child.pid, exited: exitPromise };
}

/** Headless Chromium to use: $WORLDLINE_CHROMIUM, Debian's chromium, or chromium-headless-shell. */
export function chromiumPath() {
  const candidates = [
    process.env.WORLDLINE_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-headless-shell',
    '/usr/lib/chromium/chromium-headless-shell',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ].filter(Boolean);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) {
    throw new Error(`no Chromium found (tried ${candidates.join(', ')}): apt-get install -y chromium`);
  }
  return found;
}

/**
 * Launches headless Chromium through playwright-core. Playwright's own signal handlers are
 * off: the calling script decides how to shut down (see onShutdownSignal).
 * @param {{headless?: boolean, args?: string[]}} [opts]
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchBrowser(opts = {}) {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (err) {
    throw new Error(`playwright-core is not installed (run npm ci): ${err.message}`);
  }
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: opts.headless ?? true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: 60_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...(opts.args ?? []),
    ],
  });
}

/**
 * Runs `cleanup` once on SIGINT/SIGTERM/SIGHUP, then exits (130 / 143 / 129).
 * Returns a function that removes the handlers.
 */
export function onShutdownSignal(cleanup) {
  const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
  let running = false;
  const handler = (sig) => {
    if (running) return;
    running = true;
    const force = setTimeout(() => process.exit(codes[sig]), 10_000);
    force.unref();
    Promise.resolve()
      .then(cleanup)
      .catch(() => {})
      .finally(() => process.exit(codes[sig]));
  };
  for (const sig of Object.keys(codes)) process.on(sig, handler);
  return () => {
    for (const sig of Object.keys(codes)) process.off(sig, handler);
  };
}
