// The saves of the window's session: the sidecar and the view of what is open (nothing open:
// empty, no view), changes written to .worldline/worldlines.json and seen at once, saves found by
// id, and the rows a save picker offers.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { SessionSaves, emptyWorldlineView, saveRows, type OpenSaves } from '../../../src/worldline/sessionSaves';
import { sidecarPath } from '../../../src/worldline/sidecar';
import { deleteSave, emptySidecar, renameWorldline } from '../../../src/worldline/sidecar-data';
import { buildWorldlineView } from '../../../src/worldline/view';
import { newSession, removeTempDirs, save, tempDir, turn } from './helpers';

describe('session saves', () => {
  afterEach(removeTempDirs);

  it('with nothing open: an empty sidecar, no view, no change, no save', async () => {
    const problems: string[] = [];
    const saves = new SessionSaves(() => undefined, (p) => problems.push(p));
    assert.deepEqual(await saves.sidecar(), emptySidecar());
    assert.equal(await saves.view(), undefined);
    assert.equal(await saves.change((s) => renameWorldline(s, 'w', 'x')), false);
    assert.equal(saves.find('s1'), undefined);
    assert.deepEqual(problems, []);
  });

  it('the view is the session\'s at its leaf; a change is written to the file and shows in the next view', async () => {
    const root = tempDir();
    const session = await newSession();
    await turn(session, '问名。', '青梧。');
    const first = await save(session, '雨夜问名');
    let open: OpenSaves | undefined = { root, session };
    const saves = new SessionSaves(() => open, (p) => assert.fail(p));
    const view = await saves.view();
    assert.deepEqual(view, buildWorldlineView(session, emptySidecar(), session.leafId));
    const line = view!.worldlines[0]!;
    assert.equal(await saves.change((s) => renameWorldline(s, line.id, '坦白线')), true);
    assert.equal((await saves.view())!.worldlines[0]!.name, '坦白线');
    assert.match(fs.readFileSync(sidecarPath(root), 'utf8'), /坦白线/);
    assert.deepEqual((await saves.sidecar()).worldlineNames, { [line.id]: '坦白线' });
    assert.equal(saves.find(first.saveId)?.id, first.id);
    assert.equal(saves.find('nope'), undefined);
    assert.equal(saves.find(undefined), undefined);
    open = undefined;
    assert.equal(await saves.view(), undefined, 'closed: no view');
    await session.close();
  });

  it('picker rows: every visible save but the one left out, "you are here" marked, the line as description', async () => {
    const session = await newSession();
    await turn(session, '问名。', '青梧。');
    const a = await save(session, '雨夜问名');
    await turn(session, '问生死。', '茶盏落地。');
    const b = await save(session, '直问生死');
    await session.navigate(a.id);
    await turn(session, '坦言来意。', '她点头。');
    const c = await save(session, '坦言来意');
    const view = buildWorldlineView(session, emptySidecar(), session.leafId);
    const rows = saveRows(view);
    assert.deepEqual(rows.map((r) => [r.label, r.save.saveId]), [
      ['雨夜问名', a.saveId], ['直问生死', b.saveId], ['$(location) 坦言来意', c.saveId],
    ]);
    assert.deepEqual(rows.map((r) => r.description), [view.worldlines[0]!.name, view.worldlines[0]!.name, view.worldlines[1]!.name]);
    assert.equal(rows[0]!.detail, new Date(rows[0]!.save.ts).toLocaleString());
    assert.deepEqual(saveRows(view, b.saveId).map((r) => r.save.saveId), [a.saveId, c.saveId]);
    const deleted = buildWorldlineView(session, deleteSave(emptySidecar(), a.saveId), session.leafId);
    assert.ok(!saveRows(deleted).some((r) => r.save.saveId === a.saveId), 'a deleted save is not offered');
    assert.deepEqual(saveRows(undefined), []);
    assert.deepEqual(saveRows(emptyWorldlineView()), []);
    await session.close();
  });
});
