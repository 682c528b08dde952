// Property test: random parent links (self-parents, loops of any length, links to later lines,
// missing parents, duplicate ids, navigations) through the real file loader. Every walk on every
// entry runs in a worker thread with a time and heap limit, so a walk that never ends fails the
// test instead of hanging it; the loaded tree must be exactly the entries whose parent chain ends.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { removeTempDirs, tempDir } from './helpers';
import type { WalkRequest, WalkResult } from './walk-worker';

const ID = 'feedc0de';
const TS = '2025-03-01T12:00:00.000Z';
const WALK_TIMEOUT_MS = 10_000;

type ParentPick = { kind: 'null' } | { kind: 'self' } | { kind: 'ghost' } | { kind: 'earlier' | 'any'; j: number };
type LineSpec =
  | { kind: 'entry'; parent: ParentPick; assistant: boolean }
  | { kind: 'dup'; of: number; parent: ParentPick }
  | { kind: 'nav'; to: number | null };

const parentArb: fc.Arbitrary<ParentPick> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'null' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'self' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'ghost' as const }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('earlier' as const), j: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('any' as const), j: fc.nat() }) },
);
const lineArb: fc.Arbitrary<LineSpec> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('entry' as const), parent: parentArb, assistant: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dup' as const), of: fc.nat(), parent: parentArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('nav' as const), to: fc.option(fc.nat(), { nil: null }) }) },
);

interface Written {
  lines: { line: number; id: string; kind: 'chain' | 'nav'; parentId: string | null; targetId?: string | null }[];
}

/** Turns the specs into concrete lines: entry k has id `e<k>`; picks resolve modulo the entry count. */
function concretize(specs: LineSpec[]): Written {
  const entryCount = Math.max(1, specs.filter((s) => s.kind === 'entry').length);
  const out: Written['lines'] = [];
  let k = 0;
  let nav = 0;
  const resolve = (p: ParentPick, self: string, before: number): string | null => {
    if (p.kind === 'null') return null;
    if (p.kind === 'self') return self;
    if (p.kind === 'ghost') return 'ghost';
    const range = p.kind === 'earlier' ? Math.max(1, before) : entryCount;
    return `e${p.j % range}`;
  };
  specs.forEach((s, i) => {
    const line = i + 2;
    if (s.kind === 'entry') {
      const id = `e${k}`;
      out.push({ line, id, kind: 'chain', parentId: resolve(s.parent, id, k) });
      k++;
    } else if (s.kind === 'dup') {
      const id = `e${s.of % entryCount}`;
      out.push({ line, id, kind: 'chain', parentId: resolve(s.parent, id, k) });
    } else {
      out.push({ line, id: `n${nav++}`, kind: 'nav', parentId: null, targetId: s.to === null ? null : `e${s.to % entryCount}` });
    }
  });
  return { lines: out };
}

function writeFile(w: Written, specs: LineSpec[]): string {
  const file = path.join(tempDir('wl-treeprop-'), `${ID}.jsonl`);
  const text = [JSON.stringify({ type: 'session', version: 1, id: ID, createdAt: TS, title: '乱序' })];
  w.lines.forEach((l, i) => {
    const spec = specs[i];
    if (l.kind === 'nav') text.push(JSON.stringify({ id: l.id, parentId: null, type: 'leaf', ts: TS, targetId: l.targetId }));
    else if (spec.kind === 'entry' && spec.assistant) {
      text.push(JSON.stringify({ id: l.id, parentId: l.parentId, type: 'assistant', ts: TS, text: `答 ${l.id}`, model: 'm', finish: 'stop' }));
    } else text.push(JSON.stringify({ id: l.id, parentId: l.parentId, type: 'user', ts: TS, text: `问 ${l.id}` }));
  });
  fs.writeFileSync(file, text.join('\n') + '\n');
  return file;
}

/** What the loader must make of the lines: kept entries with their paths, the cut lines, the leaf. */
function model(w: Written): { paths: Record<string, string[]>; corrupt: number[]; leaf: string | null } {
  const parentOf = new Map<string, string | null>();
  const lineOf = new Map<string, number>();
  const corrupt: number[] = [];
  const seq = new Map<string, number>();
  let counter = 0;
  let leaf: string | null = null;
  for (const l of w.lines) {
    if (l.kind === 'nav') {
      const t = l.targetId ?? null;
      if (t === null || parentOf.has(t)) {
        leaf = t;
        counter++;
        if (t !== null) seq.set(t, counter);
      }
      continue;
    }
    if (parentOf.has(l.id)) {
      corrupt.push(l.line);
      continue;
    }
    parentOf.set(l.id, l.parentId);
    lineOf.set(l.id, l.line);
    leaf = l.id;
    seq.set(l.id, ++counter);
  }
  const raw = (id: string): string | null => {
    const p = parentOf.get(id) ?? null;
    return p !== null && parentOf.has(p) ? p : null;
  };
  const paths: Record<string, string[]> = {};
  for (const id of parentOf.keys()) {
    const seen = new Set<string>();
    const p: string[] = [];
    let cur: string | null = id;
    while (cur !== null && !seen.has(cur)) {
      seen.add(cur);
      p.push(cur);
      cur = raw(cur);
    }
    if (cur === null) paths[id] = p.reverse();
    else corrupt.push(lineOf.get(id) as number);
  }
  if (leaf !== null && !paths[leaf]) {
    let best: string | null = null;
    for (const id of Object.keys(paths)) if ((seq.get(id) ?? 0) > (best === null ? 0 : (seq.get(best) ?? 0))) best = id;
    leaf = best;
  }
  return { paths, corrupt: corrupt.sort((a, b) => a - b), leaf };
}

describe('tree walks over hostile parent links (property test)', function () {
  this.timeout(600_000);
  let worker: Worker;
  const start = () => {
    worker = new Worker(path.join(__dirname, 'walk-worker.js'), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
  };
  before(start);
  after(() => worker.terminate());
  afterEach(removeTempDirs);

  function walk(req: WalkRequest): Promise<WalkResult> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        void worker.terminate();
        start();
        reject(new Error(`the walks did not finish within ${WALK_TIMEOUT_MS} ms`));
      }, WALK_TIMEOUT_MS);
      const onMessage = (r: WalkResult) => {
        cleanup();
        if (r.error) reject(new Error(r.error));
        else resolve(r);
      };
      const onError = (e: Error) => {
        cleanup();
        start();
        reject(e);
      };
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(req);
    });
  }

  let tried = 0;
  it('loads exactly the entries whose parent chain ends; every walk ends, before and after appends and on reopen', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 40 }), fc.array(fc.integer({ min: -1, max: 50 }), { maxLength: 4 }), async (specs, appends) => {
        tried++;
        const w = concretize(specs);
        const file = writeFile(w, specs);
        const expected = model(w);
        const r = await walk({ file, appends });
        assert.deepEqual(r.corruptLines, expected.corrupt);
        assert.deepEqual(r.paths, expected.paths);
        assert.equal(r.leafId, expected.leaf);
        for (const [id, p] of Object.entries(expected.paths)) assert.deepEqual(r.afterAppends[id], p, 'appends change no old path');
        assert.equal(Object.keys(r.afterAppends).length, Object.keys(expected.paths).length + appends.length);
        assert.deepEqual(r.reopened, r.afterAppends, 'reopening gives the same tree');
      }),
      { numRuns: runs(200, 2000) },
    );
    console.log(`      hostile parent links: ${tried} tried, 0 failed`);
  });
});
