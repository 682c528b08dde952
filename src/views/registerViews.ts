// The sidebar views, the Story of the open session, the checkpoint and worldline controllers and
// the status bar, wired to the open novel.
import * as vscode from 'vscode';
import { StateViewProvider } from './stateView';
import { ChatViewProvider } from './chatView';
import { WorldlineStatusBar } from './statusBar';
import { CheckpointController } from './checkpointController';
import { WorldlineController } from './worldlineController';
import { WorldlinesTreeProvider } from './worldlinesTree';
import { WorldlineGraphViewProvider } from './worldlineGraphView';
import { StoryShell } from './storyShell';
import { Notices } from './notices';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import { ApiKeys } from './settings';
import { SettingsWatch } from './settingsWatch';
import { SetupState } from './setupState';
import { ContextKeys } from './contextKeys';
import { CodexTreeProvider } from './codexTree';
import { registerCodexCommands } from './codexCommands';
import { ContinuityView } from './continuityView';
import { EditorTools } from './editorTools';

export interface Views {
  disposables: vscode.Disposable[];
  keys: ApiKeys;
  state: StateViewProvider;
  chat: ChatViewProvider;
  stories: StoryShell;
  statusBar: WorldlineStatusBar;
  checkpoints: CheckpointController;
  worldlines: WorldlineController;
  /** Asks for a new host's key after an endpoint setting changes. */
  settingsWatch: SettingsWatch;
  /** What the first-run steps depend on (the Chat's empty state, the walkthrough's context keys). */
  setup: SetupState;
  /** The Codex view's entries and missing names. */
  codex: CodexTreeProvider;
  /** The branch's continuity findings as problems, their quick fixes, Check Continuity of This Chapter. */
  continuity: ContinuityView;
  /** The editor's writing tools and the review of their versions. */
  editorTools: EditorTools;
}

export function registerViews(context: vscode.ExtensionContext, getNovel: () => NovelWorkspace | undefined, log: Log): Views {
  const extensionUri = context.extensionUri;
  const notices = new Notices(log);
  const keys = new ApiKeys(context.secrets);
  const checkpoints = new CheckpointController(getNovel, notices, log);
  const stories = new StoryShell(getNovel, keys, checkpoints, notices, log);
  const state = new StateViewProvider(extensionUri, getNovel, log, { turns: stories });
  const settingsWatch = new SettingsWatch(keys, log);
  const setup = new SetupState(getNovel, keys, context.secrets, log);
  const chat = new ChatViewProvider(extensionUri, getNovel, stories, log, setup);
  const statusBar = new WorldlineStatusBar(getNovel, stories, log, { changes: checkpoints.changes });
  const worldlines = new WorldlineController(getNovel, stories, checkpoints, log);
  const tree = new WorldlinesTreeProvider(worldlines, { turns: stories });
  const graph = new WorldlineGraphViewProvider(extensionUri, getNovel, worldlines, log, { turns: stories });
  const codex = new CodexTreeProvider(getNovel, log);
  const continuity = new ContinuityView(getNovel, stories, state, log);
  const editorTools = new EditorTools(getNovel, stories, chat);
  const contextKeys = new ContextKeys(async () => {
    const novel = getNovel();
    const story = novel && stories.current();
    return {
      novel: novel !== undefined && (await novel.hasProjectFile()),
      ...(story ? { story: { busy: story.busy, canRetry: story.canRetry, lostCheckpoints: story.lostCheckpoints, path: story.branch().path }, saves: await worldlines.view() } : {}),
      reviewingVersions: editorTools.reviewing,
    };
  }, log);
  /** The open session's checkpoints against the store: at open, for a new session, after a rebuild. */
  const checkCheckpoints = () => void stories.current()?.checkCheckpoints();

  const disposables: vscode.Disposable[] = [
    state, stories, continuity, editorTools, ...editorTools.commands(), editorTools.onDidChange(() => contextKeys.update()), chat, statusBar, worldlines, checkpoints, tree, graph, settingsWatch, setup, contextKeys,
    setup.onDidChange(() => chat.refresh()),
    stories.onDidChange((what) => { if (what !== 'stream') contextKeys.update(); }),
    worldlines.onDidChangeView(() => contextKeys.update()), // also fired by the session's tree and session changes
    checkpoints.onDidRestore(() => statusBar.restored()),
    checkpoints.onDidRebuild(() => { checkCheckpoints(); contextKeys.update(); }),
    stories.onDidEndTurn((result) => {
      void statusBar.turnEnded(result.changes);
      if (result.status === 'done') setup.wrote();
    }),
    stories.onDidChangeScribe((status) => state.setScribeStatus(status)),
    vscode.window.registerWebviewViewProvider('worldline.chat', chat),
    vscode.window.registerWebviewViewProvider('worldline.state', state),
    vscode.window.createTreeView('worldline.worldlines', { treeDataProvider: tree, showCollapseAll: true }),
    vscode.window.registerWebviewViewProvider('worldline.worldlineGraph', graph),
    codex, vscode.window.createTreeView('worldline.codex', { treeDataProvider: codex, showCollapseAll: true }),
    ...registerCodexCommands({ getNovel, tree: codex, keys, log }),
    stories.onDidEndTurn(() => void codex.reload()), // the "injected last turn" badge
  ];
  const novel = getNovel();
  if (novel) {
    stories.current(); // the open session's Story: prose follows its branch from now on
    checkCheckpoints();
    disposables.push(
      novel.onDidChangeSession(() => { stories.current(); checkCheckpoints(); chat.refresh(); state.refresh(); worldlines.refresh(); void codex.reload(); }),
      novel.onDidChangeTree(() => { chat.refresh(); state.refresh(); worldlines.refresh(); codex.branchMoved(); }),
      novel.onDidChangeConfig(() => {
        chat.refresh(); state.refresh(); statusBar.render(); void statusBar.count(); contextKeys.update();
        checkpoints.setGlobs(novel.config.trackedMatcher);
        void codex.reload(); // the codex folder may have moved
      }),
    );
    void checkpoints.checkHealth().catch((err: unknown) => log.warn(`checkpoint health check failed: ${String(err)}`));
  }
  return { disposables, keys, state, chat, stories, statusBar, checkpoints, worldlines, settingsWatch, setup, codex, continuity, editorTools };
}
