// Initialize Novel writes the template into the book folder and never overwrites anything.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseProjectConfig } from '../../../src/project/config';
import { initializeNovelFolder } from '../../../src/project/initialize';
import { newNovelFiles } from '../../../src/project/template';
import { cleanupTmp, read, tmpDir, write } from '../checkpoints/helpers';

describe('initialize novel', () => {
  afterEach(cleanupTmp);

  it('writes every template file into an empty folder, and the project file parses without problems', async () => {
    for (const lang of ['zh', 'en'] as const) {
      const root = tmpDir('wl-init-');
      const result = await initializeNovelFolder(root, lang, '雨夜');
      const files = newNovelFiles(lang, '雨夜');
      assert.deepEqual(result, { initialized: true, written: files.map((f) => f.path), kept: [] });
      for (const f of files) assert.equal(read(root, f.path), f.content);
      const loaded = parseProjectConfig(read(root, 'worldline.yaml') ?? '', lang);
      assert.deepEqual(loaded.problems, []);
      assert.equal(loaded.config.title, '雨夜');
    }
  });

  it('keeps a chapter the novelist already has, byte for byte, and writes the rest', async () => {
    const root = tmpDir('wl-init-');
    write(root, 'chapters/01.md', '我自己的第一章');
    const result = await initializeNovelFolder(root, 'zh', 'x');
    assert.deepEqual(result, { initialized: true, written: ['worldline.yaml'], kept: ['chapters/01.md'] });
    assert.equal(read(root, 'chapters/01.md'), '我自己的第一章');
  });

  it('changes nothing in a folder that already has worldline.yaml', async () => {
    const root = tmpDir('wl-init-');
    write(root, 'worldline.yaml', 'title: 旧的\n');
    assert.deepEqual(await initializeNovelFolder(root, 'en', 'New'), { initialized: false });
    assert.equal(read(root, 'worldline.yaml'), 'title: 旧的\n');
    assert.ok(!fs.existsSync(path.join(root, 'chapters')));
  });

  it('never follows a link where a template file would go, even a dangling one', async function () {
    if (process.platform === 'win32') this.skip();
    const root = tmpDir('wl-init-');
    const outside = tmpDir('wl-init-outside-');
    fs.mkdirSync(path.join(root, 'chapters'));
    fs.symlinkSync(path.join(outside, 'target.md'), path.join(root, 'chapters', '01.md'));
    const result = await initializeNovelFolder(root, 'en', 'x');
    assert.deepEqual(result, { initialized: true, written: ['worldline.yaml'], kept: ['chapters/01.md'] });
    assert.ok(!fs.existsSync(path.join(outside, 'target.md')), 'nothing was written through the link');
  });
});
