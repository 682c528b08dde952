// The Chat view: the current branch as messages, streaming replies, and the per-message actions
// (variants, regenerate, edit, hide, branch here, copy). The page only renders; every action comes
// here and goes to its verb on the Story of the open session (src/story/). Updates are coalesced
// (one per frame at most) and sent as changes to what the page has (src/protocol/chatMirror.ts):
// a streamed token sends the characters it added, a new entry the messages it changed.
import * as vscode from 'vscode';
import type { TranscriptMessage } from '../agent/transcript';
import { resolveManuscriptPath } from '../agent/paths';
import { WebviewHost, translateLabels, type PageSpec } from './webviewHost';
import { CHAT_LABELS } from '../protocol/labels';
import { decodeFromChatPage, type ChatModel, type ChatStream, type FromChatPage, type ToChatPage } from '../protocol/chat';
import { ChatModelCache, chatModel, chatStream, checkpointCommand, pageCommandId, phaseMessage, type SetupInputs } from '../protocol/chatModel';
import { ChatMirror, type ChatUpdate } from '../protocol/chatMirror';
import { Coalescer } from '../protocol/coalesce';
import { translate } from './notices';
import { EndpointPricing } from '../model/usage';
import { readSettings } from './settings';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';
import type { StoryShell } from './storyShell';

export class ChatViewProvider extends WebviewHost<ToChatPage, FromChatPage> {
  private pendingInput: { text: string; append: boolean } | undefined;
  /** What the page holds. */
  private readonly mirror = new ChatMirror();
  private readonly updates: Coalescer;
  /** The messages and usage computed for the last update, reused for what did not change. */
  private readonly cache = new ChatModelCache();
  /** The endpoint's price list, the same function while the endpoint stays (the cache is keyed by it). */
  private readonly pricing = new EndpointPricing();

  constructor(
    extensionUri: vscode.Uri,
    getNovel: () => NovelWorkspace | undefined,
    private readonly stories: StoryShell,
    log: Log,
    /** The first-run facts for the empty state (src/views/setupState.ts); without it no step is shown. */
    private readonly setup?: { inputs(): SetupInputs | undefined },
  ) {
    super(extensionUri, getNovel, log, decodeFromChatPage);
    this.updates = new Coalescer({ run: () => this.flush(), onError: (err) => log.warn(`chat view: ${String(err)}`) });
    this.disposables.push(
      stories.onDidChange((what) => {
        if (what === 'stream') {
          this.mirror.markStream();
          this.updates.request();
        } else if (what === 'phase') {
          this.post(phaseMessage(stories.current()));
        } else {
          this.refresh();
        }
      }),
      { dispose: () => this.updates.dispose() },
    );
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
    const inputs = { story: this.stories.current(), session: novel?.session, novelTitle: novel?.config.title, model: settings.model, notice: this.stories.notice(), pricing: this.pricing.of(settings).pricing };
    return chatModel({ ...inputs, ...(setup ? { setup } : {}) }, translate, this.cache);
  }

  protected override pageLetGo(): void {
    this.mirror.reset();
  }

  /** Asks for an update of the page; a burst of requests makes one. */
  refresh(): void {
    this.mirror.markModel();
    this.updates.request();
  }

  /** Settles when the update asked for has been sent (tests). */
  whenUpdated(): Promise<void> {
    return this.updates.idle();
  }

  /** Focuses the input box; `text` goes in it (with `append`, after the draft there). */
  focusInput(text?: string, opts: { append?: boolean } = {}): void {
    if (text !== undefined && opts.append) {
      // Sent once: a page on screen gets it now, one still loading when it is ready.
      if (this.view?.visible) this.post({ type: 'focusInput', text, append: true });
      else this.pendingInput = { text, append: true };
      return;
    }
    if (text !== undefined) this.pendingInput = { text, append: false };
    this.post({ type: 'focusInput', text });
  }

  /** The streaming block as the page shows it (src/protocol/chatModel.ts). */
  streamView(): ChatStream | undefined {
    return chatStream(this.stories.current());
  }

  /** Sends the page what changed since the last update (everything, when it holds nothing known). */
  private flush(): void {
    const view = this.view;
    if (!view || !view.visible) return this.pageLetGo();
    const update = this.mirror.next({ model: () => this.model(), stream: () => (this.stories.current()?.busy ? this.streamView() : undefined) });
    if (update) this.send(view, update);
    if (this.pendingInput !== undefined) {
      this.post({ type: 'focusInput', text: this.pendingInput.text, ...(this.pendingInput.append ? { append: true } : {}) });
      this.pendingInput = undefined;
    }
  }

  /** An update that does not arrive leaves the page behind: the next one is a whole render. */
  private send(view: vscode.WebviewView, update: ChatUpdate): void {
    view.webview.postMessage(update).then((delivered) => {
      if (!delivered) this.mirror.reset();
    }, () => this.mirror.reset());
  }

  private find(id: string): TranscriptMessage | undefined {
    return this.transcript().find((m) => m.id === id);
  }

  async onMessage(m: FromChatPage): Promise<void> {
    if (m.type === 'ready') {
      // A page that just loaded, or found a gap in the updates: it holds nothing known.
      this.mirror.reset();
      this.mirror.markModel();
      return this.updates.now();
    }
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
      case 'cancelPending': {
        const text = story.pending?.text;
        if (story.cancelPending() && text !== undefined) this.focusInput(text);
        return;
      }
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
    const checked = resolveManuscriptPath(novel.root.fsPath, input, novel.config.manuscriptMatcher, novel.language);
    if (!checked.ok) {
      void vscode.window.showWarningMessage(checked.error);
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(checked.abs), { preview: false });
  }
}
