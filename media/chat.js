// Chat page. Renders the current branch sent by the extension. Model text is only ever set with
// textContent, so a reply holding <script> or <img onerror> shows literally.
// @ts-check
/** @typedef {import('../src/protocol/chat').ToChatPage} ToChatPage */
/** @typedef {import('../src/protocol/chat').FromChatPage} FromChatPage */
/** @typedef {import('../src/protocol/chat').ChatModel} ChatModel */
/** @typedef {import('../src/protocol/chat').ChatMessage} ChatMessage */
/** @typedef {import('../src/protocol/chat').ChatToolLine} ChatToolLine */
/** @typedef {import('../src/protocol/chat').SetupStep} SetupStep */
(function () {
  /** @type {VsCodeApi<FromChatPage>} */
  const vscode = acquireVsCodeApi();
  const { el, fmt } = window.worldlineDom;
  const boot = JSON.parse(document.getElementById('bootstrap').textContent || '{}');
  const L = boot.labels || {};
  const saved = vscode.getState() || {};
  /** @type {ChatModel | null} */
  let model = saved.model || null;
  let draft = saved.draft || '';
  /** @type {{ text: string, tools: ChatToolLine[] } | null} */
  let stream = null;
  let editing = null; // { id, text }

  const header = document.createElement('header');
  const log = document.createElement('div');
  log.id = 'log';
  log.setAttribute('role', 'log');
  log.setAttribute('aria-live', 'polite');
  const composer = document.createElement('div');
  composer.id = 'composer';
  document.body.append(header, log, composer);

  const input = document.createElement('textarea');
  input.setAttribute('aria-label', L.instruction);
  input.placeholder = L.placeholder;
  input.rows = 3;
  input.value = draft;
  const sendBtn = button(L.send, L.send, () => submit(), 'primary');
  const stopBtn = button(L.stop, L.stop, () => vscode.postMessage({ type: 'stop' }));
  const phase = document.createElement('span');
  phase.className = 'phase';
  phase.setAttribute('role', 'status');
  const row = document.createElement('div');
  row.className = 'row';
  row.append(phase, el('span', {}, stopBtn, sendBtn));
  composer.append(input, row);

  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  input.addEventListener('input', () => { draft = input.value; persist(); });

  function button(text, label, onclick, cls) {
    return el('button', { class: cls || '', 'aria-label': label, title: label, onclick }, text);
  }
  /** An icon button (VS Code's codicons); the label is its accessible name and tooltip. */
  function iconButton(icon, label, onclick) {
    return el('button', { class: 'icon', 'aria-label': label, title: label, onclick }, el('span', { class: 'codicon codicon-' + icon, 'aria-hidden': 'true' }));
  }
  function persist() { vscode.setState({ model, draft }); }
  const busy = () => !model || model.busy || model.readOnly;

  function submit() {
    const text = input.value.trim();
    if (!text || busy()) return;
    vscode.postMessage({ type: 'send', text });
    input.value = '';
    draft = '';
    persist();
  }

  /** @param {ChatToolLine[] | undefined} tools */
  function toolLines(tools) {
    if (!tools || !tools.length) return null;
    return el('div', { class: 'tools' }, tools.map((t) => t.path && !t.isError
      ? el('a', { href: '#', role: 'link', 'aria-label': fmt(L.openFile, t.path), onclick: (e) => { e.preventDefault(); vscode.postMessage({ type: 'openFile', path: t.path }); } }, '↳ ' + t.text)
      : el('span', { class: t.isError ? 'bad' : '' }, '↳ ' + t.text)));
  }

  /** @param {ChatMessage} m */
  function actions(m) {
    const bar = el('div', { class: 'actions', role: 'toolbar', 'aria-label': L.actions });
    const dis = busy();
    if (m.variant.count > 1) {
      const prev = iconButton('chevron-left', L.prevVariant, () => vscode.postMessage({ type: 'variant', id: m.id, delta: -1 }));
      const next = iconButton('chevron-right', L.nextVariant, () => vscode.postMessage({ type: 'variant', id: m.id, delta: 1 }));
      prev.disabled = dis || m.variant.index === 0;
      next.disabled = dis || m.variant.index >= m.variant.count - 1;
      bar.append(el('span', { class: 'variants', 'data-testid': 'variants' }, prev, el('span', {}, `${m.variant.index + 1}/${m.variant.count}`), next));
    }
    /** @type {(icon: string, label: string, msg: FromChatPage) => void} */
    const add = (icon, label, msg) => { const b = iconButton(icon, label, () => vscode.postMessage(msg)); b.disabled = dis; bar.append(b); };
    if (m.role === 'assistant') add('refresh', L.regenerate, { type: 'regenerate', id: m.id });
    const editBtn = iconButton('edit', L.edit, () => { editing = { id: m.id, text: m.text }; render(); });
    editBtn.disabled = dis;
    bar.append(editBtn);
    add(m.hidden ? 'eye' : 'eye-closed', m.hidden ? L.unhide : L.hide, { type: 'hide', id: m.id, hidden: !m.hidden });
    add('git-branch', L.branchHere, { type: 'branchHere', id: m.id });
    bar.append(iconButton('copy', L.copy, () => vscode.postMessage({ type: 'copy', id: m.id })));
    if (m.checkpoint) {
      add('discard', L.restoreProse, { type: 'restore', id: m.id, withChat: false });
      add('history', L.restoreBoth, { type: 'restore', id: m.id, withChat: true });
      bar.append(iconButton('diff', L.showChanges, () => vscode.postMessage({ type: 'showChanges', id: m.id })));
    }
    return bar;
  }

  /** @param {ChatMessage} m */
  function editBox(m) {
    const ta = el('textarea', { rows: Math.min(16, Math.max(3, m.text.split('\n').length + 1)), 'aria-label': L.edit });
    ta.value = editing.text;
    ta.addEventListener('input', () => { editing.text = ta.value; });
    setTimeout(() => ta.focus(), 0);
    const done = (asBranch) => { const text = ta.value; editing = null; vscode.postMessage({ type: 'edit', id: m.id, text, asBranch }); render(); };
    return el('div', { class: 'edit-box' }, ta, el('div', { class: 'row' },
      button(L.saveInPlace, L.saveInPlace, () => done(false), 'primary'),
      button(L.saveAsBranch, L.saveAsBranch, () => done(true)),
      button(L.cancel, L.cancel, () => { editing = null; render(); })));
  }

  /**
   * The next first-run step, with its buttons (each runs a palette command).
   * @param {SetupStep} s
   */
  function setupNode(s) {
    const row = el('div', { class: 'row' });
    s.actions.forEach((a, i) => row.append(button(a.label, a.label, () => vscode.postMessage({ type: 'command', command: a.command }), i === 0 ? 'primary' : '')));
    return el('div', { class: 'setup', role: 'region', 'aria-label': s.text, 'data-testid': 'setup', 'data-missing': s.missing }, el('p', {}, s.text), row);
  }

  /** @param {ChatMessage} m */
  function messageNode(m) {
    const cls = ['msg', m.role, m.hidden ? 'hidden' : '', m.finish === 'error' ? 'error' : '', m.finish === 'aborted' ? 'aborted' : ''].join(' ');
    const who = el('div', { class: 'who' }, el('span', {}, m.role === 'user' ? L.you : L.agent),
      m.hidden ? el('span', { class: 'badge' }, L.hiddenBadge) : null,
      m.edited ? el('span', { class: 'badge' }, L.editedBadge) : null,
      m.finish === 'aborted' ? el('span', { class: 'badge' }, L.stopped) : null);
    const node = el('div', { class: cls, 'data-id': m.id, 'data-role': m.role }, who);
    if (editing && editing.id === m.id) node.append(editBox(m));
    else if (m.text) node.append(el('div', { class: 'body' }, m.text));
    node.append(toolLines(m.tools) || '');
    if (m.error) node.append(el('div', { class: 'err' }, m.error));
    // A quiet line under a reply: its tokens, cache hits and cost, already worded by the host.
    if (m.usage) node.append(el('div', { class: 'usage', 'data-testid': 'usage' }, m.usage.label));
    node.append(actions(m));
    return node;
  }

  function render() {
    persist();
    header.replaceChildren();
    log.replaceChildren();
    updateComposer();
    if (!model) return;
    header.append(el('div', { class: 'row', style: undefined },
      el('strong', { class: 'grow' }, model.title),
      model.isDemo ? el('span', { class: 'badge demo', title: L.demoExplain }, L.demoModel) : el('span', { class: 'muted' }, model.modelLabel)));
    if (model.sessionUsage) header.append(el('div', { class: 'muted usage', 'data-testid': 'session-usage' }, model.sessionUsage));
    if (model.readOnly) header.append(el('div', { class: 'banner info' }, L.readOnly));
    if (!model.messages.length && !stream) log.append(model.setup ? setupNode(model.setup) : el('p', { class: 'muted' }, L.empty));
    for (const m of model.messages) log.append(messageNode(m));
    if (stream) {
      log.append(el('div', { class: 'msg assistant streaming', 'data-testid': 'streaming' },
        el('div', { class: 'who' }, el('span', {}, L.agent)),
        el('div', { class: 'body' }, stream.text), toolLines(stream.tools) || ''));
    }
    if (model.notice) {
      const n = model.notice;
      const b = el('div', { class: 'banner ' + (n.kind === 'error' ? 'error' : 'info'), role: 'alert' }, n.text);
      if (n.action === 'setKey') b.append(' ', button(L.setKey, L.setKey, () => vscode.postMessage({ type: 'command', command: 'setKey' })));
      if (n.action === 'selectModel') b.append(' ', button(L.selectModel, L.selectModel, () => vscode.postMessage({ type: 'command', command: 'selectModel' })));
      if (model.canRetry) b.append(' ', button(L.retry, L.retry, () => vscode.postMessage({ type: 'retry' }), 'primary'));
      log.append(b);
    } else if (model.canRetry) {
      log.append(el('div', { class: 'row' }, button(L.retry, L.retry, () => vscode.postMessage({ type: 'retry' }), 'primary')));
    }
    updateComposer();
    log.scrollTop = log.scrollHeight;
  }

  function updateComposer() {
    const b = busy();
    sendBtn.disabled = b;
    input.disabled = !!(model && model.readOnly);
    stopBtn.hidden = !(model && model.busy && model.phase !== 'scribe');
    stopBtn.style.display = stopBtn.hidden ? 'none' : '';
    phase.textContent = model ? (L['phase_' + model.phase] || '') : '';
  }

  window.addEventListener('message', (event) => {
    /** @type {ToChatPage} */
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    // A render carries the streaming block as of that moment: a tool line recorded in the message
    // list has left it, so the line never shows twice.
    if (msg.type === 'render') { model = msg.model; stream = model.busy && msg.stream ? { text: msg.stream.text, tools: msg.stream.tools || [] } : null; render(); }
    else if (msg.type === 'stream') { stream = { text: msg.text, tools: msg.tools || [] }; render(); }
    else if (msg.type === 'phase') { if (model) { model.phase = msg.phase; model.busy = msg.busy; } updateComposer(); }
    else if (msg.type === 'focusInput') { if (typeof msg.text === 'string') { input.value = msg.text; draft = msg.text; persist(); } input.focus(); }
  });
  render();
  vscode.postMessage({ type: 'ready' });
})();
