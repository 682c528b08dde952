// The formats of Export Worldline as…: Markdown is exactly today's export; each other format
// gives its kind of output from the same chapters.
import { strict as assert } from 'node:assert';
import { strFromU8 } from 'fflate';
import { exportManuscript } from '../../../../src/worldline/export';
import { EXPORT_FORMATS, isExportFormat, renderExport } from '../../../../src/worldline/exporters/formats';
import { BOOK } from './fixture';

const now = new Date('2026-12-02T08:00:00Z');

describe('exporters: the formats', () => {
  it('Markdown is byte for byte what Export Worldline as Manuscript writes', async () => {
    const out = await renderExport('markdown', BOOK, { now });
    assert.equal(out.kind, 'file');
    assert.equal(out.kind === 'file' && out.extension, 'md');
    assert.equal(out.kind === 'file' && strFromU8(out.bytes), exportManuscript(BOOK));
  });

  it('DOCX and EPUB are one zip file each; TXT a folder of files; every one counts the chapters', async () => {
    for (const format of EXPORT_FORMATS) {
      const out = await renderExport(format, BOOK, { now });
      assert.equal(out.chapters, 3, format);
      if (format === 'txt') assert.equal(out.kind === 'folder' && out.files.length, 3);
      else if (format !== 'markdown') assert.deepEqual(out.kind === 'file' && [out.extension, ...out.bytes.slice(0, 2)], [format, 0x50, 0x4b]);
    }
  });

  it('only the four formats are accepted from a command argument', () => {
    assert.deepEqual(EXPORT_FORMATS.filter(isExportFormat), ['markdown', 'docx', 'epub', 'txt']);
    for (const bad of ['pdf', 'DOCX', '', undefined, 3, { format: 'docx' }]) assert.equal(isExportFormat(bad), false);
  });
});
