// Scene State page. Renders the state sent by the extension; every model-written string is set
// with textContent (never innerHTML). Edits go back as typed messages and are validated there.
// @ts-check
/** @typedef {import('../src/protocol/state').ToStatePage} ToStatePage */
/** @typedef {import('../src/protocol/state').FromStatePage} FromStatePage */
/** @typedef {import('../src/protocol/state').StateViewModel} StateViewModel */
/** @typedef {import('../src/state/types').SceneState} SceneState */
(function () {
  /** @type {VsCodeApi<FromStatePage>} */
  const vscode = acquireVsCodeApi();
  const { el, fmt } = window.worldlineDom;
  const boot = JSON.parse(document.getElementById('bootstrap').textContent || '{}');
  const L = boot.labels || {};
  const saved = vscode.getState() || {};
  /** @type {StateViewModel | null} */
  let model = saved.model || null;
  let ui = Object.assign({ tab: 'characters', filter: '', yamlOpen: false, yamlText: '', editing: null }, saved.ui || {});
  let banner = null;

  const root = document.createElement('main');
  document.body.appendChild(root);

  const persist = () => vscode.setState({ model, ui });
  /** @param {FromStatePage} m */
  const send = (m) => vscode.postMessage(m);
  const disabled = () => !model || model.readOnly;

  function editButton(key, label) {
    return el('button', { class: 'icon', title: L.edit, 'aria-label': `${L.edit}: ${label}`, disabled: disabled(), onclick: () => { ui.editing = key; render(); } }, el('span', { class: 'codicon codicon-edit', 'aria-hidden': 'true' }));
  }

  function inlineForm(fields, onSave) {
    const inputs = {};
    const form = el('form', { class: 'edit', onsubmit: (e) => { e.preventDefault(); const values = {}; for (const [k, inp] of Object.entries(inputs)) values[k] = inp.value; onSave(values); } },
      fields.map((f) => {
        const input = f.multiline
          ? el('textarea', { rows: Math.max(3, String(f.value).split('\n').length + 1), 'aria-label': f.label, placeholder: f.placeholder })
          : el('input', { type: f.type || 'text', 'aria-label': f.label, placeholder: f.placeholder });
        input.value = f.value;
        inputs[f.key] = input;
        input.addEventListener('keydown', (e) => { if (/** @type {KeyboardEvent} */ (e).key === 'Escape') { ui.editing = null; render(); } });
        return el('label', {}, el('span', { class: 'muted' }, f.label), input);
      }),
      el('div', { class: 'row' },
        el('button', { class: 'primary', type: 'submit' }, L.save),
        el('button', { type: 'button', onclick: () => { ui.editing = null; render(); } }, L.cancel)));
    setTimeout(() => { const first = /** @type {HTMLElement | null} */ (form.querySelector('input,textarea')); if (first) first.focus(); }, 0);
    return form;
  }

  function patch(p) {
    ui.editing = null;
    send({ type: 'patch', patch: p });
    persist();
  }

  /** @param {SceneState} s */
  function sceneHeader(s) {
    if (ui.editing === 'scene') {
      return inlineForm([
        { key: 'time', label: L.time, value: s.time },
        { key: 'location', label: L.place, value: s.location },
      ], (v) => patch({ time: v.time, location: v.location }));
    }
    return el('div', { class: 'scene' },
      el('span', { class: 'k' }, L.time), el('span', { class: 'v', 'data-testid': 'time' }, s.time || L.empty), editButton('scene', L.time),
      el('span', { class: 'k' }, L.place), el('span', { class: 'v', 'data-testid': 'location' }, s.location || L.empty), el('span'));
  }

  function affinityBar(n) {
    const pct = Math.min(100, Math.abs(n)) / 2;
    const fill = el('div', { class: 'fill' + (n < 0 ? ' neg' : '') });
    fill.style.left = n < 0 ? `${50 - pct}%` : '50%';
    fill.style.width = `${pct}%`;
    return el('div', { class: 'aff' },
      el('span', { class: 'muted' }, L.affinity),
      el('div', { class: 'bar', role: 'meter', 'aria-valuemin': -100, 'aria-valuemax': 100, 'aria-valuenow': n, 'aria-label': L.affinity }, el('div', { class: 'mid' }), fill),
      el('span', { class: 'num' }, n > 0 ? `+${n}` : String(n)));
  }

  function characterCard(name, c, kind, firstSeen) {
    const key = 'char:' + name;
    const badge = kind === 'present' ? L.present : kind === 'elsewhere' ? fmt(L.at, c.at) : L.departed;
    const head = el('div', { class: 'row' },
      el('span', { class: 'name grow' }, name),
      el('span', { class: 'badge' }, badge),
      kind !== 'departed' ? editButton(key, name) : null,
      kind !== 'departed' ? el('button', { class: 'icon', title: L.removeCharacter, 'aria-label': `${L.removeCharacter}: ${name}`, disabled: disabled(), onclick: () => patch({ characters: { [name]: null } }) }, el('span', { class: 'codicon codicon-close', 'aria-hidden': 'true' })) : null);
    if (kind === 'departed') {
      return el('div', { class: 'char departed', 'data-name': name }, head, firstSeen ? el('div', { class: 'muted' }, `${L.firstSeen}: ${firstSeen}`) : null);
    }
    if (ui.editing === key) {
      return el('div', { class: 'char' }, head, inlineForm([
        { key: 'affinity', label: L.affinity, value: String(c.affinity), type: 'number' },
        { key: 'status', label: L.status, value: c.status },
        { key: 'notes', label: L.notes, value: c.notes, multiline: true },
        { key: 'at', label: L.location, value: c.at },
      ], (v) => patch({ characters: { [name]: { affinity: Number(v.affinity), status: v.status, notes: v.notes, at: v.at } } })));
    }
    return el('div', { class: 'char ' + kind, 'data-name': name }, head,
      affinityBar(c.affinity),
      c.status ? el('div', { class: 'field' }, el('span', { class: 'k' }, L.status), c.status) : null,
      c.notes ? el('div', { class: 'field' }, el('span', { class: 'k' }, L.notes), c.notes) : null);
  }

  /** @param {SceneState} s */
  function characters(s) {
    const names = Object.keys(s.characters);
    const present = names.filter((n) => s.characters[n].at === s.location);
    const elsewhere = names.filter((n) => s.characters[n].at !== s.location);
    const section = el('section', { 'aria-label': L.characters },
      el('h3', {}, L.characters),
      present.map((n) => characterCard(n, s.characters[n], 'present')),
      elsewhere.map((n) => characterCard(n, s.characters[n], 'elsewhere')),
      (model.departed || []).map((n) => characterCard(n, null, 'departed', s.roster.characters[n])));
    if (!names.length && !(model.departed || []).length) section.appendChild(el('div', { class: 'muted' }, L.empty));
    if (ui.editing === 'addChar') {
      section.appendChild(inlineForm([{ key: 'name', label: L.newCharacterName, value: '' }], (v) => {
        const name = v.name.trim();
        if (name) patch({ characters: { [name]: {} } }); else { ui.editing = null; render(); }
      }));
    } else {
      section.appendChild(el('button', { disabled: disabled(), onclick: () => { ui.editing = 'addChar'; render(); } }, '+ ' + L.addCharacter));
    }
    return section;
  }

  function list(field, label, values) {
    const key = 'list:' + field;
    const head = el('h3', { class: 'row' }, el('span', { class: 'grow' }, label), editButton(key, label));
    if (ui.editing === key) {
      return el('section', {}, head, inlineForm([{ key: 'lines', label: L.onePerLine, value: values.join('\n'), multiline: true }],
        (v) => patch({ [field]: v.lines.split('\n').map((x) => x.trim()).filter(Boolean) })));
    }
    return el('section', { 'data-field': field }, head,
      values.length ? el('ul', { class: 'list' }, values.map((v) => el('li', {}, v))) : el('div', { class: 'muted' }, L.empty));
  }

  /** @param {SceneState} s */
  function roster(s) {
    const tabs = [['characters', L.rosterCharacters], ['locations', L.rosterLocations], ['items', L.rosterItems], ['threads', L.rosterThreads]];
    const table = s.roster[ui.tab] || {};
    const filter = el('input', { type: 'search', placeholder: L.filter, 'aria-label': L.filter });
    filter.value = ui.filter;
    filter.addEventListener('input', () => { ui.filter = filter.value; persist(); renderRosterList(); });
    const listHost = el('div', { class: 'roster' });
    function renderRosterList() {
      const qq = ui.filter.trim().toLowerCase();
      const rr = Object.entries(table).filter(([n, t]) => !qq || n.toLowerCase().includes(qq) || String(t).toLowerCase().includes(qq));
      listHost.replaceChildren(rr.length ? el('ul', { class: 'list' }, rr.map(([n, t]) => el('li', {}, el('span', {}, n), t ? el('span', { class: 'time' }, t) : null))) : el('div', { class: 'muted' }, L.empty));
    }
    renderRosterList();
    return el('section', {},
      el('h3', {}, L.roster),
      el('div', { class: 'tabs', role: 'tablist' }, tabs.map(([id, label]) =>
        el('button', { role: 'tab', 'aria-selected': ui.tab === id ? 'true' : 'false', onclick: () => { ui.tab = id; persist(); render(); } }, `${label} ${Object.keys(s.roster[id] || {}).length}`))),
      filter, listHost);
  }

  function scribe() {
    const st = /** @type {Partial<StateViewModel['scribe']>} */ (model.scribe || {});
    const box = el('section', {}, el('h3', {}, L.scribe));
    if (st.running) box.appendChild(el('div', {}, el('span', { class: 'spinner', 'aria-hidden': 'true' }), ' ', L.scribeRunning));
    if (st.last) {
      box.appendChild(el('div', {}, `${L['outcome_' + st.last.kind] || st.last.kind} · ${new Date(st.last.at).toLocaleTimeString()}`));
      if (st.last.error) box.appendChild(el('div', { class: 'banner error' }, st.last.error));
    } else if (!st.running) {
      box.appendChild(el('div', { class: 'muted' }, L.scribeNever));
    }
    const source = /** @type {Partial<StateViewModel['source']>} */ (model.source || {});
    box.appendChild(el('div', { class: 'muted' }, L['source_' + (source.by || 'opening')] || source.by));
    const warnings = [...(source.warnings || []), ...(model.readWarnings || [])];
    if (warnings.length) box.appendChild(el('div', { class: 'banner warning' }, el('strong', {}, L.warnings), el('ul', { class: 'list' }, warnings.map((w) => el('li', {}, w)))));
    return box;
  }

  function yamlEditor() {
    if (!ui.yamlOpen) {
      return el('div', { class: 'row' }, el('button', { disabled: disabled(), onclick: () => { ui.yamlOpen = true; ui.yamlText = model.yaml; render(); } }, L.editYaml));
    }
    const ta = el('textarea', { rows: 18, 'aria-label': L.editYaml, spellcheck: 'false' });
    ta.value = ui.yamlText;
    ta.addEventListener('input', () => { ui.yamlText = ta.value; persist(); });
    return el('section', {}, el('h3', {}, L.editYaml), ta,
      el('div', { class: 'row' },
        el('button', { class: 'primary', disabled: disabled(), onclick: () => send({ type: 'applyYaml', text: ta.value }) }, L.applyYaml),
        el('button', { onclick: () => { ui.yamlOpen = false; render(); } }, L.cancel)));
  }

  /** The scribe's section, replaced alone when only its status changes (the forms above keep their input). */
  let scribeNode = /** @type {HTMLElement | null} */ (null);

  function render() {
    persist();
    root.replaceChildren();
    scribeNode = null;
    if (!model) return;
    const s = model.state;
    if (model.readOnly) root.appendChild(el('div', { class: 'banner info' }, L.readOnly));
    if (banner) root.appendChild(el('div', { class: 'banner ' + banner.kind, role: 'status', 'data-testid': 'banner' }, banner.text));
    scribeNode = scribe();
    root.append(sceneHeader(s), characters(s),
      list('items', L.items, s.items), list('facts', L.facts, s.facts), list('threads', L.threads, s.threads),
      roster(s), scribeNode, yamlEditor());
  }

  window.addEventListener('message', (event) => {
    /** @type {ToStatePage} */
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'render') { model = msg.model; render(); }
    if (msg.type === 'scribe' && model) {
      model.scribe = msg.scribe;
      const next = scribe();
      if (scribeNode) scribeNode.replaceWith(next);
      scribeNode = next;
      persist();
    }
    if (msg.type === 'openYaml') {
      ui.yamlOpen = true;
      ui.yamlText = msg.text;
      banner = null;
      render();
      persist();
    }
    if (msg.type === 'editResult') {
      if (msg.ok) {
        ui.yamlOpen = false;
        banner = { kind: msg.warnings && msg.warnings.length ? 'warning' : 'info', text: [L.saved, ...(msg.warnings || [])].join('\n') };
      } else {
        banner = { kind: 'error', text: msg.error || '?' };
      }
      render();
    }
  });
  render();
  send({ type: 'ready' });
})();
