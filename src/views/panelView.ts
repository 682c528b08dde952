// A simple webview view: the page renders a list of labelled lines sent by postMessage. Used by the
// views whose full UI arrives with later issues; it already follows the session live.
import * as vscode from 'vscode';
import { buildPage, mediaRoots } from './webviewHtml';

export interface PanelLine {
  label: string;
  text: string;
  dim?: boolean;
}

export interface PanelModel {
  heading: string;
  lines: PanelLine[];
  empty: string;
}

/** Messages from the page. */
type FromPage = { type: 'ready' };

export class PanelViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly title: string,
    private readonly model: () => PanelModel,
    private readonly lang: () => string,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: mediaRoots(this.extensionUri) };
    view.webview.html = buildPage(view.webview, this.extensionUri, {
      title: this.title,
      scripts: ['panel.js'],
      styles: ['panel.css'],
      lang: this.lang(),
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: FromPage) => {
        if (m && m.type === 'ready') this.refresh();
      }),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.refresh();
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
  }

  refresh(): void {
    if (!this.view) return;
    void this.view.webview.postMessage({ type: 'render', model: this.model() });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
