// The window's handle on the checkpoint store, over real git in temp folders: opened once and
// shared, nothing run in Restricted Mode, a failed open remembered until forgotten (trust) or a
// rebuild, the health check's decision, and the checkpoint documents the diff editor reads.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { CheckpointError, ShadowRepo, type CheckpointUnavailable } from '../../../src/checkpoints';
import { StoreHandle, documentPath, parseDocumentPath, recordedCommits, type StoreHandleDeps } from '../../../src/checkpoints/storeHandle';
import { Session } from '../../../src/session/session';
import { runs } from '../long-mode';
import { cleanupTmp, DEFAULT_GLOBS, ok, openRepo, tmpDir, write } from './helpers';

interface Probe {
  handle: StoreHandle;
  deps: StoreHandleDeps & { options: { gitBinary?: string } };
  failed: CheckpointUnavailable[];
  warned: string[];
  state: { restricted: boolean; open: boolean };
}

function probe(root: string, gitBinary?: string): Probe {
  const failed: CheckpointUnavailable[] = [];
  const warned: string[] = [];
  const state = { restricted: false, open: true };
  const deps = {
    restricted: () => state.restricted,
    book: () => (state.open ? { root, globs: DEFAULT_GLOBS } : undefined),
    failed: (p: CheckpointUnavailable) => failed.push(p),
    log: { info: () => undefined, warn: (m: string) => warned.push(m) },
    options: gitBinary ? { gitBinary } : {},
  };
  return { handle: new StoreHandle(deps), deps, failed, warned, state };
}

function book(): string {
  const root = tmpDir('wl-handle-');
  write(root, 'chapters/01.md', 'one\n');
  return root;
}

const storeDir = (root: string) => path.join(root, '.worldline', 'checkpoints.git');

/** A session (in a folder of its own) whose turns recorded these checkpoint commits. */
async function sessionWith(commits: string[]): Promise<Session> {
  const session = await Session.create(path.join(tmpDir('wl-handle-session-'), 's.jsonl'), { id: 's', title: '雨夜' });
  for (const [i, commit] of commits.entries()) {
    await session.append({ type: 'user', text: `第${i + 1}回` });
    await session.append({ type: 'checkpoint', commit, ref: `refs/worldline/t${i}`, changed: [] });
  }
  return session;
}

describe('checkpoints: the store handle', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  it('opens once: callers that ask while it opens share the open, later ones get the same store', async () => {
    const { handle } = probe(book());
    const [a, b] = await Promise.all([handle.store(), handle.store()]);
    assert.ok(a instanceof ShadowRepo);
    assert.equal(a, b);
    assert.equal(await handle.store(), a);
    assert.equal(a.created, true);
  });

  it('in Restricted Mode no git runs: no store, no folder made, no failure remembered', async () => {
    const root = book();
    const { handle, state, failed } = probe(root);
    state.restricted = true;
    assert.equal(await handle.store(), undefined);
    assert.equal(await handle.problem([]), undefined);
    assert.ok(!fs.existsSync(path.join(root, '.worldline')));
    assert.deepEqual([failed, handle.failure], [[], undefined]);
    state.restricted = false;
    assert.ok((await handle.store()) instanceof ShadowRepo, 'trusted: it opens');
  });

  it('with no novel open there is no store', async () => {
    const { handle, state } = probe(book());
    state.open = false;
    assert.equal(await handle.store(), undefined);
    assert.equal(await handle.rebuild(), undefined);
  });

  it('a failed open is said once and remembered: not tried again until forgotten (the folder was trusted)', async () => {
    const root = book();
    const { handle, deps, failed, warned } = probe(root, '/nonexistent/bin/git');
    assert.equal(await handle.store(), undefined);
    assert.equal(await handle.store(), undefined);
    assert.deepEqual(failed.map((f) => f.kind), ['gitMissing'], 'said once');
    assert.equal(warned.filter((w) => w === failed[0]!.message).length, 1, 'logged once');
    assert.deepEqual(handle.failure, { kind: 'gitMissing', message: failed[0]!.message });
    delete deps.options.gitBinary; // git is there now, but the failure is remembered
    assert.equal(await handle.store(), undefined);
    assert.ok(!fs.existsSync(storeDir(root)));
    handle.forgetFailure();
    assert.equal(handle.failure, undefined);
    assert.ok((await handle.store()) instanceof ShadowRepo);
    assert.equal(failed.length, 1);
  });

  it('a rebuild clears a damaged store\'s failure and becomes the store; the old one is kept aside', async () => {
    const root = book();
    const old = await openRepo(root);
    const c1 = ok(await old.checkpoint('t1', 's'));
    fs.writeFileSync(path.join(storeDir(root), 'objects', c1.commit.slice(0, 2), c1.commit.slice(2)), ''); // as after a crash
    const { handle, failed } = probe(root);
    assert.equal(await handle.store(), undefined);
    assert.deepEqual(failed.map((f) => f.kind), ['corrupt']);
    const session = await sessionWith([c1.commit]);
    const rebuilt = await handle.rebuild(session.entries());
    await session.close();
    assert.ok(rebuilt);
    assert.equal(rebuilt.report.lostTurns, 1);
    assert.match(rebuilt.report.aside ?? '', /^\.worldline[\\/]checkpoints\.broken-.*\.git$/);
    assert.ok(fs.existsSync(path.join(root, rebuilt.report.aside!)));
    assert.equal(rebuilt.report.asideTurns, 0, 'the damaged store holds no readable checkpoint of the session');
    assert.equal(handle.failure, undefined);
    assert.equal(await handle.store(), rebuilt.repo);
  });

  it('a rebuild without git throws the store\'s error and changes nothing', async () => {
    const { handle } = probe(book(), '/nonexistent/bin/git');
    await handle.store();
    const failure = handle.failure;
    await assert.rejects(handle.rebuild(), (e: unknown) => e instanceof CheckpointError && e.kind === 'gitMissing');
    assert.equal(handle.failure, failure);
  });

  it('the health check: a first store with nothing recorded has nothing to check; a lost store, or recorded commits it lacks, are problems', async () => {
    const fresh = book();
    assert.equal(await probe(fresh).handle.problem(undefined), undefined);
    const none = await sessionWith([]);
    assert.equal(await probe(book()).handle.problem(none.entries()), undefined);

    const lost = book();
    const lostSession = await sessionWith(['0123456789abcdef0123456789abcdef01234567']);
    const lostProblem = await probe(lost).handle.problem(lostSession.entries());
    assert.equal(lostProblem?.kind, 'lost');
    assert.match(lostProblem?.message ?? '', /was missing when this book was opened/);

    const kept = book();
    const repo = await openRepo(kept);
    const c = ok(await repo.checkpoint('t1', 's'));
    const good = await sessionWith([c.commit]);
    assert.equal(await probe(kept).handle.problem(good.entries()), undefined, 'an existing store with its commits');
    const bad = await sessionWith([c.commit, 'fedcba9876543210fedcba9876543210fedcba98']);
    const badProblem = await probe(kept).handle.problem(bad.entries());
    assert.equal(badProblem?.kind, 'lost');
    assert.match(badProblem?.message ?? '', /does not hold 1 of the 2 checkpoint/);
    for (const s of [none, lostSession, good, bad]) await s.close();
  });

  it('recordedCommits reads the checkpoint entries in file order', async () => {
    const session = await sessionWith(['a1', 'b2']);
    assert.deepEqual(recordedCommits(session.entries()), ['a1', 'b2']);
    await session.close();
  });

  it('unusable globs are logged and the store keeps the manuscript it had', async () => {
    const root = book();
    const { handle, warned } = probe(root);
    const repo = (await handle.store())!;
    handle.setGlobs(['/etc/*.md']);
    assert.equal(warned.length, 1);
    assert.match(warned[0]!, /^checkpoints: /);
    write(root, 'chapters/02.md', 'two\n');
    assert.deepEqual(ok(await repo.checkpoint('t1', 's')).changed.sort(), ['chapters/01.md', 'chapters/02.md']);
  });

  it('a checkpoint document reads the file at its commit; the empty side, an unknown file or a broken path read as nothing', async () => {
    const root = book();
    write(root, 'chapters/雨 夜%1.md', '雨\n');
    const { handle } = probe(root);
    const c = ok(await (await handle.store())!.checkpoint('t1', 's'));
    assert.equal(await handle.document(documentPath(c.commit, 'chapters/雨 夜%1.md')), '雨\n');
    assert.equal(await handle.document(documentPath(c.commit, 'chapters/01.md')), 'one\n');
    assert.equal(await handle.document(documentPath('empty', 'chapters/01.md')), '');
    assert.equal(await handle.document(documentPath(c.commit, 'chapters/none.md')), '');
    assert.equal(await handle.document(`/${c.commit}/chapters/%E0%A4%A.md`), '');
    // A checkpoint the store does not hold (a tab reopened after the store was lost): nothing, not a failure.
    assert.equal(await handle.document(documentPath('0123456789abcdef0123456789abcdef01234567', 'chapters/01.md')), '');
  });

  it('document paths: every file name comes back as it went in; no path makes parsing throw', () => {
    const segment = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => !s.includes('/'));
    const file = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
    const commit = fc.stringMatching(/^[0-9a-f]{40}$/);
    fc.assert(fc.property(commit, file, (c, f) => {
      const p = documentPath(c, f);
      assert.ok(p.startsWith(`/${c}/`));
      assert.deepEqual(parseDocumentPath(p), { commit: c, file: f });
    }), { numRuns: runs(300, 5000) });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (p) => {
      const parsed = parseDocumentPath(p);
      assert.ok(parsed === undefined || (parsed.commit !== '' && parsed.commit !== 'empty'));
    }), { numRuns: runs(300, 5000) });
  });
});
