// Model-based property test: random sequences of tree operations on a Session agree with a
// naive reference model (linear scans, no index), before and after reopening the file.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { Session } from '../../../src/session/session';
import { FakeClock, assistant, removeTempDirs, tempDir, user } from './helpers';

type Op =
  | { op: 'user' | 'assistant'; text: string }
  | { op: 'navigate' | 'edit' | 'hide' | 'unhide' | 'regenerate' | 'switchVariant'; pick: number }
  | { op: 'navigateNull' };

interface ModelNode {
  id: string;
  parent: string | null;
  type: 'user' | 'assistant';
  text: string;
}

/** The reference: everything by linear scans over the append history. */
class Model {
  nodes: ModelNode[] = [];
  leaf: string | null = null;
  lastLeafAt = new Map<string, number>();
  edits = new Map<string, string>();
  hidden = new Map<string, boolean>();
  private clock = 0;

  node(id: string): ModelNode {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`model: no ${id}`);
    return n;
  }
  moveLeaf(id: string | null): void {
    this.leaf = id;
    this.clock++;
    if (id) this.lastLeafAt.set(id, this.clock);
  }
  add(n: ModelNode): void {
    this.nodes.push(n);
    this.moveLeaf(n.id);
  }
  path(id: string | null): string[] {
    const out: string[] = [];
    for (let cur = id; cur !== null; cur = this.node(cur).parent) out.unshift(cur);
    return out;
  }
  isAncestorOrSelf(a: string, b: string): boolean {
    return this.path(b).includes(a);
  }
  tipOf(id: string): string {
    let best = id;
    for (const n of this.nodes) {
      if (this.isAncestorOrSelf(id, n.id) && (this.lastLeafAt.get(n.id) ?? 0) > (this.lastLeafAt.get(best) ?? 0)) best = n.id;
    }
    return best;
  }
  variants(id: string): string[] {
    const n = this.node(id);
    return this.nodes.filter((x) => x.parent === n.parent && x.type === n.type).map((x) => x.id);
  }
  turnStart(id: string): string | undefined {
    return this.path(id).reverse().find((x) => this.node(x).type === 'user');
  }
  context(): { id: string; text: string }[] {
    return this.path(this.leaf)
      .map((id) => ({ id, text: this.edits.get(id) ?? this.node(id).text }))
      .filter((m) => !this.hidden.get(m.id) && (this.node(m.id).type === 'user' || m.text.length > 0));
  }
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('user' as const, 'assistant' as const), text: fc.string({ maxLength: 8 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom('navigate' as const, 'edit' as const, 'hide' as const, 'unhide' as const, 'regenerate' as const, 'switchVariant' as const),
      pick: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'navigateNull' as const }) },
);

async function apply(s: Session, m: Model, op: Op): Promise<void> {
  if ('text' in op) {
    const e = await s.append(op.op === 'user' ? user(op.text) : assistant(op.text));
    m.add({ id: e.id, parent: m.leaf, type: op.op, text: op.text });
    return;
  }
  if (!('pick' in op)) {
    if (m.leaf !== null) m.moveLeaf(null);
    await s.navigate(null);
    return;
  }
  if (m.nodes.length === 0) return;
  const target = m.nodes[op.pick % m.nodes.length].id;
  switch (op.op) {
    case 'navigate':
      if (m.leaf !== target) m.moveLeaf(target);
      await s.navigate(target);
      break;
    case 'edit':
      m.edits.set(target, `edit${op.pick}`);
      await s.appendSide({ type: 'edit', targetId: target, text: `edit${op.pick}` });
      break;
    case 'hide':
    case 'unhide':
      m.hidden.set(target, op.op === 'hide');
      await s.appendSide({ type: 'hide', targetId: target, hidden: op.op === 'hide' });
      break;
    case 'regenerate': {
      const start = m.turnStart(target);
      assert.equal(start === undefined ? undefined : s.regenerateTarget(target), start);
      if (start === undefined) return;
      if (m.leaf !== start) m.moveLeaf(start);
      await s.navigate(start);
      const e = await s.append(assistant(`regen${op.pick}`));
      m.add({ id: e.id, parent: start, type: 'assistant', text: `regen${op.pick}` });
      break;
    }
    case 'switchVariant': {
      const siblings = m.variants(target);
      const next = siblings[(siblings.indexOf(target) + 1) % siblings.length];
      const tip = m.tipOf(next);
      assert.equal(s.tipOf(next), tip);
      if (m.leaf !== tip) m.moveLeaf(tip);
      await s.navigate(tip);
      break;
    }
  }
}

function compare(s: Session, m: Model): void {
  assert.equal(s.leafId, m.leaf);
  assert.deepEqual(s.path().map((e) => e.id), m.path(m.leaf));
  assert.deepEqual(s.context().map((c) => ({ id: c.entryId, text: c.text })), m.context());
  for (const n of m.nodes) {
    assert.equal(s.tipOf(n.id), m.tipOf(n.id));
    const v = s.variants(n.id);
    assert.deepEqual(v.siblings.map((e) => e.id), m.variants(n.id));
    assert.equal(v.siblings[v.index].id, n.id);
    assert.equal(s.isOnPath(n.id), m.leaf !== null && m.isAncestorOrSelf(n.id, m.leaf));
    assert.deepEqual(s.children(n.id).map((e) => e.id), m.nodes.filter((x) => x.parent === n.id).map((x) => x.id));
  }
}

describe('tree operations agree with a reference model (property test)', function () {
  this.timeout(20000);
  afterEach(removeTempDirs);

  it('random appends, navigation, edits, hides, regenerates and variant switches', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
        const file = path.join(tempDir('wl-model-'), 'beef0001.jsonl');
        const s = await Session.create(file, { id: 'beef0001', title: 'm' }, { clock: new FakeClock() });
        const m = new Model();
        for (const op of ops) await apply(s, m, op);
        compare(s, m);
        await s.close();
        const reopened = (await Session.open(file)).session;
        compare(reopened, m);
        await reopened.close();
      }),
      { numRuns: 80 },
    );
  });
});
