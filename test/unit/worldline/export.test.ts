// Export Worldline as Manuscript: one Markdown file in reading order, a title block, each file's
// path as a comment, a chapter's own heading never doubled.
import { strict as assert } from 'node:assert';
import { exportManuscript, leadingHeadingLevel } from '../../../src/worldline/export';

describe('exportManuscript', () => {
  it('orders files for reading: 2 before 10, 第二章 before 第十章, folder by folder', () => {
    const files = ['chapters/10.md', 'chapters/2.md', 'part2/第十章.md', 'part2/第二章.md', 'chapters/1.md', 'part10/a.md'].map((p) => ({ path: p, text: `# ${p}\n\ntext` }));
    const out = exportManuscript({ files, title: 'T', saveName: 's', worldlineName: 'w', lang: 'en' });
    const order = [...out.matchAll(/<!-- (.*) -->/g)].map((m) => m[1]);
    assert.deepEqual(order, ['chapters/1.md', 'chapters/2.md', 'chapters/10.md', 'part2/第二章.md', 'part2/第十章.md', 'part10/a.md']);
  });

  it('the whole document, in Chinese: title block, path comments, own headings kept once', () => {
    const out = exportManuscript({
      files: [
        { path: 'chapters/02.md', text: '# 第二章 直问\n\n她手一顿。\n' },
        { path: 'chapters/01.md', text: '\ufeff# 第一章 雨夜\r\n\r\n雨夜，客栈。\r\n青梧擦着柜台。\r\n\r\n' },
      ],
      title: '雨夜客栈',
      saveName: '直问生死',
      worldlineName: '主线',
      lang: 'zh',
    });
    assert.equal(
      out,
      [
        '# 雨夜客栈',
        '',
        '> 世界线「主线」 · 存档「直问生死」',
        '',
        '<!-- chapters/01.md -->',
        '',
        '# 第一章 雨夜',
        '',
        '雨夜，客栈。',
        '青梧擦着柜台。',
        '',
        '<!-- chapters/02.md -->',
        '',
        '# 第二章 直问',
        '',
        '她手一顿。',
        '',
      ].join('\n'),
    );
  });

  it('a file without a heading gets its name, at the level the chapters use; English title block', () => {
    const out = exportManuscript({
      files: [
        { path: 'ch/1.md', text: '## One\n\nRain.' },
        { path: 'ch/2.md', text: '\n\nNo heading here.\n' },
      ],
      title: 'Rain Inn',
      saveName: 'Life or death',
      worldlineName: 'Main line',
      lang: 'en',
    });
    assert.ok(out.startsWith('# Rain Inn\n\n> Worldline "Main line" · save "Life or death"\n\n'));
    assert.ok(out.endsWith('<!-- ch/2.md -->\n\n## 2\n\nNo heading here.\n'));
    assert.equal(out.match(/## One/g)?.length, 1);
  });

  it('with no headings anywhere, file names become level-2 headings under the title', () => {
    const out = exportManuscript({ files: [{ path: '序章.txt', text: '很久以前。' }], title: '', saveName: 'a', worldlineName: 'b', lang: 'zh' });
    assert.equal(out, '# 未命名小说\n\n> 世界线「b」 · 存档「a」\n\n<!-- 序章.txt -->\n\n## 序章\n\n很久以前。\n');
  });

  it('an empty file keeps its place; a path with "--" cannot break its comment; no files is just the title', () => {
    const out = exportManuscript({ files: [{ path: 'a--b.md', text: '  \n' }], title: 'T', saveName: 's', worldlineName: 'w', lang: 'en' });
    assert.ok(out.endsWith('<!-- a-\u2010b.md -->\n\n## a--b\n'));
    assert.equal(exportManuscript({ files: [], title: 'T', saveName: 's', worldlineName: 'w', lang: 'en' }), '# T\n\n> Worldline "w" · save "s"\n');
  });

  it('recognises ATX and setext headings, not code or hashtags', () => {
    assert.equal(leadingHeadingLevel('\n# A'), 1);
    assert.equal(leadingHeadingLevel('### A'), 3);
    assert.equal(leadingHeadingLevel('Title\n====='), 1);
    assert.equal(leadingHeadingLevel('Title\n---'), 2);
    assert.equal(leadingHeadingLevel('#hashtag'), undefined);
    assert.equal(leadingHeadingLevel('    # code'), undefined);
    assert.equal(leadingHeadingLevel('    code\n---'), undefined);
    assert.equal(leadingHeadingLevel('text'), undefined);
    assert.equal(leadingHeadingLevel(''), undefined);
  });
});
