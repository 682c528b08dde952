// Renders what the extension sends. Every string is set with textContent: model text is never HTML.
(function () {
  const vscode = acquireVsCodeApi();
  const root = document.createElement('main');
  document.body.appendChild(root);

  function render(model) {
    root.replaceChildren();
    const h = document.createElement('h2');
    h.textContent = model.heading;
    root.appendChild(h);
    if (!model.lines.length) {
      const p = document.createElement('p');
      p.className = 'empty';
      p.textContent = model.empty;
      root.appendChild(p);
    }
    for (const line of model.lines) {
      const row = document.createElement('div');
      row.className = 'line' + (line.dim ? ' dim' : '');
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = line.label;
      const text = document.createElement('span');
      text.className = 'text';
      text.textContent = line.text;
      row.append(label, text);
      root.appendChild(row);
    }
    vscode.setState({ model });
  }

  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (msg && msg.type === 'render' && msg.model) render(msg.model);
  });
  const saved = vscode.getState();
  if (saved && saved.model) render(saved.model);
  vscode.postMessage({ type: 'ready' });
})();
