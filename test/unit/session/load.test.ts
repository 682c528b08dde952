// Loading damaged session files: torn tails, missing newlines, corrupt lines, orphans, headers.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SESSION_FORMAT_VERSION } from '../../../src/session/entries';
import { SessionError } from '../../../src/session/errors';
import { Session } from '../../../src/session/session';
import { FakeClock, assistant, removeTempDirs, tempDir, user } from './helpers';

const ID = 'f00dfeed';

async function sessionWith(n: number): Promise<{ file: string; ids: string[] }> {
  const file = path.join(tempDir(), `${ID}.jsonl`);
  const s = await Session.create(file, { id: ID, title: '长夜' }, { clock: new FakeClock() });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await s.append(i % 2 ? assistant(`回复${i}`) : user(`指令${i}`))).id);
  await s.close();
  return { file, ids };
}

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n');
}

describe('session loading', () => {
  afterEach(removeTempDirs);

  it('sets a torn last line aside, keeps every complete entry and stays appendable', async () => {
    const { file, ids } = await sessionWith(3);
    const intact = fs.readFileSync(file);
    const torn = Buffer.from('{"id":"deadbeef","parentId":"x","type":"user","ts":"2025-03-01T12:00:00.000Z","text":"写到一');
    fs.appendFileSync(file, torn);
    const { session, report } = await Session.open(file, { clock: new FakeClock() });
    assert.deepEqual(session.path().map((e) => e.id), ids);
    assert.equal(report.tornTail?.bytes, torn.length);
    assert.match(path.basename(report.tornTail?.movedTo ?? ''), /^f00dfeed\.torn-20250301-120000-000\.jsonl$/);
    assert.deepEqual(fs.readFileSync(report.tornTail?.movedTo ?? ''), torn);
    assert.deepEqual(fs.readFileSync(file), intact);
    assert.ok(report.warnings.some((w) => w.includes('incomplete')));
    const added = await session.append(user('继续'));
    await session.close();
    const again = await Session.open(file);
    assert.deepEqual(again.report.corruptLines, []);
    assert.equal(again.report.tornTail, undefined);
    assert.deepEqual(again.session.path().map((e) => e.id), [...ids, added.id]);
    await again.session.close();
  });

  it('a read-only open leaves a torn tail in place and reports it', async () => {
    const { file, ids } = await sessionWith(2);
    fs.appendFileSync(file, '{"id":"ab');
    const before = fs.readFileSync(file);
    const { session, report } = await Session.open(file, { readOnly: true, readOnlyReason: 'Another window writes.' });
    assert.deepEqual(session.path().map((e) => e.id), ids);
    assert.equal(report.tornTail, undefined);
    assert.ok(report.warnings.some((w) => w.includes('read-only')));
    assert.deepEqual(fs.readFileSync(file), before);
    await assert.rejects(session.append(user('x')), (e: unknown) => e instanceof SessionError && e.code === 'read-only' && e.message === 'Another window writes.');
    await session.close();
  });

  it('keeps a complete last line that lost its newline, and writes the newline before the next entry', async () => {
    const { file, ids } = await sessionWith(2);
    fs.truncateSync(file, fs.statSync(file).size - 1);
    const { session, report } = await Session.open(file);
    assert.deepEqual(session.path().map((e) => e.id), ids);
    assert.equal(report.tornTail, undefined);
    const added = await session.append(user('下一句'));
    await session.close();
    const again = await Session.open(file);
    assert.deepEqual(again.report.corruptLines, []);
    assert.deepEqual(again.session.path().map((e) => e.id), [...ids, added.id]);
    assert.equal(lines(file).length, 5); // header, 3 entries, final ""
    await again.session.close();
  });

  it('reports corrupt middle lines by line number, loads the rest, and shows orphans as separate branches', async () => {
    const { file, ids } = await sessionWith(5);
    const all = lines(file);
    all[2] = '{"id":"' + ids[1] + '","parentId":'; // line 3 = entry 2, cut in the middle
    all.splice(4, 0, 'NOT JSON AT ALL');
    fs.writeFileSync(file, all.join('\n'));
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [3, 5]);
    assert.match(report.corruptLines[0].error, /not valid JSON/);
    assert.ok(report.warnings.some((w) => w.includes('lines 3, 5')));
    assert.ok(report.warnings.some((w) => w.includes(`parent ${ids[1]} is missing`)));
    // Entry 3 lost its parent: it becomes a root, its subtree intact.
    assert.deepEqual(session.children(null).map((e) => e.id), [ids[0], ids[2]]);
    assert.deepEqual(session.path().map((e) => e.id), [ids[2], ids[3], ids[4]]);
    assert.equal(session.get(ids[2])?.parentId, ids[1]); // the field itself is untouched
    assert.deepEqual(session.variants(ids[2]).siblings.map((e) => e.id), [ids[0], ids[2]]); // both root users
    const added = await session.append(assistant('仍可续写'));
    await session.close();
    const again = await Session.open(file);
    assert.deepEqual(again.report.corruptLines.map((c) => c.line), [3, 5]);
    assert.equal(again.session.leafId, added.id);
    await again.session.close();
  });

  it('rejects a duplicate id and a well-formed line of unknown type as corrupt', async () => {
    const { file, ids } = await sessionWith(2);
    const all = lines(file);
    fs.writeFileSync(file, [...all.slice(0, 3), all[1], '{"id":"q","parentId":null,"type":"poem","ts":"t"}', ''].join('\n'));
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines.map((c) => c.line), [4, 5]);
    assert.match(report.corruptLines[0].error, /appears earlier/);
    assert.match(report.corruptLines[1].error, /unknown entry type "poem"/);
    assert.deepEqual(session.path().map((e) => e.id), ids);
    await session.close();
  });

  it('skips blank lines, and reads a BOM and CRLF line endings', async () => {
    const { file, ids } = await sessionWith(2);
    const all = lines(file).slice(0, 3);
    fs.writeFileSync(file, '\uFEFF' + all.join('\r\n\r\n') + '\r\n');
    const { session, report } = await Session.open(file);
    assert.deepEqual(report.corruptLines, []);
    assert.equal(session.title, '长夜');
    assert.deepEqual(session.path().map((e) => e.id), ids);
    await session.close();
  });

  it('ignores a navigation to an unknown entry with a warning', async () => {
    const { file, ids } = await sessionWith(2);
    fs.appendFileSync(file, JSON.stringify({ id: 'l1', parentId: ids[1], type: 'leaf', ts: 't', targetId: 'ghost' }) + '\n');
    const { session, report } = await Session.open(file);
    assert.equal(session.leafId, ids[1]);
    assert.ok(report.warnings.some((w) => w.includes('ghost')));
    await session.close();
  });

  describe('headers', () => {
    it('recovers a missing header (line 1 is an entry) with the id from the file name', async () => {
      const { file, ids } = await sessionWith(2);
      fs.writeFileSync(file, lines(file).slice(1).join('\n'));
      const { session, report } = await Session.open(file);
      assert.equal(session.header.id, ID);
      assert.equal(session.title, 'Recovered session');
      assert.deepEqual(session.path().map((e) => e.id), ids);
      assert.deepEqual(report.corruptLines, []);
      assert.ok(report.warnings.some((w) => w.includes('recovered')));
      await session.close();
    });

    it('recovers a damaged header, salvaging the title; a rename then sticks across reopen', async () => {
      const { file, ids } = await sessionWith(2);
      const all = lines(file);
      all[0] = all[0].slice(0, -1) + '\u0000garbage'; // the closing brace replaced by junk
      fs.writeFileSync(file, all.join('\n'));
      const { session, report } = await Session.open(file);
      assert.deepEqual(report.corruptLines.map((c) => c.line), [1]);
      assert.equal(session.title, '长夜');
      assert.equal(session.header.createdAt, session.get(ids[0])?.ts);
      await session.appendSide({ type: 'label', targetId: session.header.id, label: '长夜（修复）' });
      await session.close();
      const again = await Session.open(file);
      assert.equal(again.session.title, '长夜（修复）');
      assert.deepEqual(again.session.path().map((e) => e.id), ids);
      await again.session.close();
    });

    it('a torn header alone is set aside and a recovered header is written', async () => {
      const file = path.join(tempDir(), `${ID}.jsonl`);
      fs.writeFileSync(file, '{"type":"session","version":1,"id":"f00dfeed","createdAt":"2025-03-01T00:00:00.000Z","title":"残章","x');
      const { session, report } = await Session.open(file);
      assert.ok(report.tornTail);
      assert.equal(session.title, '残章');
      await session.append(user('重新开始'));
      await session.close();
      const again = await Session.open(file);
      assert.deepEqual(again.report.corruptLines, []);
      assert.deepEqual(again.report.warnings, []);
      assert.equal(again.session.title, '残章');
      assert.equal(again.session.path().length, 1);
      await again.session.close();
    });

    it('an empty file gets a recovered header', async () => {
      const file = path.join(tempDir(), `${ID}.jsonl`);
      fs.writeFileSync(file, '');
      const { session } = await Session.open(file);
      await session.append(user('一'));
      await session.close();
      assert.equal(JSON.parse(lines(file)[0]).type, 'session');
    });

    it('refuses a file from a newer format version, and a missing file, with clear errors', async () => {
      const file = path.join(tempDir(), `${ID}.jsonl`);
      fs.writeFileSync(file, `{"type":"session","version":${SESSION_FORMAT_VERSION + 1},"id":"f00dfeed","createdAt":"x","title":"t"}\n`);
      await assert.rejects(Session.open(file), (e: unknown) => e instanceof SessionError && e.code === 'newer-version' && /Update/.test(e.message));
      await assert.rejects(Session.open(path.join(path.dirname(file), 'none.jsonl')), (e: unknown) => e instanceof SessionError && e.code === 'not-found');
    });
  });
});
