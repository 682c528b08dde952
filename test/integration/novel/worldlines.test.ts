// Saves and worldlines inside a real VS Code: save, write on, load the first save (prose and chat
// come back), write differently, save → a second worldline. The rename is checked again after a
// reload of the window by the "reopen" suite, which opens the same folder in a new window.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ModelServer } from '../../fixtures/modelServer';
import { api, proseTurn, startNovelSession } from './helpers';

describe('Saves and worldlines in a real VS Code', function () {
  let server: ModelServer;
  let chapter: string;

  before(async () => {
    ({ server } = await startNovelSession('世界线'));
    chapter = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'chapters', '01.md');
  });

  after(async () => {
    await server.close();
  });

  const turn = (instruction: string, prose: string) => proseTurn(server, instruction, prose);

  it('save, write on, load the first save, write differently, save: a second worldline appears', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    await turn('青梧问他姓名。', '\n「客官贵姓？」\n');
    const first = await vscode.commands.executeCommand<{ id: string; saveId: string; worldlineName: string; kind: string }>('worldline.savePoint', '雨夜问名');
    assert.equal(first?.kind, 'first');
    assert.equal(first?.worldlineName, '主线');
    const proseAtFirst = fs.readFileSync(chapter, 'utf8');
    const leafAtFirst = session.leafId;

    await turn('沈砚直问生死。', '\n「沈家的人，还活着吗？」\n');
    const second = await vscode.commands.executeCommand<{ kind: string }>('worldline.savePoint', '直问生死');
    assert.equal(second?.kind, 'sameLine');

    assert.equal(await vscode.commands.executeCommand('worldline.loadSave', first!.saveId), true);
    assert.equal(fs.readFileSync(chapter, 'utf8'), proseAtFirst, 'the prose is back as it was at the save');
    assert.equal(leafAtFirst, first!.id);
    assert.equal(session.leafId, first!.id, 'the chat is back at the save');
    assert.ok(!worldline.chat().transcript().some((m) => m.text.includes('沈砚直问生死')), 'the later turn left the chat');

    await turn('沈砚坦言来意。', '\n「我是来找我娘的。」\n');
    const fork = await vscode.commands.executeCommand<{ kind: string; worldlineName: string }>('worldline.savePoint', '坦言来意');
    assert.equal(fork?.kind, 'fork');
    assert.equal(fork?.worldlineName, '从「雨夜问名」分出 · 线2');

    const view = (await worldline.worldlines().view())!;
    assert.deepEqual(view.worldlines.map((l) => l.name), ['主线', '从「雨夜问名」分出 · 线2']);
    assert.deepEqual(view.worldlines[0]!.saves.map((s) => s.name), ['雨夜问名', '直问生死']);
    assert.equal(view.worldlines[1]!.forkFrom?.name, '雨夜问名');
    assert.equal(view.current.saveId, view.worldlines[1]!.saves[0]!.saveId);
    await vscode.commands.executeCommand('worldline.worldlines.focus');
  });

  it('renames a worldline (checked again after a reload), compares two saves and exports a worldline', async () => {
    const worldline = await api();
    const view = (await worldline.worldlines().view())!;
    const [main, line2] = view.worldlines as [typeof view.worldlines[0], typeof view.worldlines[0]];
    assert.equal(await vscode.commands.executeCommand('worldline.renameWorldline', line2.id, '坦白线'), true);
    assert.equal((await worldline.worldlines().view())!.worldlines[1]!.name, '坦白线');
    const sidecar = JSON.parse(fs.readFileSync(path.join(path.dirname(path.dirname(chapter)), '.worldline', 'worldlines.json'), 'utf8')) as { sessions: Record<string, { worldlineNames: Record<string, string> }> };
    assert.equal(sidecar.sessions[worldline.novel()!.session!.header.id]!.worldlineNames[line2.id], '坦白线');

    const compared = await vscode.commands.executeCommand<{ files: number }>('worldline.compareSaves', main.saves[1]!.saveId, line2.saves[0]!.saveId, 'chapters/01.md');
    assert.equal(compared?.files, 1);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff);

    const target = vscode.Uri.file(path.join(os.tmpdir(), `worldline-export-${Date.now()}.md`));
    const out = await vscode.commands.executeCommand<vscode.Uri>('worldline.exportWorldline', line2.saves[0]!.saveId, target);
    assert.equal(out?.fsPath, target.fsPath);
    const exported = fs.readFileSync(target.fsPath, 'utf8');
    assert.match(exported, /我是来找我娘的/);
    assert.doesNotMatch(exported, /沈家的人，还活着吗/);
    assert.match(exported, /坦白线/);
  });
});
