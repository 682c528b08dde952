// Runs inside a real VS Code extension host with an empty folder as the workspace.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorldlineApi } from '../../src/extension';

const EXTENSION_ID = 'worldline.worldline';

function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test window must have a folder open');
  return folder.uri.fsPath;
}

async function api(): Promise<WorldlineApi> {
  const ext = vscode.extensions.getExtension<WorldlineApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed in the test host`);
  return ext.activate();
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 10000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Worldline in a real VS Code', () => {
  it('is not active before it is needed (no "*" activation), then activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const events = (ext.packageJSON as { activationEvents?: string[] }).activationEvents ?? [];
    assert.ok(!events.includes('*'), 'never activates on *');
    // An empty folder, nothing of Worldline's shown yet: the extension has not been loaded.
    assert.equal(ext.isActive, false, 'not active in an empty folder before its views are opened');
    // Opening its Chat view is what activates it.
    await vscode.commands.executeCommand('worldline.chat.focus');
    await waitFor(() => ext.isActive, 'activation by opening the Chat view');
    const worldline = await api();
    assert.ok(worldline.novel(), 'the open folder becomes the novel');
  });

  it('registers its commands and its three views', async () => {
    await api();
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['worldline.initializeNovel', 'worldline.newSession', 'worldline.switchSession', 'worldline.renameSession', 'worldline.restoreSessionFromBackup']) {
      assert.ok(commands.includes(id), `command ${id}`);
    }
    for (const view of ['worldline.chat', 'worldline.state', 'worldline.worldlines']) {
      assert.ok(commands.includes(`${view}.focus`), `view ${view}`);
    }
    await vscode.commands.executeCommand('workbench.view.extension.worldline');
    await vscode.commands.executeCommand('worldline.chat.focus');
  });

  it('Initialize Novel writes worldline.yaml and chapters/01.md, and the config reads back', async () => {
    const worldline = await api();
    const root = workspaceRoot();
    assert.ok(!fs.existsSync(path.join(root, 'worldline.yaml')));
    const created = await vscode.commands.executeCommand<boolean>('worldline.initializeNovel', '测试小说');
    assert.equal(created, true);
    const yamlText = fs.readFileSync(path.join(root, 'worldline.yaml'), 'utf8');
    assert.match(yamlText, /title: "测试小说"/);
    assert.ok(fs.existsSync(path.join(root, 'chapters', '01.md')));
    assert.equal(worldline.novel()!.config.title, '测试小说');
    const editor = await waitFor(() => vscode.window.activeTextEditor, 'the chapter editor');
    assert.equal(path.basename(editor.document.uri.fsPath), '01.md');
    // A second run changes nothing.
    fs.writeFileSync(path.join(root, 'chapters', '01.md'), '# 我的第一章\n');
    assert.equal(await vscode.commands.executeCommand<boolean>('worldline.initializeNovel'), false);
    assert.equal(fs.readFileSync(path.join(root, 'chapters', '01.md'), 'utf8'), '# 我的第一章\n');
  });

  it('a session written through the extension is read back from disk', async () => {
    const worldline = await api();
    const root = workspaceRoot();
    const id = await vscode.commands.executeCommand<string>('worldline.newSession', '第一夜');
    assert.ok(id);
    const session = worldline.novel()!.session!;
    assert.equal(session.header.id, id);
    const user = await session.append({ type: 'user', text: '让青梧开口说第一句话。' });
    await session.append({ type: 'assistant', text: '她抬起头。', model: 'test', finish: 'stop' });
    await session.flush();

    const file = path.join(root, '.worldline', 'sessions', `${id}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines[0]!.type, 'session');
    assert.equal(lines[0]!.title, '第一夜');
    const entries = lines.slice(1).filter((l) => l.type === 'user' || l.type === 'assistant');
    assert.deepEqual(entries.map((e) => e.type), ['user', 'assistant']);
    assert.equal(entries[0]!.text, '让青梧开口说第一句话。');
    assert.equal(entries[1]!.parentId, user.id);

    // Rename, switch away and back: the session reopens from disk with its entries and title.
    await vscode.commands.executeCommand('worldline.renameSession', '第一夜（改）');
    const other = await vscode.commands.executeCommand<string>('worldline.newSession', '另一条');
    assert.notEqual(other, id);
    await vscode.commands.executeCommand('worldline.switchSession', id);
    const reopened = worldline.novel()!.session!;
    assert.equal(reopened.header.id, id);
    assert.equal(reopened.title, '第一夜（改）');
    assert.deepEqual(reopened.path().map((e) => e.type), ['user', 'assistant']);
    assert.equal(reopened.textOf(reopened.path()[1]!.id), '她抬起头。');
  });

  it('Restore Session from Backup brings a backup back as a new session', async () => {
    const worldline = await api();
    const novel = worldline.novel()!;
    const source = novel.session!;
    const backups = await waitFor(async () => {
      const list = (await novel.library.backups()).filter((b) => b.sessionId === source.header.id);
      return list.length > 0 ? list : undefined;
    }, 'a backup of the session');
    const restoredId = await vscode.commands.executeCommand<string>('worldline.restoreSessionFromBackup', backups[0]!.file);
    assert.ok(restoredId);
    assert.notEqual(restoredId, source.header.id);
    const restored = novel.session!;
    assert.equal(restored.header.id, restoredId);
    assert.match(restored.title, /第一夜/);
    assert.ok(restored.path().some((e) => e.type === 'user'), 'the restored session has the conversation');
    const ids = (await novel.library.list()).map((s) => s.id);
    assert.ok(ids.includes(source.header.id) && ids.includes(restoredId), 'nothing was overwritten');
  });
});
