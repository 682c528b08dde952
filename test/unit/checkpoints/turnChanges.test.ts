// Show Turn Changes and Compare with Current Prose over a real store and a real session: the
// checkpoint asked for (or the last on the path), the one before it on its own branch, the files
// that differ, the file shown without asking, and the two sides of the diff.
import { strict as assert } from 'node:assert';
import { diffSides, turnChanges, type TurnChanges } from '../../../src/checkpoints/turnChanges';
import type { ShadowRepo } from '../../../src/checkpoints';
import { Session } from '../../../src/session/session';
import { openTurnBook, remove, write, type TurnBook } from './helpers';

type Found = Extract<TurnChanges, { kind: 'changes' }>;

function changes(t: TurnChanges): Found {
  assert.equal(t.kind, 'changes');
  return t as Found;
}

describe('turn changes', function () {
  this.timeout(20_000);
  let root: string;
  let repo: ShadowRepo;
  let session: Session;

  let book: TurnBook;
  const turn = (text: string, edit: () => void) => book.turn(text, edit);

  beforeEach(async () => {
    book = await openTurnBook('wl-turn-');
    ({ root, repo, session } = book);
  });

  afterEach(() => book.close());

  it("shows a turn's changes against the checkpoint before it on its own branch", async () => {
    const t1 = await turn('begin', () => { write(root, 'chapters/01.md', '# One\nRain.\n'); write(root, 'notes.md', 'n\n'); });
    const t2 = await turn('go on', () => write(root, 'chapters/01.md', '# One\nRain.\nWind.\n'));

    // The first turn has nothing before it: the files it recorded, all added, none picked of several.
    const first = changes(await turnChanges(session, repo, t1.checkpoint.id, 'previous'));
    assert.equal(first.previous, undefined);
    assert.deepEqual(first.changes, t1.checkpoint.changed.map((p) => ({ path: p, status: 'A' })));
    assert.ok(first.changes.length >= 2);
    assert.equal(first.pick, undefined);
    assert.deepEqual(diffSides(first, first.changes[0]!), { left: 'empty', right: t1.checkpoint.commit });
    // A file named is picked.
    assert.deepEqual((changes(await turnChanges(session, repo, t1.checkpoint.id, 'previous', 'notes.md'))).pick, { path: 'notes.md', status: 'A' });

    // No id: the last checkpoint on the path, against the one before it; its only change is picked.
    const second = changes(await turnChanges(session, repo, undefined, 'previous'));
    assert.equal(second.target.id, t2.checkpoint.id);
    assert.equal(second.previous?.id, t1.checkpoint.id);
    assert.deepEqual(second.changes, [{ path: 'chapters/01.md', status: 'M' }]);
    assert.deepEqual(second.pick, { path: 'chapters/01.md', status: 'M' });
    assert.deepEqual(diffSides(second, second.pick!), { left: t1.checkpoint.commit, right: t2.checkpoint.commit });
    // A file named that the turn did not change: nothing picked, so the shell asks.
    assert.equal(changes(await turnChanges(session, repo, t2.checkpoint.id, 'previous', 'notes.md')).pick, undefined);

    // Another branch from turn 1: its turn is compared with turn 1, not with turn 2 of the other branch.
    await session.navigate(t1.checkpoint.id);
    write(root, 'chapters/01.md', '# One\nRain.\n');
    const t3 = await turn('instead', () => write(root, 'notes.md', 'n\nm\n'));
    const third = changes(await turnChanges(session, repo, t3.checkpoint.id, 'previous'));
    assert.equal(third.previous?.id, t1.checkpoint.id);
    assert.deepEqual(third.changes, [{ path: 'notes.md', status: 'M' }]);
    // An older checkpoint of the other branch still finds its own predecessor.
    assert.equal(changes(await turnChanges(session, repo, t2.checkpoint.id, 'previous')).previous?.id, t1.checkpoint.id);
  });

  it('compares a checkpoint with the manuscript as it is now', async () => {
    const t1 = await turn('begin', () => { write(root, 'chapters/01.md', '# One\nRain.\n'); write(root, 'notes.md', 'n\n'); });
    const same = changes(await turnChanges(session, repo, t1.checkpoint.id, 'working'));
    assert.deepEqual(same.changes, []);
    assert.equal(same.previous, undefined);

    write(root, 'chapters/01.md', '# One\nSnow.\n');
    remove(root, 'notes.md');
    const now = changes(await turnChanges(session, repo, t1.checkpoint.id, 'working'));
    const byPath = new Map(now.changes.map((c) => [c.path, c]));
    assert.deepEqual(byPath.get('chapters/01.md'), { path: 'chapters/01.md', status: 'M' });
    assert.deepEqual(byPath.get('notes.md'), { path: 'notes.md', status: 'D' });
    assert.equal(now.pick, undefined);
    assert.deepEqual(diffSides(now, byPath.get('chapters/01.md')!), { left: t1.checkpoint.commit, right: 'working' });
    // A deleted file has no working side: its right side is empty.
    assert.deepEqual(diffSides(now, byPath.get('notes.md')!), { left: t1.checkpoint.commit, right: 'empty' });
  });

  it('finds nothing without a checkpoint or without a store', async () => {
    assert.deepEqual(await turnChanges(session, repo, undefined, 'previous'), { kind: 'none' });
    const t1 = await turn('begin', () => write(root, 'chapters/01.md', '# One\nRain.\n'));
    assert.deepEqual(await turnChanges(session, repo, t1.user.id, 'previous'), { kind: 'none' }, 'a user entry is no checkpoint');
    assert.deepEqual(await turnChanges(session, repo, 'no-such-entry', 'working'), { kind: 'none' });
    assert.deepEqual(await turnChanges(session, undefined, t1.checkpoint.id, 'previous'), { kind: 'none' });
  });
});
