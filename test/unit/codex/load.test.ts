// Loading a codex folder from real files in a temp dir: every *.md below it in path order, a bad
// file reported with its path (the rest still loaded), big and non-UTF-8 files refused, links out
// of the folder not followed, hidden folders skipped, a missing folder an empty codex.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadCodex, MAX_CODEX_FILE_BYTES } from '../../../src/codex/load';

describe('loadCodex', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-codex-load-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  function write(rel: string, text: string | Buffer): void {
    const full = path.join(root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }

  it('reads every entry below the folder in path order and reports the bad ones', async () => {
    write('codex/places/长安.md', '---\nkeys: [长安城]\n---\n\n都城。\n');
    write('codex/characters/qingwu.md', '---\nname: 青雾\nkeys: 雾儿\ncolour: red\n---\n她生在雪山。\n');
    write('codex/characters/broken.md', '---\nname: [unclosed\n---\nbody\n');
    write('codex/rules.md', '灵力分九品。\n');
    write('codex/notes.txt', 'not an entry');
    write('codex/.obsidian/x.md', 'hidden');
    write('codex/big.md', 'x'.repeat(MAX_CODEX_FILE_BYTES + 1));
    write('codex/latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    write('chapters/one.md', 'manuscript, not lore');
    const loaded = await loadCodex(root, 'codex');
    assert.deepEqual(loaded.entries.map((e) => [e.path, e.name, e.kind]), [
      ['codex/characters/qingwu.md', '青雾', 'character'],
      ['codex/places/长安.md', '长安', 'place'],
      ['codex/rules.md', 'rules', 'rule'],
    ]);
    assert.deepEqual(loaded.problems.map((p) => p.path), ['codex/big.md', 'codex/characters/broken.md', 'codex/latin1.md']);
    assert.match(loaded.problems[0]!.error, /too large/);
    assert.match(loaded.problems[2]!.error, /UTF-8/);
    assert.deepEqual(loaded.warnings.map((w) => w.path), ['codex/characters/qingwu.md']);
    assert.match(loaded.warnings[0]!.warning, /colour/);
  });

  it('a missing folder is an empty codex; a folder outside the book is refused', async () => {
    assert.deepEqual(await loadCodex(root, 'codex'), { entries: [], problems: [], warnings: [] });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-codex-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'x.md'), 'secret');
      const loaded = await loadCodex(root, path.relative(root, outside));
      assert.deepEqual(loaded.entries, []);
      assert.equal(loaded.problems.length, 1);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('follows links inside the folder, not out of it, and a link loop once', async function () {
    if (process.platform === 'win32') this.skip();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-codex-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'secret.md'), 'secret');
      write('codex/real/a.md', 'lore');
      fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'codex', 'leak.md'));
      fs.symlinkSync(outside, path.join(root, 'codex', 'leakdir'));
      fs.symlinkSync(path.join(root, 'codex'), path.join(root, 'codex', 'real', 'loop'));
      fs.symlinkSync(path.join(root, 'codex', 'real', 'a.md'), path.join(root, 'codex', 'alias.md'));
      const loaded = await loadCodex(root, 'codex');
      assert.deepEqual(loaded.entries.map((e) => e.path), ['codex/alias.md', 'codex/real/a.md']);
      assert.ok(loaded.entries.every((e) => e.body !== 'secret'));
      assert.deepEqual(loaded.problems.map((p) => p.path), ['codex/leak.md', 'codex/leakdir']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
