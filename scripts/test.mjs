// `npm test`: unit tests in plain Node, integration tests inside a real VS Code extension host,
// and the Playwright UI test. Ends with one plain line "N passed, N failed" that CI reads.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { repo, ensureDependencies, ensureSystemPackages, build, listFiles } from './lib.mjs';

const args = new Set(process.argv.slice(2));
const only = ['--unit', '--integration', '--ui'].filter((a) => args.has(a));
// The long mode: property and fuzz tests at their full counts (test/unit/long-mode.ts).
if (args.has('--long')) process.env.WORLDLINE_LONG = '1';
const want = (name) => only.length === 0 || only.includes(`--${name}`);

const totals = { passed: 0, failed: 0, failures: [] };
function add(suite, result) {
  totals.passed += result.passed;
  totals.failed += result.failed;
  for (const f of result.failures) totals.failures.push(`[${suite}] ${f}`);
  console.log(`${suite}: ${result.passed} passed, ${result.failed} failed`);
}

async function unit() {
  const require = createRequire(import.meta.url);
  const Mocha = require('mocha');
  const mocha = new Mocha({ reporter: 'spec', timeout: 20000 });
  for (const file of listFiles(path.join(repo, 'out', 'test', 'unit'), '.test.js')) mocha.addFile(file);
  const failures = [];
  let passed = 0;
  await new Promise((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', () => { passed += 1; });
    runner.on('fail', (test, err) => { failures.push(`${test.fullTitle()}: ${err && err.message}`); });
  });
  return { passed, failed: failures.length, failures };
}

async function integration() {
  const { runIntegration } = await import('./vscode/run-integration.mjs');
  const results = { passed: 0, failed: 0, failures: [] };
  // Each suite folder runs in its own window. "reopen" opens the folder the previous suite wrote
  // to in a new window: a reload, as the novelist would do it.
  const suites = [
    { name: 'empty folder', tests: 'out/test/integration/index.js', fixture: null },
    { name: 'sample novel', tests: 'out/test/integration/novel/index.js', fixture: 'examples/sample-novel' },
    { name: 'sample novel, reopened', tests: 'out/test/integration/reopen/index.js', reuse: true },
  ];
  const made = [];
  let previous = null;
  try {
    for (const suite of suites) {
      let workspace = previous;
      if (!suite.reuse || !workspace) {
        workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'worldline-it-'));
        made.push(workspace);
        if (suite.fixture) fs.cpSync(path.join(repo, suite.fixture), workspace, { recursive: true });
      }
      previous = workspace;
      try {
        const r = await runIntegration({
          extensionDevelopmentPath: repo,
          extensionTestsPath: path.join(repo, suite.tests),
          workspace,
          env: {},
          copyWorkspace: false,
        });
        results.passed += r.passed;
        results.failed += r.failed;
        results.failures.push(...r.failures);
      } catch (err) {
        results.failed += 1;
        results.failures.push(`${suite.name}: ${err && err.message}`);
      }
    }
  } finally {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

async function ui() {
  const { runUiTests } = await import('../test/ui/screenshot.mjs');
  return runUiTests();
}

async function main() {
  ensureDependencies();
  // A real VS Code needs Chromium, ripgrep, a CJK font …: installed here when missing.
  if (want('integration') || want('ui')) ensureSystemPackages();
  build();
  if (want('unit')) add('unit', await unit());
  if (want('integration')) {
    try {
      add('integration', await integration());
    } catch (err) {
      add('integration', { passed: 0, failed: 1, failures: [String(err && err.stack || err)] });
    }
  }
  if (want('ui')) {
    try {
      add('ui', await ui());
    } catch (err) {
      add('ui', { passed: 0, failed: 1, failures: [String(err && err.stack || err)] });
    }
  }
  if (totals.failures.length) {
    console.log('\nFailures:');
    for (const f of totals.failures) console.log(`  - ${f}`);
  }
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exit(totals.failed === 0 && totals.passed > 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  console.log(`${totals.passed} passed, ${totals.failed + 1} failed`);
  process.exit(1);
});
