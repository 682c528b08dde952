// The Chat view: the current branch as messages, streaming replies, and the per-message actions
// (variants, regenerate, edit, hide, branch here, copy). The page only renders; every action comes
// here and goes to its verb: the chat-tree verbs to the Story (src/story/story.ts), the reruns to
// the agent.
import * as vscode from 'vscode';
import { buildTranscript, type TranscriptMessage } from '../agent/transcript';
import { resolveManuscriptPath } from '../agent/paths';
import { WebviewHost, type PageSpec } from './webviewHost';
import { decodeFromChatPage, type ChatModel, type ChatStream, type FromChatPage, type ToChatPage } from '../protocol/chat';
import { isDemoModel, type AgentController } from './agentController';
import { readSettings } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { CheckpointController } from './checkpointController';
import type { ChainEntry } from '../session/entries';

export class ChatViewProvider extends WebviewHost<ToChatPage, FromChatPage> {
  private pendingInput: string | undefined;

  constructor(
    extensionUri: vscode.Uri,
    getNovel: () => NovelWorkspace | undefined,
    private readonly agent: AgentController,
    private readonly checkpoints: CheckpointController,
    log: Log,
  ) {
    super(extensionUri, getNovel, log, decodeFromChatPage);
    this.disposables.push(agent.onDidChange((what) => {
      if (what === 'stream') this.postStream();
      else if (what === 'phase') this.post({ type: 'phase', phase: agent.phase, busy: agent.busy || agent.phase !== 'idle' });
      else this.refresh();
    }));
  }

  protected page(): PageSpec {
    return { title: vscode.l10n.t('Chat'), name: 'chat', labels: chatLabels() };
  }

  /** The messages of the current branch, as the page shows them. */
  transcript(): TranscriptMessage[] {
    const session = this.getNovel()?.session;
    return session ? buildTranscript(session) : [];
  }

  model(): ChatModel {
    const novel = this.getNovel();
    const session = novel?.session;
    const settings = readSettings();
    const messages = this.transcript().map((m) => ({
      id: m.id, role: m.role, text: m.text, hidden: m.hidden, edited: m.edited, variant: m.variant,
      finish: m.finish, error: m.error, tools: m.tools, model: m.model,
      checkpoint: m.checkpoint ? { commit: m.checkpoint.commit, changed: m.checkpoint.changed.length } : undefined,
    }));
    const model: ChatModel = {
      title: session?.title ?? (novel ? novel.config.title || vscode.l10n.t('Chat') : 'Worldline'),
      readOnly: session?.readOnly ?? false,
      busy: this.agent.busy,
      phase: this.agent.phase,
      modelLabel: settings.model || vscode.l10n.t('no model selected'),
      isDemo: isDemoModel(settings.model),
      messages,
      canRetry: this.agent.canRetry,
    };
    if (this.agent.notice) model.notice = this.agent.notice;
    return model;
  }

  refresh(): void {
    // The streaming block rides along, so the page never shows a new tool entry in the message
    // list next to an older streaming block that still has the same line.
    const stream = this.streamView();
    this.post(stream ? { type: 'render', model: this.model(), stream } : { type: 'render', model: this.model() });
    if (this.pendingInput !== undefined) {
      this.post({ type: 'focusInput', text: this.pendingInput });
      this.pendingInput = undefined;
    }
  }

  focusInput(text?: string): void {
    if (text !== undefined) this.pendingInput = text;
    this.post({ type: 'focusInput', text });
  }

  /**
   * What the streaming block shows: the agent's stream, minus the tool lines whose results are
   * already recorded, since the message list shows those (see `recordedToolLines`).
   */
  streamView(): ChatStream | undefined {
    const s = this.agent.stream;
    if (!s) return undefined;
    const session = this.getNovel()?.session;
    const recorded = session ? recordedToolLines(session.path()) : 0;
    return { text: s.text, tools: s.tools.slice(recorded) };
  }

  private postStream(): void {
    const s = this.streamView();
    if (s) this.post({ type: 'stream', text: s.text, tools: s.tools });
  }

  private find(id: string): TranscriptMessage | undefined {
    return this.transcript().find((m) => m.id === id);
  }

  async onMessage(m: FromChatPage): Promise<void> {
    const novel = this.getNovel();
    const session = novel?.session;
    switch (m.type) {
      case 'ready':
        this.refresh();
        return;
      case 'send':
        if (m.text.trim()) await this.agent.send(m.text);
        return;
      case 'stop':
        this.agent.stop();
        return;
      case 'retry':
        await this.agent.retry();
        return;
      case 'regenerate':
        await this.agent.regenerate(m.id);
        return;
      case 'command':
        await vscode.commands.executeCommand(m.command === 'setKey' ? 'worldline.setApiKey' : 'worldline.selectModel');
        return;
      default:
        break;
    }
    if (!session) return;
    const msg = 'id' in m ? this.find(m.id) : undefined;
    const story = this.checkpoints.story;
    switch (m.type) {
      case 'variant':
        await story.switchVariant(m.id, m.delta);
        return;
      case 'edit':
        if (!m.asBranch) {
          await story.editInPlace(m.id, m.text);
        } else if (msg && this.agent.guard(vscode.l10n.t('edit'))) {
          // Edit as a new branch belongs to the agent's turns (a rerun), not to the chat tree.
          if (msg.role === 'user') await this.agent.editAsBranch(msg.id, m.text);
          else if (m.text !== msg.text) await this.agent.editReplyAsBranch(msg.id, msg.editId, m.text);
        }
        return;
      case 'hide':
        await (m.hidden ? story.hide(m.id) : story.unhide(m.id));
        return;
      case 'branchHere': {
        const landed = await story.branchHere(m.id);
        if (landed?.input !== undefined) this.focusInput(landed.input);
        return;
      }
      case 'copy':
        if (msg) await vscode.env.clipboard.writeText(msg.text);
        return;
      case 'openFile':
        await this.openFile(m.path);
        return;
      case 'restore':
      case 'showChanges':
        await vscode.commands.executeCommand(m.type === 'showChanges' ? 'worldline.showTurnChanges' : m.withChat ? 'worldline.restoreProseAndChat' : 'worldline.restoreProseOnly', msg?.checkpoint?.entryId);
        return;
      default:
        return;
    }
  }

  /** ◀ ▶ (the palette's previous / next variant too): the Story decides. */
  switchVariant(id: string, delta: number): Promise<boolean> {
    return this.checkpoints.story.switchVariant(id, delta);
  }

  private async openFile(input: string): Promise<void> {
    const novel = this.getNovel();
    if (!novel) return;
    const checked = resolveManuscriptPath(novel.root.fsPath, input, novel.config.manuscript, novel.language);
    if (!checked.ok) {
      void vscode.window.showWarningMessage(checked.error);
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(checked.abs), { preview: false });
  }
}

/**
 * How many of the agent's streamed tool lines the message list already shows. The agent's stream
 * restarts at every recorded assistant entry and then gains one line per finished call, in call
 * order, just before that call's result is recorded. So the stream's first lines are those of the
 * results recorded since the newest assistant entry on the branch: the tool entries at the end of
 * the path that answer its calls.
 */
export function recordedToolLines(path: readonly ChainEntry[]): number {
  let i = path.length - 1;
  while (i >= 0 && path[i]!.type === 'tool') i--;
  const reply = path[i];
  if (!reply || reply.type !== 'assistant') return 0;
  const calls = new Set((reply.toolCalls ?? []).map((c) => c.id));
  let recorded = 0;
  for (let j = i + 1; j < path.length; j++) {
    const e = path[j]!;
    if (e.type === 'tool' && calls.has(e.callId)) recorded++;
  }
  return recorded;
}

function chatLabels(): Record<string, string> {
  return {
    instruction: vscode.l10n.t('Instruction for the agent'),
    placeholder: vscode.l10n.t('Tell the agent what to write next… (Enter sends, Shift+Enter breaks the line)'),
    send: vscode.l10n.t('Send'),
    stop: vscode.l10n.t('Stop'),
    retry: vscode.l10n.t('Retry'),
    you: vscode.l10n.t('You'),
    agent: vscode.l10n.t('Agent'),
    empty: vscode.l10n.t('No conversation yet. Your first instruction starts one.'),
    actions: vscode.l10n.t('Message actions'),
    prevVariant: vscode.l10n.t('Previous variant'),
    nextVariant: vscode.l10n.t('Next variant'),
    regenerate: vscode.l10n.t('Regenerate'),
    edit: vscode.l10n.t('Edit'),
    saveInPlace: vscode.l10n.t('Save'),
    saveAsBranch: vscode.l10n.t('Save as new branch'),
    cancel: vscode.l10n.t('Cancel'),
    hide: vscode.l10n.t('Hide from the model'),
    unhide: vscode.l10n.t('Unhide'),
    hiddenBadge: vscode.l10n.t('hidden'),
    editedBadge: vscode.l10n.t('edited'),
    stopped: vscode.l10n.t('stopped'),
    branchHere: vscode.l10n.t('Branch here'),
    copy: vscode.l10n.t('Copy'),
    openFile: vscode.l10n.t('Open {0}', '{0}'),
    restoreProse: vscode.l10n.t('Restore Prose Only'),
    restoreBoth: vscode.l10n.t('Restore Prose and Chat'),
    showChanges: vscode.l10n.t('Show Changes'),
    setKey: vscode.l10n.t('Set API Key'),
    selectModel: vscode.l10n.t('Select Model'),
    demoModel: vscode.l10n.t('demo model'),
    demoExplain: vscode.l10n.t('A scripted local model for trying Worldline offline. Choose a real model with Worldline: Select Model.'),
    readOnly: vscode.l10n.t('Read-only window'),
    phase_idle: '',
    phase_writing: vscode.l10n.t('Writing…'),
    phase_tool: vscode.l10n.t('Working in the manuscript…'),
    phase_scribe: vscode.l10n.t('The scribe is updating the scene state…'),
  };
}
