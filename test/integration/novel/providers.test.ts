// First run inside a real VS Code: Choose Provider (with arguments, no QuickPick) sets the
// endpoint, the dialect, the key and the model, and Test Connection then reports that tools work,
// with the key going to that endpoint; after the base URL moves to a host without a key the
// novelist is asked for that host's key, once, and the old key stays home; sending from a folder
// without worldline.yaml is refused with Initialize Novel; the walkthrough's buttons run commands
// that exist, and its pages exist in both languages.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConnectionReport } from '../../../src/model/connectionTest';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { SHOW, answerQuestions, api, startNovelSession } from './helpers';

const ping = { toolCalls: [{ name: 'worldline_ping', arguments: '{"ok":true}' }] };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(probe: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!probe()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('Choose Provider, Test Connection and the key question in a real VS Code', function () {
  this.timeout(60_000);
  let server: ModelServer;
  let chosen: ModelServer;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('worldline');
  /** Questions with a Set API Key button, left unanswered (they stay in the bell). */
  const keyQuestions: string[] = [];
  let answering: vscode.Disposable;

  before(async () => {
    ({ server } = await startNovelSession('服务商'));
    chosen = await startModelServer();
    answering = answerQuestions((message, buttons) => {
      if (!buttons.includes('Set API Key')) return SHOW;
      keyQuestions.push(message);
      return undefined;
    });
  });

  after(async () => {
    answering.dispose();
    await vscode.commands.executeCommand('worldline.setApiKey', '', 'main');
    await config().update('provider', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await config().update('model', 'test-model', vscode.ConfigurationTarget.Workspace);
    await chosen.close();
    await server.close();
  });

  it('Choose Provider sets the endpoint, the provider, the key and the model; Test Connection finds the tools working', async () => {
    const result = await vscode.commands.executeCommand('worldline.chooseProvider', { preset: 'custom', baseUrl: chosen.url, model: 'test-model', key: 'sk-chosen' });
    assert.deepEqual(result, { preset: 'custom', baseUrl: chosen.url, provider: 'auto', model: 'test-model', keyReady: true });
    assert.equal(config().get('baseUrl'), chosen.url);
    assert.equal(config().get('provider'), 'auto');
    assert.equal(config().get('model'), 'test-model');

    chosen.enqueue(ping);
    const report = await vscode.commands.executeCommand<ConnectionReport>('worldline.testConnection', { quiet: true });
    assert.equal(report?.answered, true, report?.error?.message);
    assert.equal(report?.tools, 'called');
    assert.equal(chosen.chatRequests().at(-1)?.authorization, 'Bearer sk-chosen');
    // Choose Provider asked for the key itself: no second question about the same host. (Hosts
    // set by the suite's other tests are asked about, unanswered; only this one matters here.)
    await sleep(300);
    assert.deepEqual(keyQuestions.filter((q) => q.includes(new URL(chosen.url).origin)), []);
  });

  it('after the base URL moves to a host without a key, asks for that host\'s key once; the old key stays home', async () => {
    const third = await startModelServer();
    try {
      const aboutThird = (): string[] => keyQuestions.filter((q) => q.includes(new URL(third.url).origin));
      await config().update('baseUrl', third.url, vscode.ConfigurationTarget.Workspace);
      await waitFor(() => aboutThird().length > 0, 'the key question');
      assert.equal(aboutThird().length, 1);

      third.enqueue({ text: 'no tools here' });
      const report = await vscode.commands.executeCommand<ConnectionReport>('worldline.testConnection', { quiet: true });
      assert.equal(report?.tools, 'notCalled');
      assert.equal(third.chatRequests().at(-1)?.authorization, 'Bearer no-key', 'the key set for the other host was not sent');

      // Back and forth: that host was asked about already.
      await config().update('baseUrl', chosen.url, vscode.ConfigurationTarget.Workspace);
      await config().update('baseUrl', third.url, vscode.ConfigurationTarget.Workspace);
      await sleep(500);
      assert.equal(aboutThird().length, 1);
    } finally {
      await config().update('baseUrl', chosen.url, vscode.ConfigurationTarget.Workspace);
      await third.close();
    }
  });

  it('refuses to send from a folder without worldline.yaml, offering Initialize Novel', async () => {
    const worldline = await api();
    const novel = worldline.novel()!;
    const yaml = novel.configUri.fsPath;
    const aside = `${yaml}.aside`;
    const offered: string[] = [];
    const refusal = answerQuestions((message, buttons) => {
      if (!buttons.includes('Initialize Novel')) return SHOW;
      offered.push(message);
      return undefined;
    });
    const before = chosen.chatRequests().length;
    fs.renameSync(yaml, aside);
    try {
      assert.equal(await novel.hasProjectFile(), false);
      assert.equal(await worldline.agent().send('写下去。'), undefined);
      await waitFor(() => offered.length > 0, 'the refusal');
      assert.match(offered[0]!, /worldline\.yaml/);
      assert.equal(chosen.chatRequests().length, before, 'nothing went to the model');
    } finally {
      refusal.dispose();
      fs.renameSync(aside, yaml);
      await novel.reloadConfig();
    }
  });

  it('the walkthrough\'s buttons run commands that exist, and its pages exist in English and Chinese', async () => {
    const ext = vscode.extensions.getExtension('worldline.worldline');
    assert.ok(ext);
    const root = ext.extensionPath;
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      contributes: { walkthroughs: { steps: { description: string; media: { markdown: string }; completionEvents: string[] }[] }[] };
    };
    const commands = new Set(await vscode.commands.getCommands(true));
    const steps = manifest.contributes.walkthroughs[0]!.steps;
    assert.equal(steps.length, 6);
    for (const lang of ['package.nls.json', 'package.nls.zh-cn.json']) {
      const nls = JSON.parse(fs.readFileSync(path.join(root, lang), 'utf8')) as Record<string, string>;
      const text = (ref: string): string => nls[ref.replace(/^%|%$/g, '')] ?? assert.fail(`${lang}: ${ref}`);
      for (const step of steps) {
        const buttons = [...text(step.description).matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
        assert.ok(buttons.length > 0, `${lang}: ${step.description} has a button`);
        // vscode.openFolder is VS Code's own (the folder dialog when given no folder).
        for (const b of buttons) assert.ok(commands.has(b) || b === 'vscode.openFolder', `${lang}: ${b} is a command`);
        assert.ok(fs.existsSync(path.join(root, text(step.media.markdown))), `${lang}: ${text(step.media.markdown)}`);
        for (const e of step.completionEvents.filter((x) => x.startsWith('onCommand:'))) assert.ok(commands.has(e.slice('onCommand:'.length)), e);
      }
    }
  });
});
