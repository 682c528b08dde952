// The one manuscript matcher: what a pattern means, what is never manuscript, and how unusable
// patterns become config problems on their own lines.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { parseProjectConfig, DEFAULT_MANUSCRIPT } from '../../../src/project/config';
import { compileManuscript, isManuscriptAt, isReservedPath, manuscriptOf } from '../../../src/project/manuscript';

function accepts(globs: string[], yes: string[], no: string[]): void {
  const m = compileManuscript(globs).matcher;
  for (const p of yes) assert.ok(m.matches(p), `${globs.join(' ')} should take ${p}`);
  for (const p of no) assert.ok(!m.matches(p), `${globs.join(' ')} should not take ${p}`);
}

describe('project/manuscript: the one matcher', () => {
  it('"**/*.md" matches at any depth, not in dot folders or reserved ones', () => {
    accepts(['**/*.md'], ['a.md', 'chapters/01.md', 'part 1/第一章.md', 'x/y/z/w.md'], [
      'a.txt', '.obsidian/x.md', 'a/.trash/b.md', '.git/x.md', 'node_modules/p/readme.md', '.worldline/sessions/a.md',
      'sub/.git/x.md', 'sub/.worldline/a.md', '.vscode/a.md', '.hidden.md',
    ]);
  });

  it('a pattern without "/" before its end matches at any depth ("*.md", "chapters", "chapters/")', () => {
    accepts(['*.txt'], ['notes.txt', 'deep/er/notes.txt'], ['notes.md', 'x.txt/inner.md']);
    for (const g of ['chapters/', 'chapters']) {
      accepts([g], ['chapters/01.md', 'chapters/part/02.txt', 'book/chapters/03.md'], ['notes/01.md', 'chapters/.trash/x.md', 'chapters/.DS_Store']);
    }
  });

  it('a "/" inside reads from the book folder; braces, classes, ? and "!" work', () => {
    accepts(['chapters/**/*.{md,txt}', 'ch?.md', '[ab]*.md', '!chapters/drafts/**'],
      ['chapters/01.md', 'chapters/part/02.txt', 'ch1.md', 'sub/ch2.md', 'alpha.md', 'beta.md'],
      ['chapters/drafts/old.md', 'notes/x.md', 'gamma.md', 'book/chapters/01.md']);
    accepts(['!drafts/**', '**/*.md'], ['a.md'], ['drafts/a.md']);
    accepts(['./chapters/*.md', 'chapters\\extra\\*.md'], ['chapters/1.md', 'chapters/extra/2.md'], ['chapters/x/1.md']);
  });

  it('ignores letter case, as the file systems of macOS and Windows do', () => {
    accepts(['chapters/*.md'], ['Chapters/01.MD', 'CHAPTERS/a.md'], ['Chapters/a.txt']);
  });

  it('a pattern that spells the dot reaches a dot folder', () => {
    accepts(['.drafts/*.md'], ['.drafts/a.md'], ['.drafts/b/a.md', 'x/.drafts/a.md']);
    accepts(['**/.drafts/*.md'], ['x/.drafts/a.md'], []);
  });

  it('never takes worldline.yaml, .vscode/, .git/, .worldline/, node_modules/ or paths outside the folder', () => {
    const m = compileManuscript(['**', '**/*', '.vscode/**', '*.yaml']).matcher;
    for (const p of ['worldline.yaml', 'WorldLine.YAML', '.vscode/settings.json', '.git/config', '.worldline/x.md', 'a/node_modules/b.md',
      '../x.md', 'a/../b.md', '/etc/passwd', 'C:/x.md', 'a//b.md', './a.md', '', 'a\\b.md', '．ｇｉｔ/x.md', '.g\u200cit/x.md']) {
      assert.ok(!m.matches(p), p);
      assert.ok(isReservedPath(p), p);
    }
    assert.ok(m.matches('notes/worldline.yaml'), 'only the project file at the root is reserved');
    assert.ok(m.matches('scripts/x.js'));
  });

  it('compiles equal lists to the same matcher, so the config\'s is the one everyone gets', () => {
    const { config } = parseProjectConfig('manuscript: ["chapters/**/*.md", "!chapters/drafts/**"]\n');
    // The matcher is the written list with the codex folder taken out (src/project/codexFolder.ts).
    assert.equal(manuscriptOf([...config.manuscript, '!codex/**']), config.manuscriptMatcher);
    assert.equal(manuscriptOf(config.manuscriptMatcher), config.manuscriptMatcher);
    assert.deepEqual(config.manuscriptMatcher.globs, [...config.manuscript, '!codex/**']);
    assert.equal(parseProjectConfig('').config.manuscriptMatcher, manuscriptOf([...DEFAULT_MANUSCRIPT, '!codex/**']));
  });

  it('isManuscriptAt takes native paths of files inside the book only', () => {
    const root = path.resolve('/books/novel');
    const m = manuscriptOf(DEFAULT_MANUSCRIPT);
    assert.ok(isManuscriptAt(m, root, path.join(root, 'chapters', '01.md')));
    assert.ok(isManuscriptAt(manuscriptOf(['..*.md']), root, path.join(root, '..name.md')), 'a name that starts with ".." is inside');
    assert.ok(!isManuscriptAt(m, root, path.join(root, '..', 'other', 'a.md')));
    assert.ok(!isManuscriptAt(m, root, root));
    assert.ok(!isManuscriptAt(m, root, path.join(root, '.vscode', 'a.md')));
  });
});

describe('project/manuscript: unusable patterns are config problems on their lines', () => {
  it('reports each one on its own line, leaves it out and keeps the rest', () => {
    const text = [
      'title: t', //                1
      'manuscript:', //             2
      '  - "chapters/**/*.md"', //  3
      '  - "../elsewhere/*.md"', // 4
      '  - "/home/me/book/*.md"', // 5
      '  - "[z-a].md"', //          6
      '  - ".git/**"', //           7
      '  - "worldline.yaml"', //    8
      '  - "*a*b*c*d.md"', //       9
      '  - ""', //                  10
      '  - 5', //                   11
      '  - "!drafts/**"', //        12
      '  - "**/a/**/b/**/c.md"', // 13
      '  - "C:\\\\book\\\\*.md"', // 14
    ].join('\n');
    const { config, problems } = parseProjectConfig(text);
    assert.deepEqual(config.manuscript, ['chapters/**/*.md', '!drafts/**']);
    assert.deepEqual(problems.map((p) => p.line), [4, 5, 6, 7, 8, 9, 10, 11, 13, 14]);
    const byLine = new Map(problems.map((p) => [p.line, p.message]));
    assert.match(byLine.get(4)!, /"\.\."/);
    assert.match(byLine.get(5)!, /absolute/);
    assert.match(byLine.get(6)!, /cannot be read/);
    assert.match(byLine.get(7)!, /never manuscript/);
    assert.match(byLine.get(8)!, /never manuscript/);
    assert.match(byLine.get(9)!, /more than 3 "\*"/);
    assert.match(byLine.get(13)!, /more than 2 "\*\*"/);
    assert.match(byLine.get(14)!, /absolute/);
    for (const p of problems) assert.match(p.message, /ignored/);
  });

  it('with nothing usable left, says so at the field and uses the default', () => {
    for (const text of ['manuscript:\n  - "!drafts/**"\n', 'manuscript: ".worldline/**"\n', 'manuscript:\n  - "../x"\n  - ""\n']) {
      const { config, problems } = parseProjectConfig(text);
      assert.deepEqual(config.manuscript, DEFAULT_MANUSCRIPT, text);
      assert.equal(config.manuscriptMatcher, manuscriptOf([...DEFAULT_MANUSCRIPT, '!codex/**']));
      assert.match(problems.at(-1)!.message, /No usable manuscript pattern.*default/, text);
      for (const p of problems) assert.ok(p.line !== undefined && p.line >= 1 && p.line <= 3, `${text}: ${p.line}`);
    }
    const single = parseProjectConfig('title: x\nmanuscript: "../*.md"\n').problems;
    assert.deepEqual(single.map((p) => p.line), [2, 2]);
  });

  it('words the problems in Chinese for a Chinese VS Code', () => {
    const zh = parseProjectConfig('manuscript:\n  - "**/*.md"\n  - "../x.md"\n', 'zh').problems;
    assert.equal(zh.length, 1);
    assert.equal(zh[0]!.line, 3);
    assert.match(zh[0]!.message, /正文规则.*已忽略/);
  });

  it('a hostile pattern list never throws and never makes matching slow', () => {
    const hostile = ['*a*a*a*a*a*a*a*b', `${'**/'.repeat(40)}x`, `${'{a,'.repeat(200)}`, '['.repeat(500), '!'.repeat(50), '\u0000.md', 'x'.repeat(100_000), '(a|b)*+'];
    const { matcher, problems } = compileManuscript([...hostile, '**/*.md']);
    assert.ok(problems.length >= 5);
    const long = `${'a'.repeat(250)}.md`;
    const start = Date.now();
    for (let i = 0; i < 200; i++) matcher.matches(`${'a/'.repeat(100)}${long}`);
    assert.ok(Date.now() - start < 2000, `${Date.now() - start} ms`);
  });
});
