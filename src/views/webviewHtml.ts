// Every webview page is built here: a strict CSP with a per-load nonce, local resources only,
// and no inline script other than the nonced one. Model text is never put into this HTML; the
// page script receives it by postMessage and renders it with textContent.
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

export interface PageOptions {
  title: string;
  scripts: string[];
  styles: string[];
  /** Initial data for the page script, serialised as JSON into a nonced script tag. */
  bootstrap?: unknown;
  lang: string;
}

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function mediaRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist', 'codicons')];
}

export function buildPage(webview: vscode.Webview, extensionUri: vscode.Uri, options: PageOptions): string {
  const nonce = makeNonce();
  const uri = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', file)).toString();
  const codicons = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'codicons', 'codicon.css')).toString();
  const styles = [codicons, ...options.styles.map(uri)].map((href) => `<link rel="stylesheet" href="${escapeAttr(href)}">`).join('\n');
  const scripts = options.scripts.map((s) => `<script nonce="${nonce}" src="${escapeAttr(uri(s))}"></script>`).join('\n');
  // JSON inside <script type="application/json"> cannot run; "<" is escaped so "</script>" in data cannot end the tag.
  const bootstrap = JSON.stringify(options.bootstrap ?? {}).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="${escapeAttr(options.lang)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(webview.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeAttr(options.title)}</title>
${styles}
</head>
<body>
<script nonce="${nonce}" type="application/json" id="bootstrap">${bootstrap}</script>
${scripts}
</body>
</html>`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
