// Property "one ref per recorded checkpoint": however often a turn is regenerated (same turn id,
// different or identical prose), and whether or not a pre-send checkpoint finds anything new,
// every recorded checkpoint keeps a ref of its own that names its exact commit and tree; refs exist
// only for recorded checkpoints (plus one safety ref per regenerate's reset of the prose, and no
// undo refs: that reset is not an undoable restore).
import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import { isCheckpointProblem, type CheckpointResult } from '../../../src/checkpoints';
import { cleanupTmp, manuscript, ok, openRepo, storeGit, tmpDir, treeId, write, type Version } from './helpers';

const SESSION = 'sess1';

type Step =
  | { kind: 'send'; handEdit: boolean; prose: number }
  | { kind: 'regenerate'; turn: number; prose: number; reset: boolean }
  | { kind: 'handEdit' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('send' as const), handEdit: fc.boolean(), prose: fc.nat(3) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('regenerate' as const), turn: fc.nat(20), prose: fc.nat(3), reset: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('handEdit' as const) }), weight: 1 },
);

/** A recorded checkpoint, as a session entry would hold it, and the manuscript it was taken of. */
interface Recorded {
  commit: string;
  ref: string;
  version: Version;
}

interface Turn {
  id: string;
  /** The last recorded checkpoint before the turn (what Regenerate resets the prose to). */
  before: Recorded | undefined;
}

function refsUnder(root: string, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of storeGit(root, ['for-each-ref', '--format=%(refname) %(objectname)', prefix]).split('\n')) {
    const [ref, commit] = line.trim().split(' ');
    if (ref && commit) out.set(ref, commit);
  }
  return out;
}

describe('checkpoints: property "one ref per recorded checkpoint"', function () {
  this.timeout(180_000);
  afterEach(cleanupTmp);

  it('regenerates and pre-send checkpoints: every recorded checkpoint resolves to its tree by its own ref; no other turn refs', async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
        const root = tmpDir('wl-refs-');
        write(root, 'chapters/01.md', 'start\n');
        const repo = await openRepo(root);
        const recorded: Recorded[] = [];
        const turns: Turn[] = [];
        let last: Recorded | undefined; // the last checkpoint on the branch the novelist is on
        let resets = 0;
        const record = (r: CheckpointResult): Recorded => {
          const entry = { commit: r.commit, ref: r.ref, version: manuscript(root) };
          recorded.push(entry);
          last = entry;
          return entry;
        };
        const agentWrites = (turnId: string, prose: number) => write(root, `chapters/${turnId}.md`, `variant ${prose} of ${turnId}\n`);
        try {
          for (const step of steps) {
            if (step.kind === 'handEdit') {
              write(root, 'chapters/01.md', `hand edit ${++counter}\n`);
            } else if (step.kind === 'send') {
              if (step.handEdit) write(root, 'chapters/01.md', `hand edit ${++counter}\n`);
              // Before the instruction: a checkpoint only when the manuscript moved.
              const refsBefore = refsUnder(root, 'refs/worldline/turns').size;
              const pre = await repo.checkpointIfChanged(`before-${turns.length}`, SESSION, last?.commit);
              if (isCheckpointProblem(pre)) assert.fail(pre.message);
              if (pre === null) assert.equal(refsUnder(root, 'refs/worldline/turns').size, refsBefore, 'a checkpoint not recorded leaves no ref');
              else record(pre);
              const turn: Turn = { id: `u${turns.length}`, before: last };
              turns.push(turn);
              agentWrites(turn.id, step.prose);
              record(ok(await repo.checkpoint(turn.id, SESSION)));
            } else if (turns.length > 0) {
              // Regenerate: the prose goes back to the checkpoint before the turn (not undoable),
              // the agent writes again under the same turn id.
              const turn = turns[step.turn % turns.length];
              if (step.reset && turn.before) {
                const res = await repo.restore(turn.before.commit, { undoable: false });
                assert.equal(res.undo, undefined);
                assert.deepEqual(manuscript(root), turn.before.version);
                resets++;
              }
              agentWrites(turn.id, step.prose);
              const r = ok(await repo.checkpoint(turn.id, SESSION));
              assert.ok(r.ref.startsWith(`refs/worldline/turns/${SESSION}/${turn.id}.`), r.ref);
              record(r);
            }
          }
          const turnRefs = refsUnder(root, 'refs/worldline/turns');
          assert.equal(turnRefs.size, recorded.length, 'one turn ref per recorded checkpoint, no more');
          assert.equal(new Set(recorded.map((r) => r.ref)).size, recorded.length, 'no two checkpoints share a ref');
          for (const r of recorded) {
            assert.equal(turnRefs.get(r.ref), r.commit, `${r.ref} still names its own commit`);
            assert.equal(storeGit(root, ['rev-parse', `${r.ref}^{tree}`]).trim(), treeId(r.version), `${r.ref} holds the exact manuscript`);
          }
          assert.equal(refsUnder(root, 'refs/worldline/safety').size, resets, 'one safety ref per reset of the prose');
          assert.equal(refsUnder(root, 'refs/worldline/undo').size, 0, 'a regenerate\'s reset is not on the undo stack');
          assert.equal(await repo.undoLastRestore(), undefined);
        } finally {
          cleanupTmp();
        }
      }),
      { numRuns: 8 },
    );
  });
});
