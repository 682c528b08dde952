// The functional core must run in plain Node: only the shell may import `vscode`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

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

/**
 * The modules a source file imports: import and export-from declarations, require() and import()
 * calls with a relative specifier, resolved to files. With `runtimeOnly`, type-only imports
 * (`import type`, `export type … from`, or every named binding marked `type`) are left out, as
 * they vanish from the emitted JavaScript.
 */
export function moduleImports(file: string, text: string, runtimeOnly: boolean): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  const typeOnlyImport = (d: ts.ImportDeclaration): boolean => {
    const c = d.importClause;
    if (!c) return false; // import './side-effect'
    if (!runtimeOnly) return false;
    if (c.isTypeOnly) return true;
    if (c.name) return false;
    const b = c.namedBindings;
    return b !== undefined && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
  };
  const typeOnlyExport = (d: ts.ExportDeclaration): boolean => runtimeOnly && (
    d.isTypeOnly || (d.exportClause !== undefined && ts.isNamedExports(d.exportClause) && d.exportClause.elements.length > 0 && d.exportClause.elements.every((e) => e.isTypeOnly)));
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !typeOnlyImport(node)) specs.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !typeOnlyExport(node)) specs.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && !(runtimeOnly && node.isTypeOnly) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) specs.push(node.moduleReference.expression.text);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) specs.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const out: string[] = [];
  for (const spec of specs) {
    if (!spec.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), spec);
    const hit = [`${base}.ts`, path.join(base, 'index.ts'), base].find((f) => f.endsWith('.ts') && fs.existsSync(f));
    if (hit) out.push(hit);
  }
  return out;
}

/** Every import circle (as a list of repo-relative files, first repeated at the end), one per strongly connected set. */
export function importCircles(files: string[], importsOf: (file: string) => string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const walk = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') circles.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) walk(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) walk(f);
  return circles;
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

  // Type-only imports count too: they vanish at run time, but a circle of types is still two
  // modules that cannot be understood (or moved) one without the other. The circle this test was
  // written for, agentController ↔ memoryController, ran one way through an `import type`.
  it('no import circle in src/, type-only imports included', () => {
    const files = sourceFiles(path.join(repo, 'src')).filter((f) => f.endsWith('.ts'));
    const rel = (f: string): string => path.relative(repo, f).split(path.sep).join('/');
    const circles = importCircles(files, (f) => moduleImports(f, fs.readFileSync(f, 'utf8'), false));
    assert.deepEqual(circles.map((c) => c.map(rel).join(' → ')), []);
  });

  it('the circle finder finds circles, and the import reader skips only type-only imports', () => {
    const g: Record<string, string[]> = { a: ['b'], b: ['c'], c: ['a'], d: ['d'], e: ['a'] };
    assert.deepEqual(importCircles(Object.keys(g), (f) => g[f] ?? []), [['a', 'b', 'c', 'a'], ['d', 'd']]);
    const dir = path.join(repo, 'src', 'model');
    const text = [
      "import { requestKeys } from './keys';",
      "import type { Endpoints } from './types';",
      "import { type BoundKey } from './errors';",
      "export { x } from './streaming';",
      "export type { Y } from './chatClient';",
      "const z = require('./index');",
    ].join('\n');
    const probe = path.join(dir, 'probe.ts');
    assert.deepEqual(moduleImports(probe, text, true).map((f) => path.basename(f)), ['keys.ts', 'streaming.ts', 'index.ts']);
    assert.deepEqual(moduleImports(probe, text, false).map((f) => path.basename(f)), ['keys.ts', 'types.ts', 'errors.ts', 'streaming.ts', 'chatClient.ts', 'index.ts']);
  });

  it('the detector itself recognises every import form', () => {
    for (const line of ["import * as vscode from 'vscode';", 'import { window } from "vscode"', "const v = require('vscode')", "import 'vscode';", "await import('vscode')"]) {
      assert.ok(importsVscode.test(line), line);
    }
    assert.ok(!importsVscode.test("import { x } from './vscode-like';"));
  });
});
