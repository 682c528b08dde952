// The chapter model every format reads: the Markdown export's order, headings and levels (one
// decision, never a second), and each chapter's blocks: paragraphs as the chapter has them, the
// full-width indent and punctuation untouched.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { exportManuscript } from '../../../../src/worldline/export';
import { bookOf, chapterBlocks, xmlSafe } from '../../../../src/worldline/exporters/chapters';
import { runs } from '../../long-mode';
import { BOOK, CHAPTER_TITLES, HOSTILE } from './fixture';

/** Each chapter's first heading in the Markdown export: the line after its path comment's blank line. */
function markdownChapterHeadings(md: string): { path: string; level: number; text: string }[] {
  const out: { path: string; level: number; text: string }[] = [];
  const blocks = md.split(/^<!-- (.*) -->$/m);
  for (let i = 1; i < blocks.length; i += 2) {
    const m = /^\n\n {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/m.exec(blocks[i + 1]!);
    assert.ok(m, `a heading after ${blocks[i]}`);
    out.push({ path: blocks[i]!, level: m[1]!.length, text: m[2] ?? '' });
  }
  return out;
}

describe('exporters: the chapter model', () => {
  it('the title, the save line, the chapters and their headings are the Markdown export\'s', () => {
    const book = bookOf(BOOK);
    const md = exportManuscript(BOOK);
    assert.equal(book.title, '听雨 <&> 轩');
    assert.ok(md.startsWith(`# ${book.title}\n\n> ${book.where}\n`));
    assert.equal(book.where, '世界线「主线」 · 存档「雨夜问名」');
    assert.deepEqual(book.chapters.map((c) => c.title), CHAPTER_TITLES);
    assert.deepEqual(book.chapters.map((c) => c.blocks[0]), markdownChapterHeadings(md).map((h) => ({ kind: 'heading', level: h.level, text: h.text })));
  });

  it('for any files and headings, the chapters, in order, carry the headings the Markdown export gives them', () => {
    const line = fc.constantFrom('　　雨下了。', 'plain words', '“对话。”', '# 章', '### 小节', '## 二级', '标题\n===', '', '---', '> 引文', '```\n# not a heading\n```');
    const file = fc.record({ path: fc.constantFrom('a.md', 'b/2.md', 'b/10.md', '第二章.md', '第十章.txt', 'x.md'), text: fc.array(line, { maxLength: 6 }).map((l) => l.join('\n\n')) });
    fc.assert(fc.property(fc.uniqueArray(file, { selector: (f) => f.path, minLength: 1, maxLength: 5 }), (files) => {
      const input = { ...BOOK, files };
      const book = bookOf(input);
      const md = markdownChapterHeadings(exportManuscript(input));
      assert.deepEqual(book.chapters.map((c) => c.path), md.map((h) => h.path));
      assert.deepEqual(book.chapters.map((c) => c.blocks[0]), md.map((h) => ({ kind: 'heading', level: h.level, text: h.text })));
    }), { numRuns: runs(200, 5000) });
  });

  it('paragraphs: a blank line or a full-width indent begins one; Chinese lines join without a space, English with one', () => {
    assert.deepEqual(chapterBlocks('　　甲。\n　　乙。\n\n丙，\n丁。\n\nsoft\nwrap\n\n中文\nand English', { linePerParagraph: false }), [
      { kind: 'paragraph', text: '　　甲。', quote: false },
      { kind: 'paragraph', text: '　　乙。', quote: false },
      { kind: 'paragraph', text: '丙，丁。', quote: false },
      { kind: 'paragraph', text: 'soft wrap', quote: false },
      { kind: 'paragraph', text: '中文and English', quote: false },
    ]);
    assert.deepEqual(chapterBlocks('一行\n二行', { linePerParagraph: true }).map((b) => b.kind === 'paragraph' && b.text), ['一行', '二行'], 'a .txt chapter: a line is a paragraph');
  });

  it('scene breaks, quotes, inner headings, fenced text and comments', () => {
    assert.deepEqual(chapterBlocks('前文。\n\n***\n\n> 信：\n> 雨停再来。\n后文。\n\n### 夜半 ###\n\n```\n# 招牌\n```\n\n<!-- 作者注 -->\n', { linePerParagraph: false }), [
      { kind: 'paragraph', text: '前文。', quote: false },
      { kind: 'break' },
      { kind: 'paragraph', text: '信：雨停再来。', quote: true },
      { kind: 'paragraph', text: '后文。', quote: false },
      { kind: 'heading', level: 3, text: '夜半' },
      { kind: 'paragraph', text: '# 招牌', quote: false },
    ]);
  });

  it('the prose is kept as written: full-width punctuation, indents and hostile text untouched', () => {
    const book = bookOf(BOOK);
    const texts = book.chapters.flatMap((c) => c.blocks.map((b) => (b.kind === 'break' ? '—' : b.text)));
    assert.deepEqual(texts, [
      '第一章 雨夜', '　　镇北渡口的雨下了一整天，傍晚时分反倒更密了。', '　　柜台后的女子说：“客官，上房没了，柴房还有一间。”',
      '02', `　　他笑道：“${HOSTILE}无妨。”`, '　　第一行紧跟着', '　　第二行也是一段。', '—', '信上写着：雨停再来。', '夜半', '　　灯灭了。',
      '10', '　　行一，船到了。', '　　行二：“走吧。”',
    ]);
  });

  it('xmlSafe drops only what XML cannot hold', () => {
    assert.equal(xmlSafe('a\u0000b\u0007c\td\ne\u3000f\ud83d\ude00g\ud800h'), 'abc\td\ne\u3000f\ud83d\ude00gh');
  });
});
