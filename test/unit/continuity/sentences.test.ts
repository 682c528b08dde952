import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { quoteMask, splitClauses, splitSentences } from '../../../src/continuity/sentences';
import { runs } from '../long-mode';

const texts = (t: string): string[] => splitSentences(t).map((s) => s.text);

describe('continuity sentences', () => {
  it('Chinese ends and quotes kept with their sentence and attribution', () => {
    assert.deepEqual(texts('「你来了。」青梧道。林砚点头！他走了……\n「走吧。」「好。」'), ['「你来了。」青梧道。', '林砚点头！', '他走了……', '「走吧。」', '「好。」']);
    assert.deepEqual(texts('青梧说：“雨停了。我们走吧？”林砚没动；天黑了'), ['青梧说：“雨停了。我们走吧？”林砚没动；', '天黑了']);
  });

  it('English: abbreviations, initials and decimals do not end a sentence; quotes stay with attribution', () => {
    assert.deepEqual(texts('Mr. Hale paid 3.50 to J. R. Smith. "Go," Elara said. She left!'), ['Mr. Hale paid 3.50 to J. R. Smith.', '"Go," Elara said.', 'She left!']);
    assert.deepEqual(texts('"Stop! Now." Mira froze.'), ['"Stop! Now." Mira froze.']);
  });

  it('a line break always ends a sentence, so an unclosed quote cannot run on', () => {
    assert.deepEqual(texts('「没有收尾的引号\n下一段。'), ['「没有收尾的引号', '下一段。']);
    const m = quoteMask('「a\nb」');
    assert.equal(m[2], 0); // the newline resets the quote
    assert.equal(m[1], 1);
  });

  it('clauses split at commas and colons outside quotes', () => {
    const t = '青梧放下茶杯，说：「好，走吧。」';
    const [s] = splitSentences(t);
    assert.deepEqual(splitClauses(t, s!, quoteMask(t)).map((c) => t.slice(c.start, c.end)), ['青梧放下茶杯，', '说：', '「好，走吧。」']);
  });

  it('paragraphs are counted', () => {
    assert.deepEqual(splitSentences('一。二。\n\n三。').map((s) => s.paragraph), [0, 0, 2]);
  });

  it('property: every sentence is exactly the substring at its offsets, in order, none empty', () => {
    const alphabet = fc.constantFrom(...'青梧说道。！？…；\n「」『』“”"abc .!?Mr '.split(''));
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 200 }).map((a) => a.join('')), (t) => {
      let last = 0;
      for (const s of splitSentences(t)) {
        assert.equal(t.slice(s.start, s.end), s.text);
        assert.ok(s.text.trim() !== '' && s.start >= last && s.end > s.start);
        last = s.end;
      }
    }), { numRuns: runs(300, 5000) });
  });
});
