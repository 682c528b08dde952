// Checkpoints inside a real VS Code: a turn rewrites a chapter that is open with unsaved edits;
// Restore Prose Only asks first, brings the chapter back and leaves the chat where it is; Undo
// returns the new text. Undo always takes back exactly the last restore, prose and chat together
// (also after a Regenerate, and after loading a save made before any checkpoint). Real git in the
// workspace copy, the test model server over HTTP.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointEntry } from '../../../src/session/entries';
import type { ModelServer } from '../../fixtures/modelServer';
import { api, appendProse, proseTurn, saveBeforeRestore, startNovelSession } from './helpers';

async function typeAtEnd(editor: vscode.TextEditor, text: string): Promise<void> {
  const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
  assert.ok(await editor.edit((b) => b.insert(end, text)));
}

describe('Checkpoints in a real VS Code', function () {
  let server: ModelServer;
  const asked: string[] = [];
  let answering: vscode.Disposable;
  const chapterRel = 'chapters/01.md';
  let chapter: string;

  before(async () => {
    const started = await startNovelSession('checkpoint test');
    server = started.server;
    answering = saveBeforeRestore(asked);
    chapter = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'chapters', '01.md');
  });

  after(async () => {
    answering.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  it('a turn rewrites a chapter open with unsaved edits; Restore Prose Only asks, restores it, keeps the chat; Undo brings the new text back', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(chapter), { preview: false });
    await typeAtEnd(editor, '\n【作者未保存的一句】\n');
    assert.ok(editor.document.isDirty);
    const beforeTurn = editor.document.getText();

    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: chapterRel, content: '# 第一章 雨夜（重写）\n\n全新的一章。\n' }) }] },
      { text: '整章重写好了。' },
    );
    const result = await worldline.agent().send('把第一章整章重写。');
    assert.equal(result?.status, 'done', result?.error);
    await result?.scribeDone;
    const rewritten = fs.readFileSync(chapter, 'utf8');
    assert.equal(rewritten, '# 第一章 雨夜（重写）\n\n全新的一章。\n');
    assert.equal(editor.document.getText(), rewritten, 'the open editor shows the agent\'s text');

    // Checkpoints on the branch: one before the instruction (with the novelist's text), one at the turn's end.
    const checkpoints = session.path().filter((e): e is CheckpointEntry => e.type === 'checkpoint');
    assert.ok(checkpoints.length >= 2);
    const [before, after] = checkpoints.slice(-2) as [CheckpointEntry, CheckpointEntry];
    assert.deepEqual(after.changed, [chapterRel]);
    const reply = worldline.chat().transcript().at(-1)!;
    assert.equal(reply.checkpoint?.entryId, after.id, 'the reply offers its turn\'s checkpoint');

    // The novelist types again, then restores the prose to before the turn.
    await typeAtEnd(editor, '\n【重写后又加的一句】\n');
    const leaf = session.leafId;
    const restored = await vscode.commands.executeCommand<unknown>('worldline.restoreProseOnly', before.id);
    assert.ok(restored && restored !== 'cancelled');
    assert.equal(asked.length, 1, 'asked about the unsaved chapter first');
    assert.match(asked[0]!, new RegExp(`unsaved changes: ${chapterRel}\\.`), 'naming it');
    assert.equal(fs.readFileSync(chapter, 'utf8'), beforeTurn, 'the chapter is back as it was before the turn');
    assert.equal(session.leafId, leaf, 'the chat stays where it is');

    const undone = await vscode.commands.executeCommand<unknown>('worldline.undoRestore');
    assert.ok(undone && undone !== 'cancelled');
    assert.equal(fs.readFileSync(chapter, 'utf8'), `${rewritten}\n【重写后又加的一句】\n`, 'Undo returns the new text, the later edit included');
  });

  it('Restore Prose and Chat moves the leaf to the checkpoint; Show Turn Changes opens the diff editor', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    const checkpoints = session.path().filter((e): e is CheckpointEntry => e.type === 'checkpoint');
    const before = checkpoints.at(-2)!;
    const after = checkpoints.at(-1)!;
    const restored = await vscode.commands.executeCommand<unknown>('worldline.restoreProseAndChat', before.id);
    assert.ok(restored && restored !== 'cancelled');
    assert.equal(session.leafId, before.id);
    assert.ok(!session.path().some((e) => e.id === after.id), 'the turn after it is off the branch now');
    await vscode.commands.executeCommand('worldline.undoRestore');
    assert.ok(session.path().some((e) => e.id === after.id), 'Undo moves the leaf back');

    const count = await vscode.commands.executeCommand<number>('worldline.showTurnChanges', after.id);
    assert.equal(count, 1);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, 'a diff editor is open');
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.modified.scheme, 'worldline-checkpoint');
    const right = await vscode.workspace.openTextDocument(input.modified);
    assert.match(right.getText(), /全新的一章/);

    // Against the working copy: the checkpoint before the turn on the left, the real file on the right.
    const against = await vscode.commands.executeCommand<number>('worldline.compareWithCheckpoint', before.id, chapterRel);
    assert.equal(against, 1);
    const now = vscode.window.tabGroups.activeTabGroup.activeTab?.input as vscode.TabInputTextDiff;
    assert.equal(now.original.scheme, 'worldline-checkpoint');
    assert.equal(now.modified.fsPath, chapter, 'the right side is the chapter itself, editable');
  });
});

describe('Checkpoints: Undo takes back exactly the last restore', function () {
  let server: ModelServer;
  let answering: vscode.Disposable;
  let chapter: string;

  before(async () => {
    const started = await startNovelSession('undo test');
    server = started.server;
    answering = saveBeforeRestore();
    chapter = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'chapters', '01.md');
  });

  after(async () => {
    answering.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  const turn = (instruction: string, prose: string) => proseTurn(server, instruction, prose);

  const prose = () => fs.readFileSync(chapter, 'utf8');

  it('Restore Prose and Chat, then Regenerate, then Undo: prose and chat both return to before the restore', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    await turn('开头。', '\n【序】\n');
    const proseBeforeA = prose();
    await turn('第一段。', '\n【甲】\n');
    const afterA = session.lastOnPath('checkpoint')!;
    await turn('第二段。', '\n【乙】\n');
    const proseB = prose();
    const leafB = session.leafId;

    const restored = await vscode.commands.executeCommand<unknown>('worldline.restoreProseAndChat', afterA.id);
    assert.ok(restored && restored !== 'cancelled');
    // The leaf lands at the end of turn A, after its scene state: prose and state agree.
    assert.equal(session.lastOnPath('checkpoint')?.id, afterA.id);
    assert.equal(session.get(session.leafId!)?.type, 'state');
    assert.doesNotMatch(prose(), /【乙】/);

    // Regenerate turn A: its prose goes back to before the turn, then the agent writes again.
    server.enqueue(appendProse('\n【甲之二】\n'), { text: '换了一种写法。' });
    const regenerated = await worldline.agent().regenerate();
    assert.equal(regenerated?.status, 'done', regenerated?.error);
    await regenerated?.scribeDone;
    assert.equal(prose(), `${proseBeforeA}\n【甲之二】\n`);

    const undone = await vscode.commands.executeCommand<unknown>('worldline.undoRestore');
    assert.ok(undone && undone !== 'cancelled' && undone !== 'chatOnly');
    assert.equal(prose(), proseB, 'the prose is back as it was before the restore');
    assert.equal(session.leafId, leafB, 'and so is the chat');
  });

  it('Loading a save made before any checkpoint moves only the chat; Undo moves the chat back and leaves an earlier restore alone', async () => {
    const worldline = await api();
    await vscode.commands.executeCommand('worldline.newSession', 'a save before any checkpoint');
    const session = worldline.novel()!.session!;
    // A save from before checkpoints existed: nothing on its path was checkpointed.
    const save = await session.append({ type: 'save', saveId: 'early-save', name: '开篇', worldlineId: 'w-early', worldlineName: '主线', kind: 'first' });
    await turn('第一段。', '\n【丙】\n');
    const afterFirst = session.lastOnPath('checkpoint')!;
    const proseFirst = prose();
    await turn('第二段。', '\n【丁】\n');
    const proseSecond = prose();
    const leaf = session.leafId;

    const restored = await vscode.commands.executeCommand<unknown>('worldline.restoreProseOnly', afterFirst.id);
    assert.ok(restored && restored !== 'cancelled');
    assert.equal(prose(), proseFirst);

    assert.equal(await worldline.agent().current()!.loadSave(save.id), undefined, 'no prose was restored');
    assert.equal(session.leafId, save.id, 'the chat went back to the save');
    assert.equal(prose(), proseFirst, 'the manuscript stays as it is');

    assert.equal(await vscode.commands.executeCommand<unknown>('worldline.undoRestore'), 'chatOnly');
    assert.equal(session.leafId, leaf, 'Undo moves the chat back');
    assert.equal(prose(), proseFirst, 'and does not undo the earlier restore of the prose');

    const undone = await vscode.commands.executeCommand<unknown>('worldline.undoRestore');
    assert.ok(undone && undone !== 'cancelled' && undone !== 'chatOnly');
    assert.equal(prose(), proseSecond, 'the next Undo takes back the earlier restore');
    assert.equal(session.leafId, leaf, 'which had left the chat alone');
  });
});
