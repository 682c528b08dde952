// A very small DOM, just what media/dom.js and media/chat.js use, so the Chat page's keyed updates
// run in plain Node: nodes, text nodes, attributes, a few selectors (tag, .class, [attr], [attr="v"]),
// focus, and the page's globals (acquireVsCodeApi, window's message listener). Not a browser: layout
// is fixed (the log is always scrolled to its end).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';

export class MiniNode {
  parentNode: MiniNode | null = null;
  childNodes: MiniNode[] = [];

  constructor(private readonly root: () => MiniNode) {}

  get isConnected(): boolean {
    let n: MiniNode = this;
    while (n.parentNode) n = n.parentNode;
    return n === this.root();
  }
  appendChild(c: MiniNode): MiniNode {
    c.parentNode?.removeChild(c);
    c.parentNode = this;
    this.childNodes.push(c);
    return c;
  }
  append(...cs: (MiniNode | string)[]): void {
    for (const c of cs) this.appendChild(typeof c === 'string' ? new MiniText(this.root, c) : c);
  }
  removeChild(c: MiniNode): MiniNode {
    const i = this.childNodes.indexOf(c);
    if (i >= 0) this.childNodes.splice(i, 1);
    c.parentNode = null;
    return c;
  }
  remove(): void {
    this.parentNode?.removeChild(this);
  }
  replaceWith(n: MiniNode): void {
    const p = this.parentNode;
    if (!p) return;
    n.parentNode?.removeChild(n);
    p.childNodes[p.childNodes.indexOf(this)] = n;
    n.parentNode = p;
    this.parentNode = null;
  }
  replaceChildren(...cs: (MiniNode | string)[]): void {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    this.append(...cs);
  }
  get firstChild(): MiniNode | null { return this.childNodes[0] ?? null; }
  get lastChild(): MiniNode | null { return this.childNodes[this.childNodes.length - 1] ?? null; }
  get textContent(): string { return this.childNodes.map((c) => c.textContent).join(''); }
  set textContent(v: string) { this.replaceChildren(new MiniText(this.root, String(v))); }
  contains(n: MiniNode | null): boolean {
    for (let x = n; x; x = x.parentNode) if (x === this) return true;
    return false;
  }
}

export class MiniText extends MiniNode {
  constructor(root: () => MiniNode, public data: string) { super(root); }
  override get textContent(): string { return this.data; }
  appendData(s: string): void { this.data += s; }
}

export class MiniElement extends MiniNode {
  readonly tagName: string;
  readonly attrs: Record<string, string> = {};
  readonly listeners: Record<string, ((e: unknown) => void)[]> = {};
  readonly style: Record<string, string> = {};
  value = '';
  disabled = false;
  hidden = false;
  scrollTop = 0;
  clientHeight = 100;
  rows = 0;
  placeholder = '';
  id = '';

  constructor(root: () => MiniNode, private readonly doc: { activeElement: MiniNode }, tag: string) {
    super(root);
    this.tagName = tag.toUpperCase();
  }
  get children(): MiniElement[] { return this.childNodes.filter((c): c is MiniElement => c instanceof MiniElement); }
  get scrollHeight(): number { return 1000; }
  setAttribute(k: string, v: unknown): void { this.attrs[k] = String(v); if (k === 'id') this.id = String(v); }
  getAttribute(k: string): string | null { return this.attrs[k] ?? null; }
  hasAttribute(k: string): boolean { return k in this.attrs; }
  get className(): string { return this.attrs['class'] ?? ''; }
  set className(v: string) { this.attrs['class'] = v; }
  addEventListener(t: string, f: (e: unknown) => void): void { (this.listeners[t] ??= []).push(f); }
  click(): void { for (const f of this.listeners['click'] ?? []) f({ preventDefault: () => undefined }); }
  focus(): void { this.doc.activeElement = this; }
  matches(selector: string): boolean { return selector.split(',').some((s) => matchOne(this, s.trim())); }
  closest(selector: string): MiniElement | null {
    for (let n: MiniNode | null = this; n instanceof MiniElement; n = n.parentNode) if (n.matches(selector)) return n;
    return null;
  }
  querySelectorAll(selector: string): MiniElement[] {
    const out: MiniElement[] = [];
    const walk = (n: MiniElement): void => {
      for (const c of n.children) {
        if (c.matches(selector)) out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }
  querySelector(selector: string): MiniElement | null { return this.querySelectorAll(selector)[0] ?? null; }
}

function matchOne(e: MiniElement, s: string): boolean {
  const m = /^([a-z]*)((?:\.[\w-]+)*)((?:\[[^\]]+\])*)$/.exec(s);
  if (!m) throw new Error(`the mini DOM does not know the selector ${s}`);
  if (m[1] && e.tagName !== m[1].toUpperCase()) return false;
  for (const c of (m[2] ?? '').split('.').filter(Boolean)) if (!e.className.split(' ').includes(c)) return false;
  for (const a of (m[3] ?? '').match(/\[[^\]]+\]/g) ?? []) {
    const [, k, v] = /\[([\w-]+)(?:="([^"]*)")?\]/.exec(a) ?? [];
    if (!k || !e.hasAttribute(k)) return false;
    if (v !== undefined && e.getAttribute(k) !== v) return false;
  }
  return true;
}

export interface Page {
  /** What the page posted to the host (copied out of the page's context). */
  posted: unknown[];
  /** Delivers a message from the host (as postMessage would: a copy). */
  send(message: unknown): void;
  body: MiniElement;
  document: { activeElement: MiniNode };
}

/** Loads media/dom.js and the page script into a fresh context with this DOM. */
export function loadPage(name: 'chat', labels: Record<string, string>): Page {
  let html: MiniElement | undefined;
  const root = (): MiniNode => html as MiniNode;
  const doc = {
    activeElement: undefined as unknown as MiniNode,
    createElement: (tag: string) => new MiniElement(root, doc, tag),
    createTextNode: (data: string) => new MiniText(root, data),
    getElementById: (id: string) => (id === 'bootstrap' ? bootstrap : null),
    documentElement: undefined as unknown as MiniElement,
    body: undefined as unknown as MiniElement,
  };
  html = new MiniElement(root, doc, 'html');
  const body = new MiniElement(root, doc, 'body');
  html.appendChild(body);
  doc.documentElement = html;
  doc.body = body;
  doc.activeElement = body;
  const bootstrap = new MiniElement(root, doc, 'script');
  bootstrap.textContent = JSON.stringify({ labels });
  const posted: unknown[] = [];
  const listeners: ((e: { data: unknown }) => void)[] = [];
  let state: unknown = null;
  const window = { addEventListener: (_: string, f: (e: { data: unknown }) => void) => listeners.push(f), setTimeout, worldlineDom: undefined as unknown };
  const context = vm.createContext({
    window, document: doc, HTMLElement: MiniElement, Text: MiniText, setTimeout, console, JSON, Object, Array, Math, String,
    acquireVsCodeApi: () => ({ postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m)) as unknown), getState: () => state, setState: (s: unknown) => { state = s; } }),
  });
  const media = path.resolve(__dirname, '..', '..', '..', '..', 'media');
  for (const file of ['dom.js', `${name}.js`]) vm.runInContext(fs.readFileSync(path.join(media, file), 'utf8'), context, { filename: file });
  return { posted, body, document: doc, send: (message) => { for (const f of listeners) f({ data: JSON.parse(JSON.stringify(message)) as unknown }); } };
}
