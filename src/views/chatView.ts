// The Chat view: the current branch as messages, streaming replies, and the per-message actions
// (variants, regenerate, edit, hide, branch here, copy). The page only renders; every action comes
// here and goes to its verb on the Story of the open session (src/story/).
import * as vscode from 'vscode';
import type { TranscriptMessage } from '../agent/transcript';
import { resolveManuscriptPath } from '../agent/paths';
import { WebviewHost, translateLabels, type PageSpec } from './webviewHost';
import { CHAT_LABELS } from '../protocol/labels';
import { decodeFromChatPage, type ChatModel, type ChatStream, type FromChatPage, type ToChatPage } from '../protocol/chat';
import { chatModel, chatStream, checkpointCommand, pageCommandId, phaseMessage, renderMessage, type SetupInputs } from '../protocol/chatModel';
import { translate } from './notices';
import { dialectForEndpoint } from '../model/dialects';
import { pricingOf } from '../model/usage';
import { readSettings } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { StoryShell } from './storyShell';

export class ChatViewProvider extends WebviewHost<ToChatPage, FromChatPage> {
  private pendingInput: string | undefined;

  constructor(
    extensionUri: vscode.Uri,
    getNovel: () => NovelWorkspace | undefined,
    private readonly stories: StoryShell,
    log: Log,
    /** The first-run facts for the empty state (src/views/setupState.ts); without it no step is shown. */
    private readonly setup?: { inputs(): SetupInputs | undefined },
  ) {
    super(extensionUri, getNovel, log, decodeFromChatPage);
    this.disposables.push(stories.onDidChange((what) => {
      if (what === 'stream') this.postStream();
      else if (what === 'phase') this.post(phaseMessage(stories.current()));
      else this.refresh();
    }));
  }

  protected page(): PageSpec {
    return { title: vscode.l10n.t('Chat'), name: 'chat', labels: translateLabels(CHAT_LABELS) };
  }

  /** The messages of the current branch, as the page shows them. */
  transcript(): readonly TranscriptMessage[] {
    return this.stories.current()?.branch().transcript ?? [];
  }

  model(): ChatModel {
    const novel = this.getNovel();
    const setup = this.setup?.inputs();
    const settings = readSettings();
    const pricing = pricingOf(dialectForEndpoint(settings.baseUrl, settings));
    return chatModel({ story: this.stories.current(), session: novel?.session, novelTitle: novel?.config.title, model: settings.model, notice: this.stories.notice(), pricing, ...(setup ? { setup } : {}) }, translate);
  }

  refresh(): void {
    this.post(renderMessage(this.model(), this.streamView()));
    if (this.pendingInput !== undefined) {
      this.post({ type: 'focusInput', text: this.pendingInput });
      this.pendingInput = undefined;
    }
  }

  focusInput(text?: string): void {
    if (text !== undefined) this.pendingInput = text;
    this.post({ type: 'focusInput', text });
  }

  /** The streaming block as the page shows it (src/protocol/chatModel.ts). */
  streamView(): ChatStream | undefined {
    return chatStream(this.stories.current());
  }

  private postStream(): void {
    const s = this.streamView();
    if (s) this.post({ type: 'stream', text: s.text, tools: s.tools });
  }

  private find(id: string): TranscriptMessage | undefined {
    return this.transcript().find((m) => m.id === id);
  }

  async onMessage(m: FromChatPage): Promise<void> {
    if (m.type === 'ready') return this.refresh();
    if (m.type === 'command') {
      await vscode.commands.executeCommand(pageCommandId(m.command));
      return;
    }
    if (m.type === 'send') {
      if (m.text.trim()) await this.stories.send(m.text);
      return;
    }
    const story = this.stories.current();
    if (!story) return;
    switch (m.type) {
      case 'stop':
        story.stop();
        return;
      case 'retry':
        await story.retry();
        return;
      case 'regenerate':
        await story.regenerate(m.id);
        return;
      case 'variant':
        await story.switchVariant(m.id, m.delta);
        return;
      case 'edit':
        await (m.asBranch ? story.editAsNewBranch(m.id, m.text) : story.editInPlace(m.id, m.text));
        return;
      case 'hide':
        await (m.hidden ? story.hide(m.id) : story.unhide(m.id));
        return;
      case 'branchHere': {
        const landed = await story.branchHere(m.id);
        if (landed?.input !== undefined) this.focusInput(landed.input);
        return;
      }
      case 'copy': {
        const msg = this.find(m.id);
        if (msg) await vscode.env.clipboard.writeText(msg.text);
        return;
      }
      case 'openFile':
        await this.openFile(m.path);
        return;
      case 'restore':
      case 'showChanges':
        await vscode.commands.executeCommand(checkpointCommand(m), this.find(m.id)?.checkpoint?.entryId);
        return;
      default:
        return;
    }
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
