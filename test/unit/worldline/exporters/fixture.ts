// A small book for the exporters' tests: chapters out of reading order, one with its own heading,
// one without (it is named after its file), one plain .txt chapter written a paragraph a line, a
// scene break, a quote, hostile text (markup, &, "]]>") and full-width punctuation and indents.
import type { ExportManuscriptInput } from '../../../../src/worldline/export';

export const HOSTILE = '<script>alert("x")</script> & ]]> &amp;';

export const BOOK: ExportManuscriptInput = {
  title: '听雨 <&> 轩',
  saveName: '雨夜问名',
  worldlineName: '主线',
  lang: 'zh',
  files: [
    { path: 'chapters/10.txt', text: '　　行一，船到了。\n　　行二：“走吧。”\n' },
    {
      path: 'chapters/02.md',
      text: `　　他笑道：“${HOSTILE}无妨。”\n\n　　第一行紧跟着\n　　第二行也是一段。\n\n---\n\n> 信上写着：\n> 雨停再来。\n\n## 夜半\n\n　　灯灭了。\n`,
    },
    { path: 'chapters/01.md', text: '\ufeff# 第一章 雨夜\r\n\r\n　　镇北渡口的雨下了一整天，傍晚时分反倒更密了。\r\n\r\n　　柜台后的女子说：“客官，上房没了，柴房还有一间。”\r\n' },
  ],
};

/** The chapters' headings in reading order, as the Markdown export names them. */
export const CHAPTER_TITLES = ['第一章 雨夜', '02', '10'];
