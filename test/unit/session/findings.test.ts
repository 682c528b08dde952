// The `findings` side entry (the continuity checker's findings on a turn's state entry): its shape
// check, load, latest per target wins, its guard, and that a branch reads only the findings whose
// state entry is on it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Finding } from '../../../src/continuity/types';
import type { FindingsEntry, StateEntry } from '../../../src/session/entries';
import { Session, isStaleLeafError } from '../../../src/session/session';
import { checkEntry } from '../../../src/session/validate';
import { openingState } from '../../../src/state/opening';
import { removeTempDirs, tempDir } from './helpers';

function finding(over: Partial<Finding> = {}): Finding {
  return {
    id: 'departed-acts:青梧:青梧说', type: 'departed-acts', file: 'chapters/01.md', quote: '青梧说：“走吧。”',
    subject: '青梧', reason: '青梧已经离开了', confidence: 'high', by: 'rules', ...over,
  };
}

const base = { id: 'f1', parentId: 'a', ts: '2025-03-01T12:00:00.000Z', type: 'findings', targetId: 's1' };

describe('session: findings side entries', () => {
  afterEach(() => removeTempDirs());

  async function fresh(): Promise<Session> {
    return Session.create(path.join(tempDir(), 's.jsonl'), { id: 'sess', title: 't' });
  }

  async function turn(s: Session, text: string): Promise<StateEntry> {
    await s.append({ type: 'user', text });
    await s.append({ type: 'assistant', text: 'ok', model: 'm', finish: 'stop' });
    return (await s.append({ type: 'state', state: openingState({ time: text, location: '客栈' }), by: 'scribe', warnings: [] })) as StateEntry;
  }

  it('validate: a well-formed entry passes; every malformed field is refused with its name', () => {
    assert.ok(checkEntry({ ...base, findings: [finding()], intended: [] }).ok);
    assert.ok(checkEntry({ ...base, findings: [finding({ expected: '林砚' })], intended: ['x'] }).ok);
    // A type this version does not know is kept (a newer version may add types), not damage.
    assert.ok(checkEntry({ ...base, findings: [{ ...finding(), type: 'future-type' }], intended: [] }).ok);
    const bad: [unknown, string][] = [
      [{ ...base, intended: [] }, 'findings'],
      [{ ...base, findings: [finding()] }, 'intended'],
      [{ ...base, findings: 'x', intended: [] }, 'findings'],
      [{ ...base, findings: [{ ...finding(), quote: 3 }], intended: [] }, 'findings'],
      [{ ...base, findings: [{ ...finding(), id: '' }], intended: [] }, 'findings'],
      [{ ...base, findings: [{ ...finding(), confidence: 'sure' }], intended: [] }, 'findings'],
      [{ ...base, findings: [{ ...finding(), by: 'model' }], intended: [] }, 'findings'],
      [{ ...base, findings: [{ ...finding(), expected: 1 }], intended: [] }, 'findings'],
      [{ ...base, findings: [finding()], intended: [1] }, 'intended'],
      [{ ...base, targetId: null, findings: [], intended: [] }, 'targetId'],
    ];
    for (const [value, field] of bad) {
      const checked = checkEntry(value);
      assert.ok(!checked.ok, JSON.stringify(value));
      assert.match((checked as { error: string }).error, new RegExp(`findings entry: field "${field}"`));
    }
  });

  it('is written, read back on load, latest per target wins, and the leaf does not move', async () => {
    const s = await fresh();
    const state = await turn(s, '第一夜');
    const leaf = s.leafId;
    await s.appendSide({ type: 'findings', targetId: state.id, findings: [finding()], intended: [] });
    await s.appendSide({ type: 'findings', targetId: state.id, findings: [finding()], intended: [finding().id] });
    assert.equal(s.leafId, leaf);
    assert.deepEqual(s.sideFor(state.id, 'findings')?.intended, [finding().id]);
    await s.close();
    const { session: again, report } = await Session.open(s.file, { readOnly: true });
    assert.deepEqual(report.corruptLines, []);
    const latest = again.sideFor(state.id, 'findings') as FindingsEntry;
    assert.deepEqual(latest.findings, [finding()]);
    assert.deepEqual(latest.intended, [finding().id]);
    assert.equal(again.leafId, leaf);
    await again.close();
  });

  it('a malformed findings entry is refused on write too, and nothing is written', async () => {
    const s = await fresh();
    const state = await turn(s, '第一夜');
    const before = fs.readFileSync(s.file, 'utf8');
    const bad = { ...finding(), confidence: 'certain' } as unknown as Finding;
    await assert.rejects(s.appendSide({ type: 'findings', targetId: state.id, findings: [bad], intended: [] }), /findings entry: field "findings"/);
    assert.equal(fs.readFileSync(s.file, 'utf8'), before);
    await s.close();
  });

  it('goes only on a state entry', async () => {
    const s = await fresh();
    const user = await s.append({ type: 'user', text: 'x' });
    await assert.rejects(s.appendSide({ type: 'findings', targetId: user.id, findings: [], intended: [] }), /state entry/);
    await assert.rejects(s.appendSide({ type: 'findings', targetId: 'nope', findings: [], intended: [] }));
    await s.close();
  });

  it('a refusing guard writes nothing (StaleLeafError)', async () => {
    const s = await fresh();
    const state = await turn(s, '第一夜');
    const before = s.entryCount;
    await assert.rejects(s.appendSide({ type: 'findings', targetId: state.id, findings: [finding()], intended: [] }, { guard: () => false }), (e) => isStaleLeafError(e));
    assert.equal(s.entryCount, before);
    assert.equal(s.sideFor(state.id, 'findings'), undefined);
    await s.close();
  });

  it('follows the branch: sidesOnPath reads only the state entries on the path, kept or not', async () => {
    const s = await fresh();
    const first = await turn(s, '第一夜');
    const fork = s.leafId;
    const a = await turn(s, '第二夜 A');
    await s.appendSide({ type: 'findings', targetId: first.id, findings: [finding({ id: 'one' })], intended: [] });
    await s.appendSide({ type: 'findings', targetId: a.id, findings: [finding({ id: 'a' })], intended: [] });
    const leafA = s.leafId as string;
    await s.navigate(fork);
    const b = await turn(s, '第二夜 B');
    await s.appendSide({ type: 'findings', targetId: b.id, findings: [finding({ id: 'b' })], intended: [] });
    const ids = (leaf?: string) => s.sidesOnPath('state', 'findings', leaf).map((x) => x.side.findings[0]?.id);
    assert.deepEqual(ids(), ['one', 'b'], 'the current branch: its own findings, not the other branch\'s');
    assert.deepEqual(ids(leafA), ['one', 'a'], 'another leaf, read off the kept path');
    const positions = s.sidesOnPath('state', 'findings').map((x) => x.position);
    assert.deepEqual(positions.map((p) => s.path()[p]?.id), [first.id, b.id]);
    await s.navigate(leafA);
    assert.deepEqual(ids(), ['one', 'a']);
    await s.close();
  });

  it('an older build that does not know the type loses that line only: load reports it, keeps the rest', async () => {
    // What an older build does with an unknown side type, shown with a type this build does not know.
    const s = await fresh();
    const state = await turn(s, '第一夜');
    await s.close();
    fs.appendFileSync(s.file, `${JSON.stringify({ id: 'zz', parentId: state.id, ts: base.ts, type: 'verdicts', targetId: state.id })}\n`);
    const { session: again, report } = await Session.open(s.file, { readOnly: true });
    assert.deepEqual(report.corruptLines.map((c) => c.line), [5]);
    assert.match(report.corruptLines[0]?.error ?? '', /unknown entry type "verdicts"/);
    assert.equal(again.leafId, state.id);
    assert.equal(again.entryCount, 3);
    await again.close();
  });
});
