// What the store's index holds, known in memory and exactly: the files of the last checkpoint
// (HEAD's tree, path → mode and object id) and where the index differs from it. With it, a
// checkpoint from a few changed paths needs no git to tell what changed (the changed list is the
// differences), and a path whose content is what the index already holds (the watcher's echo of
// our own write) costs no git at all. Built from git's own listings at the full walk; kept by
// every step that changes the index or HEAD; dropped (and rebuilt by the next full walk) whenever
// something happened that it cannot follow.

export interface IndexEntry {
  mode: string;
  oid: string;
}

export class IndexView {
  /** Index paths that differ from `files`: the new entry, or null when the index lacks the path. */
  private readonly pending = new Map<string, IndexEntry | null>();
  /** Folder → how many index paths lie below it: a changed path that never was a folder costs no scan. */
  private readonly below = new Map<string, number>();
  /** The tree `write-tree` gave for the index as it is now (cleared by any change). */
  stagedTree: string | undefined;

  constructor(
    /** The checkpoint `files` describes (null: no checkpoint yet, `files` is empty). */
    public commit: string | null,
    /** HEAD's tree: path → entry. */
    private readonly files: Map<string, IndexEntry>,
  ) {
    for (const p of files.keys()) this.count(p, 1);
  }

  /** What the index holds at `p`. */
  entry(p: string): IndexEntry | undefined {
    return this.pending.has(p) ? this.pending.get(p) ?? undefined : this.files.get(p);
  }

  /** HEAD's files, handed to the view that replaces this one (this one is not used after). */
  headFiles(): Map<string, IndexEntry> {
    return this.files;
  }

  /** What the last checkpoint holds at `p`. */
  committed(p: string): IndexEntry | undefined {
    return this.files.get(p);
  }

  /** True when the index holds exactly the last checkpoint's tree. */
  get clean(): boolean {
    return this.pending.size === 0;
  }

  /** How many paths differ between the index and the last checkpoint. */
  get differences(): number {
    return this.pending.size;
  }

  /** The paths where the index differs from the last checkpoint. */
  changedPaths(): string[] {
    return sortPaths([...this.pending.keys()]);
  }

  /** Index paths below the folder `dir` (none for ''). */
  under(dir: string): string[] {
    if (!this.below.get(dir)) return [];
    const prefix = `${dir}/`;
    const out: string[] = [];
    for (const p of this.files.keys()) if (p.startsWith(prefix) && this.entry(p) !== undefined) out.push(p);
    for (const [p, e] of this.pending) if (e !== null && !this.files.has(p) && p.startsWith(prefix)) out.push(p);
    return out;
  }

  /** Every index path (for the full walk's comparison). */
  paths(): string[] {
    const out: string[] = [];
    for (const p of this.files.keys()) if (this.entry(p) !== undefined) out.push(p);
    for (const [p, e] of this.pending) if (e !== null && !this.files.has(p)) out.push(p);
    return out;
  }

  get size(): number {
    let n = this.files.size;
    for (const [p, e] of this.pending) n += (e === null ? 0 : 1) - (this.files.has(p) ? 1 : 0);
    return n;
  }

  /** The index now holds `e` at `p` (null: not at all). */
  stage(p: string, e: IndexEntry | null): void {
    const had = this.entry(p) !== undefined;
    if (had !== (e !== null)) this.count(p, e === null ? -1 : 1);
    const c = this.files.get(p);
    const same = e === null ? c === undefined : c !== undefined && c.mode === e.mode && c.oid === e.oid;
    if (same) this.pending.delete(p);
    else this.pending.set(p, e);
    this.stagedTree = undefined;
  }

  /** The index was committed as `commit` (its tree is the index): the differences are the checkpoint's now. */
  committedAs(commit: string): void {
    for (const [p, e] of this.pending) {
      if (e === null) this.files.delete(p);
      else this.files.set(p, e);
    }
    this.pending.clear();
    this.commit = commit;
  }

  /** The differences turned out to be none (write-tree gave HEAD's tree): the index is HEAD's. */
  forgetPending(): void {
    this.pending.clear();
  }

  /**
   * HEAD moved to `commit`, whose tree differs from the old one by `changes` (path → the new
   * entry, null: absent). The index stays as it is: where it differs from the new tree is pending.
   */
  moveHead(commit: string, changes: Iterable<readonly [string, IndexEntry | null]>): void {
    for (const [p, e] of changes) {
      const indexed = this.entry(p) ?? null;
      if (e === null) this.files.delete(p);
      else this.files.set(p, e);
      this.pending.delete(p);
      const c = this.files.get(p);
      const same = indexed === null ? c === undefined : c !== undefined && c.mode === indexed.mode && c.oid === indexed.oid;
      if (!same) this.pending.set(p, indexed);
    }
    this.commit = commit;
    this.stagedTree = undefined;
  }

  private count(p: string, by: number): void {
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) {
      const dir = p.slice(0, i);
      this.below.set(dir, (this.below.get(dir) ?? 0) + by);
    }
  }
}

/** Paths in git's order (bytes of the UTF-8 path), as diff-tree lists them. */
export function sortPaths(paths: string[]): string[] {
  // UTF-16 order is UTF-8 byte order except around surrogate pairs (characters past U+FFFF).
  if (!paths.some((p) => /[\ud800-\udfff]/.test(p))) return paths.sort();
  const keyed = paths.map((p) => ({ p, k: Buffer.from(p, 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.k, b.k));
  return keyed.map((x) => x.p);
}

/**
 * `ls-tree -r -z --full-tree` or `ls-files -s -z` records → path → entry. A listing of 20,000
 * chapters is tens of milliseconds of parsing: `pause` (every few thousand records) lets the event
 * loop run meanwhile.
 */
export async function parseEntries(out: string, pause?: () => Promise<void>): Promise<Map<string, IndexEntry>> {
  const files = new Map<string, IndexEntry>();
  let n = 0;
  for (const rec of out.split('\0')) {
    if (pause && ++n % 2000 === 0) await pause();
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    if (tab < 0) continue;
    const meta = rec.slice(0, tab).split(' ');
    const p = rec.slice(tab + 1);
    // ls-tree: "mode type oid"; ls-files -s: "mode oid stage"
    const [mode, second, third] = meta as [string, string, string | undefined];
    const oid = /^[0-9a-f]{40,64}$/.test(second) ? second : (third ?? '');
    files.set(p, { mode, oid });
  }
  return files;
}
