// Shared helpers for the checkpoint tests: temp book folders, plain git for the novelist's own
// repos (with a clean environment of its own), and small file utilities.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CheckpointEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { ShadowRepo, isCheckpointProblem, type CheckpointResult, type CheckpointProblem, type ShadowRepoOptions } from '../../../src/checkpoints';

const made: string[] = [];

export function tmpDir(prefix = 'wl-ckpt-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

export function cleanupTmp(): void {
  while (made.length) fs.rmSync(made.pop() as string, { recursive: true, force: true });
}

export function write(root: string, rel: string, content: string | Buffer): void {
  const abs = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

export function read(root: string, rel: string): string | undefined {
  try {
    return fs.readFileSync(path.join(root, ...rel.split('/')), 'utf8');
  } catch {
    return undefined;
  }
}

export function remove(root: string, rel: string): void {
  fs.rmSync(path.join(root, ...rel.split('/')), { force: true });
}

/** Every file under `root` (skipping .worldline and .git) → content hash; symlinks as "link:<target>". */
export function fingerprint(root: string, skip: string[] = ['.worldline', '.git']): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip.includes(e.name)) continue;
      const abs = path.join(root, r);
      if (e.isSymbolicLink()) out.set(r, `link:${fs.readlinkSync(abs)}`);
      else if (e.isDirectory()) visit(r);
      else out.set(r, createHash('sha1').update(fs.readFileSync(abs)).digest('hex'));
    }
  };
  visit('');
  return out;
}

/** Manuscript snapshot: path → text for files matching `.md`/`.txt` (what the default globs track). */
export function manuscript(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === '.worldline' || e.name === '.git' || e.name.startsWith('.')) continue;
      if (e.isDirectory()) visit(r);
      else if (e.isFile() && /\.(md|txt)$/.test(e.name)) out[r] = fs.readFileSync(path.join(root, r), 'utf8');
    }
  };
  visit('');
  return out;
}

export function sha1File(p: string): string {
  return createHash('sha1').update(fs.readFileSync(p)).digest('hex');
}

/** git for the novelist's own repositories and for inspecting stores, isolated from the host. */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: path.join(os.tmpdir(), 'wl-no-home'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Novelist',
      GIT_AUTHOR_EMAIL: 'novelist@example.com',
      GIT_COMMITTER_NAME: 'Novelist',
      GIT_COMMITTER_EMAIL: 'novelist@example.com',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** git on a checkpoint store. */
export function storeGit(root: string, args: string[]): string {
  return git(root, args, { GIT_DIR: path.join(root, '.worldline', 'checkpoints.git'), GIT_WORK_TREE: root });
}

export const DEFAULT_GLOBS = ['**/*.md', '**/*.txt'];

export async function openRepo(root: string, opts: Partial<ShadowRepoOptions> = {}): Promise<ShadowRepo> {
  const r = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS, ...opts });
  if (!(r instanceof ShadowRepo)) throw new Error(`open failed: ${r.kind}: ${r.message}`);
  return r;
}

export function ok(r: CheckpointResult | CheckpointProblem): CheckpointResult {
  if (isCheckpointProblem(r)) assert.fail(`checkpoint failed: ${r.kind}: ${r.message}`);
  return r;
}

/** Files of a commit in a store, path → text. */
export function filesAt(root: string, commit: string): Record<string, string> {
  const out: Record<string, string> = {};
  const names = storeGit(root, ['ls-tree', '-r', '-z', '--name-only', commit]).split('\0').filter(Boolean);
  for (const n of names) out[n] = storeGit(root, ['cat-file', 'blob', `${commit}:${n}`]);
  return out;
}

export type Version = Record<string, string>;

/** The git tree id a manuscript version has (how git would store it), computed in Node. */
export function treeId(v: Version): string {
  const sha = (type: string, body: Buffer) => createHash('sha1').update(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])).digest();
  const build = (prefix: string): Buffer => {
    const entries = new Map<string, { mode: string; id: Buffer; dir: boolean }>();
    for (const p of Object.keys(v)) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) entries.set(rest, { mode: '100644', id: sha('blob', Buffer.from(v[p], 'utf8')), dir: false });
      else {
        const name = rest.slice(0, slash);
        if (!entries.has(name)) entries.set(name, { mode: '40000', id: build(`${prefix}${name}/`), dir: true });
      }
    }
    // git orders tree entries by name, with folder names compared as if they ended in "/"
    const order = [...entries].sort(([a, ea], [b, eb]) => Buffer.compare(Buffer.from(ea.dir ? `${a}/` : a), Buffer.from(eb.dir ? `${b}/` : b)));
    return sha('tree', Buffer.concat(order.flatMap(([name, e]) => [Buffer.from(`${e.mode} ${name}\0`), e.id])));
  };
  return build('').toString('hex');
}

/** Runs `fn` with extra host environment variables, then puts the environment back. */
export async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = new Map(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** A chapter, its checkpoint store and a session file: the book the turn-changes tests write on. */
export interface TurnBook {
  readonly root: string;
  readonly repo: ShadowRepo;
  readonly session: Session;
  /** One turn: the instruction, `edit` (the tool's writes), the reply, the checkpoint at its end. */
  turn(text: string, edit: () => void): Promise<{ user: UserEntry; checkpoint: CheckpointEntry }>;
  close(): Promise<void>;
}

export async function openTurnBook(prefix: string): Promise<TurnBook> {
  const root = tmpDir(prefix);
  write(root, 'chapters/01.md', '# One\n');
  fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
  const repo = await openRepo(root);
  const session = await Session.create(path.join(root, '.worldline', 'sessions', 's1.jsonl'), { id: 's1', title: 'test' });
  return {
    root, repo, session,
    async turn(text, edit) {
      const user = (await session.append({ type: 'user', text })) as UserEntry;
      edit();
      await session.append({ type: 'assistant', text: 'done', model: 'm', finish: 'stop' });
      const made = ok(await repo.checkpoint(user.id, session.header.id));
      const checkpoint = (await session.append({ type: 'checkpoint', commit: made.commit, ref: made.ref, changed: made.changed })) as CheckpointEntry;
      return { user, checkpoint };
    },
    async close() {
      await session.close();
      cleanupTmp();
    },
  };
}

