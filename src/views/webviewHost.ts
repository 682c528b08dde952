// The one host every sidebar webview uses: the page (strict CSP, nonce, media roots), `post` typed
// by the view's host→page union, every inbound message decoded in one place before the view sees
// it, a refresh when the view becomes visible again, and disposal of all it registered.
import * as vscode from 'vscode';
import { makeNonce, pageHtml, pageResources, type PageName } from '../protocol/pageHtml';
import { localize, type Labels } from '../protocol/labels';
import type { Decoded } from '../protocol/decode';
import type { TurnActivity } from '../protocol/coalesce';
import type { NovelWorkspace } from './novel';
import type { Log } from './log';

export interface PageSpec {
  title: string;
  /** media/<name>.js and media/<name>.css, after dom.js and common.css. */
  name: PageName;
  labels: Record<string, string>;
}

/** Options of the views that refresh once per turn (src/protocol/coalesce.ts, TurnCoalescer). */
export interface OncePerTurn {
  turns?: TurnActivity;
}

export abstract class WebviewHost<ToPage, FromPage extends { type: string }> implements vscode.WebviewViewProvider, vscode.Disposable {
  protected view: vscode.WebviewView | undefined;
  protected readonly disposables: vscode.Disposable[] = [];

  constructor(
    protected readonly extensionUri: vscode.Uri,
    protected readonly getNovel: () => NovelWorkspace | undefined,
    protected readonly log: Log,
    private readonly decode: (raw: unknown) => Decoded<FromPage>,
  ) {}

  protected abstract page(): PageSpec;
  /** The page was hidden, so let go: shown again it loads anew and holds nothing (the default keeps nothing to forget). */
  protected pageLetGo(): void {}
  /** Handles one decoded message from the page; also callable directly (tests, commands). */
  abstract onMessage(message: FromPage): Promise<void> | void;
  abstract refresh(): Promise<void> | void;

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const spec = this.page();
    // The handshake as debug lines (test/ui/reloads.mjs reads them): resolved, page ready, shown.
    const debug = (this.handshake = (what: string) => this.log.debug(`webview ${spec.name}: ${what}`));
    const files = pageResources(spec.name);
    const at = (file: string) => vscode.Uri.joinPath(this.extensionUri, ...file.split('/'));
    const uri = (file: string) => view.webview.asWebviewUri(at(file)).toString();
    view.webview.options = { enableScripts: true, localResourceRoots: files.roots.map(at) };
    view.webview.html = pageHtml({
      cspSource: view.webview.cspSource, nonce: makeNonce(), title: spec.title, labels: spec.labels, lang: this.getNovel()?.language,
      scriptUris: files.scripts.map(uri), styleUris: files.styles.map(uri),
    });
    debug(`resolved, html set (${view.visible ? 'visible' : 'hidden'})`);
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      view.onDidChangeVisibility(() => {
        debug(view.visible ? 'shown' : 'hidden');
        if (view.visible) void this.refresh();
        else this.pageLetGo();
      }),
      view.onDidDispose(() => {
        debug('disposed');
        if (this.view === view) this.view = undefined;
      }),
    );
  }

  /** Writes a debug line about the view's page (a no-op until the view is resolved). */
  private handshake: (what: string) => void = () => undefined;

  protected post(message: ToPage): void {
    this.view?.webview.postMessage(message).then((delivered) => {
      if (!delivered) this.handshake('an update was not delivered (no page)');
    }, () => this.handshake('an update was not delivered (no page)'));
  }

  /** True when the page is on screen; a hidden page is let go and asks for everything when shown again. */
  protected get shown(): boolean {
    return this.view?.visible ?? false;
  }

  private receive(raw: unknown): void {
    const decoded = this.decode(raw);
    if (decoded.ok && decoded.message.type === 'ready') this.handshake('page ready');
    if (!decoded.ok) {
      // A page of ours never sends this; log it and do nothing.
      this.log.warn(`webview message ignored: ${decoded.error}`);
      return;
    }
    Promise.resolve()
      .then(() => this.onMessage(decoded.message))
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.log.error(message);
        void vscode.window.showErrorMessage(message);
      });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** A page's labels in the display language. The '{0}' argument keeps a label's "{0}" for the page to fill. */
export function translateLabels(table: Labels): Record<string, string> {
  return localize(table, (english) => vscode.l10n.t(english, '{0}'));
}
