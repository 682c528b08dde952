// Every UI string goes through vscode.l10n and has a Simplified Chinese translation; every
// manifest string has both languages. Core files (the page labels, the Story's words) mark their
// English keys with a local `l10n.t` for the shell to translate; they are scanned too.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(full) : full.endsWith('.ts') ? [full] : [];
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
  it('every l10n.t string in src/ (shell and marked core files) has a zh-cn translation', () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(repo, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    const files = tsFiles(path.join(repo, 'src'));
    const labels = path.join(repo, 'src', 'protocol', 'labels.ts');
    assert.ok(files.includes(labels) && l10nKeys(fs.readFileSync(labels, 'utf8')).length > 50, 'the page labels are scanned');
    const missing = files.flatMap((f) => l10nKeys(fs.readFileSync(f, 'utf8')).filter((k) => !(k in bundle)).map((k) => `${path.relative(repo, f)}: ${k}`));
    assert.deepEqual([...new Set(missing)], []);
  });

  it('a core file that marks strings with l10n.t defines the marker itself (a real vscode.l10n there would not type-check in the core)', () => {
    const core = tsFiles(path.join(repo, 'src')).filter((f) => !f.includes(`${path.sep}views${path.sep}`) && !f.endsWith('extension.ts'));
    const marking = core.filter((f) => l10nKeys(fs.readFileSync(f, 'utf8')).length > 0);
    assert.ok(marking.length > 0);
    for (const f of marking) assert.match(fs.readFileSync(f, 'utf8'), /^const l10n = \{ t: /m, path.relative(repo, f));
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
