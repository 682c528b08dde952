// API keys inside a real VS Code: the writing model and a scribe on an endpoint of its own each get
// their key from SecretStorage; a key goes only to the endpoint it was set for, so without a
// scribe key the scribe on its own endpoint goes without one.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { isScribe, proseTurn, startNovelSession } from './helpers';

describe('API keys in a real VS Code', function () {
  let main: ModelServer;
  let scribeServer: ModelServer;

  before(async () => {
    ({ server: main } = await startNovelSession('密钥'));
    scribeServer = await startModelServer();
    scribeServer.route(isScribe, { text: '{"patch":{}}' }, 'scribe');
    await vscode.workspace.getConfiguration('worldline').update('scribe.baseUrl', scribeServer.url, vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('worldline').update('scribe.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('worldline.setApiKey', '', 'scribe');
    await vscode.commands.executeCommand('worldline.setApiKey', '', 'main');
    await scribeServer.close();
    await main.close();
  });

  const turn = (instruction: string) => proseTurn(main, instruction, `\n${instruction}\n`);

  it('the scribe on its own endpoint uses its own key, else none; the main model always the main one', async () => {
    assert.equal(await vscode.commands.executeCommand('worldline.setApiKey', 'sk-main-123', 'main'), true);
    assert.equal(await vscode.commands.executeCommand('worldline.setApiKey', 'sk-scribe-456', 'scribe'), true);
    await turn('雨停了。');
    const agentAuth = main.chatRequests().filter((r) => !isScribe(r)).map((r) => r.authorization);
    assert.ok(agentAuth.length > 0 && agentAuth.every((a) => a === 'Bearer sk-main-123'));
    const scribeAuth = scribeServer.chatRequests().map((r) => r.authorization);
    assert.deepEqual(scribeAuth, ['Bearer sk-scribe-456']);
    assert.equal(main.chatRequests().filter(isScribe).length, 0, 'the scribe went to its own endpoint');

    // No scribe key: the main key is not sent to the scribe's other endpoint.
    assert.equal(await vscode.commands.executeCommand('worldline.setApiKey', '', 'scribe'), true);
    await turn('天亮了。');
    assert.equal(scribeServer.chatRequests().at(-1)?.authorization, 'Bearer no-key');

    // A scribe key is never sent to the main endpoint: with scribe.baseUrl cleared, the main key.
    assert.equal(await vscode.commands.executeCommand('worldline.setApiKey', 'sk-scribe-789', 'scribe'), true);
    await vscode.workspace.getConfiguration('worldline').update('scribe.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await turn('夜深了。');
    const scribeAtMain = main.chatRequests().filter(isScribe);
    assert.equal(scribeAtMain.length, 1);
    assert.equal(scribeAtMain[0]!.authorization, 'Bearer sk-main-123');
  });
});
