// The Scene State view from a Branch, and the novelist's edit: validated, appended as
// {by:"user"} on the branch, and read back as the branch's state; refused edits write nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { Session } from '../../../src/session/session';
import { applyUserEdit, sceneStateView } from '../../../src/state/viewModel';
import type { SceneState } from '../../../src/state/types';
import { branchOf, type BranchOptions } from '../../../src/story/branch';
import { removeTempDirs, tempDir } from '../session/helpers';
import { SEED_PATCH_1, seedOpening } from './helpers';

const OPTIONS: BranchOptions = { opening: seedOpening(), lang: 'zh' };

async function session(): Promise<Session> {
  return Session.create(path.join(tempDir('wl-stateview-'), 's.jsonl'), { id: 's', title: '雨夜' });
}

describe('scene state view model', () => {
  afterEach(removeTempDirs);

  it('shows the opening scene before any state entry, and leaves the branch\'s state untouched', async () => {
    const s = await session();
    const at = branchOf(s, OPTIONS).state;
    const before = structuredClone(at);
    const view = sceneStateView(at);
    assert.deepEqual(view.state, OPTIONS.opening);
    assert.deepEqual(parse(view.yaml), at.state, 'the YAML is the state');
    assert.deepEqual(view.source, { warnings: [] });
    assert.deepEqual(view.readWarnings, []);
    assert.deepEqual(at, before);
    await s.close();
  });

  it('an edit is appended as {by: user} and the branch then shows it, with departed characters', async () => {
    const s = await session();
    await s.append({ type: 'user', text: '林砚进门' });
    const first = await applyUserEdit(async () => s, branchOf(s, OPTIONS).state.state, SEED_PATCH_1, 'zh');
    assert.ok(first.ok);
    const leaf = s.get(s.leafId ?? '');
    assert.equal(leaf?.type, 'state');
    assert.equal(leaf?.type === 'state' && leaf.by, 'user');
    let view = sceneStateView(branchOf(s, OPTIONS).state);
    assert.equal(view.state.time, '傍晚（雨中）');
    assert.deepEqual(view.source, { by: 'user', entryId: s.leafId, warnings: [] });
    // 青梧 leaves the scene: she is still in the roster, so the view lists her as departed.
    const next = await applyUserEdit(async () => s, view.state, { characters: { 青梧: null } }, 'zh');
    assert.ok(next.ok, JSON.stringify(next));
    view = sceneStateView(branchOf(s, OPTIONS).state);
    assert.deepEqual(view.departed, ['青梧']);
    // The file has both edits: reopening sees the same state.
    await s.close();
    const { session: again } = await Session.open(s.file);
    assert.deepEqual(branchOf(again, OPTIONS).state.state, view.state);
    await again.close();
  });

  it('a refused edit writes nothing and never asks for the session', async () => {
    const s = await session();
    const size = fs.statSync(s.file).size;
    let asked = 0;
    const bad = await applyUserEdit(async () => { asked++; return s; }, OPTIONS.opening, { characters: { 青梧: { affinity: 150 } }, mood: 'sad' }, 'en');
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.reason, 'invalid');
    assert.match(!bad.ok && bad.reason === 'invalid' ? bad.error : '', /^The edit was not applied: /);
    const notObject = await applyUserEdit(async () => { asked++; return s; }, OPTIONS.opening, 'just text', 'zh');
    assert.equal(!notObject.ok && notObject.reason, 'invalid');
    assert.equal(asked, 0);
    assert.equal(fs.statSync(s.file).size, size);
    await s.close();
  });

  it('a read-only window and a failing session are results, not throws', async () => {
    const s = await session();
    const readOnly = await applyUserEdit(async () => ({ readOnly: true, append: () => assert.fail('no write'), flush: async () => {} }), OPTIONS.opening, { time: '子时' }, 'zh');
    assert.deepEqual(readOnly, { ok: false, reason: 'read-only' });
    await s.close();
    const closed = await applyUserEdit(async () => s, OPTIONS.opening, { time: '子时' }, 'zh');
    assert.equal(!closed.ok && closed.reason, 'failed');
    const none = await applyUserEdit(() => Promise.reject(new Error('no folder')), OPTIONS.opening, { time: '子时' } as Partial<SceneState>, 'zh');
    assert.deepEqual(none, { ok: false, reason: 'failed', error: 'no folder' });
  });
});
