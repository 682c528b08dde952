// A new entry's path (safe file names on every system), numbered paths, and a rename inside the
// front matter that keeps the rest of the file as written.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { codexFolderOf, entryFileName, entryPath, numberedPath, renamedFrontMatter, renamedPath } from '../../../src/codex/entryFile';
import { parseCodexFile } from '../../../src/codex/file';
import { runs } from '../long-mode';

describe('codex entry files', () => {
  it('paths by kind under the codex folder; unsafe names made safe', () => {
    assert.equal(entryPath('codex', 'character', '青梧'), 'codex/characters/青梧.md');
    assert.equal(entryPath('lore/', 'style', 'Names'), 'lore/style/Names.md');
    assert.equal(entryPath('', 'place', 'a/b\\c:d'), 'codex/places/a-b-c-d.md');
    assert.equal(entryFileName('..'), 'entry');
    assert.equal(entryFileName('CON'), 'CON-entry');
    assert.equal(entryFileName(' end. '), 'end');
    assert.equal(numberedPath('codex/items/x.md', 2), 'codex/items/x-2.md');
    assert.equal(renamedPath('codex/characters/a.md', '阿梧'), 'codex/characters/阿梧.md');
    assert.equal(codexFolderOf({}), 'codex');
    assert.equal(codexFolderOf({ codex: ' lore ' }), 'lore');
    fc.assert(fc.property(fc.string(), (name) => {
      const f = entryFileName(name);
      assert.ok(f.length > 0 && !/[\u0000-\u001f<>:"/\\|?*]/u.test(f) && !/[. ]$/u.test(f) && [...f].length <= 90, JSON.stringify(f));
    }), { numRuns: runs(500, 5000) });
  });

  it('a rename sets the front matter name and keeps everything else', () => {
    const text = '---\n# a comment\nname: 青梧\nkeys: [青梧, 阿梧]\n---\n\n客栈老板娘。\n';
    const got = renamedFrontMatter(text, '阿梧 "小名"');
    assert.ok(got.ok);
    assert.equal(got.text, '---\n# a comment\nname: "阿梧 \\"小名\\""\nkeys: [青梧, 阿梧]\n---\n\n客栈老板娘。\n');
    const parsed = parseCodexFile('codex/characters/x.md', got.text);
    assert.ok(parsed.ok && parsed.entry.name === '阿梧 "小名"');
    const noName = renamedFrontMatter('---\r\nkind: place\r\n---\r\nbody', '渡口');
    assert.ok(noName.ok && noName.text === '---\r\nkind: place\r\nname: "渡口"\n---\r\nbody');
    assert.ok(!renamedFrontMatter('no front matter', 'x').ok);
    assert.ok(!renamedFrontMatter('---\nname: a\n', 'x').ok, 'an unclosed front matter is not renamed');
    const later = renamedFrontMatter('---\nkind: a\n---\nname: in the body\n', 'x');
    assert.ok(later.ok && later.text === '---\nkind: a\nname: "x"\n---\nname: in the body\n', 'a name line in the body is lore');
    assert.ok(!renamedFrontMatter('---\nkind: a\n', 'x').ok);
  });

  it('any name survives the rename and reads back (property)', () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }).filter((s) => s.trim() !== '' && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(s)), (name) => {
      const got = renamedFrontMatter('---\nname: old\nkind: item\n---\nlore\n', name);
      assert.ok(got.ok);
      const parsed = parseCodexFile('codex/items/x.md', got.text);
      assert.ok(parsed.ok, JSON.stringify(got.text));
      assert.equal(parsed.entry.name, name.trim());
    }), { numRuns: runs(300, 3000) });
  });
});
