// The first words of a text for a one-line choice: whitespace collapsed, controls and bidi gone,
// about 40 columns (a CJK character two), whole words where the language has spaces, clusters
// never split, the ellipsis only when something was cut. Hostile input (property) keeps all that.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { firstWords } from '../../../src/common/firstWords';
import { markdownText } from '../../../src/common/markdownText';
import { pickText } from '../../../src/common/pickText';
import { runs } from '../long-mode';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Columns as the test counts them: Han, kana, Hangul and fullwidth forms two, anything else one. */
function columns(s: string): number {
  let n = 0;
  for (const { segment } of segmenter.segment(s)) n += /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60\uffe0-\uffe6\p{Extended_Pictographic}]/u.test(segment) ? 2 : 1;
  return n;
}
/** The text on one line, as the reader sees it. */
const oneLine = (s: string) => s.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu, ' ').replace(/\s+/gu, ' ').trim();

describe('firstWords', () => {
  it('short text as it is, on one line', () => {
    assert.equal(firstWords('Rain at the inn'), 'Rain at the inn');
    assert.equal(firstWords('  Rain\n\n at\tthe \u2028 inn  '), 'Rain at the inn');
    assert.equal(firstWords(''), '');
    assert.equal(firstWords(' \n\t '), '');
    assert.equal(firstWords('a\u202eb\u2066c'), 'abc', 'bidi controls go');
    assert.equal(firstWords('x'.repeat(40)), 'x'.repeat(40), 'exactly the width: nothing cut');
    assert.equal(firstWords('雨'.repeat(20)), '雨'.repeat(20), '20 汉字 fill 40 columns');
  });

  it('a long text is cut at a whole word with an ellipsis; CJK where it ends', () => {
    assert.equal(firstWords('She pushed the door open and the sound of the rain came in with her.'), 'She pushed the door open and the sound…');
    assert.equal(firstWords('Rain fell on the inn all night long, and nobody slept.'), 'Rain fell on the inn all night long,…');
    assert.equal(firstWords('Supercalifragilisticexpialidociouslyyours and more'), 'Supercalifragilisticexpialidociouslyyou…', 'one long word: cut inside it');
    const cjk = '她推开客栈的门，雨水顺着斗笠滴落在门槛上，掌柜抬起头来。';
    assert.equal(firstWords(cjk), `${cjk.slice(0, 19)}…`);
    assert.equal(firstWords('第三回 她推开客栈的门，雨水顺着斗笠滴落在门槛上'), '第三回 她推开客栈的门，雨水顺着斗笠滴落…', 'a space early on is no word boundary to go back to');
    assert.equal(firstWords('abc def ghi', { width: 8 }), 'abc def…');
    assert.equal(firstWords('👩‍👩‍👧‍👦'.repeat(30)), `${'👩‍👩‍👧‍👦'.repeat(19)}…`, 'a family emoji is one cluster, two columns');
    assert.equal(firstWords(`${'word '.repeat(2_000_000)}end`).endsWith('…'), true, 'a huge text: only its head is read');
  });

  it('hostile text: one line, within the width, the ellipsis only when cut, a prefix of the text (property)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('雨', 'a', ' ', '\n', '\u202e', '👩‍👧', 'é', '\u0301', '。', 'W', '\t') }));
    fc.assert(fc.property(text, fc.integer({ min: 2, max: 60 }), (s, width) => {
      const out = firstWords(s, { width });
      assert.ok(!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/u.test(out), JSON.stringify(out));
      assert.ok(columns(out) <= width, `${JSON.stringify(out)} is wider than ${width}`);
      const line = oneLine(s);
      if (out === line) return;
      assert.ok(out.endsWith('…') && line.startsWith(out.slice(0, -1)), `${JSON.stringify(out)} from ${JSON.stringify(line)}`);
    }), { numRuns: runs(500, 10_000) });
  });
});

describe('markdownText', () => {
  it('escapes every ASCII punctuation mark and puts the text on one line', () => {
    assert.equal(markdownText('[x](javascript:alert(1))'), '\\[x\\]\\(javascript\\:alert\\(1\\)\\)');
    assert.equal(markdownText('<b>&amp;</b>'), '\\<b\\>\\&amp\\;\\<\\/b\\>');
    assert.equal(markdownText('a\n\n# h\u202e'), 'a \\# h');
    assert.equal(markdownText('雨夜，客栈'), '雨夜，客栈', 'CJK punctuation starts nothing in Markdown');
  });
});

describe('pickText', () => {
  it('escapes the icon syntax a quick pick would draw, and nothing else', () => {
    assert.equal(pickText('删掉 $(trash) 和 $(sync~spin)'), '删掉 \\$(trash) 和 \\$(sync~spin)');
    assert.equal(pickText('costs $(5 or $( x)'), 'costs $(5 or $( x)');
  });
});
