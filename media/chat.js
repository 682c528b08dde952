// Chat page. Renders the current branch sent by the extension. Model text is only ever set with
// textContent, so a reply holding <script> or <img onerror> shows literally.
//
// The host sends numbered updates (src/protocol/chatMirror.ts says what each one means): a whole
// render, or a patch that replaces the messages that changed, drops and appends from the first one
// that differs, and adds streamed characters to the streaming block. Only the nodes of changed
// messages are rebuilt, so focus, scroll and an open edit box elsewhere stay as they are.
// @ts-check
/** @typedef {import('../src/protocol/chat').ToChatPage} ToChatPage */
/** @typedef {import('../src/protocol/chat').FromChatPage} FromChatPage */
/** @typedef {import('../src/protocol/chat').ChatModel} ChatModel */
/** @typedef {import('../src/protocol/chat').ChatMessage} ChatMessage */
/** @typedef {import('../src/protocol/chat').ChatToolLine} ChatToolLine */
/** @typedef {import('../src/protocol/chat').ChatPatch} ChatPatch */
/** @typedef {import('../src/protocol/chat').ChatStreamDelta} ChatStreamDelta */
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
  /** The update the page holds; -1 until the host's first render (a restored model only fills the wait). */
  let seq = -1;
  /** A render was asked for after a gap; updates are ignored until it comes. */
  let asked = false;
  /** @type {{ text: string, tools: ChatToolLine[] } | null} */
  let stream = null;
  /** @type {{ id: string, text: string } | null} */
  let editing = null;
  /** The busy state the action buttons show. */
  let shownBusy = /** @type {boolean | null} */ (null);

  const header = document.createElement('header');
  const log = document.createElement('div');
  log.id = 'log';
  log.setAttribute('role', 'log');
  log.setAttribute('aria-live', 'polite');
  const composer = document.createElement('div');
  composer.id = 'composer';
  document.body.append(header, log, composer);
  // The log's parts, each updated on its own: the empty state, the messages (one node each, in
  // order), the streaming block, the notice line.
  const empty = el('div', {});
  const list = el('div', { class: 'messages' });
  const streamBox = el('div', {});
  const tail = el('div', {});
  log.append(empty, list, streamBox, tail);

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
  /**
   * An icon button (VS Code's codicons); the label is its accessible name and tooltip. `action`
   * names it within its message, so focus can find it again when the message is rebuilt.
   */
  function iconButton(icon, label, onclick, action) {
    return el('button', { class: 'icon', 'aria-label': label, title: label, onclick, 'data-action': action }, el('span', { class: 'codicon codicon-' + icon, 'aria-hidden': 'true' }));
  }
  /** A button that is off while the agent writes (`edge`: also off for good, at the end of the variants). */
  function locked(b, edge) {
    b.setAttribute('data-lock', '');
    if (edge) b.setAttribute('data-edge', '');
    b.disabled = busy() || !!edge;
    return b;
  }
  // The saved state is only what fills the view while it loads again: written after a quiet moment,
  // not on every update or keystroke.
  let persistTimer = 0;
  function persist() {
    if (persistTimer) return;
    persistTimer = window.setTimeout(() => { persistTimer = 0; vscode.setState({ model, draft }); }, 300);
  }
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
    if (m.variant.count > 1) {
      const prev = locked(iconButton('chevron-left', L.prevVariant, () => vscode.postMessage({ type: 'variant', id: m.id, delta: -1 }), 'prev'), m.variant.index === 0);
      const next = locked(iconButton('chevron-right', L.nextVariant, () => vscode.postMessage({ type: 'variant', id: m.id, delta: 1 }), 'next'), m.variant.index >= m.variant.count - 1);
      bar.append(el('span', { class: 'variants', 'data-testid': 'variants' }, prev, el('span', {}, `${m.variant.index + 1}/${m.variant.count}`), next));
    }
    /** @type {(icon: string, label: string, msg: FromChatPage, action: string) => void} */
    const add = (icon, label, msg, action) => { bar.append(locked(iconButton(icon, label, () => vscode.postMessage(msg), action))); };
    if (m.role === 'assistant') add('refresh', L.regenerate, { type: 'regenerate', id: m.id }, 'regenerate');
    bar.append(locked(iconButton('edit', L.edit, () => { editing = { id: m.id, text: m.text }; rebuild(m.id); }, 'edit')));
    add(m.hidden ? 'eye' : 'eye-closed', m.hidden ? L.unhide : L.hide, { type: 'hide', id: m.id, hidden: !m.hidden }, 'hide');
    add('git-branch', L.branchHere, { type: 'branchHere', id: m.id }, 'branchHere');
    bar.append(iconButton('copy', L.copy, () => vscode.postMessage({ type: 'copy', id: m.id }), 'copy'));
    if (m.checkpoint) {
      add('discard', L.restoreProse, { type: 'restore', id: m.id, withChat: false }, 'restoreProse');
      add('history', L.restoreBoth, { type: 'restore', id: m.id, withChat: true }, 'restoreBoth');
      bar.append(iconButton('diff', L.showChanges, () => vscode.postMessage({ type: 'showChanges', id: m.id }), 'showChanges'));
    }
    return bar;
  }

  /** @param {ChatMessage} m */
  function editBox(m) {
    const ta = el('textarea', { rows: Math.min(16, Math.max(3, m.text.split('\n').length + 1)), 'aria-label': L.edit });
    ta.value = editing.text;
    ta.addEventListener('input', () => { editing.text = ta.value; });
    setTimeout(() => ta.focus(), 0);
    const close = () => { editing = null; rebuild(m.id); focusAction(m.id, 'edit'); };
    const done = (asBranch) => { const text = ta.value; vscode.postMessage({ type: 'edit', id: m.id, text, asBranch }); close(); };
    return el('div', { class: 'edit-box' }, ta, el('div', { class: 'row' },
      button(L.saveInPlace, L.saveInPlace, () => done(false), 'primary'),
      button(L.saveAsBranch, L.saveAsBranch, () => done(true)),
      button(L.cancel, L.cancel, close)));
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

  /** Builds the node of the message with this id again (its edit box opened or closed). */
  function rebuild(id) {
    const at = model ? model.messages.findIndex((m) => m.id === id) : -1;
    const old = list.children[at];
    if (at >= 0 && old) old.replaceWith(messageNode(model.messages[at]));
  }

  function focusAction(id, action) {
    const node = Array.from(list.children).find((n) => n.getAttribute('data-id') === id);
    const target = node && node.querySelector(`[data-action="${action}"]`);
    if (target instanceof HTMLElement) target.focus();
  }

  function renderHead() {
    header.replaceChildren();
    if (!model) return;
    header.append(el('div', { class: 'row', style: undefined },
      el('strong', { class: 'grow' }, model.title),
      model.isDemo ? el('span', { class: 'badge demo', title: L.demoExplain }, L.demoModel) : el('span', { class: 'muted' }, model.modelLabel)));
    if (model.sessionUsage) header.append(el('div', { class: 'muted usage', 'data-testid': 'session-usage' }, model.sessionUsage));
    if (model.readOnly) header.append(el('div', { class: 'banner info' }, L.readOnly));
  }

  function renderEmpty() {
    const show = model && !model.messages.length && !stream;
    if (!show) { if (empty.firstChild) empty.replaceChildren(); return; }
    empty.replaceChildren(model.setup ? setupNode(model.setup) : el('p', { class: 'muted' }, L.empty));
  }

  function renderTail() {
    tail.replaceChildren();
    if (!model) return;
    if (model.notice) {
      const n = model.notice;
      const b = el('div', { class: 'banner ' + (n.kind === 'error' ? 'error' : 'info'), role: 'alert' }, n.text);
      if (n.action === 'setKey') b.append(' ', button(L.setKey, L.setKey, () => vscode.postMessage({ type: 'command', command: 'setKey' })));
      if (n.action === 'selectModel') b.append(' ', button(L.selectModel, L.selectModel, () => vscode.postMessage({ type: 'command', command: 'selectModel' })));
      if (model.canRetry) b.append(' ', button(L.retry, L.retry, () => vscode.postMessage({ type: 'retry' }), 'primary'));
      tail.append(b);
    } else if (model.canRetry) {
      tail.append(el('div', { class: 'row' }, button(L.retry, L.retry, () => vscode.postMessage({ type: 'retry' }), 'primary')));
    }
  }

  /** The streaming block: added characters go onto its text node, nothing else is rebuilt. */
  let streamNode = /** @type {{ node: HTMLElement, text: Text, tools: HTMLElement } | null} */ (null);
  function renderStream(appended) {
    if (!stream) {
      if (streamNode) { streamBox.replaceChildren(); streamNode = null; }
      return;
    }
    if (!streamNode) {
      const text = document.createTextNode('');
      const tools = el('div', {});
      const node = el('div', { class: 'msg assistant streaming', 'data-testid': 'streaming' },
        el('div', { class: 'who' }, el('span', {}, L.agent)), el('div', { class: 'body' }, text), tools);
      streamBox.replaceChildren(node);
      streamNode = { node, text, tools };
      appended = undefined;
    }
    if (appended !== undefined && streamNode.text.data.length + appended.length === stream.text.length) streamNode.text.appendData(appended);
    else if (streamNode.text.data !== stream.text) streamNode.text.data = stream.text;
    streamNode.tools.replaceChildren(toolLines(stream.tools) || '');
  }

  /** @param {ChatStreamDelta} d */
  function applyStream(d) {
    const had = stream ? stream.text : '';
    if (d.from > had.length) return false;
    const kept = d.from === had.length;
    stream = { text: had.slice(0, d.from) + d.text, tools: d.tools || [] };
    renderStream(kept ? d.text : undefined);
    return true;
  }

  /** The action buttons follow the busy state without being rebuilt. */
  function applyBusy() {
    const b = busy();
    if (b === shownBusy) return;
    shownBusy = b;
    for (const x of list.querySelectorAll('button[data-lock]')) /** @type {HTMLButtonElement} */ (x).disabled = b || x.hasAttribute('data-edge');
  }

  function updateComposer() {
    const b = busy();
    sendBtn.disabled = b;
    input.disabled = !!(model && model.readOnly);
    stopBtn.hidden = !(model && model.busy && model.phase !== 'scribe');
    stopBtn.style.display = stopBtn.hidden ? 'none' : '';
    phase.textContent = model ? (L['phase_' + model.phase] || '') : '';
  }

  function nearBottom() {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  }

  function renderAll() {
    persist();
    renderHead();
    if (editing && !(model && model.messages.some((m) => m.id === editing.id))) editing = null;
    list.replaceChildren(...(model ? model.messages.map(messageNode) : []));
    shownBusy = busy();
    streamNode = null;
    streamBox.replaceChildren();
    renderStream();
    renderEmpty();
    renderTail();
    updateComposer();
    log.scrollTop = log.scrollHeight;
  }

  /** Where focus is inside the messages: which message (by place) and which of its buttons. */
  function focusPlace() {
    const a = document.activeElement;
    if (!(a instanceof HTMLElement) || !list.contains(a)) return null;
    const node = a.closest('.msg');
    return { node, index: Array.prototype.indexOf.call(list.children, node), action: a.getAttribute('data-action') };
  }

  /** A rebuilt message gets focus back on the same button (Hide becomes Unhide, ◀ stays ◀). */
  function restoreFocus(place) {
    if (!place || !place.node || place.node.isConnected || !place.action) return;
    const node = list.children[place.index];
    const target = node && node.querySelector(`[data-action="${place.action}"]`);
    if (target instanceof HTMLElement) target.focus();
  }

  /**
   * Applies a patch to the page that holds its base; false when it does not fit (the page then
   * asks for a render).
   * @param {ChatPatch} p
   */
  function applyPatch(p) {
    if (!model) return false;
    const messages = model.messages.slice();
    for (const r of p.replace || []) if (!messages[r.at] || messages[r.at].id !== r.message.id) return false;
    if (p.splice && p.splice.keep > messages.length) return false;
    const bottom = nearBottom();
    const place = focusPlace();
    if (p.head) {
      model = Object.assign({}, p.head, { messages });
      renderHead();
      renderTail();
    }
    model.messages = messages;
    for (const r of p.replace || []) {
      messages[r.at] = r.message;
      const old = list.children[r.at];
      if (old) old.replaceWith(messageNode(r.message));
    }
    if (p.splice) {
      messages.length = p.splice.keep;
      while (list.children.length > p.splice.keep) list.lastChild.remove();
      for (const m of p.splice.append) { messages.push(m); list.append(messageNode(m)); }
      if (editing && !messages.some((m) => m.id === editing.id)) editing = null;
    }
    if (p.stream === null) { stream = null; renderStream(); }
    else if (p.stream && !applyStream(p.stream)) return false;
    renderEmpty();
    applyBusy();
    updateComposer();
    restoreFocus(place);
    if (bottom) log.scrollTop = log.scrollHeight;
    persist();
    return true;
  }

  /** An update that does not follow what the page holds: ask for everything once. */
  function resync() {
    seq = -1;
    if (asked) return;
    asked = true;
    vscode.postMessage({ type: 'ready' });
  }

  window.addEventListener('message', (event) => {
    /** @type {ToChatPage} */
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'render') {
      model = msg.model;
      seq = msg.seq;
      asked = false;
      stream = msg.stream ? { text: msg.stream.text, tools: msg.stream.tools || [] } : null;
      renderAll();
    } else if (msg.type === 'patch' || msg.type === 'stream') {
      if (msg.base !== seq) return resync();
      const bottom = nearBottom();
      const ok = msg.type === 'patch' ? applyPatch(msg) : applyStream(msg);
      if (!ok) return resync();
      seq = msg.seq;
      if (msg.type === 'stream') { renderEmpty(); if (bottom) log.scrollTop = log.scrollHeight; }
    } else if (msg.type === 'phase') {
      if (model) { model.phase = msg.phase; model.busy = msg.busy; }
      updateComposer();
      applyBusy();
    } else if (msg.type === 'focusInput') {
      if (typeof msg.text === 'string') { input.value = msg.text; draft = msg.text; persist(); }
      input.focus();
    }
  });
  renderAll();
  vscode.postMessage({ type: 'ready' });
})();
