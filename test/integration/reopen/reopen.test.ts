// A reload of the window: the folder the "sample novel" suite wrote to, opened in a new window.
// The session, its leaf, the scene state and the worldline rename all come back from disk.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { WorldlineApi } from '../../../src/extension';

describe('After a reload of the window', () => {
  it('the last session reopens where it was, with the renamed worldline', async () => {
    const ext = vscode.extensions.getExtension<WorldlineApi>('worldline.worldline');
    assert.ok(ext);
    const worldline = await ext.activate();
    const session = worldline.novel()?.session;
    assert.ok(session, 'the last session is open again');
    assert.equal(session.title, '世界线');
    const view = (await worldline.worldlines().view())!;
    assert.deepEqual(view.worldlines.map((l) => l.name), ['主线', '坦白线']);
    assert.equal(view.current.saveId, view.worldlines[1]!.saves[0]!.saveId, 'the leaf is where the window left it');
    assert.ok(worldline.chat().transcript().some((m) => m.text.includes('写好了')));
  });
});
