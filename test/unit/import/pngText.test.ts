// The PNG text-chunk reader against real and hand-built images, and random bytes: it never throws,
// and a damaged image gives an error that says what is wrong.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { readPngTextChunks } from '../../../src/import/pngText';
import { runs } from '../long-mode';

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const fixtures = path.join(repo, 'test', 'fixtures', 'sillytavern');
const seraphina = path.join(fixtures, 'default_Seraphina.png');

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])));
  return Buffer.concat([head, Buffer.from(type, 'latin1'), data, crc]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (...chunks: Buffer[]) => Buffer.concat([SIGNATURE, chunk('IHDR', Buffer.alloc(13)), ...chunks, chunk('IEND', Buffer.alloc(0))]);

describe('readPngTextChunks', () => {
  it('finds both card chunks of the real SillyTavern card', () => {
    const read = readPngTextChunks(fs.readFileSync(seraphina));
    assert.ok(read.ok);
    assert.deepEqual(read.chunks.map((c) => c.keyword), ['chara', 'ccv3']);
    assert.deepEqual(read.problems, []);
  });

  it('reads tEXt, zTXt and iTXt (plain and compressed, UTF-8)', () => {
    const read = readPngTextChunks(png(
      chunk('tEXt', Buffer.from('a\0latin text', 'latin1')),
      chunk('zTXt', Buffer.concat([Buffer.from('b\0\0', 'latin1'), deflateSync(Buffer.from('squeezed'))])),
      chunk('iTXt', Buffer.concat([Buffer.from('c\0\0\0zh\0\0', 'latin1'), Buffer.from('青雾', 'utf8')])),
      chunk('iTXt', Buffer.concat([Buffer.from('d\0\x01\0\0\0', 'latin1'), deflateSync(Buffer.from('南山', 'utf8'))])),
    ));
    assert.ok(read.ok);
    assert.deepEqual(read.chunks, [
      { keyword: 'a', text: 'latin text' }, { keyword: 'b', text: 'squeezed' }, { keyword: 'c', text: '青雾' }, { keyword: 'd', text: '南山' },
    ]);
  });

  it('refuses what is not a PNG, and a chunk that runs past the end', () => {
    const notPng = readPngTextChunks(Buffer.from('{"entries":{}}'));
    assert.ok(!notPng.ok);
    assert.match(notPng.error.message, /not a PNG image/);
    const truncated = readPngTextChunks(fs.readFileSync(path.join(fixtures, 'truncated.png')));
    assert.ok(!truncated.ok);
    assert.match(truncated.error.message, /runs past the end|cut short/);
    const huge = Buffer.concat([SIGNATURE, Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from('tEXt'), Buffer.alloc(8)]);
    const hugeRead = readPngTextChunks(huge);
    assert.ok(!hugeRead.ok);
    assert.deepEqual(hugeRead.error.args, ['tEXt', 8]);
  });

  it('skips a text chunk whose checksum does not match, and says so', () => {
    const good = chunk('tEXt', Buffer.from('chara\0abc', 'latin1'));
    good[good.length - 1]! ^= 0xff;
    const read = readPngTextChunks(png(good));
    assert.ok(read.ok);
    assert.deepEqual(read.chunks, []);
    assert.match(read.problems[0]!.message, /checksum/);
  });

  it('reports a missing end marker and a damaged compressed chunk without throwing', () => {
    const noEnd = Buffer.concat([SIGNATURE, chunk('IHDR', Buffer.alloc(13)), chunk('tEXt', Buffer.from('k\0v', 'latin1'))]);
    const read = readPngTextChunks(noEnd);
    assert.ok(read.ok);
    assert.deepEqual(read.chunks, [{ keyword: 'k', text: 'v' }]);
    assert.match(read.problems[0]!.message, /no end marker/);
    const badZ = readPngTextChunks(png(chunk('zTXt', Buffer.from('k\0\0not deflate', 'latin1'))));
    assert.ok(badZ.ok);
    assert.deepEqual(badZ.problems[0], { message: 'The text chunk "{0}" is damaged; it was skipped.', args: ['k'] });
  });

  it('never throws on random bytes or on a valid image with random bytes in it (property)', () => {
    const base = png(chunk('tEXt', Buffer.from('chara\0eyJhIjoxfQ==', 'latin1')));
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), fc.nat(), (bytes, prefixed, cut) => {
      const input = prefixed ? Buffer.concat([SIGNATURE, Buffer.from(bytes)]) : Buffer.from(bytes);
      const read = readPngTextChunks(input);
      if (!read.ok) assert.ok(read.error.message.length > 10);
      // A flipped byte anywhere in a good image, or the image cut anywhere: still a value.
      const damaged = Buffer.from(base);
      damaged[cut % damaged.length] = bytes[0] ?? 0;
      readPngTextChunks(damaged);
      readPngTextChunks(base.subarray(0, cut % base.length));
    }), { numRuns: runs(2000, 50000) });
  });
});
