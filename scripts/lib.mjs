// Small helpers shared by the project's scripts. Node built-ins only, so they run before `npm ci`.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status ?? r.signal}`);
  }
}

/** Installs the npm dependencies when they are missing (a fresh clone). */
export function ensureDependencies() {
  const marker = path.join(repo, 'node_modules', '.package-lock.json');
  if (fs.existsSync(marker)) return;
  console.log('Installing npm dependencies (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

/** The Debian packages a real VS Code needs here (scripts/system-deps.sh), installed when missing. */
export function ensureSystemPackages() {
  if (process.platform !== 'linux') return;
  run('bash', [path.join(repo, 'scripts', 'system-deps.sh')]);
}

/** Bundles the extension and compiles the tests and benchmarks. */
export function build() {
  run(process.execPath, [path.join(repo, 'scripts', 'build.mjs')]);
  run(process.execPath, [path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.']);
}

export function listFiles(dir, suffix) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return listFiles(full, suffix);
    return e.name.endsWith(suffix) ? [full] : [];
  }).sort();
}
