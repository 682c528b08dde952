// Stand-in "VS Code executable" for @vscode/test-electron's runTests({vscodeExecutablePath}).
// runTests spawns it with desktop-style arguments; it runs the same test run in the real
// VS Code server (code-server's) driven by headless Chromium:
//   server-main.js  <-  Chromium opens /?folder=<ws>&payload=[extensionDevelopmentPath, extensionTestsPath]
// The workbench loads the extension under development into the Node extension host, calls the
// test module's run(), then reports the outcome through window.codeAutomationExit(code).
//
// Exit code: 0 when the tests passed, 1 when they failed, 2 for a usage error or when VS Code
// could not be run at all, 124 on timeout.
// Env: WORLDLINE_VSCODE_TEST_TIMEOUT_MS (default 600000), WORLDLINE_VSCODE_VERBOSE=1 (all
// workbench console output and server output).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, onShutdownSignal, startServer } from './server.mjs';

const TIMEOUT_MS = Number(process.env.WORLDLINE_VSCODE_TEST_TIMEOUT_MS) || 10 * 60_000;
const VERBOSE = process.env.WORLDLINE_VSCODE_VERBOSE === '1';
// Desktop flags that take a separate value when not written as --flag=value.
const FLAGS_WITH_VALUE = new Set([
  '--extensions-dir', '--user-data-dir', '--locale', '--log', '--profile', '--extensionDevelopmentPath',
  '--extensionTestsPath', '--folder-uri', '--file-uri', '--inspect-extensions', '--inspect-brk-extensions',
  '--crash-reporter-directory', '--logsPath',
]);

function say(msg) {
  console.log(`[vscode-launcher] ${msg}`);
}

/** Parses the arguments runTests passes; everything it doesn't use is ignored. */
export function parseArgs(argv) {
  const out = { extensionDevelopmentPaths: [], extensionTestsPath: null, folder: null, ignored: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg : arg.slice(0, eq);
      let value = eq === -1 ? null : arg.slice(eq + 1);
      if (value === null && FLAGS_WITH_VALUE.has(name) && i + 1 < argv.length) value = argv[++i];
      if (name === '--extensionDevelopmentPath' && value) out.extensionDevelopmentPaths.push(path.resolve(value));
      else if (name === '--extensionTestsPath' && value) out.extensionTestsPath = path.resolve(value);
      else if (name === '--folder-uri' && value) out.folder = value.startsWith('file://') ? new URL(value).pathname : value;
      else out.ignored.push(arg);
    } else if (!arg.startsWith('-') && !out.folder) {
      out.folder = path.resolve(arg);
    } else {
      out.ignored.push(arg);
    }
  }
  return out;
}

// Workbench chatter that says nothing about the tests (no marketplace/network here).
const WORKBENCH_NOISE = new RegExp(
  [
    'Creating a socket', 'connection token', 'Failed to load resource', 'allow-scripts and allow-same-origin',
    '[Ss]ervice [Ww]orker', 'ChatSessionStore', 'additional builtin extensions cache', 'Overwriting extension',
    'ENOTFOUND', 'ERR_NAME_NOT_RESOLVED', 'ERR_CONNECTION_REFUSED', 'web worker extension host',
    'bad HTTP response code', 'open-vsx', 'marketplace', 'Download the React DevTools', 'Started local extension host',
    'Unable to resolve resource walkThrough', 'punycode', 'Creation of workbench contribution',
  ].join('|'),
);

/**
 * Formats one console call of the workbench. Extension-host console output arrives as
 * ['%c INFO', 'color: …', format, ...args] with the placeholders unfilled; fill them.
 * Returns '' for debug/trace entries.
 */
function formatLogEntry(values) {
  const level = typeof values[0] === 'string' && /^%c\s*(INFO|ERR|WARN|DEBUG|TRACE)\s*$/.exec(values[0]);
  if (level) {
    if (level[1] === 'DEBUG' || level[1] === 'TRACE') return '';
    const body = formatConsole(values.slice(2));
    return level[1] === 'INFO' ? body : `${level[1]} ${body}`;
  }
  return formatConsole(values);
}

/** Fills console %s/%d/%o placeholders. */
function formatConsole(values) {
  if (typeof values[0] !== 'string') return values.map(stringify).join(' ');
  const rest = values.slice(1);
  const head = values[0].replace(/%[sdifoOc]/g, (spec) => {
    if (!rest.length) return spec;
    const v = rest.shift();
    return spec === '%c' ? '' : stringify(v);
  });
  return [head, ...rest.map(stringify)].join(' ');
}

function stringify(v) {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

export async function main(argv) {
  const args = parseArgs(argv);
  if (!args.extensionTestsPath) {
    console.error('[vscode-launcher] missing --extensionTestsPath=<path to compiled test index>');
    return 2;
  }
  const t = args.extensionTestsPath;
  if (![t, `${t}.js`, path.join(t, 'index.js')].some((p) => fs.existsSync(p))) {
    console.error(`[vscode-launcher] extensionTestsPath does not exist: ${t} (compiled the tests?)`);
    return 2;
  }

  let server = null;
  let browser = null;
  let cleaned = null;
  const cleanup = () =>
    (cleaned ??= (async () => {
      if (browser) {
        await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
      }
      if (server) await server.stop();
    })());
  let interrupted = false;
  const removeSignals = onShutdownSignal(() => {
    interrupted = true;
    console.error('[vscode-launcher] interrupted; stopping VS Code');
    return cleanup();
  });
  // If runTests' process dies without signalling us we are re-parented: stop, don't linger.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid !== parent) {
      interrupted = true;
      cleanup().finally(() => process.exit(1));
    }
  }, 2000);
  orphanWatch.unref();

  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  let timer = null;
  try {
    const runPromise = (async () => {
      server = await startServer({
        // process.env already holds runTests' extensionTestsEnv; the server passes it on to
        // the extension host it forks.
        env: {},
        onOutput: VERBOSE ? (line) => console.log(`[server] ${line}`) : undefined,
      });
      say(`VS Code server ${server.url} ready after ${elapsed()}`);
      browser = await launchBrowser();
      const page = await browser.newPage();

      let resolveExit;
      const exitCode = new Promise((r) => (resolveExit = r));
      // Must be registered before goto: the workbench looks it up when the ext host ends.
      await page.exposeFunction('codeAutomationExit', (code) => {
        resolveExit(typeof code === 'number' ? code : 1);
      });
      // Console handlers are async (argument values come from the page); the run waits for
      // them so the last test lines aren't lost when the browser closes.
      const pendingLogs = new Set();
      page.on('console', (msg) => {
        const p = forwardConsole(msg).finally(() => pendingLogs.delete(p));
        pendingLogs.add(p);
      });
      const forwardConsole = async (msg) => {
        let values;
        try {
          // Errors don't survive JSON transfer: take their stack inside the page.
          values = await Promise.all(
            msg.args().map((a) => a.evaluate((v) => (v instanceof Error ? v.stack || String(v) : v))),
          );
        } catch {
          values = [msg.text()]; // page navigated away; keep the raw text
        }
        const line = formatLogEntry(values.length ? values : [msg.text()]);
        if (VERBOSE || (line && !WORKBENCH_NOISE.test(line))) console.log(`[vscode] ${line}`);
      };
      page.on('pageerror', (err) => {
        if (VERBOSE) console.error(`[page error] ${err.message}`);
      });
      page.on('crash', () => {
        console.error('[vscode-launcher] the workbench page crashed');
        resolveExit(1);
      });

      const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
      const payload = [
        ...args.extensionDevelopmentPaths.map((p) => ['extensionDevelopmentPath', remote(p)]),
        ['extensionTestsPath', remote(args.extensionTestsPath)],
      ];
      const query = new URLSearchParams();
      if (args.folder) query.set('folder', args.folder);
      else query.set('ew', 'true'); // empty window
      query.set('payload', JSON.stringify(payload));
      const url = `${server.url}?${query}`;
      say(`opening workbench: folder=${args.folder ?? '(none)'} tests=${args.extensionTestsPath}`);
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      const code = await exitCode;
      await Promise.race([Promise.allSettled([...pendingLogs]), new Promise((r) => setTimeout(r, 2000))]);
      say(`extension host finished with code ${code} after ${elapsed()}`);
      return code;
    })();
    // After a timeout, cleanup makes the run fail (closed page); that is expected, not a crash.
    runPromise.catch(() => {});
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => {
        console.error(`[vscode-launcher] TIMEOUT: no result after ${TIMEOUT_MS / 1000} s (WORLDLINE_VSCODE_TEST_TIMEOUT_MS)`);
        if (server && !VERBOSE) console.error(`[vscode-launcher] server output tail:\n${server.output().slice(-2000)}`);
        resolve(124);
      }, TIMEOUT_MS);
    });
    return await Promise.race([runPromise, timeout]);
  } catch (err) {
    if (interrupted) return 130;
    console.error(`[vscode-launcher] ERROR: ${err.message}`);
    return 2;
  } finally {
    clearTimeout(timer);
    clearInterval(orphanWatch);
    await cleanup();
    removeSignals();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(await main(process.argv.slice(2)));
}
