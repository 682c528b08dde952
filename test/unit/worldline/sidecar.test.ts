// The sidecar `.worldline/worldlines.json`: round trip, a damaged or newer file never stops
// anything, writes are atomic, read-modify-writes do not lose each other, pure updates.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AtomicWriteIo, nodeAtomicIo, writeFileAtomic } from '../../../src/common/atomic-write';
import {
  SidecarError,
  deleteSave,
  displaySaveName,
  displayWorldlineName,
  emptySidecar,
  emptyWorldlinesFile,
  readSidecar,
  renameSave,
  renameWorldline,
  restoreSave,
  sidecarFor,
  sidecarPath,
  updateSidecar,
  withSidecar,
  writeSidecar,
} from '../../../src/worldline/sidecar';
import type { WorldlinesFile } from '../../../src/worldline/sidecar';
import { removeTempDirs, tempDir } from './helpers';

function novel(): { root: string; file: string } {
  const root = tempDir();
  return { root, file: sidecarPath(root) };
}

function sample(): WorldlinesFile {
  let a = renameWorldline(emptySidecar(), 'w1', '雨夜线');
  a = renameSave(a, 's1', '问名');
  a = deleteSave(a, 's2');
  return withSidecar(withSidecar(emptyWorldlinesFile(), 'sessA', a), 'sessB', renameWorldline(emptySidecar(), 'w9', 'Other'));
}

describe('worldline sidecar', () => {
  afterEach(removeTempDirs);

  describe('reading and writing', () => {
    it('a missing file reads as empty, without a problem', async () => {
      const { file } = novel();
      assert.deepEqual(await readSidecar(file), { data: emptyWorldlinesFile(), status: 'missing' });
    });

    it('round-trips every session, as readable JSON, creating .worldline/ and leaving no temp file', async () => {
      const { root, file } = novel();
      await writeSidecar(file, sample());
      assert.equal(file, path.join(root, '.worldline', 'worldlines.json'));
      assert.deepEqual(await readSidecar(file), { data: sample(), status: 'ok' });
      const text = fs.readFileSync(file, 'utf8');
      assert.ok(text.endsWith('}\n') && text.includes('\n  "sessions": {'));
      assert.deepEqual(fs.readdirSync(path.dirname(file)), ['worldlines.json']);
      assert.deepEqual(sidecarFor((await readSidecar(file)).data, 'sessA').deletedSaveIds, ['s2']);
      assert.deepEqual(sidecarFor((await readSidecar(file)).data, 'nobody'), emptySidecar());
    });

    it('a file that is not JSON is reported and read as empty', async () => {
      const { file } = novel();
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, '{"version":1,"sessions":{"a":{"worldlineNames":{"w1":"雨');
      const read = await readSidecar(file);
      assert.equal(read.status, 'damaged');
      assert.deepEqual(read.data, emptyWorldlinesFile());
      assert.match(read.problem ?? '', /worldlines\.json has a problem: It is not valid JSON/);
      assert.match(read.problem ?? '', /keeps a copy of the damaged file/);
    });

    it('damage inside a valid file costs only the damaged parts', async () => {
      const { file } = novel();
      fs.mkdirSync(path.dirname(file));
      const raw = {
        version: 1,
        sessions: {
          good: { worldlineNames: { w1: '雨夜线', w2: 7 }, saveNames: {}, deletedSaveIds: ['s1', 3, 's1'] },
          bad: 'oops',
          partial: { worldlineNames: ['not', 'a', 'map'] },
        },
      };
      fs.writeFileSync(file, `\ufeff${JSON.stringify(raw)}`);
      const read = await readSidecar(file);
      assert.equal(read.status, 'damaged');
      assert.deepEqual(read.data.sessions, {
        good: { worldlineNames: { w1: '雨夜线' }, saveNames: {}, deletedSaveIds: ['s1'] },
        partial: { worldlineNames: {}, saveNames: {}, deletedSaveIds: [] },
      });
      assert.match(read.problem ?? '', /session bad is not an object/);
    });

    it('other shapes are damage too: an array, a missing sessions map', async () => {
      const { file } = novel();
      fs.mkdirSync(path.dirname(file));
      for (const text of ['[]', '{"version":1}', 'null', '']) {
        fs.writeFileSync(file, text);
        const read = await readSidecar(file);
        assert.equal(read.status, 'damaged', text);
        assert.deepEqual(read.data, emptyWorldlinesFile());
      }
    });

    it('a file that cannot be read (a folder in its place) is reported, never thrown', async () => {
      const { file } = novel();
      fs.mkdirSync(file, { recursive: true });
      const read = await readSidecar(file);
      assert.equal(read.status, 'unreadable');
      assert.deepEqual(read.data, emptyWorldlinesFile());
      assert.match(read.problem ?? '', /could not be read/);
      await assert.rejects(updateSidecar(file, 'a', (s) => renameSave(s, 'x', 'y')), SidecarError);
    });

    it('a file from a newer version reads as empty and is never overwritten', async () => {
      const { file } = novel();
      fs.mkdirSync(path.dirname(file));
      const newer = '{"version":2,"lines":{}}';
      fs.writeFileSync(file, newer);
      const read = await readSidecar(file);
      assert.equal(read.status, 'newer-version');
      assert.deepEqual(read.data, emptyWorldlinesFile());
      assert.match(read.problem ?? '', /newer version of Worldline/);
      await assert.rejects(updateSidecar(file, 'a', (s) => renameSave(s, 'x', 'y')), (e: unknown) => e instanceof SidecarError && /not saved/.test(e.message));
      assert.equal(fs.readFileSync(file, 'utf8'), newer);
    });

    it('ids like "__proto__" and "constructor" are plain data', async () => {
      const { file } = novel();
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, '{"version":1,"sessions":{"__proto__":{"worldlineNames":{"__proto__":"p","constructor":"c"}}}}');
      const read = await readSidecar(file);
      assert.equal(read.status, 'ok');
      const s = sidecarFor(read.data, '__proto__');
      assert.equal(displayWorldlineName(s, '__proto__', 'orig'), 'p');
      assert.equal(displayWorldlineName(s, 'constructor', 'orig'), 'c');
      assert.equal(displayWorldlineName(emptySidecar(), 'constructor', 'orig'), 'orig');
      assert.equal(displaySaveName(emptySidecar(), { saveId: 'toString', name: 'n' }), 'n');
      assert.deepEqual(sidecarFor(emptyWorldlinesFile(), 'constructor'), emptySidecar());
      assert.equal(Object.getPrototypeOf(read.data.sessions), Object.prototype);
    });
  });

  describe('updateSidecar', () => {
    it('changes one session and keeps the others', async () => {
      const { file } = novel();
      await writeSidecar(file, sample());
      const { sidecar, problem } = await updateSidecar(file, 'sessA', (s) => restoreSave(s, 's2'));
      assert.equal(problem, undefined);
      assert.deepEqual(sidecar.deletedSaveIds, []);
      const data = (await readSidecar(file)).data;
      assert.deepEqual(sidecarFor(data, 'sessA').worldlineNames, { w1: '雨夜线' });
      assert.deepEqual(sidecarFor(data, 'sessB'), sample().sessions.sessB);
    });

    it('a damaged file is kept as a copy, then replaced by a good one', async () => {
      const { file } = novel();
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, 'not json');
      const now = Date.UTC(2025, 5, 1, 8, 30, 0, 0);
      const { problem } = await updateSidecar(file, 'a', (s) => renameWorldline(s, 'w1', '新名'), { now: () => now });
      const copy = path.join(path.dirname(file), 'worldlines.damaged-20250601-083000-000.json');
      assert.equal(fs.readFileSync(copy, 'utf8'), 'not json');
      assert.match(problem ?? '', /worldlines\.damaged-20250601-083000-000\.json/);
      assert.deepEqual(await readSidecar(file), { data: withSidecar(emptyWorldlinesFile(), 'a', renameWorldline(emptySidecar(), 'w1', '新名')), status: 'ok' });
      // A second damage in the same millisecond gets its own copy.
      fs.writeFileSync(file, 'again');
      await updateSidecar(file, 'a', (s) => s, { now: () => now });
      assert.equal(fs.readFileSync(`${copy.slice(0, -5)}-1.json`, 'utf8'), 'again');
    });

    it('parallel updates in one window never lose each other', async () => {
      const { file } = novel();
      await Promise.all(Array.from({ length: 20 }, (_, i) => updateSidecar(file, `s${i % 3}`, (s) => renameSave(s, `save${i}`, `名${i}`))));
      const data = (await readSidecar(file)).data;
      const names = Object.values(data.sessions).flatMap((s) => Object.keys(s.saveNames));
      assert.equal(names.length, 20);
    });

    it('a session left with nothing is dropped from the file', async () => {
      const { file } = novel();
      await updateSidecar(file, 'a', (s) => deleteSave(s, 'x'));
      await updateSidecar(file, 'a', (s) => restoreSave(s, 'x'));
      assert.deepEqual((await readSidecar(file)).data, emptyWorldlinesFile());
    });

    it('a failed write throws and leaves the file as it was', async () => {
      const { file } = novel();
      await writeSidecar(file, sample());
      const failing: AtomicWriteIo = { ...nodeAtomicIo, rename: () => Promise.reject(new Error('disk full')) };
      await assert.rejects(updateSidecar(file, 'sessA', (s) => renameSave(s, 'x', 'y'), { io: failing }), /disk full/);
      assert.deepEqual((await readSidecar(file)).data, sample());
      // The queue goes on after a failure.
      await updateSidecar(file, 'sessA', (s) => renameSave(s, 'x', 'y'));
      assert.equal(sidecarFor((await readSidecar(file)).data, 'sessA').saveNames.x, 'y');
    });
  });

  describe('writeFileAtomic', () => {
    it('writes the temp file durably, renames it over the target, then syncs the folder', async () => {
      const dir = tempDir();
      const target = path.join(dir, 'worldlines.json');
      const calls: string[] = [];
      const io: AtomicWriteIo = {
        writeNewDurably: async (f, d) => {
          calls.push(`write ${path.basename(f)}`);
          await nodeAtomicIo.writeNewDurably(f, d);
        },
        rename: async (a, b) => {
          calls.push(`rename → ${path.basename(b)}`);
          await nodeAtomicIo.rename(a, b);
        },
        unlink: nodeAtomicIo.unlink,
        syncDir: async (d) => {
          calls.push(`sync ${d === dir ? 'dir' : d}`);
        },
      };
      await writeFileAtomic(target, 'new', io);
      assert.equal(calls.length, 3);
      assert.match(calls[0] as string, /^write \.worldlines\.json\.[0-9a-f]{12}\.tmp$/);
      assert.deepEqual(calls.slice(1), ['rename → worldlines.json', 'sync dir']);
      assert.equal(fs.readFileSync(target, 'utf8'), 'new');
    });

    it('a crash while writing the temp file leaves the old file whole and no temp behind', async () => {
      const dir = tempDir();
      const target = path.join(dir, 'worldlines.json');
      fs.writeFileSync(target, 'old');
      const torn: AtomicWriteIo = {
        ...nodeAtomicIo,
        writeNewDurably: async (f, d) => {
          fs.writeFileSync(f, d.slice(0, 2), { flag: 'wx' });
          throw new Error('EIO');
        },
      };
      await assert.rejects(writeFileAtomic(target, 'brand new', torn), /EIO/);
      assert.equal(fs.readFileSync(target, 'utf8'), 'old');
      assert.deepEqual(fs.readdirSync(dir), ['worldlines.json']);
    });
  });

  describe('pure updates', () => {
    it('rename, clear a rename, delete and restore — without touching the input', () => {
      const base = emptySidecar();
      const renamed = renameWorldline(base, 'w1', '  雨夜\n线 ');
      assert.deepEqual(base, emptySidecar());
      assert.deepEqual(renamed.worldlineNames, { w1: '雨夜 线' });
      assert.deepEqual(renameWorldline(renamed, 'w1', '   ').worldlineNames, {});
      assert.deepEqual(renameSave(base, 's1', 'A').saveNames, { s1: 'A' });
      const deleted = deleteSave(deleteSave(base, 's1'), 's1');
      assert.deepEqual(deleted.deletedSaveIds, ['s1']);
      assert.equal(deleteSave(deleted, 's1'), deleted);
      assert.deepEqual(restoreSave(deleted, 's1').deletedSaveIds, []);
      assert.equal(restoreSave(base, 's1'), base);
      assert.equal(displaySaveName(renameSave(base, 's1', 'A'), { saveId: 's1', name: 'orig' }), 'A');
      assert.equal(displayWorldlineName(renamed, 'w1', '主线'), '雨夜 线');
      assert.equal(displayWorldlineName(renamed, 'w2', '主线'), '主线');
    });
  });
});
