// A lost checkpoint store, told honestly, over real git in temp folders: which of a session's
// checkpoints the store lacks (one batched lookup through the long-lived process, however many),
// the turns they belong to, and what Rebuild Checkpoints reports and says in each case: the store
// deleted (nothing is "kept"), the store deleted and then started anew on open (the store kept
// holds none of the session's checkpoints), a healthy store rebuilt (the kept one holds them all).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ShadowRepo } from '../../../src/checkpoints';
import { LostCheckpoints, lostCommits, turnsWith } from '../../../src/checkpoints/lostCheckpoints';
import { StoreHandle, type RebuildReport } from '../../../src/checkpoints/storeHandle';
import { rebuiltWords } from '../../../src/checkpoints/words';
import type { Text } from '../../../src/common/text';
import type { CheckpointEntry, Entry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { cleanupTmp, DEFAULT_GLOBS, ok, openRepo, tmpDir, write } from './helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const english = (t: Text): string => t.message.replace(/\{(\d+)\}/g, (_, i: string) => String(t.args[Number(i)]));
const storeDir = (root: string) => path.join(root, '.worldline', 'checkpoints.git');

interface Written { root: string; session: Session; checkpoints: CheckpointEntry[] }

/** A book with `turns` turns, each with its checkpoint, and (`pins`) a pin before each instruction as Send takes one. */
async function writtenBook(turns: number, opts: { pins?: boolean } = {}): Promise<Written> {
  const root = tmpDir('wl-lost-');
  write(root, 'chapters/01.md', '# 第一章\n');
  const repo = await openRepo(root);
  fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
  const session = await Session.create(path.join(root, '.worldline', 'sessions', 's1.jsonl'), { id: 's1', title: '雨夜' });
  const checkpoints: CheckpointEntry[] = [];
  const record = async (turnId: string) => {
    const made = ok(await repo.checkpoint(turnId, 's1'));
    checkpoints.push((await session.append({ type: 'checkpoint', commit: made.commit, ref: made.ref, changed: made.changed })) as CheckpointEntry);
  };
  for (let i = 1; i <= turns; i++) {
    if (opts.pins) await record(`pin-${i}`);
    const user = await session.append({ type: 'user', text: `第${i}回` });
    fs.appendFileSync(path.join(root, 'chapters', '01.md'), `第${i}段。\n`);
    await session.append({ type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' });
    await record(user.id);
  }
  repo.close();
  return { root, session, checkpoints };
}

function handleOn(root: string, spawned: string[] = []): StoreHandle {
  return new StoreHandle({
    restricted: () => false,
    book: () => ({ root, globs: DEFAULT_GLOBS }),
    failed: (p) => assert.fail(p.message),
    log: { info: () => undefined, warn: () => undefined },
    options: { onSpawn: (args) => spawned.push(args.join(' ')) },
  });
}

const said = (report: RebuildReport) => rebuiltWords(report).map(english).join(' ');

describe('checkpoints: a lost store, told honestly', function () {
  this.timeout(30_000);
  afterEach(cleanupTmp);

  it('the store deleted and started anew: every recorded checkpoint is missing, found in one batched git request', async () => {
    const { root, session, checkpoints } = await writtenBook(40);
    const spawned: string[] = [];
    const kept = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS, onSpawn: (args) => spawned.push(args.join(' ')) });
    assert.ok(kept instanceof ShadowRepo);
    spawned.length = 0;
    assert.deepEqual(await lostCommits(kept, session.entries()), new Set(), 'the store that made them holds them all');
    assert.deepEqual(spawned, ['cat-file --batch-check'], 'one long-lived process answers the whole batch');
    spawned.length = 0;
    await lostCommits(kept, session.entries());
    assert.deepEqual(spawned, [], 'asked again: the process is reused, nothing is started');
    kept.close();

    fs.rmSync(storeDir(root), { recursive: true, force: true });
    const fresh = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS });
    assert.ok(fresh instanceof ShadowRepo && fresh.created);
    const lost = await lostCommits(fresh, session.entries());
    assert.deepEqual(lost, new Set(checkpoints.map((c) => c.commit)));
    assert.equal(turnsWith(session.entries(), lost), 40);
    // A checkpoint taken here is in the new store; a malformed id counts as missing, never as a git error.
    write(root, 'chapters/01.md', '新的一段。\n');
    const now = ok(await fresh.checkpoint('t-new', 's1'));
    assert.deepEqual(await fresh.missingCommits([now.commit, checkpoints[0]!.commit, 'not-a-commit']), new Set([checkpoints[0]!.commit, 'not-a-commit']));
    fresh.close();
    await session.close();
  });

  it('LostCheckpoints: a change is reported once; the check asked for last decides', async () => {
    const { root, session } = await writtenBook(3);
    fs.rmSync(storeDir(root), { recursive: true, force: true });
    const fresh = await openRepo(root);
    const lost = new LostCheckpoints();
    assert.equal(lost.commits.size, 0, 'empty before the first check');
    assert.equal(await lost.check(fresh, session.entries()), true);
    assert.equal(lost.commits.size, 3);
    assert.equal(await lost.check(fresh, session.entries()), false, 'the same set: no redraw');
    // Two checks at once, the first answering last: the second one's answer stands.
    let release!: () => void;
    const slow = { missingCommits: async (c: readonly string[]) => { await new Promise<void>((r) => (release = r)); return new Set(c); } };
    const none = { missingCommits: () => Promise.resolve(new Set<string>()) };
    const first = lost.check(slow, session.entries());
    assert.equal(await lost.check(none, session.entries()), true);
    release();
    assert.equal(await first, false);
    assert.equal(lost.commits.size, 0);
    fresh.close();
    await session.close();
  });

  it('turns are counted by the instruction they follow: a pin before it and the checkpoint after it are one turn', async () => {
    const { session, checkpoints } = await writtenBook(3, { pins: true });
    const entries: readonly Entry[] = session.entries();
    assert.equal(checkpoints.length, 6);
    assert.equal(turnsWith(entries, new Set(checkpoints.map((c) => c.commit))), 3 + 1, 'the first pin is the prose the story started from');
    assert.equal(turnsWith(entries, new Set([checkpoints[5]!.commit])), 1);
    assert.equal(turnsWith(entries, new Set()), 0);
    await session.close();
  });

  it('Rebuild after the store was deleted: nothing is called kept; the turns that are gone are counted', async () => {
    const { root, session } = await writtenBook(5);
    fs.rmSync(storeDir(root), { recursive: true, force: true });
    const handle = handleOn(root);
    const rebuilt = await handle.rebuild(session.entries());
    assert.ok(rebuilt);
    assert.deepEqual(rebuilt.report, { lostTurns: 5 });
    const words = said(rebuilt.report);
    assert.doesNotMatch(words, /kept/);
    assert.match(words, /The checkpoints of 5 earlier turns are not in the new store/);
    assert.match(words, /no old store to keep/);
    handle.dispose();
    await session.close();
  });

  it('Rebuild after the store was deleted and a new one made at open: the one kept is said to hold none', async () => {
    const { root, session } = await writtenBook(2);
    fs.rmSync(storeDir(root), { recursive: true, force: true });
    const handle = handleOn(root);
    assert.ok(await handle.store(), 'the window opened and started an empty store');
    const rebuilt = await handle.rebuild(session.entries());
    assert.ok(rebuilt);
    const { report } = rebuilt;
    assert.equal(report.lostTurns, 2);
    assert.equal(report.asideTurns, 0);
    assert.ok(report.aside && fs.existsSync(path.join(root, report.aside)));
    assert.match(said(report), /The old store held no checkpoint of this session; it is kept as \.worldline[\\/]checkpoints\.broken-/);
    handle.dispose();
    await session.close();
  });

  it('Rebuild of a store that held everything: the one kept holds every turn, which the new store does not', async () => {
    const { root, session } = await writtenBook(1);
    const handle = handleOn(root);
    const rebuilt = await handle.rebuild(session.entries());
    assert.ok(rebuilt);
    assert.equal(rebuilt.report.lostTurns, 1);
    assert.equal(rebuilt.report.asideTurns, 1);
    const words = said(rebuilt.report);
    assert.match(words, /The checkpoint of 1 earlier turn is not in the new store: that turn can no longer be restored/);
    assert.match(words, /holds the checkpoint of 1 turn of this session/);
    handle.dispose();
    await session.close();
  });

  it('Rebuild of a store git cannot read at all: what it holds is not claimed either way', async () => {
    const { root, session } = await writtenBook(2);
    fs.rmSync(path.join(storeDir(root), 'HEAD'));
    fs.rmSync(path.join(storeDir(root), 'objects'), { recursive: true });
    const handle = handleOn(root);
    const rebuilt = await handle.rebuild(session.entries());
    assert.ok(rebuilt);
    assert.equal(rebuilt.report.asideTurns, undefined);
    assert.equal(rebuilt.report.lostTurns, 2);
    assert.match(said(rebuilt.report), /The old store could not be read; it is kept as/);
    handle.dispose();
    await session.close();
  });

  it('the words: each case says what it did, every sentence is translated, no "(s)"', () => {
    const cases: RebuildReport[] = [
      { lostTurns: 0 },
      { lostTurns: 3 },
      { lostTurns: 1, aside: 'x', asideTurns: 1 },
      { lostTurns: 4, aside: 'x', asideTurns: 4 },
      { lostTurns: 4, aside: 'x', asideTurns: 0 },
      { lostTurns: 4, aside: 'x' },
    ];
    for (const report of cases) {
      const words = rebuiltWords(report);
      assert.match(english(words[0]!), /^Checkpoints rebuilt/);
      for (const w of words) assert.ok(w.message in bundle, w.message);
      assert.doesNotMatch(words.map(english).join(' '), /\(s\)/);
      assert.equal(words.some((w) => /kept/.test(w.message)), report.aside !== undefined, JSON.stringify(report));
    }
    assert.deepEqual(rebuiltWords({ lostTurns: 0 }).length, 1, 'a new book: nothing is gone, nothing to say about an old store');
    assert.match(english(rebuiltWords({ lostTurns: 4, aside: 'x' })[2]!), /could not be read/);
  });
});
