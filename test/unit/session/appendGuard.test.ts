// Session.append's guard: the leaf check of a side call runs inside the write queue, after every
// write queued before it, so a pending navigate cannot slip in between the check and the write.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Session, StaleLeafError, isStaleLeafError } from '../../../src/session/session';
import { assistant, removeTempDirs, tempDir, user } from './helpers';

/** u → a1, and u → a2 (a regenerated sibling); the leaf is a2. */
async function twoBranches(): Promise<{ s: Session; a1: string; a2: string }> {
  const s = await Session.create(path.join(tempDir(), 'abc123.jsonl'), { id: 'abc123', title: '雨夜' });
  const u = await s.append(user('写第一章'));
  const a1 = await s.append(assistant('第一版。'));
  await s.navigate(u.id);
  const a2 = await s.append(assistant('第二版。'));
  return { s, a1: a1.id, a2: a2.id };
}

describe('session append guard', () => {
  afterEach(removeTempDirs);

  it('a guard that accepts sees the leaf the entry goes under, and the entry is written', async () => {
    const { s, a2 } = await twoBranches();
    const seen: (string | null)[] = [];
    const e = await s.append({ type: 'state', state: {}, by: 'scribe', warnings: [] }, { guard: (leaf) => (seen.push(leaf), true) });
    assert.deepEqual(seen, [a2]);
    assert.equal(e.parentId, a2);
    assert.equal(s.leafId, e.id);
    await s.close();
  });

  it('a navigate queued before the append is seen by the guard; a refusal writes nothing', async () => {
    const { s, a1, a2 } = await twoBranches();
    const seen: (string | null)[] = [];
    const moved = s.navigate(a1); // not awaited: the write is still queued
    assert.equal(s.leafId, a2, 'the leaf has not moved yet');
    const append = s.append({ type: 'state', state: {}, by: 'scribe', warnings: [] }, { guard: (leaf) => (seen.push(leaf), leaf === a2) });
    await assert.rejects(append, (e: unknown) => isStaleLeafError(e) && e instanceof StaleLeafError && e.leafId === a1 && /nothing was written/.test(e.message));
    await moved;
    assert.deepEqual(seen, [a1]);
    assert.equal(s.leafId, a1);
    assert.equal(s.entries().filter((e) => e.type === 'state').length, 0);
    await s.close();
    const lines = fs.readFileSync(s.file, 'utf8').trim().split('\n');
    assert.ok(!lines.some((l) => l.includes('"type":"state"')), 'nothing reached the file');
    // The queue goes on after a refusal.
    const reopened = (await Session.open(s.file)).session;
    assert.equal(reopened.leafId, a1);
    await reopened.close();
  });

  it('writes queued after a refused append still run', async () => {
    const { s, a2 } = await twoBranches();
    const refused = s.append({ type: 'state', state: {}, by: 'scribe', warnings: [] }, { guard: () => false });
    const next = s.append(user('继续'));
    await assert.rejects(refused, StaleLeafError);
    assert.equal((await next).parentId, a2);
    await s.close();
  });
});
