// The sidebar views, the agent, checkpoint and worldline controllers and the status bar, wired to
// the open novel.
import * as vscode from 'vscode';
import { StateViewProvider } from './stateView';
import { ChatViewProvider } from './chatView';
import { AgentController } from './agentController';
import { WorldlineStatusBar } from './statusBar';
import { CheckpointController } from './checkpointController';
import { MemoryController } from './memoryController';
import { WorldlineController } from './worldlineController';
import { WorldlinesTreeProvider } from './worldlinesTree';
import { WorldlineGraphViewProvider } from './worldlineGraphView';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { ApiKeys } from './settings';

export interface Views {
  disposables: vscode.Disposable[];
  state: StateViewProvider;
  chat: ChatViewProvider;
  agent: AgentController;
  statusBar: WorldlineStatusBar;
  checkpoints: CheckpointController;
  worldlines: WorldlineController;
}

export function registerViews(context: vscode.ExtensionContext, getNovel: () => NovelWorkspace | undefined, log: Log): Views {
  const extensionUri = context.extensionUri;
  const state = new StateViewProvider(extensionUri, getNovel, log);
  let busy = () => false;
  const checkpoints = new CheckpointController(getNovel, log, () => busy());
  const keys = new ApiKeys(context.secrets);
  const memory = new MemoryController(keys, getNovel, log);
  const agent = new AgentController(keys, getNovel, state, checkpoints, memory, log);
  busy = () => agent.busy;
  const chat = new ChatViewProvider(extensionUri, getNovel, agent, checkpoints, log);
  const statusBar = new WorldlineStatusBar(getNovel, agent, log);
  agent.onTurnEnd = (result) => void statusBar.turnEnded(result.changes).catch((err: unknown) => {
    log.warn(`the status bar could not count the turn: ${err instanceof Error ? err.message : String(err)}`);
  });

  const worldlines = new WorldlineController(getNovel, agent, checkpoints, log);
  const tree = new WorldlinesTreeProvider(worldlines);
  const graph = new WorldlineGraphViewProvider(extensionUri, getNovel, worldlines, log);

  const disposables: vscode.Disposable[] = [
    state, agent, chat, statusBar, worldlines, checkpoints, tree, graph, memory,
    vscode.window.registerWebviewViewProvider('worldline.chat', chat),
    vscode.window.registerWebviewViewProvider('worldline.state', state),
    vscode.window.createTreeView('worldline.worldlines', { treeDataProvider: tree, showCollapseAll: true }),
    vscode.window.registerWebviewViewProvider('worldline.worldlineGraph', graph),
  ];
  const novel = getNovel();
  if (novel) {
    disposables.push(
      novel.onDidChangeSession(() => { agent.sessionChanged(); chat.refresh(); state.refresh(); worldlines.refresh(); }),
      novel.onDidChangeTree(() => { chat.refresh(); state.refresh(); worldlines.refresh(); }),
      novel.onDidChangeConfig(() => {
        chat.refresh(); state.refresh(); statusBar.render(); void statusBar.count();
        checkpoints.setGlobs(novel.config.manuscript);
      }),
      novel.onDidNavigate(({ session, from }) => void checkpoints.followBranch(session, from).catch((err: unknown) => {
        log.warn(`prose did not follow the branch: ${err instanceof Error ? err.message : String(err)}`);
      })),
    );
    void checkpoints.checkHealth().catch((err: unknown) => log.warn(`checkpoint health check failed: ${String(err)}`));
  }
  return { disposables, state, chat, agent, statusBar, checkpoints, worldlines };
}
