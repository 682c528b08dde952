// Every webview page is built here: a strict CSP with a per-load nonce, local resources only, and no
// inline script other than the nonced one. Model text is never put into this HTML; the page script
// receives it by postMessage and renders it with textContent. The shell supplies the webview's
// cspSource and the resources' webview URIs.
import { randomBytes } from 'node:crypto';
import type { ProjectLanguage } from '../project/config';

export type PageName = 'chat' | 'state' | 'graph';

export interface PageParts {
  /** The webview's own source (webview.cspSource). */
  cspSource: string;
  /** Webview URIs, in load order (see pageResources). */
  scriptUris: readonly string[];
  styleUris: readonly string[];
  nonce: string;
  title: string;
  /** The page's words, already in the novelist's language; serialised as JSON into a nonced script tag. */
  labels: Readonly<Record<string, string>>;
  lang: ProjectLanguage | undefined;
}

/** The files a page loads, relative to the extension folder, and the folders the webview may read. */
export function pageResources(name: PageName): { scripts: string[]; styles: string[]; roots: string[] } {
  return {
    scripts: ['media/dom.js', `media/${name}.js`],
    styles: ['dist/codicons/codicon.css', 'media/common.css', `media/${name}.css`],
    roots: ['media', 'dist/codicons'],
  };
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

export function pageHtml(p: PageParts): string {
  const styles = p.styleUris.map((href) => `<link rel="stylesheet" href="${escapeAttr(href)}">`).join('\n');
  const scripts = p.scriptUris.map((src) => `<script nonce="${escapeAttr(p.nonce)}" src="${escapeAttr(src)}"></script>`).join('\n');
  // JSON inside <script type="application/json"> cannot run; "<" is escaped so "</script>" in data cannot end the tag.
  const bootstrap = JSON.stringify({ labels: p.labels }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="${p.lang === 'zh' ? 'zh-CN' : 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(p.cspSource, p.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeAttr(p.title)}</title>
${styles}
</head>
<body>
<script nonce="${escapeAttr(p.nonce)}" type="application/json" id="bootstrap">${bootstrap}</script>
${scripts}
</body>
</html>`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
