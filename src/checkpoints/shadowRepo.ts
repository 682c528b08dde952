// The checkpoint store of one book: a shadow git repo in .worldline/checkpoints.git whose work
// tree is the book folder and which tracks only the manuscript. This class is the public face:
// it runs every operation through the store's queue (one at a time) and turns failures into
// typed errors. HEAD is detached and names the last checkpoint (or the checkpoint last
// restored), which the next turn's `changed` list is measured against.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { resetSharedState, sharedState, type SharedState, type StoreContext } from './context';
import { CheckpointError, messages, type CheckpointProblem, type CheckpointUnavailable } from './errors';
import { vetStore } from './configCheck';
import { compileManuscript, isGlobList, type ManuscriptMatcher, type ManuscriptSpec } from '../project/manuscript';
import { classifyGitError, GitRunner } from './gitRunner';
import { parseNameStatus } from './parse';
import { bumpGeneration, enqueue, generationOf, stampsOf } from './queue';
import { BASELINE, checkCommitId, TURNS, turnRef, UNDO } from './refs';
import { restoreTo } from './restore';
import { isSafeRelative } from './safePaths';
import { snapshot, type Keep } from './snapshot';
import { syncDirty } from './dirtySync';
import type { IndexView } from './indexView';
import type { ChangeFeed, ChangedPaths } from '../project/manuscriptChanges';
import { healIndex, isIndexCorruption, syncFull } from './stage';
import { checkGit, createStore, ensureInfoFiles, fsckReport, moveStoreAside, readHead, resolveCommit, storeExists, storePaths, type Head } from './store';
import type { ChangedFile, CheckpointResult, Health, RestoreResult } from './types';
import { DEFAULT_MAX_FILES } from './walk';

export interface ShadowRepoOptions {
  /**
   * The manuscript: the project config's matcher, or globs compiled by the same function (then any
   * unusable pattern throws, or makes `open` report why).
   */
  globs: ManuscriptSpec;
  /** Path to git; default "git" on PATH. */
  gitBinary?: string;
  log?: (m: string) => void;
  /** Refuse to track more files than this (default 100,000). */
  maxFiles?: number;
  /** A lock file older than this is treated as left by a crash (default 60 s). */
  staleLockMs?: number;
  /** Pack the store after this many new commits (default 200; 0 = only when maintain() is called). */
  maintainEvery?: number;
  /**
   * The manuscript change feed (the agent's writes, restores, the editor's saves and file
   * watcher). With it a checkpoint looks only at the paths reported changed, and walks the whole
   * book only at `prepare()`, when idle, and when the feed says 'all'. Without it every
   * checkpoint walks the book (anything may have changed).
   */
  changes?: ChangeFeed;
  /** With a feed: the whole book is walked again after this long without a store operation (default 60 s; 0: never). */
  idleWalkMs?: number;
  /** Told of every git process started (tests count them). */
  onSpawn?: (args: readonly string[]) => void;
  /** The long-lived git processes stop after this long unused (default 10 minutes). */
  pipeIdleMs?: number;
  /** Told after every restore and undo that changed the manuscript (the status bar forgets the last turn's change). */
  onRestored?: (result: RestoreResult) => void;
}

/** Where `rebuild` kept the previous store, and what of the session it still holds. */
export interface KeptStore {
  /** Its path (absolute). */
  path: string;
  /** The commits among those asked about (`rebuild`'s `recorded`) that it holds; undefined when it could not be read. */
  holds?: ReadonlySet<string>;
}

/** What `prepare()` found. */
export interface Prepared {
  /** Manuscript files in the index now. */
  files: number;
  /** Files that differ from the last checkpoint (the next checkpoint records them). */
  changed: number;
}

export class ShadowRepo {
  readonly root: string;
  readonly gitDir: string;
  private matcher: ManuscriptMatcher;
  private readonly generation: number;
  private readonly resolved = new Map<string, Head>();
  private readonly reported = new Set<string>();
  private readonly ctx: StoreContext;
  private readonly unlisten: (() => void) | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** False when the store does not trust the executable bit (core.filemode false). */
  private readonly fileMode: boolean;

  private constructor(
    private readonly runner: GitRunner,
    matcher: ManuscriptMatcher,
    private readonly opts: ShadowRepoOptions,
    /** True when this handle created a new, empty store (none existed: first use, or it was lost). */
    readonly created: boolean,
    /** Where `rebuild` moved the previous store, if it did, and what of the session it holds. */
    readonly keptAside?: KeptStore,
    fileMode = true,
  ) {
    this.fileMode = fileMode;
    this.root = runner.paths.root;
    this.gitDir = runner.paths.gitDir;
    this.matcher = matcher;
    this.generation = generationOf(this.gitDir);
    const self = this;
    this.ctx = {
      runner,
      root: this.root,
      gitDir: this.gitDir,
      log: opts.log,
      get state(): SharedState {
        return sharedState(self.gitDir);
      },
      get matcher(): ManuscriptMatcher {
        return self.matcher;
      },
      sync: () => this.sync(),
    };
    const gitDir = this.gitDir;
    // Reported changes go to the store's shared set (every handle on the store stages from it).
    this.unlisten = opts.changes?.listen((p: ChangedPaths) => sharedState(gitDir).dirty.add(p));
  }

  /** Where `rebuild` moved the previous store, if it did. */
  get movedAside(): string | undefined {
    return this.keptAside?.path;
  }

  /**
   * Opens (or creates) the store of the book at `root`. Never throws: when checkpoints cannot
   * run, returns why, and the caller turns checkpoints off while writing goes on.
   */
  static async open(root: string, opts: ShadowRepoOptions): Promise<ShadowRepo | CheckpointUnavailable> {
    const paths = storePaths(root);
    const runner = runnerFor(paths, opts);
    try {
      const matcher = manuscriptFrom(opts.globs);
      await requireFolder(paths.root);
      await checkGit(runner);
      return await enqueue(paths.gitDir, async () => {
        let created = false;
        if (!(await storeExists(paths.gitDir))) {
          await createStore(runner);
          created = true;
          opts.log?.(`checkpoints: created a new store in ${paths.gitDir}`);
        } else {
          // A store we did not just make may come from someone else: checked before any git runs on it.
          await vetStore(runner, opts.log);
          await ensureInfoFiles(paths.gitDir);
        }
        resetSharedState(paths.gitDir, await readHead(runner));
        return new ShadowRepo(runner, matcher, opts, created, undefined, await trustsFileMode(runner));
      });
    } catch (err) {
      runner.close();
      const e = classifyGitError(err, runner.binary);
      opts.log?.(`checkpoints unavailable: ${e.message}${e.detail ? ` (${e.detail})` : ''}`);
      const kind = e.kind === 'gitMissing' || e.kind === 'corrupt' ? e.kind : 'error';
      return { kind, message: e.message };
    }
  }

  /**
   * Starts a new store from the current manuscript (read only; no manuscript file is touched).
   * An existing store is moved to .worldline/checkpoints.broken-<time>.git, never deleted, and
   * handles on it stop working. `recorded`: the session's checkpoint commits; the kept store is
   * asked which of them it holds (`keptAside.holds`), so the novelist is told what it is worth.
   * Throws CheckpointError (e.g. gitMissing).
   */
  static async rebuild(root: string, opts: ShadowRepoOptions, recorded: readonly string[] = []): Promise<ShadowRepo> {
    const paths = storePaths(root);
    const runner = runnerFor(paths, opts);
    const matcher = manuscriptFrom(opts.globs);
    await requireFolder(paths.root);
    await checkGit(runner);
    return enqueue(paths.gitDir, async () => {
      bumpGeneration(paths.gitDir);
      const movedAside = (await storeExists(paths.gitDir)) ? await moveStoreAside(paths.gitDir) : undefined;
      if (movedAside) opts.log?.(`checkpoints: moved the old store to ${movedAside}`);
      const kept = movedAside === undefined ? undefined : { path: movedAside, ...(await heldBy(root, movedAside, recorded, opts)) };
      await createStore(runner);
      resetSharedState(paths.gitDir, null);
      const repo = new ShadowRepo(runner, matcher, opts, true, kept, await trustsFileMode(runner));
      await snapshot(repo.ctx, `${BASELINE}/${stampsOf(paths.gitDir).next()}`, 'Baseline of a rebuilt checkpoint store', true);
      return repo;
    });
  }

  /**
   * Deep check: HEAD, and every object reachable from the refs. A damaged index is repaired.
   * `recorded`: the checkpoint commits a session refers to. When some are not in the store, the
   * store was lost and started anew (a new store has none of them) or replaced by another copy;
   * after a rebuild the older ones are expected to be gone (they are in the store kept aside).
   */
  async health(recorded: readonly string[] = []): Promise<Health> {
    return enqueue(this.gitDir, async () => {
      if (generationOf(this.gitDir) !== this.generation) return { ok: false, problem: messages.closed(), kind: 'closed' };
      if (!(await storeExists(this.gitDir))) return { ok: false, problem: messages.missing(), kind: 'corrupt' };
      try {
        const state = this.ctx.state;
        state.head = await readHead(this.runner);
        // HEAD moved under us (another program): what we knew of the index is not to be trusted.
        if (state.view && state.view.commit !== (state.head?.commit ?? null)) this.forgetIndex();
        let out: string;
        try {
          out = await fsckReport(this.runner);
        } catch (err) {
          if (!isIndexCorruption(classifyGitError(err, this.runner.binary))) throw err;
          await healIndex(this.runner, state.head?.tree, this.opts.log);
          this.forgetIndex();
          out = await fsckReport(this.runner);
        }
        // Name a missing object first: that is what a crash or a sync tool usually leaves.
        const lines = out.split('\n').map((l) => l.trim());
        const bad = lines.find((l) => /^missing /i.test(l)) ?? lines.find((l) => /^(broken|bad|error)/i.test(l));
        if (bad) return { ok: false, problem: messages.corrupt(bad), kind: 'corrupt' };
        return await this.checkRecorded(recorded);
      } catch (err) {
        const classified = classifyGitError(err, this.runner.binary);
        return { ok: false, problem: classified.message, kind: classified.kind };
      }
    });
  }

  /**
   * End of an agent turn: records the manuscript under a ref of its own,
   * refs/worldline/turns/<sessionId>/<turnId>.<stamp> (a turn checkpointed again, as Regenerate
   * does, gets a second ref; none is overwritten). When nothing changed, the previous commit is
   * reused (a ref is still written). Never throws: a failed checkpoint must not block the turn,
   * so the problem is returned for the caller to log.
   */
  async checkpoint(turnId: string, sessionId: string): Promise<CheckpointResult | CheckpointProblem> {
    return (await this.take(turnId, sessionId)) ?? this.unexpected();
  }

  /**
   * A checkpoint only when the manuscript moved: since `previous` (the last checkpoint the caller
   * recorded), or, without one, since the last checkpoint in the store. Otherwise null, and no ref
   * is written: every turn ref belongs to a checkpoint the caller records.
   */
  async checkpointIfChanged(turnId: string, sessionId: string, previous: string | undefined): Promise<CheckpointResult | CheckpointProblem | null> {
    const keep: Keep = previous !== undefined ? (m) => m.commit !== previous : (m) => !m.reused;
    return (await this.take(turnId, sessionId, keep)) ?? null;
  }

  /**
   * Drops the ref of a checkpoint the caller did not record after all (its session entry could not
   * be written). The ref is deleted only while it still names `commit` and another ref keeps that
   * commit reachable; otherwise it stays (nothing is ever lost). True when it was deleted.
   */
  async discard(result: CheckpointResult): Promise<boolean> {
    checkCommitId(result.commit);
    if (!result.ref.startsWith(`${TURNS}/`)) return false;
    return this.exclusive(async () => {
      const out = await this.runner.run(['for-each-ref', '--format=%(refname)', '--contains', result.commit, 'refs/worldline']);
      const others = out.split('\n').map((l) => l.trim()).filter((l) => l !== '' && l !== result.ref);
      if (others.length === 0) return false;
      await this.runner.updateRefs([{ ref: result.ref, expected: result.commit }]);
      return true;
    });
  }

  private async take(turnId: string, sessionId: string, keep?: Keep): Promise<CheckpointResult | CheckpointProblem | undefined> {
    try {
      const ref = turnRef(sessionId, turnId, stampsOf(this.gitDir).next());
      const message = `Turn ${turnId} (session ${sessionId})`;
      const result = await this.exclusive(() => (keep ? snapshot(this.ctx, ref, message, true, keep) : snapshot(this.ctx, ref, message, true)));
      this.armIdleWalk();
      const every = this.opts.maintainEvery ?? 200;
      if (every > 0 && this.ctx.state.commitsSincePack >= every) {
        // Queued behind the turn and not awaited: the turn has its result already.
        this.maintain().catch((err) => this.opts.log?.(`checkpoints: packing the store failed: ${String(err)}`));
      }
      return result;
    } catch (err) {
      const e = classifyGitError(err, this.runner.binary);
      this.opts.log?.(`checkpoint failed: ${e.message}${e.detail ? ` (${e.detail})` : ''}`);
      return e.toProblem();
    }
  }

  private unexpected(): CheckpointProblem {
    return { kind: 'error', message: messages.gitFailed('checkpoint', 'no result') };
  }

  /**
   * Makes the manuscript equal to `commit`'s manuscript. First a safety checkpoint of the current
   * manuscript (refs/worldline/safety/<stamp>). With `undoable` (the default) the restore goes on
   * the undo stack (refs/worldline/undo/<stamp>, named in `result.undo`), which Undo Last Restore
   * returns to; without it (Regenerate's reset of the prose) only the safety ref is written.
   */
  async restore(commit: string, opts: { undoable?: boolean } = {}): Promise<RestoreResult> {
    checkCommitId(commit);
    try {
      return this.restored(await this.exclusive(async () => restoreTo(this.ctx, await this.resolve(commit), stampsOf(this.gitDir).next(), opts.undoable ?? true)));
    } finally {
      this.armIdleWalk();
    }
  }

  /**
   * Which of `commits` (checkpoint ids a session recorded) this store does not hold as commits:
   * their turns cannot be restored or compared. One `cat-file --batch-check` request through the
   * long-lived process, however many there are; ids that are not checkpoint ids count as missing.
   */
  async missingCommits(commits: readonly string[]): Promise<Set<string>> {
    return this.exclusive(() => absentCommits(this.runner, commits));
  }

  /**
   * The full walk, without a commit or a ref: the index comes in line with the whole manuscript
   * (at first that is every chapter hashed into the store, seconds for a big book) and the tree is
   * written, so the next checkpoint only commits. Run at open, in the background, so the first
   * checkpoint of a book is never taken in front of the novelist (a turn that comes first waits
   * in the queue for this and nothing else); and when idle, as the safety net under the feed.
   */
  async prepare(): Promise<Prepared> {
    return this.exclusive(async () => {
      this.ctx.state.dirty.add('all');
      const view = await this.sync();
      if (!view.clean && view.stagedTree === undefined) view.stagedTree = (await this.runner.run(['write-tree'])).trim();
      return { files: view.size, changed: view.differences };
    });
  }

  /** Stops listening to the feed and the long-lived git processes (the window closes, or the store is let go). */
  close(): void {
    this.closed = true;
    this.unlisten?.();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.runner.close();
  }

  /**
   * Returns the manuscript to where it was before the last restore not yet undone (a stack).
   * `expected`: undo only when the newest restore on the stack is that one (its `result.undo`), so
   * an older, unrelated restore is never undone by mistake. Undefined when nothing was undone.
   */
  async undoLastRestore(expected?: string): Promise<RestoreResult | undefined> {
    return this.exclusive(async () => {
      const out = await this.runner.run(['for-each-ref', '--format=%(refname) %(objectname)', UNDO]);
      const last = out
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          const [ref, commit] = l.trim().split(' ');
          return { ref, commit, stamp: Number(ref.slice(UNDO.length + 1)) };
        })
        .sort((a, b) => b.stamp - a.stamp)[0];
      if (!last || (expected !== undefined && last.ref !== expected)) return undefined;
      // The undo takes a safety checkpoint of its own, so the manuscript it replaces stays recoverable.
      const result = await restoreTo(this.ctx, await this.resolve(last.commit), stampsOf(this.gitDir).next(), false);
      await this.runner.updateRefs([{ ref: last.ref, expected: last.commit }]);
      return result;
    }).then((result) => (result ? this.restored(result) : result));
  }

  /** Tells `onRestored` of a restore that changed files; a listener's failure is only logged. */
  private restored(result: RestoreResult): RestoreResult {
    if (result.written.length + result.deleted.length > 0) {
      try {
        this.opts.onRestored?.(result);
      } catch (err) {
        this.opts.log?.(`checkpoints: a restore listener failed: ${String(err)}`);
      }
    }
    return result;
  }

  /** Files that differ between two checkpoints, or between a checkpoint and the manuscript now. */
  async changedFiles(from: string, to?: string): Promise<ChangedFile[]> {
    checkCommitId(from);
    if (to !== undefined) checkCommitId(to);
    return this.exclusive(async () => {
      const a = await this.resolve(from);
      if (to !== undefined) {
        const b = await this.resolve(to);
        return parseNameStatus(await this.runner.run(['diff-tree', '-r', '-z', '--no-renames', '--name-status', a.tree, b.tree]));
      }
      await this.sync(); // the index now mirrors the manuscript; no commit is made
      return parseNameStatus(await this.runner.run(['diff-index', '--cached', '-z', '--no-renames', '--name-status', a.commit]));
    });
  }

  /** The manuscript paths a checkpoint holds (POSIX, relative), e.g. to export the book as it stood. */
  async filesAt(commit: string): Promise<string[]> {
    checkCommitId(commit);
    return this.exclusive(async () => {
      const c = await this.resolve(commit);
      const out = await this.runner.run(['ls-tree', '-r', '-z', '--name-only', c.tree]);
      return out.split('\0').filter((p) => p !== '' && isSafeRelative(p));
    });
  }

  /** A file's text at a checkpoint (for a read-only diff view), or undefined when it has no such file. */
  async readAt(commit: string, file: string): Promise<string | undefined> {
    checkCommitId(commit);
    if (!isSafeRelative(file)) throw new CheckpointError('badInput', messages.badPath(file));
    return this.exclusive(async () => {
      const c = await this.resolve(commit);
      let bytes: Buffer;
      try {
        bytes = await this.runner.catFileBytes(['blob', `${c.commit}:${file}`]);
      } catch (err) {
        const e = classifyGitError(err, this.runner.binary);
        if (e.kind === 'error') return undefined; // no such path (or a folder) in that checkpoint
        throw e;
      }
      return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    });
  }

  /**
   * Packs the store: loose objects into a delta-compressed pack and loose refs into packed-refs.
   * Removes only loose copies of objects that are now in the pack; never prunes anything.
   */
  async maintain(): Promise<void> {
    return this.exclusive(async () => {
      await this.runner.run(['pack-refs', '--all']);
      await this.runner.run(['repack', '-d', '-q']);
      this.ctx.state.commitsSincePack = 0;
    });
  }

  /** A new manuscript; the next checkpoint tracks exactly what it matches. Throws on unusable globs. */
  setGlobs(globs: ManuscriptSpec): void {
    const matcher = manuscriptFrom(globs);
    // Other files are manuscript now, and some are not any more: only a walk can tell which.
    if (matcher !== this.matcher) this.ctx.state.dirty.add('all');
    this.matcher = matcher;
  }

  // ---- internals: they run inside the queue, so they never call exclusive() ----

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return enqueue(this.gitDir, async () => {
      if (generationOf(this.gitDir) !== this.generation) throw new CheckpointError('closed', messages.closed());
      // Deleted or moved by hand while open: say so, rather than git's "not a git repository".
      if (!(await storeExists(this.gitDir))) throw new CheckpointError('corrupt', messages.missing());
      return fn();
    });
  }

  /**
   * Stages the manuscript: from the paths reported changed when the index is known, else by a
   * full walk (and always by one without a feed). Repairs a damaged index once.
   */
  private async sync(): Promise<IndexView> {
    const state = this.ctx.state;
    const taken: ChangedPaths = this.opts.changes ? state.dirty.take() : 'all';
    try {
      return await this.syncTaken(taken);
    } catch (err) {
      if (this.opts.changes) state.dirty.restore(taken);
      if (!isIndexCorruption(classifyGitError(err, this.runner.binary))) throw err;
      await healIndex(this.runner, state.head?.tree, this.opts.log);
      this.forgetIndex();
      return this.syncTaken('all');
    }
  }

  private async syncTaken(taken: ChangedPaths): Promise<IndexView> {
    const state = this.ctx.state;
    const max = this.opts.maxFiles ?? DEFAULT_MAX_FILES;
    const view = state.view && state.view.commit === (state.head?.commit ?? null) ? state.view : undefined;
    if (taken !== 'all' && view) {
      if (taken.length === 0) return view;
      const r = await syncDirty({ runner: this.runner, matcher: this.matcher, view, maxFiles: max, fileMode: this.fileMode }, taken);
      for (const s of r.skipped) this.report(`checkpoints: not tracked (${s.reason}): ${s.path}`);
      // Changed while git read them: looked at again next time.
      if (r.unsettled.length > 0) state.dirty.add(r.unsettled);
      return view;
    }
    state.view = undefined;
    const result = await syncFull({ runner: this.runner, matcher: this.matcher, maxFiles: max, head: state.head, view });
    state.view = result.view;
    for (const s of result.skipped) this.report(`checkpoints: not tracked (${s.reason}): ${s.path}`);
    for (const r of result.nestedRepos) this.report(`checkpoints: ${r}/ is its own git repository; its manuscript files are checkpointed, its .git is left alone`);
    return result.view;
  }

  /** What we knew of the index is gone: the next sync walks the whole book. */
  private forgetIndex(): void {
    this.ctx.state.view = undefined;
    this.ctx.state.dirty.add('all');
  }

  /** With a feed, the book is walked again once the store has been quiet for a while. */
  private armIdleWalk(): void {
    const ms = this.opts.idleWalkMs ?? 60_000;
    if (!this.opts.changes || ms <= 0 || this.closed) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.prepare().catch((err: unknown) => this.opts.log?.(`checkpoints: the idle walk failed: ${classifyGitError(err, this.runner.binary).message}`));
    }, ms);
    this.idleTimer.unref();
  }

  /** Part of health(): the session's checkpoint commits that the store does not have. */
  private async checkRecorded(recorded: readonly string[]): Promise<Health> {
    const wanted = [...new Set(recorded.filter(isCommitId))];
    if (wanted.length === 0) return { ok: true };
    const missing = (await absentCommits(this.runner, wanted)).size;
    if (missing === 0) return { ok: true };
    // After a rebuild the older checkpoints live in the store kept aside: that is expected.
    const baseline = (await this.runner.run(['for-each-ref', '--count=1', '--format=%(refname)', BASELINE])).trim();
    if (baseline !== '') return { ok: true };
    return { ok: false, problem: this.created ? messages.storeLost(wanted.length) : messages.recordedMissing(missing, wanted.length), kind: 'lost' };
  }

  private async resolve(commit: string): Promise<Head> {
    const known = this.resolved.get(commit);
    if (known) return known;
    const head = await resolveCommit(this.runner, commit);
    this.resolved.set(commit, head);
    return head;
  }

  /** Logs a line once per handle (skipped symlinks and nested repos would repeat every turn). */
  private report(line: string): void {
    if (this.reported.has(line)) return;
    this.reported.add(line);
    this.opts.log?.(line);
  }
}

const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function isCommitId(c: string): boolean {
  return COMMIT_ID.test(c);
}

/** Requests to the check process carry at most this many ids (each answer line is read whole). */
const CHECK_BATCH = 5000;

/** The ids among `commits` that are not commits in the store `runner` reads. */
async function absentCommits(runner: GitRunner, commits: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(commits)];
  const absent = new Set(unique.filter((c) => !isCommitId(c)));
  const ids = unique.filter(isCommitId);
  for (let i = 0; i < ids.length; i += CHECK_BATCH) {
    const batch = ids.slice(i, i + CHECK_BATCH);
    const types = await runner.objectTypes(batch);
    batch.forEach((id, k) => {
      if (types[k] !== 'commit') absent.add(id);
    });
  }
  return absent;
}

/** Which of `recorded` the store kept aside at `gitDir` holds; nothing when it cannot be read (it may be why it was rebuilt). */
async function heldBy(root: string, gitDir: string, recorded: readonly string[], opts: ShadowRepoOptions): Promise<{ holds?: ReadonlySet<string> }> {
  const runner = runnerFor({ root: path.resolve(root), gitDir }, opts);
  try {
    const absent = await absentCommits(runner, recorded);
    return { holds: new Set(recorded.filter((c) => !absent.has(c))) };
  } catch (err) {
    opts.log?.(`checkpoints: the store kept aside could not be read: ${classifyGitError(err, runner.binary).message}`);
    return {};
  } finally {
    runner.close();
  }
}

function runnerFor(paths: { root: string; gitDir: string }, opts: ShadowRepoOptions): GitRunner {
  return new GitRunner({
    ...paths,
    binary: opts.gitBinary,
    log: opts.log,
    staleLockMs: opts.staleLockMs,
    ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}),
    ...(opts.pipeIdleMs !== undefined ? { pipeIdleMs: opts.pipeIdleMs } : {}),
  });
}

/** core.filemode as git reads it (true unless the store says false, as on Windows). */
async function trustsFileMode(runner: GitRunner): Promise<boolean> {
  const out = await runner.tryRun(['config', '--bool', '--get', 'core.filemode']);
  return out?.trim() !== 'false';
}

async function requireFolder(root: string): Promise<void> {
  const st = await fsp.stat(root).catch(() => null);
  if (!st?.isDirectory()) throw new CheckpointError('error', `The book folder ${root} cannot be opened.`);
}

/** The matcher of a spec; globs go through the project's one compiler, and must all be usable. */
function manuscriptFrom(spec: ManuscriptSpec): ManuscriptMatcher {
  if (!isGlobList(spec)) return spec;
  const { matcher, problems } = compileManuscript(spec);
  const first = problems[0];
  if (first) throw new CheckpointError('badInput', messages.badGlobs(first.message.replace(/\.$/, '')));
  return matcher;
}
