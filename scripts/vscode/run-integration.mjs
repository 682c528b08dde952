// Runs the extension's integration tests inside a real VS Code through @vscode/test-electron's
// runTests(). Here (no Microsoft downloads) the "VS Code executable" is scripts/vscode/code,
// which runs code-server's VS Code in headless Chromium; with WORLDLINE_DESKTOP_VSCODE=1,
// runTests downloads desktop VS Code as usual.
//
// The test index (test/integration/index.ts) writes {passed, failed, failures} to
// $WORLDLINE_TEST_RESULTS; that file, not the console, is the result.
//
// CLI: node scripts/vscode/run-integration.mjs [--extension DIR] [--tests FILE] [--workspace DIR] [--no-copy]
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, ensureVSCodeServer } from './install.mjs';

const CODE_WRAPPER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'code');

/**
 * @param {object} opts
 * @param {string} opts.extensionDevelopmentPath  folder with the extension's package.json
 * @param {string} opts.extensionTestsPath        compiled test index (out/test/integration/index.js)
 * @param {string} [opts.workspace]               folder to open
 * @param {Record<string,string>} [opts.env]      extra env for the extension host
 * @param {boolean} [opts.copyWorkspace=true]     open a temp copy so tests never dirty the source folder
 * @param {string[]} [opts.launchArgs]            more VS Code arguments
 * @returns {Promise<{passed: number, failed: number, failures: string[], exitCode: number, durationMs: number, workspace: string|null}>}
 */
export async function runIntegration({
  extensionDevelopmentPath,
  extensionTestsPath,
  workspace,
  env = {},
  copyWorkspace = true,
  launchArgs = [],
}) {
  const started = Date.now();
  const temp = await fsp.mkdtemp(path.join(os.tmpdir(), 'worldline-it-'));
  const resultsFile = path.join(temp, 'results.json');
  try {
    let opened = null;
    if (workspace) {
      opened = path.resolve(workspace);
      if (!fs.existsSync(opened)) throw new Error(`workspace folder does not exist: ${opened}`);
      if (copyWorkspace) {
        const copy = path.join(temp, path.basename(opened));
        await fsp.cp(opened, copy, { recursive: true });
        opened = copy;
      }
    }

    const desktop = process.env.WORLDLINE_DESKTOP_VSCODE === '1';
    if (!desktop) await ensureVSCodeServer(); // install output before the run, not inside it

    const require = createRequire(import.meta.url);
    const { runTests } = require('@vscode/test-electron');
    let exitCode = 0;
    try {
      await runTests({
        ...(desktop ? {} : { vscodeExecutablePath: CODE_WRAPPER }),
        extensionDevelopmentPath: path.resolve(extensionDevelopmentPath),
        extensionTestsPath: path.resolve(extensionTestsPath),
        launchArgs: [...(opened ? [opened] : []), ...launchArgs],
        extensionTestsEnv: {
          ...env,
          WORLDLINE_TEST_RESULTS: resultsFile,
          ...(opened ? { WORLDLINE_TEST_WORKSPACE: opened } : {}),
        },
      });
    } catch (err) {
      // runTests rejects on any non-zero exit (failing tests included); the file says why.
      exitCode = typeof err?.code === 'number' ? err.code : 1;
      if (typeof err?.code !== 'number') console.error(`[integration] runTests: ${err?.message ?? err}`);
    }

    const durationMs = Date.now() - started;
    let results;
    try {
      results = JSON.parse(await fsp.readFile(resultsFile, 'utf8'));
    } catch (err) {
      const why = err.code === 'ENOENT' ? 'was not written' : `is unreadable (${err.message})`;
      return {
        passed: 0,
        failed: 1,
        failures: [
          `integration run: the results file ${why}; VS Code exited with code ${exitCode} before the test index ` +
            'finished (extension failed to load, test index crashed, or timeout; see the output above)',
        ],
        exitCode: exitCode || 1,
        durationMs,
        workspace: opened,
      };
    }
    const failures = (results.failures ?? []).map((f) => `${f.title}: ${f.error}`);
    let failed = Number(results.failed) || 0;
    if (failed === 0 && exitCode !== 0) {
      failed = 1;
      failures.push(`integration run: all tests passed but VS Code exited with code ${exitCode}`);
    }
    return { passed: Number(results.passed) || 0, failed, failures, exitCode, durationMs, workspace: opened };
  } finally {
    await fsp.rm(temp, { recursive: true, force: true }).catch(() => {});
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = argv.indexOf(name);
    return i === -1 ? dflt : argv[i + 1];
  };
  const r = await runIntegration({
    extensionDevelopmentPath: opt('--extension', REPO_ROOT),
    extensionTestsPath: opt('--tests', path.join(REPO_ROOT, 'out', 'test', 'integration', 'index.js')),
    workspace: opt('--workspace', path.join(REPO_ROOT, 'examples', 'sample-novel')),
    copyWorkspace: !argv.includes('--no-copy'),
  });
  for (const f of r.failures) console.error(`FAIL ${f}`);
  console.log(`integration run took ${(r.durationMs / 1000).toFixed(1)} s`);
  console.log(`integration: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed > 0 ? 1 : 0);
}
