// Free-running TOCTOU: a second process swaps chapters/ for a link to an outside folder (laid out
// like chapters/, canary contents) and back, chapters/01.md for a link out, chapters/02.md for a
// hard link out, and chapters/ for a real folder of hard links out, as fast as it can, while this
// process writes, appends, edits and reads through the tools and the file system layer. After
// every call the outside folder is compared with its first state: any difference is an escape.
// Refusals during the race are expected; lost manuscript text is not the question here.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runs } from '../long-mode';
import { CANARY, makeNovel, strategies, type Novel } from './confineHelpers';

// Runs as `node -e SWAPPER root outside`; stops on "stop" on stdin (or after 10 minutes), puts
// everything back and prints its counts. Now and then it leaves everything in place for a few ms
// so that some calls get through whole. It only ever renames, links and unlinks names inside
// the novel folder, and never while chapters/ is anything but the real folder.
const SWAPPER = String.raw`
const fs = require('fs'), path = require('path');
const [root, outside] = process.argv.slice(1);
const ch = path.join(root, 'chapters'), away = path.join(root, 'chapters.away');
let stop = false, flips = 0, failed = 0;
process.stdin.on('data', () => { stop = true; });
setTimeout(() => { stop = true; }, 600000).unref();
const lst = (p) => fs.lstatSync(p, { throwIfNoEntry: false });
const tryDo = (f) => { try { f(); return true; } catch { failed++; return false; } };
const spin = () => { const n = (Math.random() * 3000) | 0; let x = 0; for (let i = 0; i < n; i++) x += i; return x; };
function restoreDir() {
  // Retried: the agent may create chapters/ again in the gap between the removal and the rename.
  for (let k = 0; k < 1000 && lst(away); k++) {
    try {
      const st = lst(ch);
      if (st && st.isSymbolicLink()) fs.unlinkSync(ch);
      else if (st && st.isDirectory()) fs.rmSync(ch, { recursive: true, force: true }); // ours, or one the agent made in the gap
      fs.renameSync(away, ch);
    } catch {}
  }
}
function swapFile(name, make) {
  const f = path.join(ch, name), fa = f + '.away';
  if (!tryDo(() => fs.renameSync(f, fa))) return;
  tryDo(() => make(f));
  flips++;
  spin();
  const st = lst(f);
  tryDo(() => { if (st && (st.isSymbolicLink() || st.nlink > 1)) fs.unlinkSync(f); });
  tryDo(() => fs.renameSync(fa, f));
}
function one() {
  const r = Math.random();
  if (r < 0.35) {
    if (!tryDo(() => fs.renameSync(ch, away))) return;
    tryDo(() => fs.symlinkSync(outside, ch, 'dir'));
    flips++; spin(); restoreDir();
  } else if (r < 0.5) {
    if (!tryDo(() => fs.renameSync(ch, away))) return;
    tryDo(() => { fs.mkdirSync(ch); fs.linkSync(path.join(outside, '01.md'), path.join(ch, '01.md')); fs.linkSync(path.join(outside, '02.md'), path.join(ch, '02.md')); });
    flips++; spin(); restoreDir();
  } else if (r < 0.75) {
    swapFile('01.md', (f) => fs.symlinkSync(path.join(outside, '01.md'), f));
  } else {
    swapFile('02.md', (f) => fs.linkSync(path.join(outside, '02.md'), f));
  }
  spin();
  // Now and then leave everything in place for up to 4 ms, so that some calls get through whole.
  if (Math.random() < 0.2) { const until = Date.now() + Math.random() * 4; while (Date.now() < until); }
}
function burst() {
  const until = Date.now() + 20;
  while (!stop && Date.now() < until) one();
  if (!stop) return setImmediate(burst);
  restoreDir();
  process.stdout.write(JSON.stringify({ flips, failed }) + '\n');
  process.exit(0);
}
process.stdout.write('ready\n');
burst();
`;

interface Swapper {
  child: ChildProcess;
  stop(): Promise<{ flips: number; failed: number }>;
}

async function startSwapper(nv: Novel): Promise<Swapper> {
  const child = spawn(process.execPath, ['-e', SWAPPER, nv.root, nv.outside], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.on('data', (d: string) => {
      out += d;
      if (out.startsWith('ready\n')) resolve();
    });
  });
  return {
    child,
    stop: () =>
      new Promise((resolve, reject) => {
        child.once('exit', () => {
          try {
            resolve(JSON.parse(out.slice('ready\n'.length)) as { flips: number; failed: number });
          } catch (err) {
            reject(err);
          }
        });
        child.stdin?.end('stop\n');
      }),
  };
}

/** Puts the outside folder back as it was, so that each escape is counted once. */
function restoreOutside(nv: Novel, baseline: Map<string, string>): void {
  for (const [rel] of [...nv.outsideNow()].reverse()) {
    if (!baseline.has(rel)) fs.rmSync(path.join(nv.outside, rel), { recursive: true, force: true });
  }
  for (const [rel, v] of baseline) fs.writeFileSync(path.join(nv.outside, rel), v.slice('file:'.length));
}

describe('agent/confinedFile against a free-running swapper in another process', () => {
  const MAX_WRITES = runs(3000, 20_000);
  const MAX_MS = runs(6000, 120_000);

  for (const strategy of ['handle', 'path'] as const) {
    it(`strategy ${strategy}: 0 escapes, 0 outside text read`, async function () {
      if (!(await strategies()).includes(strategy) || process.platform === 'win32') this.skip();
      this.timeout(MAX_MS * 3 + 30_000);
      const nv = makeNovel({ strategy: strategy === 'path' ? 'path' : 'auto' });
      let swapper: Swapper | undefined;
      try {
        const baseline = nv.outsideNow();
        const baseNames = nv.baseNow();
        swapper = await startSwapper(nv);
        let writes = 0;
        let reads = 0;
        let refused = 0;
        let escapes = 0; // bytes written outside: an outside file changed, or a new one with content
        let strays = 0; // an empty file or folder of ours left outside (path strategy residual)
        let leaks = 0;
        const start = Date.now();
        for (let i = 0; writes < MAX_WRITES && Date.now() - start < MAX_MS; i++) {
          const pick = i % 8;
          let text = '';
          // Half through the tools (with their early path check), half straight to the file-system layer.
          const tool = async (name: string, args: unknown): Promise<void> => {
            const out = await nv.run(name, args);
            text = out.result;
            if (out.isError) refused++;
          };
          try {
            if (pick === 0) await tool('write_file', { path: 'chapters/01.md', content: `One ${i}. MARK\n` });
            else if (pick === 1) await tool('append_file', { path: 'chapters/02.md', content: `line ${i}\n` });
            else if (pick === 2) await tool('edit_file', { path: 'chapters/01.md', old_text: 'MARK', new_text: `MARK${i}` });
            else if (pick === 3) await tool('write_file', { path: `chapters/new${i % 7}/03.md`, content: `Three ${i}.\n` });
            else if (pick === 4) await nv.fs.writeText('chapters/01.md', `Direct ${i}.\n`);
            else if (pick === 5) await nv.fs.writeText('chapters/02.md', `Direct ${i}.\n`);
            else if (pick === 6) await nv.fs.writeText(`chapters/d${i % 5}/01.md`, `Deep ${i}.\n`);
            else text = (await nv.fs.readText(i % 16 === 7 ? 'chapters/01.md' : 'chapters/02.md')) ?? '';
          } catch {
            refused++; // refused by the file-system layer (a ConfinementError, or a folder gone in the race)
          }
          if (pick === 7) reads++;
          else writes++;
          if (text.includes(CANARY)) leaks++;
          const now = nv.outsideNow();
          let same = now.size === baseline.size;
          for (const [k, v] of baseline) if (now.get(k) !== v) same = false;
          if (!same || nv.baseNow().join('/') !== baseNames.join('/')) {
            const diff = [...now].filter(([k, v]) => baseline.get(k) !== v);
            const empty = diff.every(([k, v]) => !baseline.has(k) && (v === 'dir' || v === 'file:')) && [...baseline.keys()].every((k) => now.has(k));
            if (empty && nv.baseNow().join('/') === baseNames.join('/')) strays++;
            else {
              escapes++;
              console.log(`      escape at call ${i}: ${JSON.stringify(diff)} ${nv.baseNow().join(',')}`);
            }
            restoreOutside(nv, baseline);
          }
        }
        const { flips } = await swapper.stop();
        swapper = undefined;
        console.log(`      ${strategy}: ${writes} writes tried, ${escapes} escapes, ${strays} empty strays; ${reads} reads, ${leaks} leaks; ${refused} refused; ${flips} swaps by the other process`);
        assert.equal(escapes, 0, `${escapes} writes changed the outside folder`);
        // By handle nothing can even be created outside; by path an empty entry may be (see writeConfined).
        if (strategy === 'handle') assert.equal(strays, 0, `${strays} empty entries left outside`);
        assert.equal(leaks, 0, `${leaks} reads returned outside text`);
        assert.deepEqual(nv.outsideNow(), baseline);
        assert.ok(flips > writes / 4, `the swapper ran too little (${flips} swaps)`);
        assert.ok(refused > 0 && refused < writes + reads, `the race was one-sided: ${refused} refused of ${writes + reads}`);
      } finally {
        if (swapper) await swapper.stop().catch(() => undefined);
        nv.cleanup();
      }
    });
  }
});
