// `npm run demo`: Worldline in a real VS Code (code-server's), in your browser, with the
// sample novel. No API key and no download besides the npm registry. Runs until Ctrl+C.
//
//   PORT=8750 npm run demo      (default 8750; if that one is busy, a free port is used)
//
// Only Node built-ins are imported at the top level (scripts/vscode/*.mjs import only
// built-ins too), so this runs before `npm ci`, which it then runs itself.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, ensureVSCodeServer, serverMainPath } from './vscode/install.mjs';
import { ensureSystemPackages } from './lib.mjs';
import { findFreePort, onShutdownSignal, startServer } from './vscode/server.mjs';
import { createRequire } from 'node:module';

const DEFAULT_PORT = 8750;
const VSIX = path.join(REPO_ROOT, '.vscode-test', 'worldline-demo.vsix');
const SAMPLE = path.join(REPO_ROOT, 'examples', 'sample-novel');

// A calm first window: no welcome walkthrough, no tips, no update or telemetry chatter.
const DEMO_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
};

function say(msg) {
  console.log(`[demo] ${msg}`);
}

function run(cmd, args, { cwd = REPO_ROOT, env = process.env, timeoutMs = 10 * 60_000, quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${code ?? signal})${out ? `:\n${out.slice(-3000)}` : ''}`));
    });
  });
}

const npmCmd = process.platform === 'win32' ? 'npm.cmd' : 'npm';

async function ensureDependencies() {
  const needed = ['esbuild', '@vscode/vsce', 'playwright-core'].map((p) => path.join(REPO_ROOT, 'node_modules', p));
  if (needed.every((p) => fs.existsSync(p))) return;
  say('installing dependencies (npm ci)');
  await run(npmCmd, ['ci', '--no-audit', '--no-fund']);
}

/** Builds dist/extension.js and packs .vscode-test/worldline-demo.vsix. */
export async function packageExtension() {
  say('building the extension');
  await run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs')], { quiet: true });
  say('packaging the .vsix');
  await fsp.mkdir(path.dirname(VSIX), { recursive: true });
  await fsp.rm(VSIX, { force: true });
  // vsce's bin directly (not npx): no registry lookup. stdin closed: a prompt fails, never hangs.
  const vsce = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  await run(
    process.execPath,
    [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--readme-path', 'docs/extension-readme.md', '--out', VSIX],
    { quiet: true, timeoutMs: 3 * 60_000 },
  );
  if (!fs.existsSync(VSIX)) throw new Error(`vsce reported success but ${VSIX} is missing`);
  return VSIX;
}

/**
 * The demo model: the project's local OpenAI-compatible test server playing a scripted story
 * (test/fixtures/demoStory.ts). Compiled with tsc on demand; never used unless the demo asks.
 */
export async function startDemoModel(reply) {
  const compiled = path.join(REPO_ROOT, 'out', 'test', 'fixtures', 'modelServer.js');
  say('compiling the demo model');
  await run(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { quiet: true, timeoutMs: 5 * 60_000 });
  const require = createRequire(import.meta.url);
  const { startModelServer } = require(compiled);
  const { demoReply, DEMO_MODEL } = require(path.join(REPO_ROOT, 'out', 'test', 'fixtures', 'demoStory.js'));
  const server = await startModelServer();
  // A test may wrap the story: reply(req, demoReply) decides, and can fall back to the script.
  server.setDefault(reply ? (req) => reply(req, demoReply) : demoReply);
  return { server, model: DEMO_MODEL };
}

/** Installs a .vsix into an extensions dir with the VS Code server's own CLI. */
export async function installVsix(vsix, extensionsDir) {
  const root = await ensureVSCodeServer();
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'worldline-vsix-'));
  try {
    const out = await run(
      process.execPath,
      [
        serverMainPath(root),
        '--install-extension', vsix, '--force',
        '--extensions-dir', extensionsDir,
        '--user-data-dir', path.join(tmp, 'user'),
        '--server-data-dir', path.join(tmp, 'server'),
        '--accept-server-license-terms',
      ],
      {
        quiet: true,
        timeoutMs: 2 * 60_000,
        env: { ...process.env, XDG_CONFIG_HOME: tmp, XDG_DATA_HOME: tmp, XDG_CACHE_HOME: tmp },
      },
    );
    if (!/successfully installed/i.test(out)) throw new Error(`installing ${vsix} did not report success:\n${out}`);
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

// Used only when the repo has no sample novel yet.
async function writePlaceholderSample(dir) {
  await fsp.mkdir(path.join(dir, 'chapters'), { recursive: true });
  await fsp.writeFile(path.join(dir, 'worldline.yaml'), 'title: 雨夜客栈\nlanguage: zh\n');
  await fsp.writeFile(path.join(dir, 'chapters', '01.md'), '# 第一章\n\n雨下了一整夜。\n');
}

/**
 * Starts the demo: installs/builds what is missing, opens a fresh copy of the sample novel.
 * @param {{port?: number, strictPort?: boolean, modelReply?: Function}} [opts]  port: preferred port; strictPort: fail if busy;
 *   modelReply: replaces the scripted story (tests)
 * @returns {Promise<{url: string, port: number, workspace: string, modelUrl: string, model: object, stop: () => Promise<void>, exited: Promise<unknown>}>}
 */
export async function startDemo(opts = {}) {
  await ensureDependencies();
  ensureSystemPackages();
  await ensureVSCodeServer();
  const vsix = await packageExtension();

  if (!fs.existsSync(SAMPLE)) {
    say(`no ${path.relative(REPO_ROOT, SAMPLE)} yet: writing a placeholder`);
    await writePlaceholderSample(SAMPLE);
  }
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'worldline-demo-'));
  let server = null;
  let model = null;
  const stop = async () => {
    if (server) await server.stop();
    if (model) await model.server.close().catch(() => {});
    await fsp.rm(base, { recursive: true, force: true }).catch(() => {});
  };
  try {
    // A working copy, so the demo never writes into the repo.
    const workspace = path.join(base, path.basename(SAMPLE));
    await fsp.cp(SAMPLE, workspace, { recursive: true });
    // The copy talks to the demo model; a real novel never gets these settings by default.
    model = await startDemoModel(opts.modelReply);
    await fsp.mkdir(path.join(workspace, '.vscode'), { recursive: true });
    await fsp.writeFile(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({
      'worldline.baseUrl': model.server.url,
      'worldline.model': model.model,
    }, null, 2) + '\n');
    const extensionsDir = path.join(base, 'extensions');
    await fsp.mkdir(extensionsDir);
    say('installing the extension into the VS Code server');
    await installVsix(vsix, extensionsDir);

    const wanted = opts.port ?? DEFAULT_PORT;
    const port = await findFreePort(wanted);
    if (wanted && port !== wanted) {
      if (opts.strictPort) throw new Error(`port ${wanted} is in use`);
      say(`port ${wanted} is in use; using ${port}`);
    }
    server = await startServer({ port, extensionsDir, settings: DEMO_SETTINGS });
    const folder = encodeURIComponent(workspace).replace(/%2F/g, '/');
    return { url: `http://127.0.0.1:${port}/?folder=${folder}`, port, workspace, modelUrl: model.server.url, model: model.server, stop, exited: server.exited };
  } catch (err) {
    await stop();
    throw err;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let demo = null;
  let stopping = false;
  onShutdownSignal(async () => {
    stopping = true;
    say('stopping');
    if (demo) await demo.stop();
  });
  try {
    const envPort = process.env.PORT ? Number(process.env.PORT) : undefined;
    if (envPort !== undefined && !(Number.isInteger(envPort) && envPort > 0 && envPort < 65536)) {
      throw new Error(`PORT must be a TCP port number, got "${process.env.PORT}"`);
    }
    demo = await startDemo({ port: envPort, strictPort: envPort !== undefined });
  } catch (err) {
    console.error(`[demo] FAILED: ${err.message}`);
    process.exit(1);
  }
  console.log('');
  console.log('  Worldline demo is running. Open this address in a browser:');
  console.log('');
  console.log(`    ${demo.url}`);
  console.log('');
  console.log(`  Working copy of the sample novel: ${demo.workspace}`);
  console.log(`  Model: the demo model (a scripted story served offline at ${demo.modelUrl}).`);
  console.log('  Try: type 写沈砚住店 in the Worldline chat and press Enter.');
  console.log('  Click the Worldline icon in the activity bar. Press Ctrl+C to stop.');
  demo.exited.then(async () => {
    if (stopping) return;
    console.error('[demo] the VS Code server stopped unexpectedly');
    await demo.stop();
    process.exit(1);
  });
}
