// EPUB 3 (with a toc.ncx for EPUB 2 readers): the `mimetype` entry first and stored uncompressed,
// META-INF/container.xml pointing at the package document, the package (metadata, manifest,
// spine), the nav document, a title page and one XHTML file per chapter. Every text goes in
// escaped; nothing of the chapter is ever markup. The paragraph indent stays what the chapter
// has (the leading 　　 is text, which HTML does not collapse; the style sheet sets text-indent
// to 0 so a reader adds none on top).
import { createHash } from 'node:crypto';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { xmlSafe, type Block, type Book } from './chapters';

export interface EpubOptions {
  /** dcterms:modified, and the files' times in the zip. */
  modified: Date;
}

export const OPF_PATH = 'OEBPS/content.opf';

/** Escaped for XML text and attribute values; characters XML cannot hold are dropped. */
export function escapeXml(text: string): string {
  return xmlSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const langTag = (book: Book): string => (book.lang === 'zh' ? 'zh-CN' : 'en');

/** "2026-12-02T07:00:00Z": dcterms:modified takes whole seconds. */
const isoSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** The same book at the same save keeps its identifier, so a reader replaces it instead of adding a copy. */
function identifier(book: Book): string {
  const h = createHash('sha1').update(`${book.title}\n${book.where}`).digest('hex');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

function xhtml(book: Book, title: string, body: string): string {
  const lang = langTag(book);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE html>',
    `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="${lang}" xml:lang="${lang}">`,
    '<head>',
    '<meta charset="UTF-8"/>',
    `<title>${escapeXml(title)}</title>`,
    '<link rel="stylesheet" type="text/css" href="style.css"/>',
    '</head>',
    `<body>\n${body}\n</body>`,
    '</html>',
    '',
  ].join('\n');
}

function blockHtml(block: Block): string {
  if (block.kind === 'heading') {
    const n = Math.min(6, Math.max(1, block.level));
    return `<h${n}>${escapeXml(block.text)}</h${n}>`;
  }
  if (block.kind === 'break') return '<hr class="scene-break"/>';
  const p = `<p>${escapeXml(block.text)}</p>`;
  return block.quote ? `<blockquote>${p}</blockquote>` : p;
}

const STYLE = `body { margin: 0 5%; line-height: 1.8; }
h1, h2, h3, h4, h5, h6 { text-align: center; }
p { margin: 0 0 0.6em 0; text-indent: 0; }
blockquote { margin: 0 0 0.6em 2em; }
hr.scene-break { border: none; margin: 1.2em 0; text-align: center; }
hr.scene-break::after { content: "* * *"; }
.where { text-align: center; font-style: italic; }
nav ol { list-style: none; padding: 0; }
`;

/** The chapter files' names, in reading order. */
export function chapterFileNames(count: number): string[] {
  const width = Math.max(3, String(count).length);
  return Array.from({ length: count }, (_, i) => `chapter-${String(i + 1).padStart(width, '0')}.xhtml`);
}

/** The .epub file's bytes. */
export function exportEpub(book: Book, options: EpubOptions): Uint8Array {
  const id = identifier(book);
  const lang = langTag(book);
  const names = chapterFileNames(book.chapters.length);
  // The nav and the NCX must list something: a book without chapters lists its title page.
  const toc = book.chapters.length > 0 ? book.chapters.map((c, i) => ({ title: c.title, href: names[i] as string })) : [{ title: book.title, href: 'title.xhtml' }];
  const tocTitle = book.lang === 'zh' ? '目录' : 'Contents';

  const container = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">',
    `  <rootfiles><rootfile full-path="${OPF_PATH}" media-type="application/oebps-package+xml"/></rootfiles>`,
    '</container>',
    '',
  ].join('\n');

  const items = book.chapters.map((_, i) => `    <item id="c${i + 1}" href="${names[i]}" media-type="application/xhtml+xml"/>`);
  const opf = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${lang}">`,
    '  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">',
    `    <dc:identifier id="book-id">${id}</dc:identifier>`,
    `    <dc:title>${escapeXml(book.title)}</dc:title>`,
    `    <dc:language>${lang}</dc:language>`,
    `    <dc:description>${escapeXml(book.where)}</dc:description>`,
    `    <meta property="dcterms:modified">${isoSeconds(options.modified)}</meta>`,
    '  </metadata>',
    '  <manifest>',
    '    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
    '    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>',
    '    <item id="style" href="style.css" media-type="text/css"/>',
    '    <item id="title-page" href="title.xhtml" media-type="application/xhtml+xml"/>',
    ...items,
    '  </manifest>',
    '  <spine toc="ncx">',
    '    <itemref idref="title-page"/>',
    ...book.chapters.map((_, i) => `    <itemref idref="c${i + 1}"/>`),
    '  </spine>',
    '</package>',
    '',
  ].join('\n');

  const nav = xhtml(book, tocTitle, [
    `<nav epub:type="toc" id="toc">`,
    `<h1>${escapeXml(tocTitle)}</h1>`,
    '<ol>',
    ...toc.map((t) => `<li><a href="${t.href}">${escapeXml(t.title)}</a></li>`),
    '</ol>',
    '</nav>',
  ].join('\n'));

  const ncx = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="${lang}">`,
    '<head>',
    `<meta name="dtb:uid" content="${id}"/>`,
    '<meta name="dtb:depth" content="1"/>',
    '<meta name="dtb:totalPageCount" content="0"/>',
    '<meta name="dtb:maxPageNumber" content="0"/>',
    '</head>',
    `<docTitle><text>${escapeXml(book.title)}</text></docTitle>`,
    '<navMap>',
    ...toc.map((t, i) => `<navPoint id="np${i + 1}" playOrder="${i + 1}"><navLabel><text>${escapeXml(t.title)}</text></navLabel><content src="${t.href}"/></navPoint>`),
    '</navMap>',
    '</ncx>',
    '',
  ].join('\n');

  const titlePage = xhtml(book, book.title, `<section epub:type="titlepage">\n<h1>${escapeXml(book.title)}</h1>\n<p class="where">${escapeXml(book.where)}</p>\n</section>`);

  const mtime = options.modified;
  const files: Zippable = {
    // First and stored: a reader finds "application/epub+zip" at byte 38 without unzipping.
    mimetype: [strToU8('application/epub+zip'), { level: 0, mtime }],
    'META-INF/container.xml': [strToU8(container), { mtime }],
    [OPF_PATH]: [strToU8(opf), { mtime }],
    'OEBPS/nav.xhtml': [strToU8(nav), { mtime }],
    'OEBPS/toc.ncx': [strToU8(ncx), { mtime }],
    'OEBPS/style.css': [strToU8(STYLE), { mtime }],
    'OEBPS/title.xhtml': [strToU8(titlePage), { mtime }],
  };
  book.chapters.forEach((c, i) => {
    const body = `<section epub:type="chapter" id="c${i + 1}">\n${c.blocks.map(blockHtml).join('\n')}\n</section>`;
    files[`OEBPS/${names[i]}`] = [strToU8(xhtml(book, c.title, body)), { mtime }];
  });
  return zipSync(files, { level: 6 });
}
