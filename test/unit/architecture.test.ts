// The functional core must run in plain Node: only the shell may import `vscode`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '..', '..', '..');
const importsVscode = /(?:from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\)|import\s+['"]vscode['"])/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|js|mjs|cjs)$/.test(entry.name)) out.push(full);
  }
  return out;
}

function isShell(rel: string): boolean {
  return rel === 'src/extension.ts' || rel.startsWith('src/views/');
}

describe('architecture', () => {
  it('no file under src/ outside src/views/ and src/extension.ts imports vscode', () => {
    const offenders = sourceFiles(path.join(repo, 'src'))
      .map((f) => path.relative(repo, f).split(path.sep).join('/'))
      .filter((rel) => !isShell(rel))
      .filter((rel) => importsVscode.test(fs.readFileSync(path.join(repo, rel), 'utf8')));
    assert.deepEqual(offenders, [], `these core files import vscode: ${offenders.join(', ')}`);
  });

  it('the detector itself recognises every import form', () => {
    for (const line of ["import * as vscode from 'vscode';", 'import { window } from "vscode"', "const v = require('vscode')", "import 'vscode';", "await import('vscode')"]) {
      assert.ok(importsVscode.test(line), line);
    }
    assert.ok(!importsVscode.test("import { x } from './vscode-like';"));
  });
});
