// Sessions whose parent links no real write could produce: self-parents, loops, loops with
// branches hanging below them, parents that come later in the file. The tree must load, report
// the offending lines, cut them, and every walk must end.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isChainEntry } from '../../../src/session/entries';
import { SessionError } from '../../../src/session/errors';
import { SessionLibrary } from '../../../src/session/library';
import { Session } from '../../../src/session/session';
import { TreeIndex } from '../../../src/session/tree-index';
import { isAncestorOrSelf, pathTo, tipOf, turnStartOf } from '../../../src/session/tree-walks';
import { FakeClock, removeTempDirs, tempDir, user } from './helpers';

const ID = 'cafe1234';
const TS = '2025-03-01T12:00:00.000Z';

type Link = { id: string; parent: string | null; type?: 'user' | 'assistant' };

function line(l: Link): string {
  return l.type === 'assistant'
    ? JSON.stringify({ id: l.id, parentId: l.parent, type: 'assistant', ts: TS, text: `回复 ${l.id}`, model: 'm', finish: 'stop' })
    : JSON.stringify({ id: l.id, parentId: l.parent, type: 'user', ts: TS, text: `指令 ${l.id}` });
}

/** Writes a session file: header on line 1, then one line per link (line n+2 for link n). */
function writeSession(links: (Link | string)[]): string {
  const file = path.join(tempDir('wl-hostile-'), `${ID}.jsonl`);
  const header = JSON.stringify({ type: 'session', version: 1, id: ID, createdAt: TS, title: '回环' });
  fs.writeFileSync(file, [header, ...links.map((l) => (typeof l === 'string' ? l : line(l)))].join('\n') + '\n');
  return file;
}

/** Calls every walk on every loaded entry; the index is a forest, so each path is short and ends at a root. */
function walkEverything(s: Session): void {
  const ids = s.entries().filter(isChainEntry).map((e) => e.id);
  for (const id of ids) {
    const p = s.path(id);
    assert.ok(p.length <= s.entryCount);
    assert.equal(new Set(p.map((e) => e.id)).size, p.length, 'a path never repeats an entry');
    assert.equal(p[p.length - 1].id, id);
    assert.ok(s.children(null).some((r) => r.id === p[0].id), 'a path starts at a root');
    s.context(id);
    s.contextWithSummary(id);
    s.lastOnPath('user', id);
    s.tipOf(id);
    s.variants(id);
    for (const other of ids) s.isAncestorOrSelf(other, id);
    try {
      s.regenerateTarget(id);
    } catch (e) {
      assert.ok(e instanceof SessionError && e.code === 'no-turn');
    }
  }
}

describe('hostile parent links', function () {
  this.timeout(20000);
  afterEach(removeTempDirs);

  it('a self-parent entry is cut and reported by line; the rest loads and stays writable', async () => {
    const file = writeSession([
      { id: 'a', parent: null },
      { id: 'b', parent: 'a', type: 'assistant' },
      { id: 'self', parent: 'self' },
    ]);
    const before = fs.readFileSync(file);
    const { session, report } = await Session.open(file, { clock: new FakeClock() });
    assert.deepEqual(report.corruptLines.map((c) => c.line), [4]);
    assert.match(report.corruptLines[0].error, /names itself as its parent/);
    assert.ok(report.warnings.some((w) => w.includes('line 4') && w.includes('untouched')));
    assert.equal(session.get('self'), undefined);
    assert.deepEqual(session.entries().map((e) => e.id), ['a', 'b']);
    // The leaf was on the cut entry: it lands where the novelist was before.
    assert.equal(session.leafId, 'b');
    assert.ok(report.warnings.some((w) => w.includes('part left out')));
    assert.deepEqual(fs.readFileSync(file), before, 'the bytes stay in the file');
    walkEverything(session);
    const added = await session.append(user('继续'));
    assert.deepEqual(session.path().map((e) => e.id), ['a', 'b', added.id]);
    await session.close();
    const again = await Session.open(file);
    assert.deepEqual(again.report.corruptLines.map((c) => c.line), [4]);
    assert.deepEqual(again.session.path().map((e) => e.id), ['a', 'b', added.id]);
    await again.session.close();
  });

  it('a 2-cycle (A→B→A) is cut with both line numbers named', async () => {
    const file = writeSession([
      { id: 'root', parent: null },
      { id: 'A', parent: 'B' },
      { id: 'B', parent: 'A', type: 'assistant' },
      { id: 'next', parent: 'root', type: 'assistant' },
    ]);
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [3, 4]);
    for (const c of report.corruptLines) assert.match(c.error, /loops back to itself \(lines 3, 4\)/);
    assert.deepEqual(session.entries().map((e) => e.id), ['root', 'next']);
    assert.deepEqual(session.children(null).map((e) => e.id), ['root']);
    assert.equal(session.isAncestorOrSelf('A', 'next'), false);
    assert.throws(() => session.path('A'), (e: unknown) => e instanceof SessionError && e.code === 'unknown-entry');
    walkEverything(session);
    await session.close();
  });

  it('a long cycle with branches hanging below it: the loop and everything only below it are cut', async () => {
    const n = 500;
    const loop: Link[] = Array.from({ length: n }, (_, i) => ({ id: `L${i}`, parent: `L${(i + 1) % n}`, type: i % 2 ? 'assistant' : 'user' }));
    const below: Link[] = [
      { id: 'hang1', parent: 'L7' },
      { id: 'hang2', parent: 'hang1', type: 'assistant' },
      { id: 'hang3', parent: 'L400' },
    ];
    const file = writeSession([{ id: 'root', parent: null }, ...loop, ...below, { id: 'ok', parent: 'root', type: 'assistant' }]);
    const started = Date.now();
    const { session, report } = await Session.open(file);
    assert.ok(Date.now() - started < 5000);
    const cutLines = report.corruptLines.map((c) => c.line);
    assert.deepEqual(cutLines, Array.from({ length: n + 3 }, (_, i) => i + 3));
    assert.match(report.corruptLines[0].error, /loops back to itself \(lines 3, 4, 5, 6, 7, 8, … \(500 lines\)\)/);
    assert.match(report.corruptLines[n].error, /hang1 hangs below a loop of parents/);
    assert.deepEqual(session.entries().map((e) => e.id), ['root', 'ok']);
    assert.equal(session.leafId, 'ok');
    walkEverything(session);
    // New ids never reuse a cut one, so the next open cannot mistake a new entry for a duplicate.
    const added = await session.append(user('新的一轮'));
    assert.ok(!loop.some((l) => l.id === added.id));
    await session.close();
  });

  it('a parent that comes later in the file (no loop) is linked, not shown as an orphan', async () => {
    const file = writeSession([
      { id: 'child', parent: 'parent', type: 'assistant' },
      { id: 'parent', parent: null },
      { id: 'ghostkid', parent: 'ghost' },
    ]);
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines, []);
    assert.deepEqual(session.children(null).map((e) => e.id), ['parent', 'ghostkid']);
    assert.deepEqual(session.path('child').map((e) => e.id), ['parent', 'child']);
    assert.ok(report.warnings.some((w) => w.startsWith('Line 4:') && w.includes('parent ghost is missing')));
    assert.ok(!report.warnings.some((w) => w.includes('parent parent is missing')));
    walkEverything(session);
    await session.close();
  });

  it('a duplicate id is reported and the later line cut, so it cannot close a loop', async () => {
    const file = writeSession([
      { id: 'a', parent: null },
      { id: 'b', parent: 'a', type: 'assistant' },
      { id: 'a', parent: 'b' }, // would make a→b→a
    ]);
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [4]);
    assert.match(report.corruptLines[0].error, /appears earlier/);
    assert.deepEqual(session.path().map((e) => e.id), ['a', 'b']);
    walkEverything(session);
    await session.close();
  });

  it('a navigation into a loop, side entries on cut entries, and a leaf-only survivor', async () => {
    const file = writeSession([
      { id: 'x', parent: 'y' },
      { id: 'y', parent: 'x', type: 'assistant' },
      JSON.stringify({ id: 'e1', parentId: 'y', type: 'edit', ts: TS, targetId: 'x', text: '改' }),
      JSON.stringify({ id: 'n1', parentId: 'y', type: 'leaf', ts: TS, targetId: 'y' }),
    ]);
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [2, 3]);
    assert.equal(session.leafId, null);
    assert.deepEqual(session.path(), []);
    assert.deepEqual(session.context(), []);
    walkEverything(session);
    const first = await session.append(user('从头来'));
    assert.deepEqual(session.path().map((e) => e.id), [first.id]);
    await session.close();
  });

  it('a restored backup leaves the cut entries out', async () => {
    const root = tempDir('wl-hostile-lib-');
    const lib = new SessionLibrary(root, { clock: new FakeClock() });
    const s = await lib.create('原稿');
    await s.append(user('一'));
    await s.close();
    const backup = path.join(lib.backupsDir, `原稿_${s.header.id}_20250301-120000-000.jsonl`);
    fs.mkdirSync(lib.backupsDir, { recursive: true });
    fs.writeFileSync(backup, fs.readFileSync(s.file, 'utf8') + line({ id: 'loop', parent: 'loop' }) + '\n');
    const restored = await lib.restoreBackup(backup);
    assert.deepEqual(restored.entries().map((e) => e.type), ['user']);
    assert.ok(!fs.readFileSync(restored.file, 'utf8').includes('"loop"'));
    await lib.dispose();
  });

  it('walks on an index that was never settled still end (a self-parent added at run time is a root)', () => {
    const index = new TreeIndex();
    index.add({ id: 's', parentId: 's', type: 'user', ts: TS, text: 'x' });
    index.add({ id: 't', parentId: 's', type: 'assistant', ts: TS, text: 'y', model: 'm', finish: 'stop' });
    assert.deepEqual(pathTo(index, 't').map((e) => e.id), ['s', 't']);
    assert.equal(isAncestorOrSelf(index, 't', 's'), false);
    assert.equal(tipOf(index, 's'), 't');
    assert.equal(turnStartOf(index, 't')?.id, 's');
    assert.deepEqual(index.settle().cut.map((c) => c.error.includes('names itself')), [true, false]);
    assert.equal(index.size, 0);
  });
});
