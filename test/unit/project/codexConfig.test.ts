import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import { parseProjectConfig } from '../../../src/project/config';
import { checkCodexFolder, isCodexFile } from '../../../src/project/codexFolder';
import { runs } from '../long-mode';

describe('project config: the codex folder', () => {
  it('defaults to "codex": its entries are tracked by the checkpoints but are not manuscript', () => {
    const { config, problems } = parseProjectConfig('title: x\n');
    assert.deepEqual(problems, []);
    assert.equal(config.codex, 'codex');
    assert.ok(!config.manuscriptMatcher.matches('codex/characters/qingwu.md'), 'lore is not counted or written as manuscript');
    assert.ok(config.trackedMatcher.matches('codex/characters/qingwu.md'));
    assert.ok(config.trackedMatcher.matches('Codex/Qingwu.MD'), 'letter case ignored, as the manuscript does');
    assert.ok(!config.trackedMatcher.matches('codex/notes.txt'), 'only the .md files of the codex');
    assert.ok(!config.trackedMatcher.matches('codex/.obsidian/x.md'));
    assert.ok(config.manuscriptMatcher.matches('chapters/01.md') && config.trackedMatcher.matches('chapters/01.md'));
    assert.ok(config.manuscriptMatcher.matches('chapters/codex/x.md'), 'only the folder at the book root is the codex');
    assert.ok(config.trackedMatcher.mayContain('codex') && config.trackedMatcher.mayContain('codex/characters'));
  });

  it('reads a nested folder, and tracks it even when the manuscript globs would not', () => {
    const { config, problems } = parseProjectConfig('manuscript: ["chapters/**/*.md"]\ncodex: lore/codex/\n');
    assert.deepEqual(problems, []);
    assert.equal(config.codex, 'lore/codex');
    assert.ok(config.trackedMatcher.matches('lore/codex/places/inn.md'));
    assert.ok(config.trackedMatcher.mayContain('lore'));
    assert.ok(!config.trackedMatcher.mayContain('drafts'));
    assert.ok(!config.trackedMatcher.matches('codex/x.md'), 'the default folder is not the codex any more');
  });

  it('reports a bad value on its line and uses the default', () => {
    for (const bad of ['"../lore"', '/abs/lore', '.worldline', '"codex/*"', '[a, b]', '.git/x', 'worldline.yaml', '"a/../../b"', 'C:/lore', '""']) {
      const { config, problems } = parseProjectConfig(`title: x\n\ncodex: ${bad}\n`);
      assert.equal(config.codex, 'codex', bad);
      assert.equal(problems.length, 1, `${bad}: ${JSON.stringify(problems)}`);
      assert.equal(problems[0]?.line, 3, bad);
      assert.match(problems[0]?.message ?? '', /"codex".*default "codex"/, bad);
    }
    const zh = parseProjectConfig('codex: ../x\n', 'zh').problems[0]?.message ?? '';
    assert.match(zh, /默认值/);
  });

  it('never accepts a folder outside the book or a reserved one (property)', () => {
    const seg = fc.constantFrom('..', '.', '.git', '.GIT', '.worldline', 'node_modules', 'lore', 'codex', '*', '', '~', 'C:', '.hidden');
    fc.assert(fc.property(fc.array(seg, { minLength: 1, maxLength: 4 }), fc.constantFrom('/', '\\'), (segs, sep) => {
      const checked = checkCodexFolder(segs.join(sep));
      if (!('folder' in checked)) return;
      for (const s of checked.folder.split('/')) {
        assert.ok(!['..', '.', '', '*', '~'].includes(s) && !s.startsWith('.') && s.toLowerCase() !== 'node_modules' && !/:/.test(s), checked.folder);
      }
      assert.ok(isCodexFile(checked.folder, `${checked.folder}/a.md`));
    }), { numRuns: runs(300, 5000) });
  });
});
