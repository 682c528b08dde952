// The Marketplace listing: what `vsce package` ships and what the package README promises. The
// provider table is checked against the presets the product offers, so the README cannot drift.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRESETS } from '../../src/model/presets';

const repo = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(repo, file), 'utf8');

describe('the Marketplace listing', () => {
  const manifest = JSON.parse(read('package.json')) as { icon?: string; categories?: string[]; scripts: Record<string, string> };

  it('has a 128×128 PNG icon and the AI and Chat categories', () => {
    assert.ok(manifest.icon, 'package.json names an icon');
    const png = fs.readFileSync(path.join(repo, manifest.icon));
    assert.equal(png.toString('ascii', 1, 4), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
    assert.deepEqual([...(manifest.categories ?? [])].sort(), ['AI', 'Chat']);
  });

  it('the package README lists every provider preset with its base URL, in English and Chinese', () => {
    const readme = read('docs/extension-readme.md');
    for (const preset of PRESETS) {
      assert.ok(readme.includes(preset.label), `${preset.label} is in the table`);
      if (preset.baseUrl) assert.ok(readme.includes(`\`${preset.baseUrl}\``), `${preset.baseUrl} is in the table`);
    }
    assert.match(readme, /## Start in 60 seconds/);
    assert.match(readme, /## 60 秒上手/);
    assert.match(readme, /\.worldline\/\.gitignore/);
  });

  it('ships the bundle, the icon and the CHANGELOG, and no source map', function () {
    this.timeout(60_000);
    // `vsce ls` lists exactly what `vsce package` would put into the .vsix (the .vscodeignore applied).
    const vsce = path.join(repo, 'node_modules', '@vscode', 'vsce', 'vsce');
    const files = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .split('\n').map((l) => l.trim()).filter((l) => l !== '');
    assert.deepEqual(files.filter((f) => f.endsWith('.map')), []);
    for (const needed of ['dist/extension.js', 'media/icon.png', 'CHANGELOG.md', 'media/chat.js', 'l10n/bundle.l10n.zh-cn.json']) {
      assert.ok(files.includes(needed), `${needed} ships`);
    }
    assert.deepEqual(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('out/')), []);
    assert.match(manifest.scripts['vscode:prepublish'] ?? '', /--release/, 'the packaged build writes no source map');
  });
});
