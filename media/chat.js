// Chat page. Renders the current branch sent by the extension. Model text is only ever set with
// textContent, so a reply holding <script> or <img onerror> shows literally.
//
// The host sends numbered updates (src/protocol/chatMirror.ts says what each one means): a whole
// render, or a patch that replaces the messages that changed, drops and appends from the first one
// that differs, and adds streamed characters to the streaming block. Only the nodes of changed
// messages are rebuilt, so focus and an open edit box elsewhere stay as they are.
//
// Whatever the update (a whole render too), the view follows the end only when the reader is
// there; otherwise the first message in view stays where it was on screen. The log is no live
// region: while a reply streams it is aria-busy, and the finished reply is announced once through
// a separate status line. Each message's toolbar is one tab stop (arrow keys move within it), with
// the main actions at rest and the others in its "More actions" menu.
// @ts-check
/** @typedef {import('../src/protocol/chat').ToChatPage} ToChatPage */
/** @typedef {import('../src/protocol/chat').FromChatPage} FromChatPage */
/** @typedef {import('../src/protocol/chat').ChatModel} ChatModel */
/** @typedef {import('../src/protocol/chat').ChatMessage} ChatMessage */
/** @typedef {import('../src/protocol/chat').ChatToolLine} ChatToolLine */
/** @typedef {import('../src/protocol/chat').ChatStream} ChatStream */
/** @typedef {import('../src/protocol/chat').ChatPatch} ChatPatch */
/** @typedef {import('../src/protocol/chat').ChatStreamDelta} ChatStreamDelta */
/** @typedef {import('../src/protocol/chat').SetupStep} SetupStep */
/** @typedef {{ text: string, tools: ChatToolLine[], reasoning: string, since: number | undefined }} PageStream */
/**
 * One action of a message. `locked`: off while the agent writes; `off`: why it cannot run at all
 * (it stays in the menu, marked so, with the reason as its tooltip).
 * @typedef {{ action: string, icon: string, label: string, run: () => void, locked: boolean, off?: string }} MessageAction
 */
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
  /** @type {PageStream | null} */
  let stream = null;
  /** @type {{ id: string, text: string } | null} */
  let editing = null;
  /** The busy state the action buttons show. */
  let shownBusy = /** @type {boolean | null} */ (null);

  const header = document.createElement('header');
  const log = document.createElement('div');
  log.id = 'log';
  // A region, not role="log": that role is a live region, and the whole transcript would be read
  // out again on every change.
  log.setAttribute('role', 'region');
  log.setAttribute('aria-label', L.conversation);
  const composer = document.createElement('div');
  composer.id = 'composer';
  // The one live line: "Reply finished." and the reply's first words, once per reply.
  const announcer = el('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite', 'data-testid': 'announcer' });
  document.body.append(header, log, composer, announcer);
  // The log's parts, each updated on its own: the empty state, the messages (one node each, in
  // order), the streaming block, the notice line, the instruction waiting for the scribe.
  const empty = el('div', {});
  const list = el('div', { class: 'messages' });
  const streamBox = el('div', {});
  const tail = el('div', {});
  const pendingBox = el('div', {});
  log.append(empty, list, streamBox, tail, pendingBox);

  const input = document.createElement('textarea');
  input.setAttribute('aria-label', L.instruction);
  input.placeholder = L.placeholder;
  input.rows = 2;
  input.value = draft;
  const sendBtn = button(L.send, L.send, () => submit(), 'primary');
  const stopBtn = button(L.stop, L.stop, () => vscode.postMessage({ type: 'stop' }));
  const phase = document.createElement('span');
  phase.className = 'phase';
  phase.setAttribute('role', 'status');
  const row = document.createElement('div');
  row.className = 'row';
  row.append(phase, el('span', { class: 'row' }, stopBtn, sendBtn));
  composer.append(input, row);

  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  input.addEventListener('input', () => { draft = input.value; persist(); keepingPlace(fitInput); });

  /** The composer grows with its text (up to the CSS max-height) and is two lines at rest, so the log keeps the height. */
  function fitInput() {
    input.style.height = '';
    if (input.scrollHeight > input.clientHeight) input.style.height = `${input.scrollHeight + 2}px`;
  }

  function button(text, label, onclick, cls) {
    return el('button', { class: cls || '', 'aria-label': label, title: label, onclick }, text);
  }
  /**
   * An icon button (VS Code's codicons); the label is its accessible name and tooltip. `action`
   * names it within its message, so focus can find it again when the message is rebuilt.
   */
  function iconButton(icon, label, onclick, action) {
    return el('button', { class: 'icon', 'aria-label': label, title: label, onclick, 'data-action': action }, codicon(icon));
  }
  function codicon(icon) {
    return el('span', { class: 'codicon codicon-' + icon, 'aria-hidden': 'true' });
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
  /** An instruction can go out when idle, or while the scribe finishes (it then waits, one at most). */
  const canSend = () => !!model && !model.readOnly && !model.pending && (!model.busy || model.phase === 'scribe');

  function submit() {
    const text = input.value.trim();
    if (!text || !canSend()) return;
    vscode.postMessage({ type: 'send', text });
    input.value = '';
    draft = '';
    persist();
    keepingPlace(fitInput);
  }

  /** @param {ChatToolLine[] | undefined} tools */
  function toolLines(tools) {
    if (!tools || !tools.length) return null;
    return el('div', { class: 'tools' }, tools.map((t) => t.path && !t.isError
      ? el('a', { href: '#', role: 'link', 'aria-label': fmt(L.openFile, t.path), onclick: (e) => { e.preventDefault(); vscode.postMessage({ type: 'openFile', path: t.path }); } }, '↳ ' + t.text)
      : el('span', { class: t.isError ? 'bad' : '' }, '↳ ' + t.text)));
  }

  // ---- Message actions: a toolbar with a roving tabindex, and its overflow menu ----

  /** The actions shown at rest; the others sit in the menu. */
  const MAIN = { assistant: ['regenerate', 'copy'], user: ['edit', 'copy'] };

  /**
   * Every action of a message, in menu order.
   * @param {ChatMessage} m
   * @returns {MessageAction[]}
   */
  function actionsOf(m) {
    /** @type {(msg: FromChatPage) => () => void} */
    const post = (msg) => () => vscode.postMessage(msg);
    /** @type {MessageAction[]} */
    const out = [];
    if (m.role === 'assistant') out.push({ action: 'regenerate', icon: 'refresh', label: L.regenerate, run: post({ type: 'regenerate', id: m.id }), locked: true });
    out.push({ action: 'edit', icon: 'edit', label: L.edit, run: () => { editing = { id: m.id, text: m.text }; keepingPlace(() => rebuild(m.id)); }, locked: true });
    out.push({ action: 'copy', icon: 'copy', label: L.copy, run: post({ type: 'copy', id: m.id }), locked: false });
    out.push({ action: 'hide', icon: m.hidden ? 'eye' : 'eye-closed', label: m.hidden ? L.unhide : L.hide, run: post({ type: 'hide', id: m.id, hidden: !m.hidden }), locked: true });
    out.push({ action: 'branchHere', icon: 'git-branch', label: L.branchHere, run: post({ type: 'branchHere', id: m.id }), locked: true });
    if (m.checkpoint) {
      const off = m.checkpoint.lost ? L.checkpointLostWhy : undefined;
      out.push({ action: 'restoreProse', icon: 'discard', label: L.restoreProse, run: post({ type: 'restore', id: m.id, withChat: false }), locked: true, off });
      out.push({ action: 'restoreBoth', icon: 'history', label: L.restoreBoth, run: post({ type: 'restore', id: m.id, withChat: true }), locked: true, off });
      out.push({ action: 'showChanges', icon: 'diff', label: L.showChanges, run: post({ type: 'showChanges', id: m.id }), locked: false, off });
    }
    return out;
  }

  /** @param {ChatMessage} m */
  function actions(m) {
    const bar = el('div', { class: 'actions', role: 'toolbar', 'aria-label': L.actions });
    if (m.variant.count > 1) {
      const prev = rove(locked(iconButton('chevron-left', L.prevVariant, () => vscode.postMessage({ type: 'variant', id: m.id, delta: -1 }), 'prev'), m.variant.index === 0));
      const next = rove(locked(iconButton('chevron-right', L.nextVariant, () => vscode.postMessage({ type: 'variant', id: m.id, delta: 1 }), 'next'), m.variant.index >= m.variant.count - 1));
      const count = el('span', { class: 'count', title: fmt(L.variantOf, m.variant.index + 1, m.variant.count) }, `${m.variant.index + 1}/${m.variant.count}`);
      bar.append(el('span', { class: 'variants', 'data-testid': 'variants' }, prev, count, next));
    }
    const all = actionsOf(m);
    const main = MAIN[m.role];
    for (const a of all.filter((x) => main.includes(x.action))) {
      const b = iconButton(a.icon, a.label, a.run, a.action);
      bar.append(rove(a.locked ? locked(b) : b));
    }
    const rest = all.filter((x) => !main.includes(x.action));
    if (rest.length) bar.append(moreMenu(rest));
    bar.addEventListener('keydown', (e) => {
      const items = roveItems(bar);
      const at = items.indexOf(/** @type {HTMLElement} */ (e.target));
      if (at < 0) return;
      const n = items.length;
      const to = e.key === 'ArrowRight' ? (at + 1) % n : e.key === 'ArrowLeft' ? (at - 1 + n) % n : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : -1;
      if (to < 0) return;
      e.preventDefault();
      roveTo(bar, items[to]);
      items[to].focus();
    });
    bar.addEventListener('focusin', (e) => {
      if (e.target instanceof HTMLElement && e.target.hasAttribute('data-rove')) roveTo(bar, e.target);
    });
    settleRove(bar);
    return bar;
  }

  /** @param {HTMLElement} b */
  function rove(b) {
    b.setAttribute('data-rove', '');
    b.setAttribute('tabindex', '-1');
    return b;
  }
  /** The toolbar's items that can take focus, in order. */
  function roveItems(bar) {
    return /** @type {HTMLElement[]} */ (Array.from(bar.querySelectorAll('[data-rove]'))).filter((b) => !(/** @type {HTMLButtonElement} */ (b).disabled));
  }
  /** Makes `target` the toolbar's one tab stop. */
  function roveTo(bar, target) {
    if (!target) return;
    for (const b of bar.querySelectorAll('[data-rove]')) b.setAttribute('tabindex', b === target ? '0' : '-1');
  }
  /** The tab stop stays on an item that can take focus (the busy state turns some off). */
  function settleRove(bar) {
    const stop = bar.querySelector('[data-rove][tabindex="0"]');
    if (!stop || /** @type {HTMLButtonElement} */ (stop).disabled) roveTo(bar, roveItems(bar)[0]);
  }

  /** The open "More actions" menu; one at most. @type {{ wrap: HTMLElement, button: HTMLElement, menu: HTMLElement } | null} */
  let openMenu = null;
  let menus = 0;

  /**
   * The "More actions" button and the menu it opens (built when opened): arrow keys, Home and End
   * move in it, Escape closes it and gives focus back to the button, as does choosing an item.
   * @param {MessageAction[]} items
   */
  function moreMenu(items) {
    const btn = rove(iconButton('ellipsis', L.moreActions, () => (openMenu && openMenu.button === btn ? closeMenu(true) : open('first')), 'more'));
    btn.setAttribute('aria-haspopup', 'menu');
    btn.setAttribute('aria-expanded', 'false');
    const wrap = el('span', { class: 'more' }, btn);
    btn.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      e.preventDefault();
      open(e.key === 'ArrowUp' ? 'last' : 'first');
    });
    // Focus leaving the menu and its button (a click elsewhere, Tab) closes it.
    wrap.addEventListener('focusout', (e) => {
      const to = e.relatedTarget;
      if (openMenu && openMenu.wrap === wrap && !(to instanceof HTMLElement && wrap.contains(to))) closeMenu(false);
    });
    /** @param {'first' | 'last'} which */
    function open(which) {
      closeMenu(false);
      const id = `wl-menu-${++menus}`;
      const menu = el('div', { class: 'menu', role: 'menu', id, 'aria-label': L.moreActions });
      for (const a of items) {
        const item = el('button', { class: 'menuitem', role: 'menuitem', tabindex: '-1', 'data-action': a.action, title: a.off || a.label, onclick: () => {
          if (a.off || item.disabled) return;
          closeMenu(true);
          a.run();
        } }, codicon(a.icon), el('span', {}, a.label));
        if (a.off) item.setAttribute('aria-disabled', 'true');
        if (a.locked) locked(item);
        menu.append(item);
      }
      menu.addEventListener('keydown', menuKeys);
      wrap.append(menu);
      btn.setAttribute('aria-expanded', 'true');
      btn.setAttribute('aria-controls', id);
      openMenu = { wrap, button: btn, menu };
      placeMenu(menu);
      const can = menuItems(menu);
      const first = which === 'last' ? can[can.length - 1] : can[0];
      if (first) first.focus();
    }
    return wrap;
  }

  /** The items focus can move to: all but those turned off while the agent writes (a lost checkpoint's stay, to say why). */
  function menuItems(menu) {
    return /** @type {HTMLElement[]} */ (Array.from(menu.querySelectorAll('[role="menuitem"]'))).filter((b) => !(/** @type {HTMLButtonElement} */ (b).disabled));
  }

  function menuKeys(e) {
    if (!openMenu) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeMenu(true);
      return;
    }
    if (e.key === 'Tab') { closeMenu(false); return; }
    const items = menuItems(openMenu.menu);
    const n = items.length;
    if (!n) return;
    const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const to = e.key === 'ArrowDown' ? (at + 1) % n : e.key === 'ArrowUp' ? (at - 1 + n) % n : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    e.stopPropagation();
    items[to].focus();
  }

  /** @param {boolean} focusButton */
  function closeMenu(focusButton) {
    const o = openMenu;
    if (!o) return;
    openMenu = null;
    o.button.setAttribute('aria-expanded', 'false');
    o.button.removeAttribute('aria-controls');
    // Focus goes back where it was without scrolling: the reader chose from the menu, they did not move.
    if (focusButton && o.button.isConnected) o.button.focus({ preventScroll: true });
    o.menu.remove();
  }

  /** A menu that would run past the bottom of the log opens upwards. */
  function placeMenu(menu) {
    if (typeof menu.getBoundingClientRect !== 'function') return;
    const r = menu.getBoundingClientRect();
    const l = log.getBoundingClientRect();
    if (r.bottom > l.bottom && r.top - l.top > r.height) menu.className = 'menu up';
  }

  // ---- Messages ----

  /** @param {ChatMessage} m */
  function editBox(m) {
    const ta = el('textarea', { rows: Math.min(16, Math.max(3, m.text.split('\n').length + 1)), 'aria-label': L.edit });
    ta.value = editing.text;
    ta.addEventListener('input', () => { editing.text = ta.value; });
    setTimeout(() => ta.focus(), 0);
    const close = () => { editing = null; keepingPlace(() => rebuild(m.id)); focusAction(nodeOf(m.id), 'edit'); };
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
    const cls = ['msg', m.role, m.hidden ? 'hidden' : '', m.finish === 'error' ? 'error' : '', m.finish === 'aborted' ? 'aborted' : ''].filter(Boolean).join(' ');
    const lost = !!(m.checkpoint && m.checkpoint.lost);
    const who = el('div', { class: 'who' }, el('span', { class: 'name' }, m.speaker || (m.role === 'user' ? L.you : L.agent)),
      m.edited ? el('span', { class: 'badge' }, L.editedBadge) : null,
      m.finish === 'aborted' ? el('span', { class: 'badge warning' }, L.stopped) : null,
      lost ? el('span', { class: 'badge warning', title: L.checkpointLostWhy, 'data-testid': 'checkpoint-lost' }, L.checkpointLost) : null,
      m.hidden ? el('span', { class: 'mark', 'data-testid': 'hidden-mark' }, codicon('eye-closed'), el('span', {}, L.hiddenMark)) : null);
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

  /** The node of the message with this id. */
  function nodeOf(id) {
    for (const n of list.children) if (n.getAttribute('data-id') === id) return /** @type {HTMLElement} */ (n);
    return null;
  }

  /** Builds the node of the message with this id again (its edit box opened or closed). */
  function rebuild(id) {
    const at = model ? model.messages.findIndex((m) => m.id === id) : -1;
    const old = list.children[at];
    if (at >= 0 && old) old.replaceWith(messageNode(model.messages[at]));
  }

  /** Focus on a message's action: its toolbar button, or the "More actions" button when the action lives in the menu. */
  function focusAction(node, action) {
    const target = node && (node.querySelector(`[data-rove][data-action="${action}"]`) || node.querySelector('[data-action="more"]'));
    if (!(target instanceof HTMLElement) || /** @type {HTMLButtonElement} */ (target).disabled) return;
    const bar = target.closest('.actions');
    if (bar) roveTo(bar, target);
    target.focus({ preventScroll: true }); // a rebuilt message keeps focus; the view keeps its place
  }

  function renderHead() {
    header.replaceChildren();
    if (!model) return;
    header.append(el('div', { class: 'row' },
      el('strong', { class: 'grow' }, model.title),
      model.isDemo ? el('span', { class: 'badge warning demo', title: L.demoExplain }, L.demoModel) : el('span', { class: 'muted' }, model.modelLabel)));
    if (model.sessionUsage) header.append(el('div', { class: 'muted usage', 'data-testid': 'session-usage' }, model.sessionUsage));
    if (model.readOnly) header.append(el('div', { class: 'banner info' }, L.readOnly));
  }

  function renderEmpty() {
    const show = model && !model.messages.length && !stream && !model.pending;
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

  /** The instruction waiting for the scribe, shown as it will be sent, with Cancel. */
  let shownPending = /** @type {string | null} */ (null);
  function renderPending() {
    const text = model && model.pending ? model.pending.text : null;
    if (text === shownPending) return;
    shownPending = text;
    if (text === null) { pendingBox.replaceChildren(); return; }
    pendingBox.replaceChildren(el('div', { class: 'msg user pending', 'data-testid': 'pending' },
      el('div', { class: 'who' }, el('span', { class: 'name' }, L.you),
        el('span', { class: 'waiting' }, el('span', { class: 'spinner', 'aria-hidden': 'true' }), el('span', {}, L.waiting))),
      el('div', { class: 'body' }, text),
      el('div', { class: 'row' }, button(L.cancel, L.cancelPending, () => vscode.postMessage({ type: 'cancelPending' })))));
  }

  // ---- The streaming block ----

  /**
   * The streaming block. Added characters go onto its text nodes; nothing else is rebuilt. Before
   * the model sends anything for a step, a thinking line counts the seconds (one text node, once a
   * second); the reasoning, where the provider streams it, sits collapsed above the reply.
   * @type {{ node: HTMLElement, slot: HTMLElement, wait: HTMLElement, label: HTMLElement, labelText: Text, details: HTMLDetailsElement | null, summary: HTMLElement | null, reasoning: Text | null, body: HTMLElement, text: Text, tools: HTMLElement } | null}
   */
  let streamNode = null;
  /** The thinking timer; when the wait began (epoch ms); the seconds it took once text came (null: not seen). */
  let waitTimer = 0;
  let waitFrom = 0;
  let thoughtSecs = /** @type {number | null} */ (null);
  let reasoningOpen = false;

  const waitSecs = () => Math.max(0, Math.floor((Date.now() - waitFrom) / 1000));

  function stopWait() {
    if (waitTimer) window.clearInterval(waitTimer);
    waitTimer = 0;
  }

  /** @param {{ text?: string, reasoning?: string }} [added] what was appended to each text, when it was an append */
  function renderStream(added) {
    if (!stream) {
      stopWait();
      thoughtSecs = null;
      if (streamNode) { streamBox.replaceChildren(); streamNode = null; }
      log.removeAttribute('aria-busy');
      return;
    }
    log.setAttribute('aria-busy', 'true');
    if (!streamNode) {
      const text = document.createTextNode('');
      const labelText = document.createTextNode('');
      const label = el('span', {}, labelText);
      const wait = el('div', { class: 'thinking', 'data-testid': 'thinking' }, el('span', { class: 'spinner', 'aria-hidden': 'true' }));
      const slot = el('div', {});
      const body = el('div', { class: 'body' }, text);
      const tools = el('div', {});
      const node = el('div', { class: 'msg assistant streaming', 'data-testid': 'streaming', 'aria-busy': 'true' },
        el('div', { class: 'who' }, el('span', { class: 'name' }, L.agent)), slot, body, tools);
      streamBox.replaceChildren(node);
      streamNode = { node, slot, wait, label, labelText, details: null, summary: null, reasoning: null, body, text, tools };
      added = undefined;
    }
    const s = streamNode;
    const more = added || {};
    if (more.text !== undefined && s.text.data.length + more.text.length === stream.text.length) s.text.appendData(more.text);
    else if (s.text.data !== stream.text) s.text.data = stream.text;
    s.body.hidden = !stream.text;
    s.tools.replaceChildren(toolLines(stream.tools) || '');

    if (stream.reasoning) {
      if (!s.details) {
        const reasoning = document.createTextNode('');
        const summary = el('summary', {});
        const details = el('details', { class: 'reasoning', 'data-testid': 'reasoning' }, summary, el('div', { class: 'reasoning-text' }, reasoning));
        details.open = reasoningOpen;
        details.addEventListener('toggle', () => { reasoningOpen = details.open; });
        Object.assign(s, { details, summary, reasoning });
      }
      if (more.reasoning !== undefined && s.reasoning.data.length + more.reasoning.length === stream.reasoning.length) s.reasoning.appendData(more.reasoning);
      else if (s.reasoning.data !== stream.reasoning) s.reasoning.data = stream.reasoning;
    } else if (s.details) {
      Object.assign(s, { details: null, summary: null, reasoning: null });
    }

    // The model has sent nothing for this step yet: the wait counts, from when the step began.
    const thinking = !stream.text && !stream.tools.length;
    if (thinking) {
      if (!waitTimer) {
        waitFrom = stream.since !== undefined ? stream.since : Date.now();
        thoughtSecs = null;
        waitTimer = window.setInterval(showWait, 1000);
      } else if (stream.since !== undefined) {
        waitFrom = stream.since;
      }
    } else if (waitTimer) {
      thoughtSecs = waitSecs();
      stopWait();
    }
    // Where the seconds show: the reasoning's summary, else the thinking line while it waits.
    const holder = s.details ? s.details : thinking ? s.wait : null;
    const labelHome = s.details ? s.summary : s.wait;
    if (s.label.parentNode !== labelHome) labelHome.appendChild(s.label);
    if (s.slot.firstChild !== holder) s.slot.replaceChildren(...(holder ? [holder] : []));
    showWait();
  }

  /** The thinking line's words: only this text node changes each second. */
  function showWait() {
    const s = streamNode;
    if (!s) return;
    const words = waitTimer ? fmt(L.thinking, waitSecs()) : thoughtSecs !== null ? fmt(L.thought, thoughtSecs) : L.reasoning;
    if (s.labelText.data !== words) s.labelText.data = words;
  }

  /** @param {ChatStream | undefined} s */
  function pageStream(s) {
    return s ? { text: s.text, tools: s.tools || [], reasoning: s.reasoning || '', since: s.since } : null;
  }

  /** @param {ChatStreamDelta} d */
  function applyStream(d) {
    const had = stream || { text: '', tools: [], reasoning: '', since: undefined };
    if (d.from > had.text.length) return false;
    if (d.reasoning && d.reasoning.from > had.reasoning.length) return false;
    stream = {
      text: had.text.slice(0, d.from) + d.text,
      tools: d.tools || [],
      reasoning: d.reasoning ? had.reasoning.slice(0, d.reasoning.from) + d.reasoning.text : '',
      since: d.since,
    };
    renderStream({
      text: d.from === had.text.length ? d.text : undefined,
      reasoning: d.reasoning && d.reasoning.from === had.reasoning.length ? d.reasoning.text : undefined,
    });
    return true;
  }

  /** Says once that the streamed reply is now a recorded message, with its first words. */
  function announceEnd() {
    const last = model && model.messages[model.messages.length - 1];
    if (!last || last.role !== 'assistant' || last.finish === 'error') return; // an error has its alert
    const words = firstWords(last.text);
    announcer.textContent = (last.finish === 'aborted' ? L.replyStopped : L.replyFinished) + (words ? ' ' + words : '');
  }

  function firstWords(text) {
    const t = text.replace(/\s+/g, ' ').trim();
    if (t.length <= 80) return t;
    const cut = t.slice(0, 80);
    const space = cut.lastIndexOf(' ');
    return (space > 40 ? cut.slice(0, space) : cut) + '…';
  }

  // ---- Busy state, composer ----

  /** The action buttons follow the busy state without being rebuilt. */
  function applyBusy() {
    const b = busy();
    if (b === shownBusy) return;
    shownBusy = b;
    const active = document.activeElement;
    for (const x of list.querySelectorAll('button[data-lock]')) /** @type {HTMLButtonElement} */ (x).disabled = b || x.hasAttribute('data-edge');
    for (const bar of list.querySelectorAll('.actions')) settleRove(bar);
    // Focus on a button that just turned off moves to its toolbar's tab stop, not to the page.
    if (active instanceof HTMLElement && list.contains(active) && /** @type {HTMLButtonElement} */ (active).disabled) {
      const bar = active.closest('.actions');
      const stop = bar && bar.querySelector('[data-rove][tabindex="0"]');
      if (stop instanceof HTMLElement) stop.focus({ preventScroll: true });
    }
  }

  function updateComposer() {
    sendBtn.disabled = !canSend();
    input.disabled = !!(model && model.readOnly);
    stopBtn.hidden = !(model && model.busy && model.phase !== 'scribe');
    stopBtn.style.display = stopBtn.hidden ? 'none' : '';
    phase.textContent = model ? (L['phase_' + model.phase] || '') : '';
  }

  // ---- Where the reader is ----

  function nearBottom() {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  }

  /**
   * Where the reader is: null at the end (the view follows what comes), else the first message in
   * view and how far below the top of the log it starts (negative: its top is scrolled past).
   */
  function readingPlace() {
    if (nearBottom()) return null;
    const top = log.scrollTop;
    const nodes = /** @type {HTMLElement[]} */ (Array.from(list.children));
    let lo = 0;
    let hi = nodes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (nodes[mid].offsetTop + nodes[mid].offsetHeight <= top) lo = mid + 1;
      else hi = mid;
    }
    const n = nodes[lo];
    return { id: n ? n.getAttribute('data-id') : null, offset: n ? n.offsetTop - top : 0, top };
  }

  /** @param {{ id: string | null, offset: number, top: number } | null} place */
  function keepPlace(place) {
    if (!place) { log.scrollTop = log.scrollHeight; return; }
    const n = place.id !== null ? nodeOf(place.id) : null;
    log.scrollTop = n ? n.offsetTop - place.offset : place.top;
  }

  /** Runs a change to the page, the reader staying where they are. */
  function keepingPlace(change) {
    const place = readingPlace();
    change();
    keepPlace(place);
  }

  function renderAll() {
    persist();
    renderHead();
    if (editing && !(model && model.messages.some((m) => m.id === editing.id))) editing = null;
    openMenu = null;
    list.replaceChildren(...(model ? model.messages.map(messageNode) : []));
    shownBusy = busy();
    streamNode = null;
    streamBox.replaceChildren();
    renderStream();
    renderEmpty();
    renderTail();
    renderPending();
    updateComposer();
  }

  /** Where focus is inside the messages: which message (by id and place) and which of its buttons. */
  function focusPlace() {
    const a = document.activeElement;
    if (!(a instanceof HTMLElement) || !list.contains(a)) return null;
    const node = a.closest('.msg');
    if (!node) return null;
    return { node, id: node.getAttribute('data-id'), index: Array.prototype.indexOf.call(list.children, node), action: a.getAttribute('data-action') };
  }

  /** A rebuilt message gets focus back on the same action (Hide becomes Unhide, ◀ stays ◀). */
  function restoreFocus(place) {
    if (!place || place.node.isConnected || !place.action) return;
    focusAction(nodeOf(place.id) || list.children[place.index], place.action);
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
    if (openMenu && !openMenu.wrap.isConnected) openMenu = null;
    if (p.stream === null) { stream = null; renderStream(); }
    else if (p.stream && !applyStream(p.stream)) return false;
    renderEmpty();
    renderPending();
    applyBusy();
    updateComposer();
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

  /** @param {ToChatPage} msg */
  function receive(msg) {
    if (msg.type === 'render') {
      model = msg.model;
      seq = msg.seq;
      asked = false;
      stream = pageStream(msg.stream);
      renderAll();
    } else if (msg.type === 'patch' || msg.type === 'stream') {
      if (msg.base !== seq) return resync();
      const ok = msg.type === 'patch' ? applyPatch(msg) : applyStream(msg);
      if (!ok) return resync();
      seq = msg.seq;
      if (msg.type === 'stream') renderEmpty();
    } else if (msg.type === 'phase') {
      if (model) { model.phase = msg.phase; model.busy = msg.busy; }
      updateComposer();
      applyBusy();
    } else if (msg.type === 'focusInput') {
      if (typeof msg.text === 'string') {
        // A quote from the editor goes after what the novelist was writing, never over it.
        const text = msg.append && input.value.trim() !== '' ? `${input.value.replace(/\s*$/, '')}\n\n${msg.text}` : msg.text;
        input.value = text; draft = text; persist(); fitInput();
      }
      input.focus();
    }
  }

  window.addEventListener('message', (event) => {
    /** @type {ToChatPage} */
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    const place = readingPlace();
    const focus = focusPlace();
    const streamed = stream !== null;
    receive(msg);
    restoreFocus(focus);
    keepPlace(place);
    if (!streamed && stream) announcer.textContent = '';
    if (streamed && !stream) announceEnd();
  });
  renderAll();
  keepPlace(null);
  vscode.postMessage({ type: 'ready' });
})();
