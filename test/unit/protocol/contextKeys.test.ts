// Worldline's context keys and the manifest clauses that read them: the values from plain inputs,
// only changes set again, and package.json's palette `when`s, `enablement`s and keybindings read
// with a small evaluator of the clause forms the manifest uses: outside a novel the palette offers
// only what needs no novel; in a novel each verb shows where it applies and is enabled when it can
// run; the keybindings name real commands and keys of their own.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTEXT_KEYS, ContextKeyState, contextValues, type ContextInputs, type StoryFacts } from '../../../src/protocol/contextKeys';
import type { Entry } from '../../../src/session/entries';
import type { WorldlineView } from '../../../src/worldline/view';

interface Manifest {
  contributes: {
    commands: { command: string; enablement?: string }[];
    menus: { commandPalette: { command: string; when?: string }[] };
    keybindings: { command: string; key: string; mac?: string; when?: string }[];
    views: Record<string, { id: string; icon?: string; initialSize?: number }[]>;
    viewsWelcome: { view: string; when?: string }[];
  };
}
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as Manifest;

type Context = Record<string, boolean | string | undefined>;

/** A `when` clause as VS Code reads the forms used here: key, !key, a == 'b', &&, ||, parentheses. */
function holds(clause: string | undefined, ctx: Context): boolean {
  if (clause === undefined) return true;
  const tokens = clause.match(/\(|\)|&&|\|\||!=|==|!|'[^']*'|[\w.]+/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++] as string;
  const value = (t: string): boolean | string | undefined => (t.startsWith("'") ? t.slice(1, -1) : t === 'true' ? true : t === 'false' ? false : ctx[t]);
  const unary = (): boolean => {
    const t = next();
    if (t === '!') return !unary();
    if (t === '(') { const v = or(); next(); return v; }
    if (peek() === '==' || peek() === '!=') {
      const op = next();
      const same = value(t) === value(next());
      return op === '==' ? same : !same;
    }
    return Boolean(value(t));
  };
  const and = (): boolean => { let v = unary(); while (peek() === '&&') { next(); v = unary() && v; } return v; };
  const or = (): boolean => { let v = and(); while (peek() === '||') { next(); v = and() || v; } return v; };
  const result = or();
  assert.equal(at, tokens.length, `could not read the clause: ${clause}`);
  return result;
}

const palette = new Map(manifest.contributes.menus.commandPalette.map((m) => [m.command, m.when]));
const enablement = new Map(manifest.contributes.commands.map((c) => [c.command, c.enablement]));
const commandIds = manifest.contributes.commands.map((c) => c.command);

/** The commands the palette lists, and those of them it lets run, in this context. */
function shown(ctx: Context): { listed: string[]; enabled: string[] } {
  const listed = commandIds.filter((id) => holds(palette.get(id), ctx));
  return { listed, enabled: listed.filter((id) => holds(enablement.get(id), ctx)) };
}

function keysOf(inputs: ContextInputs): Context {
  return { ...contextValues(inputs) };
}

const checkpoint = (commit: string): Entry => ({ id: `c-${commit}`, parentId: null, type: 'checkpoint', ts: '', commit, ref: 'r', changed: [] } as unknown as Entry);
const story = (over: Partial<StoryFacts> = {}): StoryFacts => ({ busy: false, canRetry: false, lostCheckpoints: new Set(), path: [], ...over });
const withSaves = { worldlines: [{ saves: [{}] }] } as unknown as WorldlineView;
const noSaves = { worldlines: [] } as unknown as WorldlineView;

const OUTSIDE = ['worldline.chooseProvider', 'worldline.initializeNovel', 'worldline.selectModel', 'worldline.setApiKey', 'worldline.showLog', 'worldline.testConnection'];

describe('context keys', () => {
  it('outside a novel every key is off, whatever else is passed', () => {
    const values = contextValues({ novel: false, story: story({ busy: true, canRetry: true, path: [checkpoint('a')] }), saves: withSaves });
    assert.deepEqual(Object.entries(values).filter(([, v]) => v), []);
    assert.deepEqual(Object.keys(values).sort(), [...CONTEXT_KEYS].sort());
  });

  it('in a novel: a session, busy, saves, retry, checkpoints the store still holds', () => {
    assert.deepEqual(contextValues({ novel: true }), {
      'worldline.isNovel': true, 'worldline.hasSession': false, 'worldline.busy': false,
      'worldline.hasSaves': false, 'worldline.canRetry': false, 'worldline.hasCheckpoints': false,
      'worldline.reviewingVersions': false,
    });
    assert.equal(contextValues({ novel: true, story: story(), reviewingVersions: true })['worldline.reviewingVersions'], true);
    assert.equal(contextValues({ novel: true, reviewingVersions: true })['worldline.reviewingVersions'], false, 'no session, no review');
    const idle = contextValues({ novel: true, story: story({ canRetry: true, path: [checkpoint('a')] }), saves: withSaves });
    assert.equal(idle['worldline.hasSession'], true);
    assert.equal(idle['worldline.canRetry'], true);
    assert.equal(idle['worldline.hasSaves'], true);
    assert.equal(idle['worldline.hasCheckpoints'], true);
    const busy = contextValues({ novel: true, story: story({ busy: true, canRetry: true }), saves: noSaves });
    assert.equal(busy['worldline.busy'], true);
    assert.equal(busy['worldline.canRetry'], false, 'nothing to retry while a turn runs');
    assert.equal(busy['worldline.hasSaves'], false);
    const lost = contextValues({ novel: true, story: story({ path: [checkpoint('a'), checkpoint('b')], lostCheckpoints: new Set(['a', 'b']) }) });
    assert.equal(lost['worldline.hasCheckpoints'], false, 'every checkpoint on the branch is lost: nothing to restore');
  });

  it('only changes are set again; after a failed set every key is set again', () => {
    const state = new ContextKeyState();
    const first = state.changes(contextValues({ novel: true }));
    assert.equal(first.length, CONTEXT_KEYS.length);
    assert.deepEqual(state.changes(contextValues({ novel: true })), []);
    assert.deepEqual(state.changes(contextValues({ novel: true, story: story() })), [['worldline.hasSession', true]]);
    assert.deepEqual(state.changes(contextValues({ novel: true, story: story({ busy: true }) })), [['worldline.busy', true]]);
    state.forget();
    assert.equal(state.changes(contextValues({ novel: true, story: story({ busy: true }) })).length, CONTEXT_KEYS.length);
  });
});

describe('the manifest reads the context keys', () => {
  it('outside a novel (or before Worldline starts, no key set) the palette offers only what needs no novel', () => {
    assert.deepEqual(shown(keysOf({ novel: false })).listed.sort(), OUTSIDE);
    assert.deepEqual(shown({}).listed.sort(), OUTSIDE, 'no key set yet reads as off');
  });

  it('every command has a palette clause and every clause reads only keys that exist', () => {
    const known = new Set<string>(CONTEXT_KEYS);
    for (const id of commandIds) assert.ok(palette.has(id) || OUTSIDE.includes(id), `${id} has no palette clause`);
    const clauses = [...palette.values(), ...enablement.values(), ...manifest.contributes.keybindings.map((k) => k.when), ...manifest.contributes.viewsWelcome.map((w) => w.when)];
    for (const clause of clauses) {
      // Quoted values ('worldline.chat') are view ids, not keys.
      for (const word of clause?.replace(/'[^']*'/g, '').match(/worldline\.[\w.]+/g) ?? []) assert.ok(known.has(word), `${word} in "${clause}"`);
    }
  });

  it('in a novel: the verbs show where they apply and are enabled when they can run', () => {
    const fresh = shown(keysOf({ novel: true }));
    assert.ok(!fresh.listed.includes('worldline.initializeNovel'), 'a novel is initialized already');
    assert.ok(fresh.listed.includes('worldline.send') && fresh.listed.includes('worldline.newSession'));
    assert.ok(!fresh.listed.includes('worldline.regenerate'), 'nothing to regenerate without a session');

    const writing = shown(keysOf({ novel: true, story: story({ path: [checkpoint('a')] }), saves: withSaves }));
    for (const id of ['worldline.regenerate', 'worldline.restoreProseOnly', 'worldline.showTurnChanges', 'worldline.loadSave', 'worldline.exportWorldline', 'worldline.savePoint']) {
      assert.ok(writing.enabled.includes(id), id);
    }
    assert.ok(!writing.listed.includes('worldline.stop'), 'Stop only while the agent writes');
    assert.ok(!writing.listed.includes('worldline.retry'), 'Retry only after a failed or stopped turn');

    const busy = shown(keysOf({ novel: true, story: story({ busy: true, path: [checkpoint('a')] }), saves: withSaves }));
    assert.ok(busy.listed.includes('worldline.regenerate') && !busy.enabled.includes('worldline.regenerate'), 'Regenerate is there but cannot run while busy');
    assert.ok(!busy.enabled.includes('worldline.restoreProseAndChat') && !busy.enabled.includes('worldline.loadSave'));
    assert.ok(busy.enabled.includes('worldline.stop'));
    assert.ok(busy.enabled.includes('worldline.showTurnChanges'), 'looking is fine while the agent writes');

    const failed = shown(keysOf({ novel: true, story: story({ canRetry: true }) }));
    assert.ok(failed.enabled.includes('worldline.retry'));
    assert.ok(!failed.listed.includes('worldline.restoreProseOnly') && !failed.listed.includes('worldline.loadSave'), 'no checkpoints, no saves: nothing to act on');
  });

  it('keybindings: real commands, a key of their own on each platform; the Chat ones only while the Chat has focus', () => {
    const bindings = manifest.contributes.keybindings;
    const ids = new Set([...commandIds, 'worldline.chat.focus']);
    for (const b of bindings) assert.ok(ids.has(b.command), b.command);
    for (const platform of ['key', 'mac'] as const) {
      const keys = bindings.map((b) => b[platform] ?? b.key);
      assert.equal(new Set(keys).size, keys.length, `${platform}: each key once`);
    }
    // Keys VS Code itself binds (checked against the default keybindings of VS Code 1.100): Find's
    // whole word on macOS, Save All on macOS, Move Editor into Previous/Next Group.
    const taken = ['cmd+alt+w', 'cmd+alt+s', 'ctrl+alt+s', 'ctrl+alt+left', 'ctrl+alt+right', 'ctrl+cmd+left', 'ctrl+cmd+right'];
    for (const b of bindings) for (const k of [b.key, b.mac]) assert.ok(!taken.includes(k ?? ''), `${b.command}: ${k} is VS Code's`);
    const chat = { 'worldline.isNovel': true, 'worldline.hasSession': true, focusedView: 'worldline.chat' };
    const editor = { ...chat, focusedView: 'workbench.explorer.fileView' };
    for (const id of ['worldline.regenerate', 'worldline.previousVariant', 'worldline.nextVariant']) {
      const b = bindings.find((x) => x.command === id);
      assert.ok(b && holds(b.when, chat) && !holds(b.when, editor), id);
    }
    for (const id of ['worldline.chat.focus', 'worldline.savePoint']) {
      const b = bindings.find((x) => x.command === id);
      assert.ok(b && holds(b.when, editor), `${id} works from anywhere in a novel`);
    }
  });

  it('every view has an icon, and the Chat gets most of the height', () => {
    const views = manifest.contributes.views['worldline'] ?? [];
    assert.ok(views.length >= 4);
    const codicons = path.resolve(__dirname, '..', '..', '..', '..', 'node_modules', '@vscode', 'codicons', 'src', 'icons');
    for (const v of views) {
      const name = /^\$\(([a-z-]+)\)$/.exec(v.icon ?? '')?.[1];
      assert.ok(name && fs.existsSync(path.join(codicons, `${name}.svg`)), `${v.id}: ${v.icon} is a codicon`);
    }
    const size = (id: string) => views.find((v) => v.id === id)?.initialSize ?? 0;
    const others = views.filter((v) => v.id !== 'worldline.chat').reduce((sum, v) => sum + (v.initialSize ?? 0), 0);
    assert.ok(size('worldline.chat') > others, 'the Chat is larger than all the others together');
  });

  it('the clause reader reads what it is given', () => {
    assert.equal(holds("a && !b || focusedView == 'x'", { a: false, focusedView: 'x' }), true);
    assert.equal(holds('a && (b || c)', { a: true, c: true }), true);
    assert.equal(holds('!(a || b)', { b: true }), false);
    assert.equal(holds("focusedView != 'x'", { focusedView: 'x' }), false);
  });
});
