// The shadow repo's loss in a real VS Code: the novelist deletes .worldline/checkpoints.git, then
// runs Rebuild Checkpoints. Rebuild says what it did and what is gone (no claim of an old store
// that was not there); the turns whose checkpoints went are marked in the Chat with their restore
// actions off; restoring one or showing its changes from the palette says why in words, never with
// a commit id or VS Code's generic error; a new turn after the rebuild checkpoints and restores as
// before. Also: the first open wrote .worldline/.gitignore.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointEntry } from '../../../src/session/entries';
import type { ModelServer } from '../../fixtures/modelServer';
import { api, proseTurn, startNovelSession } from './helpers';

type Show = (message: string, ...rest: unknown[]) => Thenable<unknown>;

/** Every message the extension shows, as it shows it (they still show). Dispose to stop recording. */
function recordMessages(into: string[]): vscode.Disposable {
  const window = vscode.window as unknown as Record<'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage', Show>;
  const kinds = ['showInformationMessage', 'showWarningMessage', 'showErrorMessage'] as const;
  const originals = kinds.map((k) => window[k]);
  kinds.forEach((k, i) => {
    const original = originals[i]!;
    window[k] = (message, ...rest) => {
      into.push(message);
      return original(message, ...rest);
    };
  });
  return new vscode.Disposable(() => kinds.forEach((k, i) => { window[k] = originals[i]!; }));
}

const COMMIT_ID = /\b[0-9a-f]{40}\b/;

describe('The shadow repo lost, in a real VS Code', function () {
  let server: ModelServer;
  const shown: string[] = [];
  let recording: vscode.Disposable;
  const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

  before(async () => {
    server = (await startNovelSession('store loss test')).server;
    recording = recordMessages(shown);
  });

  after(async () => {
    recording.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  it('the first open wrote .worldline/.gitignore: backups, lock and the store left out, sessions kept', () => {
    const ignore = fs.readFileSync(path.join(root(), '.worldline', '.gitignore'), 'utf8').split('\n').map((l) => l.trim());
    for (const line of ['backups/', 'lock', 'checkpoints.git/']) assert.ok(ignore.includes(line), `${line} is ignored`);
    assert.ok(!ignore.some((l) => l.startsWith('sessions') || l.startsWith('worldlines.json')), 'sessions and worldlines.json stay visible');
  });

  it('Rebuild after the store was deleted says what is gone; lost turns are marked and refused in words', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    await proseTurn(server, '沈砚进店。', '\n沈砚推门进了客栈。\n');
    const lostCheckpoint = session.path().filter((e): e is CheckpointEntry => e.type === 'checkpoint').at(-1)!;

    fs.rmSync(path.join(root(), '.worldline', 'checkpoints.git'), { recursive: true, force: true });
    shown.length = 0;
    assert.equal(await vscode.commands.executeCommand<boolean>('worldline.rebuildCheckpoints'), true);
    const said = shown.find((m) => /rebuilt/i.test(m));
    assert.ok(said, `Rebuild said what it did (shown: ${JSON.stringify(shown)})`);
    assert.doesNotMatch(said, /kept as|kept in/i, 'no old store is claimed: there was none');
    assert.match(said, /can no longer be restored/, 'it says which turns are gone');

    // The Chat marks the lost turn: its restore actions are off.
    const story = worldline.agent().current()!;
    for (let i = 0; i < 50 && !story.lostCheckpoints.has(lostCheckpoint.commit); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(story.lostCheckpoints.has(lostCheckpoint.commit), 'the Story knows the checkpoint is lost');
    const marked = worldline.chat().model().messages.filter((m) => m.checkpoint?.commit === lostCheckpoint.commit);
    assert.ok(marked.length > 0 && marked.every((m) => m.checkpoint?.lost === true), 'the Chat marks the turn');

    // From the palette with the lost turn named: words, no commit id, no thrown command error.
    shown.length = 0;
    const chapter = fs.readFileSync(path.join(root(), 'chapters', '01.md'), 'utf8');
    await vscode.commands.executeCommand('worldline.restoreProseOnly', lostCheckpoint.id);
    await vscode.commands.executeCommand('worldline.showTurnChanges', lostCheckpoint.id);
    assert.equal(fs.readFileSync(path.join(root(), 'chapters', '01.md'), 'utf8'), chapter, 'nothing was restored');
    assert.ok(shown.length >= 2, `both said why (shown: ${JSON.stringify(shown)})`);
    for (const m of shown) assert.doesNotMatch(m, COMMIT_ID, `no commit id reaches the novelist: ${m}`);

    // The new store works: a turn after the rebuild checkpoints and restores.
    await proseTurn(server, '沈砚要了一碗面。', '\n沈砚要了一碗阳春面。\n');
    const fresh = session.path().filter((e): e is CheckpointEntry => e.type === 'checkpoint').at(-1)!;
    assert.notEqual(fresh.id, lostCheckpoint.id);
    assert.ok(!story.lostCheckpoints.has(fresh.commit));
    const restored = await vscode.commands.executeCommand<unknown>('worldline.restoreProseOnly', fresh.id);
    assert.ok(restored && restored !== 'cancelled', 'a checkpoint of the new store restores');
  });
});
