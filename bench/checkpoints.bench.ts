// Checkpoint and restore latency for books of 100, 1,000 and 5,000 chapters (~3 KB each) with one
// chapter changed per turn, against the floor measured in the same run: a bare `git add <file>` +
// `git commit` of one file in a plain repo of the same size. Then the store's size after 500 turns
// on the 100-chapter book. `npm run bench checkpoints` (or require and call main()).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ShadowRepo, isCheckpointProblem, type CheckpointResult, type CheckpointProblem } from '../src/checkpoints';

const run = promisify(execFile);
const SIZES = [100, 1000, 5000];
const ROUNDS = 7;
const TURNS_FOR_SIZE = 500;

const HANZI = '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就年分对成会可也能下而子说过家后天之';
function chapterText(i: number, salt = 0): string {
  let s = `# 第${i}章\n\n`;
  let x = (i * 7919 + salt * 104729) >>> 0;
  while (Buffer.byteLength(s) < 3000) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += HANZI[x % HANZI.length];
    if (x % 37 === 0) s += '。\n';
  }
  return s;
}

function makeBook(dir: string, n: number): void {
  fs.mkdirSync(path.join(dir, 'chapters'), { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, 'chapters', `${String(i).padStart(5, '0')}.md`), chapterText(i));
}

const plainEnv = {
  PATH: process.env.PATH ?? '',
  HOME: path.join(os.tmpdir(), 'wl-bench-no-home'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.com',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.com',
};
const plainGit = (cwd: string, args: string[]) => run('git', args, { cwd, env: plainEnv, maxBuffer: 1 << 26 });

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function ok(r: CheckpointResult | CheckpointProblem): CheckpointResult {
  if (isCheckpointProblem(r)) throw new Error(`${r.kind}: ${r.message}`);
  return r;
}

function du(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? du(p) : fs.statSync(p).blocks * 512;
  }
  return total;
}

async function open(root: string, maintainEvery = 0): Promise<ShadowRepo> {
  const repo = await ShadowRepo.open(root, { globs: ['**/*.md', '**/*.txt'], maintainEvery });
  if (!(repo instanceof ShadowRepo)) throw new Error(repo.message);
  return repo;
}

interface Row {
  chapters: number;
  floor: number;
  checkpoint: number;
  noChange: number;
  restore: number;
  first: number;
}

async function measureSize(n: number, base: string): Promise<Row> {
  // One folder serves both sides: it is the novelist's plain git repo (the floor commits there)
  // and the book whose shadow store we measure (which never looks at that .git).
  const book = path.join(base, `book-${n}`);
  makeBook(book, n);
  await plainGit(book, ['init', '-q']);
  await plainGit(book, ['add', '-A']);
  await plainGit(book, ['commit', '-q', '-m', 'init']);
  const repo = await open(book);
  const first = await time(async () => ok(await repo.checkpoint('t0', 'bench')));
  const floor: number[] = [];
  const cp: number[] = [];
  const same: number[] = [];
  const restore: number[] = [];
  const commits: string[] = [];
  // Interleaved, so machine load hits both sides alike; both see the same one-chapter edit.
  for (let r = 0; r < ROUNDS; r++) {
    const idx = (r * 37) % n;
    const name = `chapters/${String(idx).padStart(5, '0')}.md`;
    fs.writeFileSync(path.join(book, name), chapterText(idx, r + 1));
    floor.push(
      await time(async () => {
        await plainGit(book, ['add', name]);
        await plainGit(book, ['commit', '-q', '-m', `turn ${r}`]);
      }),
    );
    cp.push(await time(async () => commits.push(ok(await repo.checkpoint(`t${r + 1}`, 'bench')).commit)));
    same.push(await time(async () => ok(await repo.checkpoint(`t${r + 1}b`, 'bench'))));
  }
  // Restore one turn back: one chapter differs (plus its safety checkpoint, which is unchanged).
  for (let r = 1; r < ROUNDS; r++) restore.push(await time(() => repo.restore(commits[r - 1])));
  return { chapters: n, floor: median(floor), checkpoint: median(cp), noChange: median(same), restore: median(restore), first };
}

async function measureGrowth(base: string, maintainEvery: number): Promise<{ bytes: number; perTurn: number; ms: number }> {
  const book = path.join(base, `growth-${maintainEvery}`);
  makeBook(book, 100);
  const repo = await open(book, maintainEvery);
  const t0 = Date.now();
  for (let t = 0; t < TURNS_FOR_SIZE; t++) {
    const idx = (t * 13) % 100;
    const file = path.join(book, 'chapters', `${String(idx).padStart(5, '0')}.md`);
    // "edits one chapter slightly": one new sentence appended
    fs.appendFileSync(file, `第${t}回，雨还在下。\n`);
    ok(await repo.checkpoint(`t${t}`, 'growth'));
  }
  await repo.health(); // waits for any packing still queued
  const ms = Date.now() - t0;
  return { bytes: du(path.join(book, '.worldline', 'checkpoints.git')), perTurn: ms / TURNS_FOR_SIZE, ms };
}

export async function main(): Promise<void> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-bench-ckpt-'));
  const started = Date.now();
  try {
    const rows: Row[] = [];
    for (const n of SIZES) rows.push(await measureSize(n, base));
    console.log('checkpoint latency, one chapter changed (median of %d; ms)', ROUNDS);
    console.log('chapters | floor add+commit | checkpoint | ratio | no-change | restore 1 file | ratio | first checkpoint');
    for (const r of rows) {
      console.log(
        [r.chapters, r.floor, r.checkpoint, r.checkpoint / r.floor, r.noChange, r.restore, r.restore / r.floor, r.first]
          .map((v, i) => (i === 0 ? String(v).padStart(8) : i === 3 || i === 6 ? `${v.toFixed(2)}x`.padStart(6) : v.toFixed(1).padStart(8)))
          .join(' | '),
      );
    }
    const g = await measureGrowth(base, 200);
    console.log(
      `\nstore size after ${TURNS_FOR_SIZE} turns on the 100-chapter book (one chapter edited per turn, default packing every 200 commits): ` +
        `${(g.bytes / 1024 / 1024).toFixed(2)} MiB (du of checkpoints.git); ${g.perTurn.toFixed(1)} ms per turn including packing`,
    );
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
