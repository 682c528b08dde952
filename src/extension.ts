// Wiring only: build the shell objects, register them, dispose them. Logic lives in the core
// folders and in src/views/.
import * as vscode from 'vscode';
import { NovelWorkspace } from './views/novel';
import { createLog } from './views/log';
import { registerProjectCommands } from './views/commands';
import { registerViews } from './views/registerViews';
import { registerAgentCommands } from './views/agentCommands';
import { registerProviderCommands } from './views/providerCommands';
import { registerImportCommands } from './views/importCommands';
import { registerChatImportCommands } from './views/chatImportCommands';
import type { Views } from './views/registerViews';

/** What the extension returns from activate(): used by the integration tests. */
export interface WorldlineApi {
  novel(): NovelWorkspace | undefined;
  sceneState(): Views['state'];
  chat(): Views['chat'];
  /** The Story of the open session, adapted (send, regenerate, scribeIdle, onDidChange). */
  agent(): Views['stories'];
  statusBar(): Views['statusBar'];
  checkpoints(): Views['checkpoints'];
  worldlines(): Views['worldlines'];
  codex(): Views['codex'];
  /** The continuity problems of the branch (diagnostics, quick fixes). */
  continuity(): Views['continuity'];
  /** The editor's writing tools and their version review. */
  editorTools(): Views['editorTools'];
}

let novel: NovelWorkspace | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<WorldlineApi> {
  const log = createLog();
  context.subscriptions.push(log);
  const root = await NovelWorkspace.pickRoot();
  if (root) {
    novel = new NovelWorkspace(root, log);
    await novel.reloadConfig();
    try {
      await novel.restoreCurrent();
    } catch (err) {
      log.error(`could not open the last session: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const views = registerViews(context, () => novel, log);
  context.subscriptions.push(
    ...views.disposables,
    ...registerProjectCommands(() => novel, log, (action) => views.stories.idle(action)),
    ...registerAgentCommands(views),
    ...registerImportCommands(() => novel, log),
    ...registerChatImportCommands(() => novel, log, (action) => views.stories.idle(action)),
    ...registerProviderCommands(views.keys, views.settingsWatch, log, () => views.stories.current()?.clearNotice()),
  );
  log.info(`Worldline activated${root ? ` for ${root.fsPath}` : ' without a folder'}`);
  return {
    novel: () => novel,
    sceneState: () => views.state,
    chat: () => views.chat,
    agent: () => views.stories,
    statusBar: () => views.statusBar,
    checkpoints: () => views.checkpoints,
    worldlines: () => views.worldlines,
    codex: () => views.codex,
    continuity: () => views.continuity,
    editorTools: () => views.editorTools,
  };
}

export async function deactivate(): Promise<void> {
  await novel?.dispose();
  novel = undefined;
}
