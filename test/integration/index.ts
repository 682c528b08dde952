// Test entry that VS Code calls inside the extension host (extensionTestsPath points at the
// compiled out/test/integration/index.js). Runs every *.test.js beside it with mocha (BDD) and
// writes the outcome as JSON to $WORLDLINE_TEST_RESULTS, because the extension host's console
// output does not reach the runner reliably.
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

export interface TestFailure {
  title: string;
  error: string;
}

export interface TestResults {
  passed: number;
  failed: number;
  pending: number;
  failures: TestFailure[];
  durationMs: number;
}

/** The *.test.js files of one suite folder; subfolders are suites of their own (their own workspace). */
function findTestFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => path.join(dir, e.name))
    .sort();
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

function writeResults(results: TestResults): void {
  const file = process.env.WORLDLINE_TEST_RESULTS;
  const summary = `${results.passed} passed, ${results.failed} failed`;
  console.log(`[worldline-test] ${summary}`);
  if (!file) {
    console.warn('[worldline-test] WORLDLINE_TEST_RESULTS is not set; results not written');
    return;
  }
  // Write then rename so the runner never reads a half-written file.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(tmp, JSON.stringify(results, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

export function run(): Promise<void> {
  return runSuite(__dirname);
}

export async function runSuite(suiteDir: string): Promise<void> {
  const started = Date.now();
  const results: TestResults = { passed: 0, failed: 0, pending: 0, failures: [], durationMs: 0 };
  const finish = (): TestResults => {
    results.durationMs = Date.now() - started;
    writeResults(results);
    return results;
  };

  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec',
    timeout: Number(process.env.WORLDLINE_TEST_TIMEOUT_MS) || 30_000,
  });
  const grep = process.env.WORLDLINE_TEST_GREP;
  if (grep) mocha.grep(grep);

  const files = findTestFiles(suiteDir);
  if (files.length === 0) {
    results.failed = 1;
    results.failures.push({ title: 'integration test discovery', error: `no *.test.js files in ${suiteDir}` });
    finish();
    throw new Error(`no integration tests found in ${suiteDir}`);
  }
  for (const f of files) mocha.addFile(f);

  await new Promise<void>((resolve) => {
    try {
      const runner = mocha.run(() => resolve());
      runner.on('pass', () => {
        results.passed += 1;
      });
      runner.on('pending', () => {
        results.pending += 1;
      });
      runner.on('fail', (test: Mocha.Runnable, err: unknown) => {
        results.failed += 1;
        results.failures.push({ title: test.fullTitle(), error: errorText(err) });
        console.error(`[worldline-test] FAILED ${test.fullTitle()}: ${errorText(err)}`);
      });
    } catch (err) {
      // A test file that throws while loading ends up here.
      results.failed += 1;
      results.failures.push({ title: 'loading integration test files', error: errorText(err) });
      resolve();
    }
  });

  finish();
  if (results.failed > 0) throw new Error(`${results.failed} integration test(s) failed`);
}
