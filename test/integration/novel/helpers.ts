// Shared setup of the sample-novel suite: the extension's API, and the test model server as the
// novel's endpoint (scribe and summariser answered by routes, the agent by the default queue).
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { WorldlineApi } from '../../../src/extension';
import { startModelServer, type ModelServer, type RecordedRequest, type RouteHandle, type ScriptedReply } from '../../fixtures/modelServer';

export async function api(): Promise<WorldlineApi> {
  const ext = vscode.extensions.getExtension<WorldlineApi>('worldline.worldline');
  assert.ok(ext, 'the extension is installed in the test host');
  return ext.activate();
}

export const isScribe = (r: RecordedRequest): boolean => (r.system ?? '').includes('你是场记') || (r.system ?? '').includes('You are the scribe');
export const isSummariser = (r: RecordedRequest): boolean => (r.system ?? '').includes('摘要员') || (r.system ?? '').includes('summariser');

/** Starts the test model server, points the workspace settings at it and opens a new session. */
export async function startNovelSession(
  title: string,
  scribeReply: ScriptedReply = { text: '{"patch":{}}' },
): Promise<{ server: ModelServer; worldline: WorldlineApi; scribe: RouteHandle }> {
  const server = await startModelServer();
  const scribe = server.route(isScribe, scribeReply, 'scribe');
  const config = vscode.workspace.getConfiguration('worldline');
  await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
  await config.update('model', 'test-model', vscode.ConfigurationTarget.Workspace);
  // "Prose follows the branch" would ask; the tests that switch branches restore explicitly.
  await config.update('proseFollowsBranch', 'never', vscode.ConfigurationTarget.Workspace);
  const worldline = await api();
  await vscode.commands.executeCommand('worldline.newSession', title);
  assert.equal(worldline.novel()?.session?.title, title);
  return { server, worldline, scribe };
}

/** Leave the question to VS Code (a notification or dialog, as a novelist would see it). */
export const SHOW = Symbol('show');
export type Answer = (message: string, buttons: string[]) => string | undefined | typeof SHOW | Promise<string | undefined>;

/**
 * Answers the questions the extension asks through VS Code's message API, as a novelist clicking
 * a button would (the extension's own code runs unchanged). Messages without buttons, and those
 * the answer leaves to VS Code, are shown as usual. Dispose to stop answering.
 */
export function answerQuestions(answer: Answer): vscode.Disposable {
  type Show = (message: string, ...rest: unknown[]) => Thenable<unknown>;
  const window = vscode.window as unknown as { showWarningMessage: Show; showInformationMessage: Show };
  const originals = { warning: window.showWarningMessage, info: window.showInformationMessage };
  const wrap = (original: Show): Show => (message, ...rest) => {
    const buttons = rest.filter((x): x is string => typeof x === 'string');
    const picked = buttons.length > 0 ? answer(message, buttons) : SHOW;
    return picked === SHOW ? original(message, ...rest) : Promise.resolve(picked);
  };
  window.showWarningMessage = wrap(originals.warning);
  window.showInformationMessage = wrap(originals.info);
  return new vscode.Disposable(() => {
    window.showWarningMessage = originals.warning;
    window.showInformationMessage = originals.info;
  });
}

/** The unsaved-chapters question before a restore, answered "Save and Restore"; every other question shown. */
export function saveBeforeRestore(asked: string[] = []): vscode.Disposable {
  return answerQuestions((message, buttons) => {
    if (!buttons.includes('Save and Restore')) return SHOW;
    asked.push(message);
    return 'Save and Restore';
  });
}

/** A scripted tool call that appends prose to a chapter. */
export function appendProse(content: string, path = 'chapters/01.md'): ScriptedReply {
  return { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path, content }) }] };
}

/** One agent turn that appends `prose` to the chapter, then waits for its scribe. */
export async function proseTurn(server: ModelServer, instruction: string, prose: string): Promise<void> {
  server.enqueue(appendProse(prose), { text: '写好了。' });
  const result = await (await api()).agent().send(instruction);
  assert.equal(result?.status, 'done', result?.error);
  await result?.scribeDone;
}
