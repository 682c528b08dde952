// The Scene State view's edits inside a real VS Code: they append `state` entries on the current
// branch; invalid input is refused and changes nothing.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { WorldlineApi } from '../../src/extension';

async function api(): Promise<WorldlineApi> {
  const ext = vscode.extensions.getExtension<WorldlineApi>('worldline.worldline');
  assert.ok(ext);
  return ext.activate();
}

describe('Scene State in a real VS Code', () => {
  it('an edit appends a state entry {by:"user"} and the view state follows the branch', async () => {
    const worldline = await api();
    await vscode.commands.executeCommand('worldline.newSession', '状态测试');
    await vscode.commands.executeCommand('worldline.state.focus');
    const session = worldline.novel()!.session!;
    const before = session.path().length;
    const result = await worldline.sceneState().edit({ time: '子时', location: '听雨轩', characters: { 青梧: { affinity: 80, at: '听雨轩' } } });
    assert.equal(result.ok, true, result.error);
    const last = session.path().at(-1)!;
    assert.equal(session.path().length, before + 1);
    assert.equal(last.type, 'state');
    assert.equal((last as { by?: string }).by, 'user');
    const now = worldline.sceneState().current()!.state;
    assert.equal(now.time, '子时');
    assert.equal(now.characters['青梧']!.affinity, 80);
    assert.ok('青梧' in now.roster.characters);

    // Moving the leaf back before the edit brings the earlier state back: state = f(branch).
    await session.navigate(last.parentId);
    assert.notEqual(worldline.sceneState().current()!.state.time, '子时');
    await session.navigate(last.id);
    assert.equal(worldline.sceneState().current()!.state.time, '子时');
  });

  it('an invalid edit is refused and appends nothing', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    const before = session.path().length;
    const bad = await worldline.sceneState().edit({ characters: { 青梧: { affinity: 150 } }, mood: 'sad' });
    assert.equal(bad.ok, false);
    assert.ok(bad.error && bad.error.length > 0);
    const notObject = await worldline.sceneState().edit('just text');
    assert.equal(notObject.ok, false);
    assert.equal(session.path().length, before);
  });
});
