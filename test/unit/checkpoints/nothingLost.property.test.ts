// Property "nothing lost": after any sequence of edits, checkpoints, restores and undos, every
// manuscript version that was checkpointed, or that was on disk just before a restore or undo,
// is still in the store under some ref; restores and undos land exactly where they should; and
// the non-manuscript file is never touched.
import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import { cleanupTmp, manuscript, ok, openRepo, read, remove, storeGit, tmpDir, treeId, write, type Version } from './helpers';

const POOL = ['a.md', 'dir/b.md', 'dir/sub/c.txt', '第一卷/第一章.md', 'with space.md'];

/** One step: maybe an edit (by the agent or the novelist), then one store action. */
interface Step {
  edit?: { file: number; del: boolean };
  action: 'checkpoint' | 'restore' | 'undo' | 'none';
  pick: number;
}

// Edits sit between actions so that restores and undos often meet unsaved work.
const stepArb: fc.Arbitrary<Step> = fc.record({
  edit: fc.option(fc.record({ file: fc.nat(POOL.length - 1), del: fc.boolean() }), { nil: undefined, freq: 3 }),
  action: fc.oneof(
    { arbitrary: fc.constant('checkpoint' as const), weight: 3 },
    { arbitrary: fc.constant('restore' as const), weight: 3 },
    { arbitrary: fc.constant('undo' as const), weight: 2 },
    { arbitrary: fc.constant('none' as const), weight: 1 },
  ),
  pick: fc.nat(20),
});

/** Every manuscript version the store can give back, as tree ids: one per commit a ref names. */
function recoverable(root: string): Set<string> {
  const commits = [...new Set(storeGit(root, ['for-each-ref', '--format=%(objectname)', 'refs/worldline']).split('\n').filter(Boolean))];
  return new Set(storeGit(root, ['rev-parse', ...commits.map((c) => `${c}^{tree}`)]).split('\n').filter(Boolean));
}

describe('checkpoints: property "nothing lost"', function () {
  this.timeout(120_000);
  afterEach(cleanupTmp);

  it('random edits, checkpoints, restores and undos never lose a version', async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), async (steps) => {
        const root = tmpDir('wl-prop-');
        write(root, 'keep.json', '{"never":"touched"}');
        write(root, 'a.md', 'start\n');
        const repo = await openRepo(root);
        const expected: Version[] = [manuscript(root)];
        const checkpoints: { commit: string; version: Version }[] = [{ commit: ok(await repo.checkpoint('t0', 'prop')).commit, version: manuscript(root) }];
        const undoStack: Version[] = [];
        let turn = 0;
        try {
          for (const step of steps) {
            if (step.edit) {
              if (step.edit.del) remove(root, POOL[step.edit.file]);
              else write(root, POOL[step.edit.file], `v${++counter}\n`);
            }
            const before = manuscript(root);
            if (step.action === 'checkpoint') {
              const r = ok(await repo.checkpoint(`t${++turn}`, 'prop'));
              checkpoints.push({ commit: r.commit, version: before });
              expected.push(before);
            } else if (step.action === 'restore') {
              const target = checkpoints[step.pick % checkpoints.length];
              expected.push(before);
              undoStack.push(before);
              await repo.restore(target.commit);
              assert.deepEqual(manuscript(root), target.version, 'restore lands on the checkpoint');
            } else if (step.action === 'undo') {
              const r = await repo.undoLastRestore();
              const back = undoStack.pop();
              if (back === undefined) {
                assert.equal(r, undefined);
                assert.deepEqual(manuscript(root), before);
              } else {
                expected.push(before);
                assert.deepEqual(manuscript(root), back, 'undo lands where the restore started');
              }
            }
          }
          const have = recoverable(root);
          for (const v of expected) assert.ok(have.has(treeId(v)), `lost version ${JSON.stringify(v)}`);
          assert.equal(read(root, 'keep.json'), '{"never":"touched"}');
        } finally {
          cleanupTmp();
        }
      }),
      { numRuns: 25 },
    );
  });
});
