// The writing tools' instructions: the passage of a selection and its place in the file (1-based
// lines, CJK text, at the start and end of the file, Continue from Cursor on an empty selection),
// the instruction in the project's language naming the file, the lines and edit_file's arguments,
// and the quote Send Selection to Chat puts in the composer.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { CONTEXT_CHARS, chatQuote, lineAt, passageOf, selectionInstruction, type Passage, type SelectionTool } from '../../../src/story/selectionTools';
import { runs } from '../long-mode';

const FILE = 'chapters/03.md';
const CHAPTER = '# 第三章\n\n雨下了一夜。\n青梧关上门，吹灭了灯。\n林砚在黑暗里坐着。\n';

/** The passage of the first occurrence of `picked` in `text`. */
function pick(text: string, picked: string, tool: SelectionTool = 'rewrite'): Passage {
  const start = text.indexOf(picked);
  assert.ok(start >= 0, `"${picked}" is in the text`);
  const result = passageOf({ file: FILE, text, start, end: start + picked.length }, tool);
  assert.ok(result.ok, 'a passage');
  return result.passage;
}

describe('selection tools: the passage and its place', () => {
  it('numbers lines from 1, over CJK text, the passage exactly the selection', () => {
    const p = pick(CHAPTER, '青梧关上门，吹灭了灯。');
    assert.equal(p.startLine, 4);
    assert.equal(p.endLine, 4);
    assert.equal(p.text, '青梧关上门，吹灭了灯。');
    assert.equal(p.before, '# 第三章\n\n雨下了一夜。\n');
    assert.equal(p.after, '\n林砚在黑暗里坐着。\n');
  });

  it('a selection over several lines, and one that ends at the start of the next line, end on the last line picked', () => {
    const two = pick(CHAPTER, '雨下了一夜。\n青梧');
    assert.deepEqual([two.startLine, two.endLine], [3, 4]);
    const whole = pick(CHAPTER, '雨下了一夜。\n青梧关上门，吹灭了灯。\n');
    assert.deepEqual([whole.startLine, whole.endLine], [3, 4], 'the line break at the end does not count a fifth line');
  });

  it('at the start of the file there is nothing before; at the end nothing after', () => {
    const first = pick(CHAPTER, '# 第三章');
    assert.deepEqual([first.startLine, first.endLine, first.before], [1, 1, '']);
    const text = '开头。\n最后一句。';
    const last = pick(text, '最后一句。');
    assert.deepEqual([last.startLine, last.endLine, last.after], [2, 2, '']);
  });

  it('CRLF files count lines the same', () => {
    const crlf = CHAPTER.replace(/\n/g, '\r\n');
    const p = pick(crlf, '林砚在黑暗里坐着。');
    assert.deepEqual([p.startLine, p.endLine], [5, 5]);
  });

  it('the context either side is short: at most CONTEXT_CHARS, and no emoji is cut in half', () => {
    const long = `${'夜'.repeat(500)}😀${'雨'.repeat(CONTEXT_CHARS - 1)}【选中】${'风'.repeat(CONTEXT_CHARS - 1)}😀${'灯'.repeat(500)}`;
    const p = pick(long, '【选中】');
    assert.ok(p.before.length <= CONTEXT_CHARS && p.after.length <= CONTEXT_CHARS);
    assert.ok(!/[\ud800-\udbff]$/.test(p.after) && !/^[\udc00-\udfff]/.test(p.before), 'no half surrogate at the cuts');
  });

  it('Rewrite and the others refuse an empty or blank selection', () => {
    for (const tool of ['rewrite', 'expand', 'shrink', 'describe'] as const) {
      assert.deepEqual(passageOf({ file: FILE, text: CHAPTER, start: 5, end: 5 }, tool), { ok: false, reason: 'emptySelection' });
      const blank = CHAPTER.indexOf('\n\n');
      assert.equal(passageOf({ file: FILE, text: CHAPTER, start: blank, end: blank + 2 }, tool).ok, false, `${tool}: only blanks`);
    }
  });

  it('Continue from Cursor with no selection takes the cursor line; on a blank line the nearest line with text above it', () => {
    const inLine = CHAPTER.indexOf('吹灭');
    const cont = passageOf({ file: FILE, text: CHAPTER, start: inLine, end: inLine }, 'continue');
    assert.ok(cont.ok);
    assert.equal(cont.passage.text, '青梧关上门，吹灭了灯。');
    assert.deepEqual([cont.passage.startLine, cont.passage.endLine, cont.passage.anchor], [4, 4, 'after']);

    const end = passageOf({ file: FILE, text: CHAPTER, start: CHAPTER.length, end: CHAPTER.length }, 'continue');
    assert.ok(end.ok, 'the cursor on the empty last line');
    assert.equal(end.passage.text, '林砚在黑暗里坐着。');
    assert.equal(end.passage.startLine, 5);

    const text = '\n\n第一句。\n';
    const top = passageOf({ file: FILE, text, start: 0, end: 0 }, 'continue');
    assert.ok(top.ok);
    assert.deepEqual([top.passage.text, top.passage.startLine, top.passage.anchor], ['第一句。', 3, 'before'], 'above all text: the text goes before the first line');

    const empty = passageOf({ file: FILE, text: '\n  \n', start: 1, end: 1 }, 'continue');
    assert.ok(empty.ok);
    assert.equal(empty.passage.anchor, 'empty');
  });

  it('offsets out of range or reversed are read as the editor means them', () => {
    const start = CHAPTER.indexOf('林砚');
    const reversed = passageOf({ file: FILE, text: CHAPTER, start: start + 2, end: start }, 'rewrite');
    assert.ok(reversed.ok);
    assert.equal(reversed.passage.text, '林砚');
    const past = passageOf({ file: FILE, text: CHAPTER, start, end: 10_000 }, 'rewrite');
    assert.ok(past.ok);
    assert.equal(past.passage.text, CHAPTER.slice(start));
  });

  it('property: the passage is the text between its offsets, its lines are where it is, context touches it', () => {
    fc.assert(fc.property(
      fc.string({ unit: fc.constantFrom('a', '雨', '\n', '\r\n', ' ', '😀', '。') as fc.Arbitrary<string>, maxLength: 80 }),
      fc.nat(100), fc.nat(100), fc.constantFrom<SelectionTool>('rewrite', 'continue'),
      (text, a, b, tool) => {
        const result = passageOf({ file: FILE, text, start: a, end: b }, tool);
        if (!result.ok) {
          assert.equal(tool, 'rewrite');
          return;
        }
        const p = result.passage;
        if (p.anchor === 'empty') return assert.equal(text.trim(), '');
        assert.ok(text.includes(p.before + p.text + p.after), 'before, passage and after are contiguous in the text');
        const s0 = Math.min(a, b, text.length);
        const e0 = Math.min(Math.max(a, b), text.length);
        if (text.slice(s0, e0).trim() !== '') {
          assert.equal(p.text, text.slice(s0, e0), 'a selection with text is the passage exactly');
          assert.equal(p.startLine, lineAt(text, s0));
          assert.ok(text.slice(0, s0).endsWith(p.before) && text.slice(e0).startsWith(p.after), 'the context touches the passage');
        } else {
          assert.equal(tool, 'continue');
          assert.notEqual(p.text.trim(), '', 'continue anchors on a line with text');
          assert.ok(!p.text.includes('\n'), 'one line');
        }
        assert.ok(p.endLine >= p.startLine && p.endLine <= text.split('\n').length);
        assert.ok(p.before.length <= CONTEXT_CHARS && p.after.length <= CONTEXT_CHARS);
      },
    ), { numRuns: runs(200, 5000) });
  });
});

describe('selection tools: the instruction', () => {
  const p = pick(CHAPTER, '青梧关上门，吹灭了灯。');

  it('in Chinese: the task, the file and lines, the passage quoted, edit_file with path and old_text', () => {
    const text = selectionInstruction('rewrite', p, 'zh');
    assert.match(text, /改写/);
    assert.ok(text.includes(`${FILE} 第 4 行`));
    assert.ok(text.includes('【原文开始】\n青梧关上门，吹灭了灯。\n【原文结束】'));
    assert.ok(text.includes('edit_file') && text.includes(`path 为 "${FILE}"`) && text.includes('old_text') && text.includes('new_text'));
    assert.ok(text.includes('雨下了一夜。') && text.includes('林砚在黑暗里坐着。'), 'the text either side');
    assert.doesNotMatch(text, /Rewrite|passage/, 'no English in a Chinese project');
  });

  it('in English, with the novelist\'s own instruction for Rewrite; an empty one is a plain rewrite', () => {
    const en = pick('The rain fell.\nQingwu shut the door.\nDark.\n', 'Qingwu shut the door.');
    const noted = selectionInstruction('rewrite', en, 'en', '  more menace  ');
    assert.ok(noted.includes('The novelist asks: more menace'));
    assert.ok(noted.includes(`${FILE}, line 2`));
    assert.ok(noted.includes(`path "${FILE}"`));
    assert.equal(selectionInstruction('rewrite', en, 'en', '   '), selectionInstruction('rewrite', en, 'en'));
  });

  it('each tool asks its own thing; Describe names the senses; Continue keeps the passage and adds after it', () => {
    const texts = (['rewrite', 'expand', 'shrink', 'describe', 'continue'] as const).map((t) => selectionInstruction(t, p, 'en'));
    assert.equal(new Set(texts).size, 5);
    assert.match(texts[3]!, /sight, sound, smell, touch, taste/);
    assert.match(texts[4]!, /the passage, unchanged, followed by the new prose/);
    assert.match(selectionInstruction('continue', p, 'zh'), /原文（一字不改）加上新写的文字/);
    const before = passageOf({ file: FILE, text: '\n第一句。', start: 0, end: 0 }, 'continue');
    assert.ok(before.ok);
    assert.match(selectionInstruction('continue', before.passage, 'en'), /the new prose followed by the passage/);
    const empty = passageOf({ file: FILE, text: '', start: 0, end: 0 }, 'continue');
    assert.ok(empty.ok);
    assert.match(selectionInstruction('continue', empty.passage, 'en'), /append_file/);
  });

  it('a range of lines is named as a range', () => {
    assert.ok(selectionInstruction('expand', pick(CHAPTER, '一夜。\n青梧'), 'zh').includes('第 3–4 行'));
    assert.ok(selectionInstruction('expand', pick(CHAPTER, '一夜。\n青梧'), 'en').includes('lines 3–4'));
  });
});

describe('selection tools: Send Selection to Chat', () => {
  it('quotes the passage line by line under its place, with room for the novelist after it', () => {
    const p = pick(CHAPTER, '雨下了一夜。\n青梧关上门，吹灭了灯。\n');
    assert.equal(chatQuote(p, 'zh'), `${FILE} 第 3–4 行：\n> 雨下了一夜。\n> 青梧关上门，吹灭了灯。\n\n`);
    const blankInside = pick('a\n\nb\n', 'a\n\nb');
    assert.equal(chatQuote(blankInside, 'en'), `${FILE}, lines 1–3:\n> a\n>\n> b\n\n`);
  });
});
