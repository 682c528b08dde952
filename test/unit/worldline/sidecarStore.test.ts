// The sidecar kept for the window's session: read once, problems reported once, updates kept.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sidecarPath, writeSidecar } from '../../../src/worldline/sidecar';
import { deleteSave, renameWorldline } from '../../../src/worldline/sidecar-data';
import { SidecarStore } from '../../../src/worldline/sidecarStore';
import { removeTempDirs, tempDir } from './helpers';

function store(): { s: SidecarStore; problems: string[] } {
  const problems: string[] = [];
  return { s: new SidecarStore((p) => problems.push(p)), problems };
}

describe('sidecar store', () => {
  afterEach(removeTempDirs);

  it('reads the file once per session; a change on disk by someone else is not read again', async () => {
    const root = tempDir();
    await writeSidecar(sidecarPath(root), { version: 1, sessions: { a: { worldlineNames: { w1: '雨线' }, saveNames: {}, deletedSaveIds: [] } } });
    const { s, problems } = store();
    assert.deepEqual((await s.get(root, 'a')).worldlineNames, { w1: '雨线' });
    fs.rmSync(sidecarPath(root));
    assert.deepEqual((await s.get(root, 'a')).worldlineNames, { w1: '雨线' }, 'kept, not read again');
    assert.deepEqual((await s.get(root, 'b')).worldlineNames, {}, 'another session is read');
    assert.deepEqual((await s.get(root, 'a')).worldlineNames, {}, 'and back: read again');
    assert.deepEqual(problems, []);
  });

  it('an update is written, kept, and seen by a fresh store', async () => {
    const root = tempDir();
    const { s } = store();
    await s.get(root, 'a');
    const after = await s.update(root, 'a', (x) => deleteSave(renameWorldline(x, 'w1', '坦白线'), 'save1'));
    assert.deepEqual(await s.get(root, 'a'), after);
    const fresh = await store().s.get(root, 'a');
    assert.deepEqual(fresh, { worldlineNames: { w1: '坦白线' }, saveNames: {}, deletedSaveIds: ['save1'] });
  });

  it('a damaged file is reported once when read and once when replaced (a copy is kept)', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    fs.writeFileSync(sidecarPath(root), '{ not json');
    const { s, problems } = store();
    assert.deepEqual(await s.get(root, 'a'), { worldlineNames: {}, saveNames: {}, deletedSaveIds: [] });
    await s.get(root, 'a');
    assert.equal(problems.length, 1);
    await s.update(root, 'a', (x) => renameWorldline(x, 'w', '线'));
    assert.equal(problems.length, 2);
    assert.match(problems[1] ?? '', /A copy of the damaged file was kept as worldlines\.damaged-/);
    assert.ok(fs.readdirSync(path.join(root, '.worldline')).some((f) => f.startsWith('worldlines.damaged-')));
  });

  it('a newer version is never overwritten: the update rejects and the kept copy stays', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.worldline'));
    const newer = JSON.stringify({ version: 99, sessions: {} });
    fs.writeFileSync(sidecarPath(root), newer);
    const { s, problems } = store();
    const before = await s.get(root, 'a');
    await assert.rejects(s.update(root, 'a', (x) => renameWorldline(x, 'w', '线')), /The change was not saved/);
    assert.equal(fs.readFileSync(sidecarPath(root), 'utf8'), newer);
    assert.equal(await s.get(root, 'a'), before);
    assert.equal(problems.length, 1);
  });
});
