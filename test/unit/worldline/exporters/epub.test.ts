// EPUB: the container as a reader opens it. `mimetype` is the first entry and stored (read from
// the raw bytes: a local file header at offset 0, method 0, no extra field, the bare media type),
// container.xml points at the package document, whose manifest lists the nav, the NCX and every
// chapter's XHTML and whose spine orders them; every XHTML file is well-formed, its prose escaped
// (markup in a chapter is text, never an element).
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { strFromU8, unzipSync } from 'fflate';
import { bookOf } from '../../../../src/worldline/exporters/chapters';
import { exportEpub, OPF_PATH } from '../../../../src/worldline/exporters/epub';
import { runs } from '../../long-mode';
import { BOOK, CHAPTER_TITLES, HOSTILE } from './fixture';
import { findAll, parseXml, textOf } from './xml';

const MODIFIED = new Date('2026-12-02T07:30:15.123Z');

function epub(input = BOOK): { bytes: Uint8Array; files: Record<string, Uint8Array>; text: (name: string) => string } {
  const bytes = exportEpub(bookOf(input), { modified: MODIFIED });
  const files = unzipSync(bytes);
  return { bytes, files, text: (name) => strFromU8(files[name] ?? assert.fail(`${name} is in the zip`)) };
}

/** The package document's manifest (id → item) and spine (idrefs), the paths resolved from the zip's root. */
function packageOf(e: ReturnType<typeof epub>) {
  const container = parseXml(e.text('META-INF/container.xml'));
  const rootfile = findAll(container, 'rootfile')[0]!;
  assert.equal(rootfile.attrs['media-type'], 'application/oebps-package+xml');
  const opfPath = rootfile.attrs['full-path']!;
  const opf = parseXml(e.text(opfPath));
  const dir = path.posix.dirname(opfPath);
  const manifest = new Map(findAll(opf, 'item').map((i) => [i.attrs.id!, { href: path.posix.join(dir, i.attrs.href!), type: i.attrs['media-type'], properties: i.attrs.properties }]));
  const spine = findAll(opf, 'itemref').map((r) => r.attrs.idref!);
  return { opfPath, opf, manifest, spine };
}

describe('exporters: EPUB', () => {
  it('mimetype is the first entry, stored uncompressed, with no extra field', () => {
    const { bytes } = epub();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    assert.equal(view.getUint32(0, true), 0x04034b50, 'a local file header at offset 0');
    assert.equal(view.getUint16(8, true), 0, 'compression method 0 (stored)');
    const nameLength = view.getUint16(26, true);
    assert.equal(view.getUint16(28, true), 0, 'no extra field');
    assert.equal(strFromU8(bytes.slice(30, 30 + nameLength)), 'mimetype');
    const size = view.getUint32(18, true);
    assert.equal(view.getUint32(22, true), size, 'compressed size = size');
    assert.equal(strFromU8(bytes.slice(30 + nameLength, 30 + nameLength + size)), 'application/epub+zip');
    assert.equal(strFromU8(bytes.slice(30, 38)) + strFromU8(bytes.slice(38, 58)), 'mimetypeapplication/epub+zip', 'at byte 38, where readers sniff it');
  });

  it('container.xml points at the package; the manifest lists nav, NCX, style and every chapter; the spine reads them in order', () => {
    const e = epub();
    const { opfPath, opf, manifest, spine } = packageOf(e);
    assert.equal(opfPath, OPF_PATH);
    assert.equal(findAll(opf, 'package')[0]!.attrs.version, '3.0');
    const unique = findAll(opf, 'package')[0]!.attrs['unique-identifier']!;
    assert.match(textOf(findAll(opf, 'dc:identifier').find((i) => i.attrs.id === unique)!), /^urn:uuid:[0-9a-f-]{36}$/);
    assert.equal(textOf(findAll(opf, 'dc:title')[0]!), '听雨 <&> 轩');
    assert.equal(textOf(findAll(opf, 'dc:language')[0]!), 'zh-CN');
    assert.equal(textOf(findAll(opf, 'meta').find((m) => m.attrs.property === 'dcterms:modified')!), '2026-12-02T07:30:15Z');
    // Every manifest item is in the zip, and every file of the publication is in the manifest.
    for (const item of manifest.values()) assert.ok(e.files[item.href], item.href);
    const inZip = Object.keys(e.files).filter((f) => f.startsWith('OEBPS/') && f !== opfPath).sort();
    assert.deepEqual([...manifest.values()].map((i) => i.href).sort(), inZip);
    const nav = [...manifest.values()].filter((i) => i.properties === 'nav');
    assert.equal(nav.length, 1, 'one nav document');
    assert.equal(findAll(opf, 'spine')[0]!.attrs.toc, [...manifest.entries()].find(([, i]) => i.type === 'application/x-dtbncx+xml')![0]);
    // The spine: the title page, then the chapters in reading order; each chapter's file holds its heading.
    const files = spine.map((id) => manifest.get(id)!.href);
    assert.equal(spine.length, 1 + CHAPTER_TITLES.length);
    const headings = files.slice(1).map((f) => textOf(findAll(parseXml(e.text(f)), 'h2')[0]!));
    assert.deepEqual(headings, CHAPTER_TITLES);
    assert.equal(textOf(findAll(parseXml(e.text(files[0]!)), 'h1')[0]!), '听雨 <&> 轩');
    for (const f of files) assert.equal(manifest.get(spine[files.indexOf(f)]!)!.type, 'application/xhtml+xml');
  });

  it('the nav and the NCX list the chapters in the spine\'s order, linking their files', () => {
    const e = epub();
    const { manifest, spine } = packageOf(e);
    const chapterFiles = spine.slice(1).map((id) => manifest.get(id)!.href);
    const navItem = [...manifest.values()].find((i) => i.properties === 'nav')!;
    const nav = parseXml(e.text(navItem.href));
    const toc = findAll(nav, 'nav').find((n) => n.attrs['epub:type'] === 'toc')!;
    const links = findAll(toc, 'a');
    assert.deepEqual(links.map(textOf), CHAPTER_TITLES);
    assert.deepEqual(links.map((a) => path.posix.join(path.posix.dirname(navItem.href), a.attrs.href!)), chapterFiles);
    const ncxItem = [...manifest.values()].find((i) => i.type === 'application/x-dtbncx+xml')!;
    const ncx = parseXml(e.text(ncxItem.href));
    assert.deepEqual(findAll(ncx, 'navPoint').map((p) => textOf(findAll(p, 'text')[0]!)), CHAPTER_TITLES);
    assert.deepEqual(findAll(ncx, 'navPoint').map((p) => p.attrs.playOrder), ['1', '2', '3']);
    assert.deepEqual(findAll(ncx, 'content').map((c) => path.posix.join(path.posix.dirname(ncxItem.href), c.attrs.src!)), chapterFiles);
  });

  it('each chapter is well-formed XHTML with its paragraphs as written: indent, full-width punctuation, hostile text as text', () => {
    const e = epub();
    const { manifest, spine } = packageOf(e);
    const [first, second] = spine.slice(1).map((id) => parseXml(e.text(manifest.get(id)!.href)));
    assert.equal(first!.attrs.xmlns, 'http://www.w3.org/1999/xhtml');
    assert.equal(first!.attrs['xml:lang'], 'zh-CN');
    assert.deepEqual(findAll(first!, 'p').map(textOf), ['　　镇北渡口的雨下了一整天，傍晚时分反倒更密了。', '　　柜台后的女子说：“客官，上房没了，柴房还有一间。”']);
    assert.deepEqual(findAll(second!, 'p').map(textOf), [`　　他笑道：“${HOSTILE}无妨。”`, '　　第一行紧跟着', '　　第二行也是一段。', '信上写着：雨停再来。', '　　灯灭了。']);
    assert.equal(findAll(second!, 'script').length, 0, 'a <script> in the prose is text');
    assert.equal(findAll(second!, 'hr').length, 1, 'the scene break');
    assert.equal(findAll(second!, 'blockquote').length, 1);
    assert.deepEqual(findAll(second!, 'h3').map(textOf), ['夜半']);
    const raw = e.text(manifest.get(spine[2]!)!.href);
    assert.ok(raw.includes('&lt;script&gt;') && raw.includes(']]&gt;') && raw.includes('&amp;amp;'));
    assert.match(e.text('OEBPS/style.css'), /text-indent: 0/, 'no indent added on top of the chapter\'s own');
  });

  it('any text in the title, the file names and the chapters: every XML file well-formed, the text round-trips', () => {
    const unit = fc.constantFrom('<', '>', '&', ']]>', '"', "'", '<script>', '</p>', '\u3000', '。', '“', '雨', 'a', ' ', '\n', '\n\n', '\u0000', '\u001f', '\ud83d\ude00', '\ud800', '&amp;', '<!--', '-->', '# ');
    const text = fc.string({ unit, maxLength: 25 });
    fc.assert(fc.property(text, text, text, (title, name, body) => {
      const input = { ...BOOK, title, saveName: name, files: [{ path: `chapters/${name.replace(/[\n/]/g, '') || 'x'}.md`, text: body }, { path: 'chapters/z.md', text: `# ${name}\n\n${body}` }] };
      const book = bookOf(input);
      const e = epub(input);
      for (const f of Object.keys(e.files).filter((f) => /\.(xhtml|opf|ncx|xml)$/.test(f))) {
        try {
          parseXml(e.text(f));
        } catch (err) {
          assert.fail(`${f}: ${(err as Error).message}\n${e.text(f)}`);
        }
      }
      const { manifest, spine } = packageOf(e);
      spine.slice(1).forEach((id, i) => {
        const page = parseXml(e.text(manifest.get(id)!.href));
        const want = book.chapters[i]!.blocks.filter((b) => b.kind === 'paragraph').map((b) => (b as { text: string }).text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]|\ud800(?![\udc00-\udfff])/g, ''));
        assert.deepEqual(findAll(page, 'p').map(textOf), want);
        assert.equal(findAll(page, 'script').length, 0);
      });
    }), { numRuns: runs(100, 5000) });
  });

  it('an English book says so; the same book and save keep one identifier', () => {
    const en = epub({ ...BOOK, lang: 'en' });
    const { opf } = packageOf(en);
    assert.equal(textOf(findAll(opf, 'dc:language')[0]!), 'en');
    const id = (e: ReturnType<typeof epub>) => textOf(findAll(packageOf(e).opf, 'dc:identifier')[0]!);
    assert.equal(id(epub()), id(epub()));
    assert.notEqual(id(epub()), id(epub({ ...BOOK, saveName: '另一个存档' })));
  });

  it('the tests\' XML reader refuses what is not well-formed (so the checks above can fail)', () => {
    for (const bad of ['<p>a & b</p>', '<p>a ]]> b</p>', '<a><b></a></b>', '<p>x</p><p>y</p>', '<p a=1/>', '<p a="1" a="2"/>', '<p>&nbsp;</p>', '<p>\u0001</p>', '<p><script>x</p>', 'text<p/>']) {
      assert.throws(() => parseXml(bad), Error, bad);
    }
    assert.equal(textOf(parseXml('<?xml version="1.0"?>\n<!DOCTYPE html>\n<p>a &amp; &lt;b&gt; &#x3000;</p>')), 'a & <b> \u3000');
  });

  it('a book without chapters is still a valid package: the nav and the NCX list its title page', () => {
    const e = epub({ ...BOOK, files: [] });
    const { manifest, spine } = packageOf(e);
    assert.deepEqual(spine, ['title-page']);
    const navItem = [...manifest.values()].find((i) => i.properties === 'nav')!;
    assert.deepEqual(findAll(parseXml(e.text(navItem.href)), 'a').map((a) => [a.attrs.href, textOf(a)]), [['title.xhtml', '听雨 <&> 轩']]);
    assert.equal(findAll(parseXml(e.text('OEBPS/toc.ncx')), 'navPoint').length, 1);
  });
});
