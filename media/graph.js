// Worldline graph page: draws the view model as SVG built with DOM calls; every name is set with
// textContent, never parsed as markup.
// @ts-check
/** @typedef {import('../src/protocol/graph').ToGraphPage} ToGraphPage */
/** @typedef {import('../src/protocol/graph').FromGraphPage} FromGraphPage */
/** @typedef {import('../src/worldline/view').WorldlineView} WorldlineView */
(function () {
  /** @type {VsCodeApi<FromGraphPage>} */
  const vscode = acquireVsCodeApi();
  const boot = JSON.parse(document.getElementById('bootstrap').textContent || '{}');
  const L = boot.labels || {};
  const NS = 'http://www.w3.org/2000/svg';
  const root = document.createElement('main');
  document.body.appendChild(root);
  /** @type {WorldlineView | null} */
  let view = (vscode.getState() || {}).view || null;

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const { fmt } = window.worldlineDom;
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

  function render() {
    vscode.setState({ view });
    root.replaceChildren();
    if (!view || !view.worldlines.length) {
      const p = document.createElement('p');
      p.className = 'muted';
      p.textContent = L.empty;
      const b = document.createElement('button');
      b.textContent = L.savePoint;
      b.addEventListener('click', () => vscode.postMessage({ type: 'command', command: 'savePoint' }));
      root.append(p, b);
      return;
    }
    const lanes = view.worldlines;
    const saves = lanes.flatMap((line, lane) => line.saves.map((s) => ({ ...s, lane })));
    saves.sort((a, b) => a.order - b.order); // write order: a clock set back cannot reorder the story
    const row = new Map(saves.map((s, i) => [s.saveId, i]));
    const LANE = 26, ROW = 38, TOP = 14, LEFT = 14;
    const firstOfLine = new Set(lanes.map((line) => line.saves[0] && line.saves[0].saveId));
    const x = (lane) => LEFT + lane * LANE;
    const y = (id) => TOP + row.get(id) * ROW;
    // Story written after a save in the middle of a line goes its own way: it gets a lane of its own.
    const cur = saves.find((s) => s.isCurrent);
    const afterForks = Boolean(view.current.storyAfterLastSave && cur && lanes[cur.lane].saves.at(-1).saveId !== cur.saveId);
    const labelX = LEFT + (lanes.length + (afterForks ? 1 : 0)) * LANE + 6;
    const height = TOP + saves.length * ROW + (view.current.storyAfterLastSave ? ROW : 0);
    const g = svg('svg', { width: '100%', height, role: 'img', 'aria-label': L.graph });
    lanes.forEach((line, lane) => {
      const cls = 'c' + (lane % 6);
      for (let i = 1; i < line.saves.length; i++) {
        const a = line.saves[i - 1], b = line.saves[i];
        g.appendChild(svg('line', { x1: x(lane), y1: y(a.saveId), x2: x(lane), y2: y(b.saveId), class: 'edge ' + cls }));
      }
      if (line.forkFrom && row.has(line.forkFrom.saveId) && line.saves.length) {
        const from = saves.find((s) => s.saveId === line.forkFrom.saveId);
        const x1 = x(from.lane), y1 = y(from.saveId), x2 = x(lane), y2 = y(line.saves[0].saveId);
        g.appendChild(svg('path', { d: `M ${x1} ${y1} C ${x1} ${(y1 + y2) / 2}, ${x2} ${(y1 + y2) / 2}, ${x2} ${y2}`, class: 'edge fork ' + cls }));
      }
    });
    for (const s of saves) {
      const cls = 'c' + (s.lane % 6);
      const cx = x(s.lane), cy = y(s.saveId);
      const dot = svg('circle', { cx, cy, r: 6, class: `dot ${cls}${s.onCurrentBranch ? ' on-branch' : ''}`, tabindex: 0, role: 'button', 'aria-label': fmt(L.load, s.name), 'data-save': s.saveId });
      const title = svg('title', {}, fmt(L.load, s.name));
      dot.appendChild(title);
      const load = () => vscode.postMessage({ type: 'load', saveId: s.saveId });
      dot.addEventListener('click', load);
      dot.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); load(); } });
      g.appendChild(dot);
      if (s.isCurrent) g.appendChild(svg('circle', { cx, cy, r: 10, class: 'here' }));
      const label = svg('text', { x: labelX, y: cy + 4, class: 'save-label' + (s.isCurrent ? ' current' : '') }, clip(s.name, s.isCurrent ? 14 : 24));
      if (s.isCurrent && !view.current.storyAfterLastSave) label.appendChild(svg('tspan', { class: 'here-label', dx: 6 }, '◀ ' + L.here));
      label.addEventListener('click', load);
      g.appendChild(label);
      // The line's name under its first save (the Worldlines tree has the full names).
      if (firstOfLine.has(s.saveId)) g.appendChild(svg('text', { x: labelX, y: cy + 17, class: 'lane-label ' + cls }, clip(lanes[s.lane].name, 30)));
    }
    if (view.current.storyAfterLastSave) {
      const from = cur ? cur.lane : 0;
      const lane = afterForks ? lanes.length : from;
      const y1 = cur ? y(cur.saveId) : TOP - 10, y2 = TOP + saves.length * ROW;
      if (afterForks) {
        const x1 = x(from), x2 = x(lane);
        g.appendChild(svg('path', { d: `M ${x1} ${y1} C ${x1} ${y1 + ROW / 2}, ${x2} ${y1 + ROW / 2}, ${x2} ${y1 + ROW} L ${x2} ${y2}`, class: 'edge after' }));
      } else {
        g.appendChild(svg('line', { x1: x(lane), y1, x2: x(lane), y2, class: 'edge after' }));
      }
      g.appendChild(svg('text', { x: x(lane) - 5, y: y2 + 4, class: 'here-label' }, '✎'));
      g.appendChild(svg('text', { x: labelX, y: y2 + 4, class: 'here-label' }, `${L.here} · ${L.after}`));
    }
    root.appendChild(g);
  }

  window.addEventListener('message', (event) => {
    /** @type {ToGraphPage} */
    const msg = event.data;
    if (msg && msg.type === 'render' && msg.view) { view = msg.view; render(); }
  });
  render();
  vscode.postMessage({ type: 'ready' });
})();
