// Deterministic TOCTOU: at every step between a check and the operation it protects (the hook of
// confinedFile.ts), the folder or the file is swapped once for something leading outside, for
// every tool, an existing and a new file, and each strategy. Nothing outside may change and no
// outside text may come back. The count is reported as "N swaps placed, N escapes".
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Step } from '../../../src/agent/confinedFile';
import { CANARY, makeNovel, strategies, type Novel } from './confineHelpers';
import { trySymlink } from './toolsHelpers';

const STEPS: Step[] = ['mkdir', 'open', 'opened', 'temp', 'written', 'rename', 'renamed'];

type Swap = (nv: Novel, rel: string) => boolean;

/** Each swap replaces an entry of the manuscript with something that leads out; false when not applicable. */
const SWAPS: Record<string, Swap> = {
  'folder → link out': (nv) => {
    const ch = path.join(nv.root, 'chapters');
    fs.renameSync(ch, `${ch}.away`);
    return trySymlink(nv.outside, ch, 'dir');
  },
  'folder → folder holding a hard link out': (nv) => {
    const ch = path.join(nv.root, 'chapters');
    fs.renameSync(ch, `${ch}.away`);
    fs.mkdirSync(ch);
    fs.linkSync(path.join(nv.outside, '01.md'), path.join(ch, '01.md'));
    fs.mkdirSync(path.join(ch, 'new'));
    fs.linkSync(path.join(nv.outside, '03.md'), path.join(ch, 'new', '03.md'));
    return true;
  },
  'file → link out': (nv, rel) => {
    const file = path.join(nv.root, ...rel.split('/'));
    if (!fs.existsSync(path.dirname(file))) return false;
    if (fs.existsSync(file)) fs.renameSync(file, `${file}.away`);
    return trySymlink(path.join(nv.outside, path.basename(file)), file, 'file');
  },
  'file → hard link out': (nv, rel) => {
    const file = path.join(nv.root, ...rel.split('/'));
    if (!fs.existsSync(path.dirname(file))) return false;
    if (fs.existsSync(file)) fs.renameSync(file, `${file}.away`);
    fs.linkSync(path.join(nv.outside, path.basename(file)), file);
    return true;
  },
  'file → FIFO': (nv, rel) => {
    const file = path.join(nv.root, ...rel.split('/'));
    if (!fs.existsSync(path.dirname(file))) return false;
    if (fs.existsSync(file)) fs.renameSync(file, `${file}.away`);
    return takeFifo(file);
  },
};

// One mkfifo process for all FIFO swaps (spawning one per swap would dominate the runtime).
let fifoPool: string[] = [];
function takeFifo(at: string): boolean {
  const fifo = fifoPool.pop();
  if (fifo === undefined) return false;
  fs.renameSync(fifo, at);
  return true;
}

const CALLS = [
  ['read_file', (p: string) => ({ path: p })],
  ['write_file', (p: string) => ({ path: p, content: 'New text.\n' })],
  ['append_file', (p: string) => ({ path: p, content: 'More.\n' })],
  ['edit_file', (p: string) => ({ path: p, old_text: 'MARK', new_text: 'EDITED' })],
] as const;

describe('agent/confinedFile swaps between check and use (deterministic)', () => {
  let poolDir: string | undefined;
  before(() => {
    poolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-fifos-'));
    const names = Array.from({ length: 160 }, (_, i) => path.join(poolDir as string, `f${i}`));
    if (process.platform !== 'win32') {
      try {
        execFileSync('mkfifo', names, { stdio: 'ignore' });
        fifoPool = names;
      } catch {
        fifoPool = [];
      }
    }
  });
  after(() => {
    if (poolDir) fs.rmSync(poolDir, { recursive: true, force: true });
  });

  it('lets no swap at any step escape: 0 outside changes, 0 outside text returned', async function () {
    this.timeout(60_000);
    let placed = 0;
    let escapes = 0;
    let leaks = 0;
    let refused = 0;
    const seen = new Set<Step>();
    for (const strategy of await strategies()) {
      for (const [swapName, swap] of Object.entries(SWAPS)) {
        for (const step of STEPS) {
          for (const [tool, args] of CALLS) {
            for (const rel of ['chapters/01.md', 'chapters/new/03.md']) {
              let swapped = false;
              const nv = makeNovel({
                strategy: strategy === 'path' ? 'path' : 'auto',
                hook: (s) => {
                  if (s !== step || swapped) return;
                  swapped = swap(nv, rel);
                },
              });
              try {
                if (tool === 'edit_file' && rel !== 'chapters/01.md') {
                  fs.mkdirSync(path.join(nv.root, 'chapters', 'new'));
                  fs.writeFileSync(path.join(nv.root, 'chapters', 'new', '03.md'), 'Three. MARK\n');
                }
                const outsideBefore = nv.outsideNow();
                const baseBefore = nv.baseNow();
                const out = await nv.run(tool, args(rel));
                if (!swapped) continue;
                placed++;
                seen.add(step);
                if (out.isError) refused++;
                const label = `${strategy} / ${swapName} / ${step} / ${tool} ${rel}: ${out.result}`;
                if (out.result.includes(CANARY)) {
                  leaks++;
                  assert.fail(`outside text returned: ${label}`);
                }
                try {
                  assert.deepEqual(nv.outsideNow(), outsideBefore);
                  assert.deepEqual(nv.baseNow(), baseBefore);
                } catch {
                  escapes++;
                  assert.fail(`the outside changed: ${label}`);
                }
              } finally {
                nv.cleanup();
              }
            }
          }
        }
      }
    }
    console.log(`      confinement swaps: ${placed} swaps placed, ${escapes} escapes, ${leaks} leaks (${refused} refused)`);
    assert.equal(escapes + leaks, 0);
    assert.deepEqual([...seen].sort(), [...STEPS].sort(), 'every step was exercised');
    assert.ok(placed >= 100 && refused >= placed / 2, `${placed} placed, ${refused} refused`);
  });
});
