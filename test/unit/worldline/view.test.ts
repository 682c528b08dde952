// buildWorldlineView on the seed's tree and variations: lines and their order, fork edges, where
// the novelist stands, story after the last save, renames, soft deletes (hidden, tree intact).
import { strict as assert } from 'node:assert';
import type { SaveEntry } from '../../../src/session/entries';
import type { Session } from '../../../src/session/session';
import { checkpointAtSave, findSave, latestSaveOnBranch } from '../../../src/worldline/saves';
import { deleteSave, emptySidecar, renameSave, renameWorldline } from '../../../src/worldline/sidecar-data';
import { WorldlineView, buildWorldlineView } from '../../../src/worldline/view';
import { newSession, removeTempDirs, save, turn } from './helpers';

async function seedTree(): Promise<{ s: Session; ask: SaveEntry; direct: SaveEntry; confess: SaveEntry }> {
  const s = await newSession();
  await s.append({ type: 'assistant', text: '雨夜，客栈。', model: 'test-model', finish: 'stop' });
  await turn(s, '问名。', '青梧。');
  const ask = await save(s, '雨夜问名');
  await turn(s, '问生死。', '茶盏落地。');
  const direct = await save(s, '直问生死');
  await s.navigate(ask.id);
  await turn(s, '坦言来意。', '她点头。');
  const confess = await save(s, '坦言来意');
  return { s, ask, direct, confess };
}

function shape(view: WorldlineView) {
  return view.worldlines.map((l) => ({
    name: l.name,
    forkFrom: l.forkFrom?.name,
    current: l.isCurrent,
    saves: l.saves.map((n) => `${n.name}${n.onCurrentBranch ? ' •' : ''}${n.isCurrent ? ' ◉' : ''}`),
  }));
}

describe('buildWorldlineView', () => {
  afterEach(removeTempDirs);

  it('the seed tree: two lines, the fork edge from 雨夜问名, the novelist at 坦言来意', async () => {
    const { s, ask, direct, confess } = await seedTree();
    const view = buildWorldlineView(s, emptySidecar(), s.leafId);
    assert.deepEqual(shape(view), [
      { name: '主线', forkFrom: undefined, current: false, saves: ['雨夜问名 •', '直问生死'] },
      { name: '从「雨夜问名」分出 · 线2', forkFrom: '雨夜问名', current: true, saves: ['坦言来意 • ◉'] },
    ]);
    assert.deepEqual(view.current, { saveId: confess.saveId, worldlineId: confess.worldlineId, storyAfterLastSave: false });
    const [main, fork] = view.worldlines;
    assert.deepEqual(fork?.forkFrom, { saveId: ask.saveId, name: '雨夜问名', worldlineId: ask.worldlineId });
    assert.deepEqual(
      main?.saves.map((n) => [n.saveId, n.entryId, n.kind, n.parentSaveId, n.forkFromSaveId]),
      [
        [ask.saveId, ask.id, 'first', undefined, undefined],
        [direct.saveId, direct.id, 'sameLine', ask.saveId, undefined],
      ],
    );
    assert.deepEqual(
      fork?.saves.map((n) => [n.saveId, n.kind, n.parentSaveId, n.forkFromSaveId, n.ts]),
      [[confess.saveId, 'fork', ask.saveId, ask.saveId, confess.ts]],
    );
    // Write order across lines, for the graph's rows (timestamps can go backwards with the clock).
    assert.deepEqual([...(main?.saves ?? []), ...(fork?.saves ?? [])].map((n) => n.order), [0, 1, 2]);
    await s.close();
  });

  it('story written after the last save shows; loading a save moves the marker', async () => {
    const { s, direct } = await seedTree();
    await turn(s, '她带我去后院。', '井边有石碑。');
    let view = buildWorldlineView(s, emptySidecar(), s.leafId);
    assert.equal(view.current.storyAfterLastSave, true);

    await s.navigate(direct.id); // loading a save = the leaf on the save entry
    view = buildWorldlineView(s, emptySidecar(), s.leafId);
    assert.deepEqual(shape(view), [
      { name: '主线', forkFrom: undefined, current: true, saves: ['雨夜问名 •', '直问生死 • ◉'] },
      { name: '从「雨夜问名」分出 · 线2', forkFrom: '雨夜问名', current: false, saves: ['坦言来意'] },
    ]);
    assert.equal(view.current.storyAfterLastSave, false);
    await s.close();
  });

  it('a compaction summary after the save is not story', async () => {
    const { s, confess } = await seedTree();
    await s.append({ type: 'summary', text: '前情提要', coversThroughId: confess.id });
    assert.equal(buildWorldlineView(s, emptySidecar(), s.leafId).current.storyAfterLastSave, false);
    await s.close();
  });

  it('before any save: no marker; story counts from the start; an empty branch has none', async () => {
    const { s } = await seedTree();
    const opening = s.path()[0];
    assert.ok(opening);
    let view = buildWorldlineView(s, emptySidecar(), opening.id);
    assert.deepEqual(view.current, { storyAfterLastSave: true });
    assert.ok(view.worldlines.every((l) => !l.isCurrent && l.saves.every((n) => !n.onCurrentBranch && !n.isCurrent)));
    view = buildWorldlineView(s, emptySidecar(), null);
    assert.deepEqual(view.current, { storyAfterLastSave: false });
    await s.close();
  });

  it('an empty tree has no lines', async () => {
    const s = await newSession();
    assert.deepEqual(buildWorldlineView(s, emptySidecar(), s.leafId), { worldlines: [], current: { storyAfterLastSave: false }, deleted: [] });
    await s.close();
  });

  it('shows renames; the original names stay available; order does not change', async () => {
    const { s, ask, direct, confess } = await seedTree();
    let sidecar = renameWorldline(emptySidecar(), ask.worldlineId, '雨夜线');
    sidecar = renameSave(sidecar, ask.saveId, '问名');
    sidecar = renameWorldline(sidecar, confess.worldlineId, '坦白线');
    const view = buildWorldlineView(s, sidecar, s.leafId);
    assert.deepEqual(shape(view), [
      { name: '雨夜线', forkFrom: undefined, current: false, saves: ['问名 •', '直问生死'] },
      { name: '坦白线', forkFrom: '问名', current: true, saves: ['坦言来意 • ◉'] },
    ]);
    assert.equal(view.worldlines[0]?.originalName, '主线');
    assert.equal(view.worldlines[0]?.saves[0]?.originalName, '雨夜问名');
    assert.equal(direct.worldlineName, '主线');
    await s.close();
  });

  describe('soft deletes', () => {
    it('a deleted save is hidden and listed for restore; the tree is untouched', async () => {
      const { s, direct } = await seedTree();
      const entriesBefore = s.entries().length;
      const view = buildWorldlineView(s, deleteSave(emptySidecar(), direct.saveId), s.leafId);
      assert.deepEqual(shape(view)[0]?.saves, ['雨夜问名 •']);
      assert.deepEqual(view.deleted, [{ saveId: direct.saveId, entryId: direct.id, name: '直问生死', worldlineId: direct.worldlineId, worldlineName: '主线' }]);
      assert.equal(s.entries().length, entriesBefore);
      assert.deepEqual(findSave(s, direct.saveId), direct);
      await s.close();
    });

    it('a line whose saves are all deleted disappears', async () => {
      const { s, confess } = await seedTree();
      const view = buildWorldlineView(s, deleteSave(emptySidecar(), confess.saveId), s.leafId);
      assert.deepEqual(view.worldlines.map((l) => l.name), ['主线']);
      assert.equal(view.current.saveId, view.worldlines[0]?.saves[0]?.saveId, 'the marker falls back to the visible save above');
      assert.equal(view.current.storyAfterLastSave, true);
      await s.close();
    });

    it('a deleted save inside a line or at a fork point re-links edges to the nearest visible save above', async () => {
      const s = await newSession();
      await turn(s, '一', '一');
      const a = await save(s, 'A');
      await turn(s, '二', '二');
      const b = await save(s, 'B');
      await turn(s, '三', '三');
      const c = await save(s, 'C');
      await s.navigate(b.id);
      await turn(s, '另', '另');
      const d = await save(s, 'D');
      assert.equal(d.kind, 'fork');

      const view = buildWorldlineView(s, deleteSave(emptySidecar(), b.saveId), s.leafId);
      const [main, fork] = view.worldlines;
      assert.deepEqual(main?.saves.map((n) => [n.name, n.parentSaveId]), [['A', undefined], ['C', a.saveId]]);
      assert.deepEqual(fork?.forkFrom, { saveId: a.saveId, name: 'A', worldlineId: a.worldlineId });
      assert.deepEqual(fork?.saves.map((n) => [n.name, n.parentSaveId, n.forkFromSaveId]), [['D', a.saveId, a.saveId]]);
      assert.equal(c.parentSaveId, b.saveId, 'the stored entry is unchanged');
      await s.close();
    });
  });

  it('lines are ordered by their first save, whatever their names', async () => {
    const { s, ask } = await seedTree();
    await s.navigate(ask.id);
    await turn(s, '离开。', '雨更大了。');
    await save(s, '转身离开');
    const view = buildWorldlineView(s, renameWorldline(emptySidecar(), ask.worldlineId, 'zzz'), s.leafId);
    assert.deepEqual(view.worldlines.map((l) => l.name), ['zzz', '从「雨夜问名」分出 · 线2', '从「雨夜问名」分出 · 线3']);
    await s.close();
  });

  it('latestSaveOnBranch, findSave and checkpointAtSave', async () => {
    const { s, ask, direct, confess } = await seedTree();
    assert.equal(latestSaveOnBranch(s)?.saveId, confess.saveId);
    assert.equal(latestSaveOnBranch(s, direct.id)?.saveId, direct.saveId);
    assert.equal(latestSaveOnBranch(s, confess.id, new Set([confess.saveId]))?.saveId, ask.saveId);
    assert.equal(latestSaveOnBranch(s, null), undefined);
    assert.equal(findSave(s, 'nope'), undefined);
    const cp = checkpointAtSave(s, direct.saveId);
    const expected = s.path(direct.id).filter((e) => e.type === 'checkpoint').at(-1);
    assert.ok(cp && expected);
    assert.equal(cp.id, expected.id);
    assert.notEqual(cp.id, checkpointAtSave(s, ask.saveId)?.id);
    assert.equal(checkpointAtSave(s, 'nope'), undefined);
    await s.close();
  });
});
