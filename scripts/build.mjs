// Bundles the extension with esbuild: one minified CommonJS file, `vscode` left external.
// `--release` (the .vsix: vsce runs it as vscode:prepublish) writes no source map: the map is
// 5 MB of our sources that a novelist's install does not need.
import { build } from 'esbuild';
import { cpSync, mkdirSync } from 'node:fs';

// VS Code's own icon font for the webviews (the same icons as the workbench).
mkdirSync('dist/codicons', { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) {
  cpSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/codicons/${file}`);
}

const watch = process.argv.includes('--watch');
const release = process.argv.includes('--release');
const options = {
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['vscode'],
  minify: true,
  sourcemap: !release,
  logLevel: 'warning',
};

if (watch) {
  const { context } = await import('esbuild');
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
}
