// The window's handle on the checkpoint store: opened once and then reused (turns, restores and
// views all ask for it); a failed open is remembered, so a broken store or a missing git is said
// once and not tried on every turn, until the folder is trusted or the store rebuilt. Whether git
// may run at all (Restricted Mode) is the shell's to know: passed in.
import * as path from 'node:path';
import type { ManuscriptSpec } from '../project/manuscript';
import type { Entry } from '../session/entries';
import { isCheckpointProblem, type CheckpointProblem, type CheckpointUnavailable } from './errors';
import { recordedCommits, turnsWith } from './lostCheckpoints';
import { ShadowRepo, type ShadowRepoOptions } from './shadowRepo';

export { recordedCommits } from './lostCheckpoints';

export interface StoreHandleDeps {
  /** True when no git may run on the folder (Restricted Mode); the shell says why. */
  restricted(): boolean;
  /** The open novel's folder and manuscript; undefined when none is open. */
  book(): { root: string; globs: ManuscriptSpec } | undefined;
  /** An open failed (logged, and remembered from now on): for the shell to say. */
  failed(problem: CheckpointUnavailable): void;
  log: { info(message: string): void; warn(message: string): void };
  /** More store options (tests: another git binary). */
  options?: Omit<ShadowRepoOptions, 'globs' | 'log'>;
}

/** What Rebuild Checkpoints did, in turns of the open session (src/checkpoints/words.ts words it). */
export interface RebuildReport {
  /** Where the previous store was kept (relative to the book folder); absent when there was none (it was deleted). */
  aside?: string;
  /** Turns whose checkpoints the kept store holds; undefined when it could not be read. */
  asideTurns?: number;
  /** Turns of the session whose checkpoints the new store does not have: they cannot be restored or compared any more. */
  lostTurns: number;
}

/** A checkpoint document's path: `/<commit>/<file>`, each segment of the file URI-encoded. */
export function documentPath(commit: string, file: string): string {
  return `/${commit}/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/** The commit and file of a document path (see `documentPath`); undefined for the "empty" side. */
export function parseDocumentPath(docPath: string): { commit: string; file: string } | undefined {
  const [, commit, ...rest] = docPath.split('/');
  if (!commit || commit === 'empty') return undefined;
  try {
    return { commit, file: decodeURIComponent(rest.join('/')) };
  } catch {
    return undefined; // a hand-typed URI with a broken escape names no document
  }
}

export class StoreHandle {
  private repo: ShadowRepo | undefined;
  private opening: Promise<ShadowRepo | undefined> | undefined;
  private failedWith: CheckpointProblem | undefined;

  constructor(private readonly deps: StoreHandleDeps) {}

  /** Why the last open failed (its kind, and the store's own words), until trust or a rebuild clears it. */
  get failure(): CheckpointProblem | undefined {
    return this.failedWith;
  }

  /** The store, opened on first use; undefined when checkpoints are off (restricted, failed, no novel). */
  async store(): Promise<ShadowRepo | undefined> {
    if (this.deps.restricted()) return undefined;
    if (this.repo) return this.repo;
    if (this.failedWith !== undefined) return undefined;
    const book = this.deps.book();
    if (!book) return undefined;
    // Callers that ask while the store opens share the one open.
    this.opening ??= (async () => {
      const opened = await ShadowRepo.open(book.root, this.storeOptions(book.globs));
      if (isCheckpointProblem(opened)) {
        this.failedWith = { kind: opened.kind, message: opened.message };
        this.deps.log.warn(opened.message);
        this.deps.failed(opened);
        return undefined;
      }
      this.repo = opened;
      return opened;
    })().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** The folder was trusted: a store that could not open is tried again on the next use. */
  forgetFailure(): void {
    this.failedWith = undefined;
  }

  /**
   * A new store from the manuscript as it is; the old one is kept aside. `entries`: the open
   * session's, for what the report says of its turns (which the kept store holds, which the new
   * one lacks). Undefined with no novel open; throws CheckpointError when git cannot run.
   */
  async rebuild(entries: readonly Entry[] = []): Promise<{ repo: ShadowRepo; report: RebuildReport } | undefined> {
    const book = this.deps.book();
    if (!book) return undefined;
    const recorded = recordedCommits(entries);
    const repo = await ShadowRepo.rebuild(book.root, this.storeOptions(book.globs), recorded);
    this.repo?.close();
    this.repo = repo;
    this.failedWith = undefined;
    // The new store holds its baseline and nothing else: every checkpoint the session recorded is gone from it.
    const report: RebuildReport = { lostTurns: turnsWith(entries, new Set(recorded)) };
    const kept = repo.keptAside;
    if (kept) {
      report.aside = path.relative(book.root, kept.path);
      if (kept.holds) report.asideTurns = turnsWith(entries, kept.holds);
    }
    return { repo, report };
  }

  /** The manuscript changed in worldline.yaml; unusable globs are logged and the old ones kept. */
  setGlobs(globs: ManuscriptSpec): void {
    try {
      this.repo?.setGlobs(globs);
    } catch (err) {
      this.deps.log.warn(`checkpoints: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The health check on start: the store's problem, or undefined when there is none to tell. A
   * damaged store, or one that was lost (a new one was made while the session refers to
   * checkpoints), is a problem; a first store with nothing recorded has nothing to check yet.
   */
  async problem(entries: readonly Entry[] | undefined): Promise<CheckpointProblem | undefined> {
    const repo = await this.store();
    if (!repo) return undefined;
    const recorded = recordedCommits(entries ?? []);
    if (repo.created && recorded.length === 0) return undefined;
    const health = await repo.health(recorded);
    return health.ok ? undefined : { kind: health.kind, message: health.problem };
  }

  /** The text of the document at `docPath` (see `documentPath`); '' for the "empty" side, or when the store cannot say. */
  async document(docPath: string): Promise<string> {
    const at = parseDocumentPath(docPath);
    const repo = at && (await this.store());
    try {
      return (repo && (await repo.readAt(at.commit, at.file))) ?? '';
    } catch (err) {
      // A diff tab reopened after its checkpoint was lost (or the store damaged) shows nothing, not an error with an id.
      this.deps.log.warn(`checkpoints: a checkpoint document could not be read: ${err instanceof Error ? err.message : String(err)}`);
      return '';
    }
  }

  /** The window closes: the store stops its git processes and its feed. */
  dispose(): void {
    this.repo?.close();
    this.repo = undefined;
  }

  private storeOptions(globs: ManuscriptSpec): ShadowRepoOptions {
    return { ...this.deps.options, globs, log: (m) => this.deps.log.info(m) };
  }
}
