// Shared by the webview pages: build DOM from data. Text always goes in as text nodes, so model
// text can never become markup.
// @ts-check
(function () {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      // The pages' CSP has no 'unsafe-inline' for styles: a style attribute would be dropped. Set
      // node.style's properties (CSSOM) or use a class.
      if (k === 'style') throw new Error('el(): no style attribute under the CSP; use a class');
      if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return node;
  }
  /** "{0} of {1}" with arguments. */
  function fmt(s, ...a) {
    return String(s).replace(/\{(\d+)\}/g, (_, i) => (a[+i] !== undefined ? String(a[+i]) : ''));
  }
  window.worldlineDom = { el, fmt };
})();
