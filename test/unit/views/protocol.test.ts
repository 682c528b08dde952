// The webview decoders face whatever a page (a browser context that renders model text) posts:
// random JSON must never throw, well-formed messages pass unchanged, and anything off-shape fails.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { decodeFromChatPage, type FromChatPage } from '../../../src/protocol/chat';
import { decodeFromStatePage, type FromStatePage } from '../../../src/protocol/state';
import { decodeFromGraphPage, type FromGraphPage } from '../../../src/protocol/graph';
import type { Decoded } from '../../../src/protocol/decode';

const id = fc.string({ maxLength: 12 });
const text = fc.string({ maxLength: 40 });

const chatMessage: fc.Arbitrary<FromChatPage> = fc.oneof(
  fc.constantFrom<FromChatPage>({ type: 'ready' }, { type: 'stop' }, { type: 'retry' }, { type: 'cancelPending' }),
  text.map((t): FromChatPage => ({ type: 'send', text: t })),
  fc.record({ type: fc.constantFrom('regenerate', 'branchHere', 'copy', 'showChanges' as const), id }),
  fc.record({ type: fc.constant('variant' as const), id, delta: fc.constantFrom(-1 as const, 1 as const) }),
  fc.record({ type: fc.constant('edit' as const), id, text, asBranch: fc.boolean() }),
  fc.record({ type: fc.constant('hide' as const), id, hidden: fc.boolean() }),
  fc.record({ type: fc.constant('openFile' as const), path: text }),
  fc.record({ type: fc.constant('restore' as const), id, withChat: fc.boolean() }),
  fc.record({ type: fc.constant('command' as const), command: fc.constantFrom('setKey' as const, 'selectModel' as const) }),
);
const stateMessage: fc.Arbitrary<FromStatePage> = fc.oneof(
  fc.constant<FromStatePage>({ type: 'ready' }),
  fc.jsonValue().map((patch): FromStatePage => ({ type: 'patch', patch })),
  text.map((t): FromStatePage => ({ type: 'applyYaml', text: t })),
);
const graphMessage: fc.Arbitrary<FromGraphPage> = fc.oneof(
  fc.constant<FromGraphPage>({ type: 'ready' }),
  id.map((saveId): FromGraphPage => ({ type: 'load', saveId })),
  fc.constant<FromGraphPage>({ type: 'command', command: 'savePoint' }),
);

interface Case<T> { name: string; decode: (raw: unknown) => Decoded<T>; wellFormed: fc.Arbitrary<T> }
const cases: [Case<FromChatPage>, Case<FromStatePage>, Case<FromGraphPage>] = [
  { name: 'chat', decode: decodeFromChatPage, wellFormed: chatMessage },
  { name: 'state', decode: decodeFromStatePage, wellFormed: stateMessage },
  { name: 'graph', decode: decodeFromGraphPage, wellFormed: graphMessage },
];

/** A value of a different JSON kind than `v`, so a field holding it is off-shape. */
function otherKind(v: unknown): unknown {
  if (typeof v === 'string') return 7;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 0;
  return undefined;
}

function check<T extends { type: string }>(c: Case<T>): void {
  describe(`${c.name} page → host decoder`, () => {
    it('never throws on random values, and whatever passes is well-formed and decodes to itself', () => {
      fc.assert(fc.property(fc.oneof(fc.anything(), fc.jsonValue(), fc.record({ type: fc.string() }, { requiredKeys: [] })), (raw) => {
        const d = c.decode(raw);
        if (d.ok) {
          assert.deepEqual(c.decode(d.message), d);
          assert.notEqual(d.message, raw, 'a fresh object, not the page\'s');
        } else {
          assert.match(d.error, new RegExp(`^${c.name}: `));
        }
      }), { numRuns: runs(500, 20_000) });
    });

    it('passes every well-formed message unchanged and drops fields it does not know', () => {
      fc.assert(fc.property(c.wellFormed, fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).map((k) => 'x' + k), fc.jsonValue()), (m, extra) => {
        assert.deepEqual(c.decode(m), { ok: true, message: { ...m } });
        const withExtra = JSON.parse(JSON.stringify({ ...extra, ...m })) as unknown;
        assert.deepEqual(c.decode(withExtra), { ok: true, message: JSON.parse(JSON.stringify(m)) });
      }), { numRuns: runs(300, 10_000) });
    });

    it('rejects a well-formed message with one field of the wrong kind or missing', () => {
      fc.assert(fc.property(c.wellFormed, fc.nat(), fc.boolean(), (m, pick, drop) => {
        const fields = Object.keys(m).filter((k) => k !== 'type' && k !== 'patch');
        fc.pre(fields.length > 0);
        const name = fields[pick % fields.length]!;
        const broken: Record<string, unknown> = { ...m };
        if (drop) delete broken[name];
        else broken[name] = otherKind(broken[name]);
        const d = c.decode(broken);
        assert.equal(d.ok, false, JSON.stringify(broken));
      }), { numRuns: runs(300, 10_000) });
    });

    it('rejects non-objects, unknown tags and inherited property names as tags', () => {
      for (const raw of [null, undefined, 'ready', 42, [], [{ type: 'ready' }], {}, { type: 1 }, { type: 'READY' }, { type: '__proto__' },
        { type: 'toString' }, { type: 'constructor' }, { type: 'hasOwnProperty' }, JSON.parse('{"__proto__":{"type":"ready"}}')]) {
        const d = c.decode(raw);
        assert.equal(d.ok, false, String(JSON.stringify(raw)));
      }
      assert.deepEqual(c.decode({ type: 'ready' }), { ok: true, message: { type: 'ready' } });
    });
  });
}

check(cases[0]);
check(cases[1]);
check(cases[2]);

describe('field rules the hosts rely on', () => {
  it('chat: variant steps by exactly one, commands are from the list, edit needs all its fields', () => {
    for (const bad of [
      { type: 'variant', id: 'a', delta: 2 }, { type: 'variant', id: 'a', delta: '1' }, { type: 'variant', id: 'a', delta: 0 },
      { type: 'command', command: 'workbench.action.terminal.new' }, { type: 'command' },
      { type: 'edit', id: 'a', text: 'x' }, { type: 'edit', id: 'a', text: 'x', asBranch: 'yes' },
      { type: 'hide', id: 'a', hidden: 1 }, { type: 'send', text: null }, { type: 'openFile', path: ['a'] },
    ]) assert.equal(decodeFromChatPage(bad).ok, false, JSON.stringify(bad));
    assert.deepEqual(decodeFromChatPage({ type: 'variant', id: 'a', delta: -1 }), { ok: true, message: { type: 'variant', id: 'a', delta: -1 } });
  });

  it('state: a patch may be any JSON value (userEdit validates it) but must be there', () => {
    assert.equal(decodeFromStatePage({ type: 'patch' }).ok, false);
    assert.deepEqual(decodeFromStatePage({ type: 'patch', patch: null }), { ok: true, message: { type: 'patch', patch: null } });
    assert.equal(decodeFromStatePage({ type: 'applyYaml', text: { a: 1 } }).ok, false);
  });

  it('graph: only the Save Point command, and a save id as text', () => {
    assert.equal(decodeFromGraphPage({ type: 'command', command: 'deleteSave' }).ok, false);
    assert.equal(decodeFromGraphPage({ type: 'load', saveId: 3 }).ok, false);
  });
});
