// planNewSave as properties. (1) On random trees with saves anywhere: a fork is planned if and
// only if some save after the previous save on the branch lies off the current branch. (2) On real
// sessions driven by random turns, rewinds and saves: every worldline stays a line (a chain).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Entry, SaveEntry } from '../../../src/session/entries';
import type { Session } from '../../../src/session/session';
import { planNewSave } from '../../../src/worldline/plan';
import { MemoryTree, newSession, removeTempDirs, save, turn } from './helpers';

interface NodeSpec {
  parent: number; // reduced modulo (index + 1); 0 = a root
  isSave: boolean;
  line: number;
}

const nodeSpec: fc.Arbitrary<NodeSpec> = fc.record({
  parent: fc.nat(),
  isSave: fc.boolean(),
  line: fc.integer({ min: 0, max: 3 }),
});

function buildTree(specs: NodeSpec[], leafPick: number | null): MemoryTree {
  const tree = new MemoryTree();
  specs.forEach((spec, i) => {
    const p = spec.parent % (i + 1);
    const base = { id: `e${i}`, parentId: p === 0 ? null : `e${p - 1}`, ts: new Date(i * 1000).toISOString() };
    const entry: Entry = spec.isSave
      ? { ...base, type: 'save', saveId: `s${i}`, name: `save ${i}`, worldlineId: `w${spec.line}`, worldlineName: `line ${spec.line}`, kind: 'sameLine' }
      : { ...base, type: 'user', text: `turn ${i}` };
    tree.add(entry);
  });
  tree.leafId = leafPick === null ? null : `e${leafPick % specs.length}`;
  return tree;
}

describe('planNewSave properties', () => {
  afterEach(removeTempDirs);

  it('fork ⇔ some save after the previous save on the branch lies off the current branch', () => {
    const seen = { first: 0, sameLine: 0, fork: 0 };
    fc.assert(
      fc.property(fc.array(nodeSpec, { minLength: 1, maxLength: 40 }), fc.option(fc.nat(), { nil: null }), fc.constantFrom<'zh' | 'en'>('zh', 'en'), (specs, leafPick, lang) => {
        const tree = buildTree(specs, leafPick);
        const path = tree.path();
        const onBranch = new Set(path.map((e) => e.id));
        const prev = [...path].reverse().find((e): e is SaveEntry => e.type === 'save');
        const saves = tree.list.filter((e): e is SaveEntry => e.type === 'save');
        const lines = new Set(saves.map((s) => s.worldlineId));

        const plan = planNewSave({ name: 'n', lang, tree });
        seen[plan.kind]++;

        if (!prev) {
          assert.equal(plan.kind, 'first');
          assert.equal(plan.parentSaveId, undefined);
          return;
        }
        const below = tree.descendantsOf(prev.id);
        const expectFork = saves.some((s) => below.has(s.id) && !onBranch.has(s.id));
        assert.equal(plan.kind === 'fork', expectFork);
        assert.equal(plan.parentSaveId, prev.saveId);
        if (expectFork) {
          assert.ok(!lines.has(plan.worldlineId), 'a fork starts a new worldline');
          assert.equal(plan.forkFromSaveId, prev.saveId);
          assert.ok(plan.worldlineName.endsWith(lang === 'zh' ? `线${lines.size + 1}` : `line ${lines.size + 1}`));
        } else {
          assert.equal(plan.kind, 'sameLine');
          assert.equal(plan.worldlineId, prev.worldlineId);
          assert.equal(plan.worldlineName, prev.worldlineName);
        }
      }),
      { numRuns: 300 },
    );
    // The generator must reach all three outcomes, or the property proves little.
    assert.ok(seen.first > 10 && seen.sameLine > 10 && seen.fork > 10, JSON.stringify(seen));
  });

  it('on real sessions, random turns, rewinds and saves keep every worldline a single chain of saves', async () => {
    // "back" lands on a save half the time (loading a save), else anywhere (rewinding), or the root.
    type Op = { op: 'turn' } | { op: 'save' } | { op: 'back'; toSave: boolean; pick: number | null };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.constant<Op>({ op: 'turn' }), weight: 3 },
      { arbitrary: fc.constant<Op>({ op: 'save' }), weight: 3 },
      { arbitrary: fc.record({ op: fc.constant<'back'>('back'), toSave: fc.boolean(), pick: fc.option(fc.nat(), { nil: null, freq: 10 }) }), weight: 2 },
    );
    let forks = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 6, maxLength: 30, size: 'max' }), async (ops) => {
        const s = await newSession();
        try {
          let n = 0;
          for (const o of ops) {
            if (o.op === 'turn') await turn(s, `指令 ${n}`, `正文 ${n++}`);
            else if (o.op === 'save') await save(s, `存档 ${n++}`);
            else {
              const targets = chainIds(s, o.toSave);
              await s.navigate(o.pick === null ? null : targets[o.pick % Math.max(1, targets.length)] ?? null);
            }
          }
          checkLines(s);
          if (s.entries().some((e) => e.type === 'save' && e.kind === 'fork')) forks++;
        } finally {
          await s.close();
        }
      }),
      { numRuns: 50 },
    );
    assert.ok(forks > 10, `only ${forks} of 50 runs forked`);
  });
});

function chainIds(s: Session, savesOnly: boolean): string[] {
  return s.entries().filter((e) => (savesOnly ? e.type === 'save' : e.type !== 'leaf')).map((e) => e.id);
}

/** Each line, in file order: starts with a first/fork save, then each save continues the one before. */
function checkLines(s: Session): void {
  const saves = s.entries().filter((e): e is SaveEntry => e.type === 'save');
  const byLine = new Map<string, SaveEntry[]>();
  for (const sv of saves) byLine.set(sv.worldlineId, [...(byLine.get(sv.worldlineId) ?? []), sv]);
  const names = [...byLine.values()].map((line) => (line[0] as SaveEntry).worldlineName);
  assert.equal(new Set(names).size, names.length, `line names repeat: ${names.join(', ')}`);
  for (const line of byLine.values()) {
    const [head, ...rest] = line as [SaveEntry, ...SaveEntry[]];
    assert.notEqual(head.kind, 'sameLine');
    let prev = head;
    for (const sv of rest) {
      assert.equal(sv.kind, 'sameLine');
      assert.equal(sv.parentSaveId, prev.saveId, 'a line never branches inside itself');
      assert.ok(s.isAncestorOrSelf(prev.id, sv.id), 'a line follows the tree');
      prev = sv;
    }
  }
  // parentSaveId is always the nearest save above in the tree.
  for (const sv of saves) {
    const above = [...s.path(sv.parentId)].reverse().find((e): e is SaveEntry => e.type === 'save');
    assert.equal(sv.parentSaveId, above?.saveId);
  }
}
