import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { resolveManuscriptPath, examplePath } from '../../../src/agent/paths';

const ROOT = path.resolve('/books/my-novel');
const GLOBS = ['**/*.md', '**/*.txt'];

function accept(input: string, globs: string[] = GLOBS): string {
  const r = resolveManuscriptPath(ROOT, input, globs);
  assert.ok(r.ok, `expected ${JSON.stringify(input)} to be accepted, got: ${r.ok ? '' : r.error}`);
  assert.equal(r.abs, path.join(ROOT, ...r.rel.split('/')));
  return r.rel;
}

function refuse(input: string, globs: string[] = GLOBS, lang: 'en' | 'zh' = 'en'): string {
  const r = resolveManuscriptPath(ROOT, input, globs, lang);
  assert.ok(!r.ok, `expected ${JSON.stringify(input)} to be refused, got rel ${r.ok ? r.rel : ''}`);
  return r.error;
}

describe('agent/paths resolveManuscriptPath', () => {
  it('accepts plain manuscript paths and normalises them', () => {
    assert.equal(accept('chapters/01.md'), 'chapters/01.md');
    assert.equal(accept('./chapters//01.md'), 'chapters/01.md');
    assert.equal(accept('chapters\\01.md'), 'chapters/01.md');
    assert.equal(accept('  chapters/01.md\n'), 'chapters/01.md');
    assert.equal(accept('notes.txt'), 'notes.txt');
  });

  it('accepts Chinese and space-containing names', () => {
    assert.equal(accept('第一卷/第一章 开端.md'), '第一卷/第一章 开端.md');
    assert.equal(accept('drafts/a b/c d.txt'), 'drafts/a b/c d.txt');
    assert.equal(accept('章节/第十章：雨夜.md'), '章节/第十章：雨夜.md'); // full-width colon is fine
  });

  it('refuses empty paths and control characters', () => {
    assert.match(refuse(''), /empty/);
    assert.match(refuse('   '), /empty/);
    assert.match(refuse('chapters/01\0.md'), /control characters/);
    assert.match(refuse('chapters/\n01.md'), /control characters/);
  });

  it('refuses paths that leave the manuscript, with a relative example', () => {
    for (const p of ['../x.md', '..', 'chapters/../../x.md', '..\\x.md', 'a/../../b.md']) {
      const e = refuse(p);
      assert.match(e, /leaves the manuscript/, p);
      assert.match(e, /relative to the novel folder, such as "chapters\/03\.md"/, p);
    }
  });

  it('refuses ".." even when it stays inside, suggesting the clean path', () => {
    assert.match(refuse('chapters/../01.md'), /without "\.\.", as "01\.md"/);
    assert.match(refuse('a/b/../c.md'), /as "a\/c\.md"/);
  });

  it('refuses absolute paths of every kind', () => {
    for (const p of ['/etc/passwd.md', 'C:\\novel\\x.md', 'c:/x.md', 'C:x.md', '\\\\server\\share\\x.md', '//server/share/x.md', 'file:///x.md', 'vscode-remote://h/x.md']) {
      assert.match(refuse(p), /is absolute/, p);
    }
  });

  it('translates an absolute path inside the novel into the relative one to use', () => {
    const e = refuse(path.join(ROOT, 'chapters', '02.md'));
    assert.match(e, /For this file that is "chapters\/02\.md"/);
    assert.doesNotMatch(refuse('/elsewhere/x.md'), /For this file/);
  });

  it('refuses .git, .worldline and node_modules in any case and position', () => {
    for (const p of ['.git/x.md', 'a/.GIT/x.md', '.Git/HEAD.md', '.worldline/sessions/a.md', 'x/.WorldLine/a.md', 'node_modules/a.md', 'a/NODE_MODULES/b.md', '.git.md/../x.md']) {
      const e = refuse(p);
      assert.ok(/never read or written|leaves|contains "\.\."/.test(e), `${p}: ${e}`);
    }
    assert.match(refuse('.git/x.md'), /git repository/);
    assert.match(refuse('.worldline/a.md'), /sessions and checkpoints/);
    assert.match(refuse('a/.GIT/x.md'), /Manuscript files match: \*\*\/\*\.md, \*\*\/\*\.txt/);
  });

  it('catches look-alike reserved names (ignorable characters, full-width, trailing dot/space, short names)', () => {
    assert.match(refuse('.g\u200cit/x.md'), /never read or written/);
    assert.match(refuse('．ｇｉｔ/x.md'), /never read or written/);
    assert.match(refuse('.git./x.md'), /ends with a dot/);
    assert.match(refuse('.git /x.md'), /space/);
    assert.match(refuse('GIT~1/x.md'), /short name/);
    assert.match(refuse('WORLDL~1/a.md'), /short name/);
  });

  it('refuses percent-encoded dots and slashes', () => {
    for (const p of ['%2e%2e/x.md', '%2E%2E%2Fx.md', 'a%5cb.md', 'a%00.md']) assert.match(refuse(p), /percent-encoded/, p);
  });

  it('refuses patterns, non-portable characters, device names, home paths and text-direction tricks', () => {
    assert.match(refuse('chapters/*.md'), /list_manuscript/);
    assert.match(refuse('ch?.md'), /exact file path/);
    assert.match(refuse('ch:b.md'), /full-width/);
    assert.match(refuse('a:b.md'), /is absolute/); // a drive-relative path on Windows
    assert.match(refuse('a|b.md'), /Remove it/);
    assert.match(refuse('con.md'), /device name/);
    assert.match(refuse('chapters/LPT1.txt'), /device name/);
    assert.match(refuse('~/x.md'), /home-folder/);
    assert.match(refuse('evil\u202Edm.txt'), /text-direction/);
  });

  it('refuses paths and names that are too long', () => {
    assert.match(refuse(`${'a/'.repeat(600)}x.md`), /too long/);
    assert.match(refuse(`${'章'.repeat(90)}.md`), /too long/); // 270 bytes in UTF-8
    assert.equal(accept(`${'章'.repeat(80)}.md`), `${'章'.repeat(80)}.md`);
  });

  it('refuses files outside the manuscript globs and lists the globs', () => {
    for (const p of ['notes.json', 'worldline.yaml', 'chapters/01.md.bak', 'chapters']) {
      const e = refuse(p);
      assert.match(e, /not a manuscript file/, p);
      assert.match(e, /\*\*\/\*\.md, \*\*\/\*\.txt/, p);
    }
    assert.match(refuse('worldline.yaml'), /world_state_get/);
    // Letter case is ignored, as the file systems of macOS and Windows do (one file, one answer).
    assert.equal(accept('a.MD'), 'a.MD');
  });

  it('never admits the project file or VS Code settings, whatever the globs say', () => {
    for (const globs of [['**'], ['**/*', '!drafts/**'], ['*.yaml', '*.json', '.vscode/**']]) {
      assert.match(refuse('worldline.yaml', globs), /not a manuscript file/, globs.join());
      assert.match(refuse('WorldLine.YAML', globs), /not a manuscript file/, globs.join());
      assert.match(refuse('.vscode/settings.json', globs), /VS Code's settings/, globs.join());
    }
    assert.equal(accept('scripts/x.js', ['**']), 'scripts/x.js', 'what the globs name is the novelist\'s choice');
    assert.match(refuse('scripts/x.js', ['**/*.md', '!drafts/**']), /not a manuscript file/);
    assert.match(refuse('drafts/a.md', ['**/*.md', '!drafts/**']), /not a manuscript file/);
  });

  it('reads "*.md" at any depth and "chapters/" as the files below any folder of that name', () => {
    assert.equal(accept('chapters/01.md', ['*.md']), 'chapters/01.md');
    assert.equal(accept('chapters/part 1/01.md', ['chapters/']), 'chapters/part 1/01.md');
    assert.equal(accept('chapters/01.txt', ['chapters']), 'chapters/01.txt');
    assert.match(refuse('notes/01.md', ['chapters/']), /not a manuscript file/);
  });

  it('treats hidden files and folders as non-manuscript unless a glob names them', () => {
    assert.match(refuse('.drafts/x.md'), /not a manuscript file/);
    assert.match(refuse('.hidden.md'), /not a manuscript file/);
    assert.equal(accept('.drafts/x.md', ['.drafts/*.md']), '.drafts/x.md');
  });

  it('follows custom globs, and its examples fit them', () => {
    const globs = ['chapters/**/*.md'];
    assert.equal(accept('chapters/a/b.md', globs), 'chapters/a/b.md');
    assert.match(refuse('notes.md', globs), /chapters\/\*\*\/\*\.md/);
    assert.equal(examplePath(['book/*.txt']), undefined);
    assert.equal(examplePath(['*.txt']), 'chapters/03.txt', '"*.txt" matches at any depth');
    assert.equal(examplePath(['*.txt', '!chapters/']), '03.txt');
    assert.match(refuse('../x.txt', ['*.txt', '!chapters/']), /such as "03\.txt"/);
  });

  it('refuses everything when no globs are configured, saying how to fix it', () => {
    assert.match(refuse('chapters/01.md', []), /worldline\.yaml/);
  });

  it('names the folder itself as not a file', () => {
    assert.match(refuse('.'), /novel folder itself/);
    assert.match(refuse('./'), /novel folder itself/);
  });

  it('answers in Chinese when asked', () => {
    assert.match(refuse('../x.md', GLOBS, 'zh'), /超出了正文范围/);
    assert.match(refuse('notes.json', GLOBS, 'zh'), /不是正文文件/);
    assert.match(refuse('.git/x.md', GLOBS, 'zh'), /git 仓库/);
  });

  it('is idempotent: an accepted path resolves to itself', () => {
    for (const p of ['./a//b.md', 'a\\b\\c.txt', ' 第一章.md ']) {
      const rel = accept(p);
      assert.equal(accept(rel), rel);
    }
  });
});
