// Every UI string goes through vscode.l10n and has a Simplified Chinese translation; every
// manifest string has both languages.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '..', '..', '..');

function shellFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? shellFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

function l10nKeys(source: string): string[] {
  const keys: string[] = [];
  const re = /l10n\.t\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    keys.push(m[2]!.replace(/\\(['"`\\])/g, '$1'));
  }
  return keys;
}

describe('localisation', () => {
  it('every vscode.l10n.t string has a zh-cn translation', () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(repo, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    const files = [...shellFiles(path.join(repo, 'src', 'views')), path.join(repo, 'src', 'extension.ts')];
    const missing = files.flatMap((f) => l10nKeys(fs.readFileSync(f, 'utf8'))).filter((k) => !(k in bundle));
    assert.deepEqual([...new Set(missing)], []);
  });

  it('package.nls.json and package.nls.zh-cn.json have the same keys, and the manifest uses only those', () => {
    const en = JSON.parse(fs.readFileSync(path.join(repo, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const zh = JSON.parse(fs.readFileSync(path.join(repo, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
    const manifest = fs.readFileSync(path.join(repo, 'package.json'), 'utf8');
    const used = [...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!);
    assert.ok(used.length > 5);
    assert.deepEqual(used.filter((k) => !(k in en)), []);
  });

  it('the key extractor handles escapes', () => {
    assert.deepEqual(l10nKeys(`vscode.l10n.t('It\\'s {0}', x); l10n.t("a \\"b\\"")`), ["It's {0}", 'a "b"']);
  });
});
