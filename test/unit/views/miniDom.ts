// A very small DOM, just what media/dom.js and media/chat.js use, so the Chat page's keyed updates
// run in plain Node: nodes, text nodes, attributes, a few selectors (tag, .class, [attr], [attr="v"]),
// focus with focusin/focusout, bubbling key events, and the page's globals (acquireVsCodeApi,
// window's message listener, a clock and interval timers the test moves by hand). Not a browser: the
// layout is a fixed rule (a line of inline content is 20 px, blocks stack, the log shows 100 px and
// scrolls), enough to see whether the page keeps the reader's place.
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

/** Elements laid out on one line with their neighbours; every other element is a block. */
const INLINE = new Set(['SPAN', 'A', 'BUTTON', 'STRONG', 'SUMMARY']);
const LINE = 20;

/** The height of a node's content: each block child's height, plus the lines of its inline content. */
function contentHeight(e: MiniNode): number {
  let blocks = 0;
  let lines = 0;
  for (const c of e.childNodes) {
    if (c instanceof MiniText) lines = Math.max(lines, c.data ? c.data.split('\n').length : 0);
    else if (c instanceof MiniElement && !c.isHidden()) {
      if (INLINE.has(c.tagName)) lines = Math.max(lines, c.textContent || c.childNodes.length ? 1 : 0);
      else blocks += c.offsetHeight;
    }
  }
  return blocks + lines * LINE;
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
  open = false;
  clientHeight = 100;
  private scrolled = 0;
  rows = 0;
  placeholder = '';
  id = '';

  constructor(root: () => MiniNode, private readonly doc: { activeElement: MiniNode }, tag: string) {
    super(root);
    this.tagName = tag.toUpperCase();
  }
  get children(): MiniElement[] { return this.childNodes.filter((c): c is MiniElement => c instanceof MiniElement); }
  isHidden(): boolean { return this.hidden || this.style['display'] === 'none'; }
  /** The layout rule above; a hidden element takes no room. */
  get offsetHeight(): number { return this.isHidden() ? 0 : contentHeight(this); }
  /** From the top of the nearest positioned ancestor: the log (media/chat.css makes it one), else the body. */
  get offsetTop(): number {
    let y = 0;
    for (let n: MiniNode = this; n.parentNode; n = n.parentNode) {
      const parent: MiniNode = n.parentNode;
      for (const c of parent.childNodes) {
        if (c === n) break;
        if (c instanceof MiniElement && !INLINE.has(c.tagName)) y += c.offsetHeight;
      }
      if (parent instanceof MiniElement && (parent.id === 'log' || parent.tagName === 'BODY')) break;
    }
    return y;
  }
  get scrollHeight(): number { return Math.max(this.clientHeight, contentHeight(this)); }
  get scrollTop(): number { return this.scrolled; }
  set scrollTop(v: number) { this.scrolled = Math.max(0, Math.min(Math.round(v), this.scrollHeight - this.clientHeight)); }
  setAttribute(k: string, v: unknown): void { this.attrs[k] = String(v); if (k === 'id') this.id = String(v); }
  getAttribute(k: string): string | null { return this.attrs[k] ?? null; }
  hasAttribute(k: string): boolean { return k in this.attrs; }
  removeAttribute(k: string): void { delete this.attrs[k]; }
  get className(): string { return this.attrs['class'] ?? ''; }
  set className(v: string) { this.attrs['class'] = v; }
  addEventListener(t: string, f: (e: unknown) => void): void { (this.listeners[t] ??= []).push(f); }
  /** A disabled button ignores clicks, as in a browser. */
  click(): void { if (!this.disabled) for (const f of this.listeners['click'] ?? []) f({ preventDefault: () => undefined }); }
  /** Fires an event here and on every ancestor (until a listener stops it); true when no listener prevented its default. */
  dispatch(type: string, init: Record<string, unknown> = {}): boolean {
    let stopped = false;
    let prevented = false;
    const event = { type, target: this, ...init, preventDefault: () => { prevented = true; }, stopPropagation: () => { stopped = true; } };
    for (let n: MiniNode | null = this; n && !stopped; n = n.parentNode) {
      if (n instanceof MiniElement) for (const f of n.listeners[type] ?? []) f(event);
    }
    return !prevented;
  }
  /** A key pressed while this element has focus. */
  key(key: string, init: Record<string, unknown> = {}): boolean { return this.dispatch('keydown', { key, ...init }); }
  /** Focus moves here (not onto a disabled element), with focusout on the old element and focusin here. */
  focus(): void {
    if (this.disabled) return;
    const was = this.doc.activeElement;
    if (was === this) return;
    this.doc.activeElement = this;
    if (was instanceof MiniElement) was.dispatch('focusout', { relatedTarget: this });
    this.dispatch('focusin', { relatedTarget: was ?? null });
  }
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

/** The page's clock and interval timers, moved by the test. */
export class FakeClock {
  now = 1_700_000_000_000;
  private timers = new Map<number, { every: number; next: number; run: () => void }>();
  private ids = 0;
  setInterval(run: () => void, every: number): number {
    const id = ++this.ids;
    this.timers.set(id, { every, next: this.now + every, run });
    return id;
  }
  clearInterval(id: number): void { this.timers.delete(id); }
  /** How many interval timers are running. */
  get running(): number { return this.timers.size; }
  /** Moves the clock on, running each timer as often as it falls due. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers.values()].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.now = due.next;
      due.next += due.every;
      due.run();
    }
    this.now = end;
  }
}

export interface Page {
  /** What the page posted to the host (copied out of the page's context). */
  posted: unknown[];
  clock: FakeClock;
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
  const clock = new FakeClock();
  const window = {
    addEventListener: (_: string, f: (e: { data: unknown }) => void) => listeners.push(f), setTimeout,
    setInterval: (f: () => void, ms: number) => clock.setInterval(f, ms), clearInterval: (id: number) => clock.clearInterval(id),
    worldlineDom: undefined as unknown,
  };
  class PageDate extends Date {
    static override now(): number { return clock.now; }
  }
  const context = vm.createContext({
    window, document: doc, HTMLElement: MiniElement, Text: MiniText, Date: PageDate, setTimeout, console, JSON, Object, Array, Math, String,
    acquireVsCodeApi: () => ({ postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m)) as unknown), getState: () => state, setState: (s: unknown) => { state = s; } }),
  });
  const media = path.resolve(__dirname, '..', '..', '..', '..', 'media');
  for (const file of ['dom.js', `${name}.js`]) vm.runInContext(fs.readFileSync(path.join(media, file), 'utf8'), context, { filename: file });
  return { posted, clock, body, document: doc, send: (message) => { for (const f of listeners) f({ data: JSON.parse(JSON.stringify(message)) as unknown }); } };
}
