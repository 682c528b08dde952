// The pure helpers behind the tools: manuscript globs, word counts, reading order, text matching.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  charCount,
  closestLine,
  compareReadingOrder,
  countWords,
  detectEol,
  findOccurrences,
  formatCount,
  isReservedSegment,
  lineAtOffset,
  parseChineseNumber,
  splitLines,
  withEol,
} from '../../../src/agent/manuscript';
import { manuscriptOf } from '../../../src/project/manuscript';

const GLOBS = ['**/*.md', '**/*.txt'];
const isManuscriptFile = (rel: string, globs: readonly string[]) => manuscriptOf(globs).matches(rel);

describe('agent/manuscript helpers', () => {
  it('the manuscript the tools see follows the globs and never admits reserved folders', () => {
    assert.ok(isManuscriptFile('01.md', GLOBS));
    assert.ok(isManuscriptFile('a/b/c.txt', GLOBS));
    assert.ok(isManuscriptFile('第一卷/第一章 开端.md', GLOBS));
    assert.ok(!isManuscriptFile('notes.json', GLOBS));
    assert.ok(!isManuscriptFile('worldline.yaml', GLOBS));
    assert.ok(!isManuscriptFile('.git/a.md', ['**/*.md', '.git/*.md']));
    assert.ok(!isManuscriptFile('x/NODE_MODULES/a.md', ['**']));
    assert.ok(!isManuscriptFile('', GLOBS));
    assert.ok(!isManuscriptFile('/abs.md', GLOBS));
    assert.ok(isManuscriptFile('chapters/1.md', ['./chapters/*.md']));
    assert.ok(!isManuscriptFile('a.md', []));
  });

  it('isReservedSegment folds case, width and ignorable characters', () => {
    for (const s of ['.git', '.GIT', '.Worldline', 'node_modules', 'Node_Modules', '．ｇｉｔ', '.g\u200cit', '.git\ufeff', '.vscode', '.VSCode']) assert.ok(isReservedSegment(s), s);
    for (const s of ['git', '.gitignore', '.github', 'worldline', 'modules']) assert.ok(!isReservedSegment(s), s);
  });

  it('countWords counts CJK characters one each plus Latin words', () => {
    assert.equal(countWords(''), 0);
    assert.equal(countWords('Hello, world!'), 2);
    assert.equal(countWords("don't stop-motion 1,204"), 4);
    assert.equal(countWords('青梧推开门。'), 5);
    assert.equal(countWords('她说：“OK，走吧。”'), 5);
    assert.equal(countWords('# 第一章\n\nThe rain 还在下。'), 3 + 2 + 3);
    assert.equal(countWords('ひらがな カタカナ'), 8);
    assert.equal(countWords('안녕 세상'), 2);
    assert.equal(countWords('café naïve'), 2);
    assert.equal(countWords('𠀋𠀋'), 2); // CJK extension B, surrogate pairs
  });

  it('charCount counts code points', () => {
    assert.equal(charCount('abc'), 3);
    assert.equal(charCount('😀𠀋'), 2);
    assert.equal(charCount('\ud800x'), 2); // a lone surrogate still counts as one
  });

  it('splitLines, detectEol and withEol agree with an editor', () => {
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('a'), ['a']);
    assert.deepEqual(splitLines('a\n'), ['a']);
    assert.deepEqual(splitLines('a\n\n'), ['a', '']);
    assert.deepEqual(splitLines('a\r\nb'), ['a', 'b']);
    assert.equal(detectEol('a\r\nb\n'), '\r\n');
    assert.equal(detectEol('a\nb\r\n'), '\n');
    assert.equal(detectEol('abc'), '\n');
    assert.equal(withEol('a\nb\r\nc', '\r\n'), 'a\r\nb\r\nc');
    assert.equal(withEol('a\r\nb', '\n'), 'a\nb');
  });

  it('formatCount groups thousands', () => {
    assert.equal(formatCount(0), '0');
    assert.equal(formatCount(1204), '1,204');
    assert.equal(formatCount(-1234567), '-1,234,567');
  });

  it('parseChineseNumber reads chapter numbers', () => {
    const cases: [string, number][] = [['一', 1], ['十', 10], ['十二', 12], ['二十', 20], ['二十三', 23], ['一百零五', 105], ['三百', 300], ['一千零一', 1001], ['两万三千', 23000], ['二〇二', 202], ['零', 0]];
    for (const [s, n] of cases) assert.equal(parseChineseNumber(s), n, s);
    assert.equal(parseChineseNumber(''), undefined);
  });

  it('compareReadingOrder sorts numbers by value, Arabic and Chinese', () => {
    const sorted = ['chapters/10.md', 'chapters/2.md', 'chapters/1.md', 'a.md', 'chapters/02b.md', '第十章.md', '第二章.md', '第十一章.md', '第一章.md', 'B.md']
      .sort(compareReadingOrder);
    assert.deepEqual(sorted, ['a.md', 'B.md', 'chapters/1.md', 'chapters/2.md', 'chapters/02b.md', 'chapters/10.md', '第一章.md', '第二章.md', '第十章.md', '第十一章.md']);
  });

  it('compareReadingOrder is a consistent total order', () => {
    const name = fc.array(fc.constantFrom('1', '2', '10', '01', 'a', 'B', '第', '十', '二', '章', '.md', '/'), { maxLength: 6 }).map((p) => p.join(''));
    fc.assert(
      fc.property(name, name, name, (a, b, c) => {
        assert.equal(Math.sign(compareReadingOrder(a, b)) + Math.sign(compareReadingOrder(b, a)), 0);
        if (compareReadingOrder(a, b) === 0) assert.equal(a, b);
        if (compareReadingOrder(a, b) < 0 && compareReadingOrder(b, c) < 0) assert.ok(compareReadingOrder(a, c) < 0, `${a} < ${b} < ${c}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('findOccurrences, lineAtOffset and closestLine support edit hints', () => {
    assert.deepEqual(findOccurrences('abcabc', 'bc'), [1, 4]);
    assert.deepEqual(findOccurrences('aaaa', 'aa'), [0, 1, 2]);
    assert.deepEqual(findOccurrences('abc', ''), []);
    assert.equal(lineAtOffset('a\nb\nc', 0), 1);
    assert.equal(lineAtOffset('a\nb\nc', 2), 2);
    assert.equal(lineAtOffset('a\nb\nc', 4), 3);
    assert.deepEqual(closestLine('第一行\n青梧推开门，雨还在下。\n', '青梧推开窗，雨还在下。'), { line: 2, text: '青梧推开门，雨还在下。' });
    assert.equal(closestLine('completely different', 'zzzz qqqq'), undefined);
  });
});
