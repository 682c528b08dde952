// TXT per chapter: one file per chapter, numbered in reading order, named by the chapter's
// heading; the heading on the first line without Markdown marks, then the paragraphs with the
// indent the chapter has (the leading 　　 kept, none added), a blank line between them.
import { strict as assert } from 'node:assert';
import { bookOf } from '../../../../src/worldline/exporters/chapters';
import { exportTxt } from '../../../../src/worldline/exporters/txt';
import { BOOK, HOSTILE } from './fixture';

describe('exporters: TXT per chapter', () => {
  it('one file per chapter, in reading order, named by the heading', () => {
    assert.deepEqual(exportTxt(bookOf(BOOK)).map((f) => f.name), ['01 第一章 雨夜.txt', '02 02.txt', '03 10.txt']);
  });

  it('the heading first, then the paragraphs with their own indent; no Markdown marks', () => {
    const [one, two, ten] = exportTxt(bookOf(BOOK)).map((f) => f.text);
    assert.equal(one, '第一章 雨夜\n\n　　镇北渡口的雨下了一整天，傍晚时分反倒更密了。\n\n　　柜台后的女子说：“客官，上房没了，柴房还有一间。”\n');
    assert.equal(two, `02\n\n　　他笑道：“${HOSTILE}无妨。”\n\n　　第一行紧跟着\n\n　　第二行也是一段。\n\n* * *\n\n信上写着：雨停再来。\n\n夜半\n\n　　灯灭了。\n`);
    assert.equal(ten, '10\n\n　　行一，船到了。\n\n　　行二：“走吧。”\n');
  });

  it('a chapter without indent gets none; names stay file-system safe and numbered past 99', () => {
    const files = Array.from({ length: 120 }, (_, i) => ({ path: `c/${i + 1}.md`, text: `# 第${i + 1}章：风/雨*?\n\n没有缩进的段落。` }));
    const out = exportTxt(bookOf({ ...BOOK, files }));
    assert.equal(out.length, 120);
    assert.equal(out[0]!.name, '001 第1章：风_雨__.txt');
    assert.equal(out[119]!.name, '120 第120章：风_雨__.txt');
    assert.equal(new Set(out.map((f) => f.name)).size, 120);
    assert.equal(out[0]!.text, '第1章：风/雨*?\n\n没有缩进的段落。\n');
  });
});
