// Where "you are here" and the story after the last save sit in a worldline's rows.
import { strict as assert } from 'node:assert';
import { lineRows, type LineRow } from '../../../src/worldline/lineRows';
import { deleteSave, emptySidecar } from '../../../src/worldline/sidecar-data';
import { buildWorldlineView } from '../../../src/worldline/view';
import { newSession, removeTempDirs, save, turn } from './helpers';

function show(rows: LineRow[]): string[] {
  return rows.map((r) => (r.kind === 'save' ? `${r.save.name}${r.here ? ' ◉' : ''}` : `… after ${r.from.name}${r.forks ? ' (forks)' : ''}`));
}

describe('worldline rows', () => {
  afterEach(removeTempDirs);

  it('at a save: that save is "here"; after writing on: a row right after it; in the middle of a line it forks', async () => {
    const s = await newSession();
    await turn(s, '问名。', '青梧。');
    const ask = await save(s, '雨夜问名');
    await turn(s, '问生死。', '茶盏落地。');
    await save(s, '直问生死');
    const rows = (leaf: string | null = s.leafId) => {
      const view = buildWorldlineView(s, emptySidecar(), leaf);
      const line = view.worldlines[0];
      assert.ok(line);
      return show(lineRows(view, line));
    };
    assert.deepEqual(rows(), ['雨夜问名', '直问生死 ◉']);
    await turn(s, '再问。', '她沉默。');
    assert.deepEqual(rows(), ['雨夜问名', '直问生死', '… after 直问生死']);
    await s.navigate(ask.id);
    assert.deepEqual(rows(), ['雨夜问名 ◉', '直问生死']);
    await turn(s, '坦言来意。', '她点头。');
    assert.deepEqual(rows(), ['雨夜问名', '… after 雨夜问名 (forks)', '直问生死']);
  });

  it('before any save, or on another line, no row is "here" and none is added', async () => {
    const s = await newSession();
    await turn(s, '问名。', '青梧。');
    const first = await save(s, '雨夜问名');
    await turn(s, '问生死。', '茶盏落地。');
    await save(s, '直问生死');
    await s.navigate(first.id);
    await turn(s, '坦言来意。', '她点头。');
    await save(s, '坦言来意');
    const view = buildWorldlineView(s, deleteSave(emptySidecar(), first.saveId), s.leafId);
    const [main, fork] = view.worldlines;
    assert.ok(main && fork);
    assert.deepEqual(show(lineRows(view, main)), ['直问生死'], 'not the current line');
    assert.deepEqual(show(lineRows(view, fork)), ['坦言来意 ◉']);
  });
});
