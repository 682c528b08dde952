// The record of imported chats: a fingerprint that tells families apart however their bytes are
// split between names and contents (and ignores the order they were listed in), and a record file
// that reads back, damaged or foreign ones reading as empty.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { findImport, fingerprintOf, parseImportRecord, withImport } from '../../../../src/import/chat/importRecord';
import { runs } from '../../long-mode';

const file = fc.record({ name: fc.string({ maxLength: 6 }), text: fc.string({ maxLength: 12 }) });

describe('import record', () => {
  it('the fingerprint is the same for the same files in any order, and differs when any name or content does', () => {
    fc.assert(fc.property(fc.uniqueArray(file, { selector: (f) => f.name, maxLength: 4 }), fc.uniqueArray(file, { selector: (f) => f.name, maxLength: 4 }), (a, b) => {
      assert.equal(fingerprintOf(a), fingerprintOf([...a].reverse()));
      const same = JSON.stringify([...a].sort((x, y) => (x.name < y.name ? -1 : 1))) === JSON.stringify([...b].sort((x, y) => (x.name < y.name ? -1 : 1)));
      assert.equal(fingerprintOf(a) === fingerprintOf(b), same);
    }), { numRuns: runs(300, 5000) });
  });

  it('bytes moved between a name and its contents change the fingerprint', () => {
    assert.notEqual(fingerprintOf([{ name: 'ab', text: 'c' }]), fingerprintOf([{ name: 'a', text: 'bc' }]));
    assert.notEqual(fingerprintOf([{ name: 'a', text: '' }, { name: 'b', text: '' }]), fingerprintOf([{ name: 'a', text: '1:b0:' }]));
  });

  it('a record reads back; damaged, foreign or missing reads as empty; bad items are dropped', () => {
    const item = { fingerprint: 'f', sessionId: 's1', source: 'chat', importedAt: '2026-01-01T00:00:00.000Z' };
    const text = withImport(parseImportRecord(undefined), item);
    assert.deepEqual(parseImportRecord(text), { version: 1, imports: [item] });
    for (const bad of ['', '{', '[]', 'null', '{"imports": 3}']) assert.deepEqual(parseImportRecord(bad), { version: 1, imports: [] }, bad);
    assert.deepEqual(parseImportRecord(JSON.stringify({ imports: [item, { fingerprint: 1 }, null] })).imports, [item]);
  });

  it('finds the newest import of a fingerprint whose session still exists', () => {
    const at = (sessionId: string, fingerprint = 'f') => ({ fingerprint, sessionId, source: 'c', importedAt: '' });
    const record = { version: 1 as const, imports: [at('s1'), at('s2'), at('s3', 'g')] };
    assert.equal(findImport(record, 'f', () => true)?.sessionId, 's2');
    assert.equal(findImport(record, 'f', (id) => id === 's1')?.sessionId, 's1');
    assert.equal(findImport(record, 'f', () => false), undefined);
  });
});
