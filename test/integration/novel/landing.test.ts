// Restores land where the branch says, through the real commands: Restore Prose and Chat lands
// after the turn's state and save (the next Save Point continues that line), and a "bring the
// prose along?" answered after the next turn was sent changes nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ModelServer } from '../../fixtures/modelServer';
import { SHOW, answerQuestions, api, proseTurn, saveBeforeRestore, startNovelSession } from './helpers';

describe('Restores land at the end of the turn; late answers are checked again', function () {
  let server: ModelServer;
  let chapter: string;

  before(async () => {
    const started = await startNovelSession('landing test');
    server = started.server;
    chapter = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'chapters', '01.md');
  });

  after(async () => {
    await vscode.workspace.getConfiguration('worldline').update('proseFollowsBranch', 'never', vscode.ConfigurationTarget.Workspace);
    await server.close();
  });

  const prose = () => fs.readFileSync(chapter, 'utf8');

  it('Restore Prose and Chat to the turn before a save: the save is "here" again and the next save stays on its line', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    await proseTurn(server, '第一回。', '\n【落点一】\n');
    const save = await vscode.commands.executeCommand<{ id: string; saveId: string; worldlineId: string }>('worldline.savePoint', '落点');
    assert.ok(save);
    const checkpoint = session.lastOnPath('checkpoint', save.id)!;
    await proseTurn(server, '第二回。', '\n【落点二】\n');

    const answering = saveBeforeRestore();
    const restored = await vscode.commands.executeCommand<unknown>('worldline.restoreProseAndChat', checkpoint.id);
    answering.dispose();
    assert.ok(restored && restored !== 'cancelled');
    assert.equal(session.leafId, save.id, 'the leaf lands after the turn\'s state and save');
    assert.doesNotMatch(prose(), /【落点二】/);
    assert.equal((await worldline.worldlines().view())?.current.saveId, save.saveId);
    const next = await vscode.commands.executeCommand<{ kind: string; worldlineId: string }>('worldline.savePoint', '再落');
    assert.equal(next?.kind, 'sameLine');
    assert.equal(next?.worldlineId, save.worldlineId);
  });

  it('"bring the prose along?" answered after the next turn was sent changes nothing', async () => {
    const worldline = await api();
    const session = worldline.novel()!.session!;
    await proseTurn(server, '第三回。', '\n【旧枝】\n');
    const older = session.path().at(-1)!.id;
    await proseTurn(server, '第四回。', '\n【新枝】\n');
    // The novelist wants to be asked, then leaves the question open (it hides in the bell).
    await vscode.workspace.getConfiguration('worldline').update('proseFollowsBranch', 'ask', vscode.ConfigurationTarget.Workspace);
    let answer: (button: string) => void = () => undefined;
    let answering: vscode.Disposable | undefined;
    const asked = new Promise<void>((signal) => {
      answering = answerQuestions((_message, buttons) => {
        if (!buttons.includes('Bring the Prose Along')) return SHOW;
        signal();
        return new Promise<string | undefined>((resolve) => { answer = resolve; });
      });
    });
    await session.navigate(older); // prose follows the branch: the question is asked and left open
    await asked;
    answering?.dispose();
    await proseTurn(server, '另一个第四回。', '\n【刚写的一段】\n');
    const now = prose();
    assert.match(now, /【刚写的一段】/);
    answer('Bring the Prose Along');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(prose(), now, 'the old checkpoint was not restored over the new paragraph');
  });
});
