// Export Worldline as Manuscript: one Markdown file in reading order, a title block, each file's
// path as a comment, a chapter's own heading never doubled; the book's title the one H1 and each
// chapter an H2, whatever levels the chapter files use.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { exportManuscript, leadingHeadingLevel, shiftHeadings } from '../../../src/worldline/export';
import { runs } from '../long-mode';

/**
 * The heading levels of a Markdown text outside fenced code, as a renderer reads them: ATX lines,
 * and a paragraph underlined with === (the export writes every heading as ATX, so any setext H1
 * left in it would show here). Also whether a fence is left open at the end.
 */
function headings(md: string): { levels: number[]; openFence: boolean } {
  const levels: number[] = [];
  let fence: string | undefined;
  let inParagraph = false;
  for (const line of md.split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (f) { fence = f[1]!; inParagraph = false; continue; }
    const atx = /^ {0,3}(#{1,6})(?:[ \t]|$)/.exec(line);
    if (atx) { levels.push(atx[1]!.length); inParagraph = false; continue; }
    if (inParagraph && /^ {0,3}=+[ \t]*$/.test(line)) { levels.push(1); inParagraph = false; continue; }
    const breakLine = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/.test(line);
    inParagraph = line.trim() !== '' && !breakLine && !/^ {0,3}(?:[-+*][ \t]|\d{1,9}[.)][ \t]|>|\|)/.test(line) && (inParagraph || !/^ {4}/.test(line));
  }
  return { levels, openFence: fence !== undefined };
}

function headingLevels(md: string): number[] {
  return headings(md).levels;
}

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
        '## 第一章 雨夜',
        '',
        '雨夜，客栈。',
        '青梧擦着柜台。',
        '',
        '<!-- chapters/02.md -->',
        '',
        '## 第二章 直问',
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

  it('chapters written as H1 become H2 under the title, their sections one level down with them; code is left alone', () => {
    const out = exportManuscript({
      files: [
        { path: 'ch/1.md', text: '# Chapter One\n\nRain.\n\n## A scene\n\n```\n# not a heading\n```\n' },
        { path: 'ch/2.md', text: 'Chapter Two\n===========\n\nMore rain.\n\nInterlude\n---------\n\nStill raining.' },
        { path: 'ch/3.md', text: 'No heading, so the file name.' },
      ],
      title: 'Rain Inn', saveName: 's', worldlineName: 'w', lang: 'en',
    });
    assert.deepEqual(headingLevels(out), [1, 2, 3, 2, 3, 2]);
    assert.match(out, /^## Chapter One$/m);
    assert.match(out, /^### A scene$/m);
    assert.match(out, /^## Chapter Two$/m);
    assert.match(out, /^### Interlude$/m);
    assert.match(out, /^## 3$/m);
    assert.match(out, /```\n# not a heading\n```/, 'fenced code is copied as it is');
  });

  it('shiftHeadings: never above H2 nor below H6; a scene break after a blank line is not a heading', () => {
    assert.equal(shiftHeadings('# A\n###### B', 1), '## A\n###### B');
    assert.equal(shiftHeadings('### A\n#### B', -1), '## A\n### B');
    assert.equal(shiftHeadings('#\ttab\n#', 1), '## tab\n##');
    assert.equal(shiftHeadings('Prose.\n\n---\n\nMore.', 1), 'Prose.\n\n---\n\nMore.');
    assert.equal(shiftHeadings('#hashtag\n    # code', 1), '#hashtag\n    # code');
    assert.equal(shiftHeadings('~~~\n# in code\n~~~\n# out', 1), '~~~\n# in code\n~~~\n## out');
    assert.equal(shiftHeadings('## A\n\n# stray', 0), '## A\n\n## stray', 'an H1 further down never competes with the title');
  });

  it('whatever the chapters hold, the export has exactly one H1: the title', () => {
    const line = fc.oneof(
      fc.constantFrom('# 第一章', '## 一节', '### 小节', '###### 深', '```', '~~~', '---', '====', '', '    # code', '#tag'),
      fc.string({ maxLength: 12 }),
    );
    const file = fc.array(line, { maxLength: 12 }).map((ls) => ls.join('\n'));
    fc.assert(fc.property(fc.array(file, { minLength: 1, maxLength: 5 }), (texts) => {
      const out = exportManuscript({ files: texts.map((text, i) => ({ path: `ch/${i + 1}.md`, text })), title: 'T', saveName: 's', worldlineName: 'w', lang: 'en' });
      const levels = headingLevels(out);
      assert.equal(levels[0], 1, 'the title comes first');
      // A fence a chapter leaves open runs on into the next chapters, as a renderer reads it: then
      // what follows is code, and only the chapters without one are checked.
      if (texts.some((t) => headings(t).openFence)) return;
      assert.equal(levels.filter((l) => l === 1).length, 1, out);
    }), { numRuns: runs(200, 2000) });
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
