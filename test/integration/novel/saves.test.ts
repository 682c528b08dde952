// Save points at the edges, inside a real VS Code: a save made before any turn (with a hand edit)
// brings that exact prose back, and a save asked for while the scribe still works waits for it.
// Runs before worldlines.test.ts, in its own session, so the reopen suite still finds that one last.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ModelServer, RouteHandle } from '../../fixtures/modelServer';
import { api, appendProse, startNovelSession } from './helpers';

describe('Save points at the edges in a real VS Code', function () {
  let server: ModelServer;
  let scribe: RouteHandle;
  let chapter: string;

  before(async () => {
    ({ server, scribe } = await startNovelSession('开场存档'));
    chapter = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'chapters', '01.md');
  });

  after(async () => {
    await server.close();
  });

  it('a save made before any turn brings the opening prose back; a save right after a turn waits for its scribe', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    const opening = fs.readFileSync(chapter, 'utf8');
    fs.writeFileSync(chapter, `${opening}\n（作者手改的一行）\n`); // a hand edit before any turn
    const handEdited = fs.readFileSync(chapter, 'utf8');
    const start = await vscode.commands.executeCommand<{ id: string; saveId: string }>('worldline.savePoint', '开场');
    assert.ok(start);

    // The scribe takes a while; Save Point is asked for as soon as the turn returns.
    scribe.enqueue({ text: '{"patch":{"time":"第二天清晨"}}', delayMs: 800 });
    server.enqueue(appendProse('\n天亮了，雨停了。\n'), { text: '写好了。' });
    const result = await worldline.agent().send('写天亮。');
    assert.equal(result?.status, 'done', result?.error);
    const later = await vscode.commands.executeCommand<{ id: string; saveId: string }>('worldline.savePoint', '天亮');
    const saveEntry = session.get(later!.id)!;
    assert.equal(session.get(saveEntry.parentId!)?.type, 'state', 'the save comes after the scribe\'s state entry');
    assert.equal(worldline.sceneState().current()?.state.time ?? '', '第二天清晨');

    assert.equal(await vscode.commands.executeCommand('worldline.loadSave', start!.saveId), true);
    assert.equal(fs.readFileSync(chapter, 'utf8'), handEdited, 'the prose is exactly as it was at the opening save');
    assert.equal(session.leafId, start!.id);

    // Delete Save: gone from the list (both views hear of it), kept in the sidecar's deleted list,
    // the story itself untouched.
    let refreshed = 0;
    const sub = worldline.worldlines().onDidChangeView(() => refreshed++);
    try {
      const entries = session.entryCount;
      assert.equal(await vscode.commands.executeCommand('worldline.deleteSave', later!.saveId), true);
      const view = (await worldline.worldlines().view())!;
      assert.ok(!view.worldlines.some((l) => l.saves.some((s) => s.saveId === later!.saveId)));
      assert.deepEqual(view.deleted.map((d) => d.name), ['天亮']);
      assert.ok(refreshed > 0, 'the views were told to refresh');
      assert.equal(session.entryCount, entries, 'nothing was written to the session');
      assert.ok(session.get(later!.id), 'the save entry is still in the tree');
    } finally {
      sub.dispose();
    }
  });
});
