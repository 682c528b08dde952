// What the page scripts see of their host: VS Code's webview API, typed by each page's
// page→host union, and the DOM helpers of dom.js.
interface VsCodeApi<ToHost> {
  postMessage(message: ToHost): void;
  getState(): any;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi<ToHost>(): VsCodeApi<ToHost>;

interface Window {
  worldlineDom: {
    el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, unknown> | null, ...children: unknown[]): HTMLElementTagNameMap[K];
    fmt(s: string, ...args: unknown[]): string;
  };
}
