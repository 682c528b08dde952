// DOCX: the file is a Word package whose word/document.xml holds the title, the save line, each
// chapter's heading (Heading 2, on a new page) and its paragraphs in reading order, the Chinese
// text, full-width punctuation and leading 　　 intact and markup characters escaped.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { strFromU8, unzipSync } from 'fflate';
import { bookOf, xmlSafe } from '../../../../src/worldline/exporters/chapters';
import { exportDocx } from '../../../../src/worldline/exporters/docx';
import { runs } from '../../long-mode';
import { BOOK, HOSTILE } from './fixture';
import { findAll, parseXml, textOf } from './xml';

/** Each w:p of the body: its style (Heading1…, or '' for body text), its text, whether it starts a page. */
function paragraphs(documentXml: string): { style: string; text: string; pageBreak: boolean }[] {
  const body = findAll(parseXml(documentXml), 'w:body')[0]!;
  return findAll(body, 'w:p').map((p) => {
    const style = findAll(p, 'w:pStyle')[0]?.attrs['w:val'] ?? '';
    const text = findAll(p, 'w:t').map(textOf).join('');
    return { style, text, pageBreak: findAll(p, 'w:pageBreakBefore').length > 0 };
  });
}

async function documentXml(input = BOOK): Promise<{ files: Record<string, Uint8Array>; xml: string }> {
  const bytes = await exportDocx(bookOf(input));
  assert.deepEqual([...bytes.slice(0, 4)], [0x50, 0x4b, 0x03, 0x04], 'a zip file');
  const files = unzipSync(bytes);
  return { files, xml: strFromU8(files['word/document.xml']!) };
}

describe('exporters: DOCX', () => {
  it('a Word package: content types, the document and its relationships', async () => {
    const { files } = await documentXml();
    for (const name of ['[Content_Types].xml', '_rels/.rels', 'word/document.xml', 'word/styles.xml']) assert.ok(files[name], name);
    assert.match(strFromU8(files['[Content_Types].xml']!), /wordprocessingml\.document\.main\+xml/);
    assert.match(strFromU8(files['docProps/core.xml']!), /<dc:title>听雨 &lt;&amp;&gt; 轩<\/dc:title>/);
  });

  it('document.xml: the title, the save line, then each chapter heading and its paragraphs, in order', async () => {
    const { xml } = await documentXml();
    assert.deepEqual(paragraphs(xml), [
      { style: 'Heading1', text: '听雨 <&> 轩', pageBreak: false },
      { style: '', text: '世界线「主线」 · 存档「雨夜问名」', pageBreak: false },
      { style: 'Heading2', text: '第一章 雨夜', pageBreak: true },
      { style: '', text: '　　镇北渡口的雨下了一整天，傍晚时分反倒更密了。', pageBreak: false },
      { style: '', text: '　　柜台后的女子说：“客官，上房没了，柴房还有一间。”', pageBreak: false },
      { style: 'Heading2', text: '02', pageBreak: true },
      { style: '', text: `　　他笑道：“${HOSTILE}无妨。”`, pageBreak: false },
      { style: '', text: '　　第一行紧跟着', pageBreak: false },
      { style: '', text: '　　第二行也是一段。', pageBreak: false },
      { style: '', text: '* * *', pageBreak: false },
      { style: '', text: '信上写着：雨停再来。', pageBreak: false },
      { style: 'Heading3', text: '夜半', pageBreak: false },
      { style: '', text: '　　灯灭了。', pageBreak: false },
      { style: 'Heading2', text: '10', pageBreak: true },
      { style: '', text: '　　行一，船到了。', pageBreak: false },
      { style: '', text: '　　行二：“走吧。”', pageBreak: false },
    ]);
    // Escaped, never markup: the raw XML holds the entities, and no <script> element.
    assert.ok(xml.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ]]&gt; &amp;amp;'));
    assert.equal(findAll(parseXml(xml), 'script').length, 0);
    // The leading full-width spaces are text Word keeps (space="preserve" is not even needed for them).
    assert.match(xml, /<w:t[^>]*>　　镇北渡口/);
  });

  it('any chapter text comes out well-formed, each block as the chapter model has it (only control characters dropped)', async () => {
    const text = fc.string({ unit: fc.constantFrom('<', '>', '&', ']]>', '"', "'", '\u3000', '，', '“', '”', '雨', 'a', ' ', '\n', '\n\n', '\u0001', '\ud83d\ude00', '&amp;', '# '), maxLength: 30 });
    await fc.assert(fc.asyncProperty(text, async (t) => {
      const input = { ...BOOK, files: [{ path: 'c.md', text: `# 章\n\n${t}` }] };
      const { xml } = await documentXml(input);
      const blocks = bookOf(input).chapters[0]!.blocks.map((b) => (b.kind === 'break' ? '* * *' : xmlSafe(b.text)));
      assert.deepEqual(paragraphs(xml).slice(2).map((p) => p.text), blocks);
      assert.ok(!xml.includes('\u0001'));
    }), { numRuns: runs(30, 500) });
  });
});
