// The manuscript property: for any `manuscript:` globs and any path p,
//   the agent may write p  ⇔  the checkpoints track p  ⇔  p is counted (and is checked when unsaved),
// and reserved paths are none of these. The agent's side is `resolveManuscriptPath`; the
// checkpoints' and the word count's is `walkManuscript` (the status bar counts what it lists), and
// for a subset a real ShadowRepo's commit; the unsaved-editor check is `isManuscriptAt`.
// Paths use names any file system accepts: the agent refuses some spellings on top (":", "~1",
// trailing dots…), and the first property checks that direction separately.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { resolveManuscriptPath } from '../../../src/agent/paths';
import { ShadowRepo, isCheckpointProblem, walkManuscript } from '../../../src/checkpoints';
import { parseProjectConfig, type ProjectConfig } from '../../../src/project/config';
import { isManuscriptAt, isReservedPath } from '../../../src/project/manuscript';
import { runs } from '../long-mode';

const GLOB_PARTS = [
  '**', '*', '*.md', '*.txt', '*.MD', 'chapters', 'Chapters', 'drafts', '.drafts', '.obsidian', '.vscode', '.git',
  'node_modules', '.worldline', 'worldline.yaml', '*.{md,txt}', 'ch?.md', '[ab]*.md', '*.json', '*.yaml', 'part 1', '..', '.', '*.js',
];
const DIRS = ['chapters', 'Chapters', 'drafts', '.drafts', '.obsidian', '.vscode', '.VSCode', '.git', '.GIT', 'node_modules', '.worldline', 'scripts', 'part 1', '第一卷', 'sub'];
const FILES = ['a.md', 'b.txt', 'ch1.md', 'x.js', 'settings.json', 'worldline.yaml', 'Worldline.YAML', 'NOTE.MD', '.hidden.md', 'alpha.md', '第一章.md', 'c.yaml'];

const glob = fc
  .tuple(
    fc.constantFrom('', '', '', '!', './'),
    fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...GLOB_PARTS) }, { weight: 1, arbitrary: fc.constantFrom(...DIRS, ...FILES) }), { minLength: 1, maxLength: 3 }),
    fc.constantFrom('', '', '/'),
  )
  .map(([pre, parts, post]) => pre + parts.join('/') + post);
const globs = fc.array(glob, { minLength: 1, maxLength: 4 });
const relPath = fc
  .tuple(fc.array(fc.constantFrom(...DIRS), { maxLength: 3 }), fc.constantFrom(...FILES))
  .map(([dirs, file]) => [...dirs, file].join('/'));
const oddPath = fc.oneof(
  { weight: 5, arbitrary: relPath },
  { weight: 1, arbitrary: fc.constantFrom('../a.md', 'a/../b.md', './a.md', 'a//b.md', '/a.md', 'chapters/', '') },
);

/** A path made from one of the globs (stars filled in, "**" as 0–2 folders), so paths land near the patterns. */
function nearPath(list: string[]): fc.Arbitrary<string> {
  const fill = fc.constantFrom('', 'a', 'ch1', 'x', '.');
  return fc
    .tuple(fc.constantFrom(...list), fc.array(fc.constantFrom(...DIRS), { maxLength: 2 }), fc.array(fill, { minLength: 8, maxLength: 8 }), fc.constantFrom(...FILES))
    .map(([g, dirs, fills, file]) => {
      let k = 0;
      const parts = g.replace(/^!/, '').replace(/^\.\//, '').split('/').flatMap((part) => {
        if (part === '**') return dirs;
        if (part === '') return [file];
        return [part.replace(/\{md,txt\}/g, 'md').replace(/\[ab\]/g, 'b').replace(/\?/g, '1').replace(/\*/g, () => fills[k++ % fills.length] as string)];
      });
      const out = parts.filter((x) => x !== '');
      return (out.length === 0 ? [file] : out).join('/');
    });
}

const listAndPath = globs.chain((list) => fc.tuple(fc.constant(list), fc.oneof(oddPath, nearPath(list))));

const ROOT = path.resolve('/books/novel');

function configOf(list: string[]): ProjectConfig {
  return parseProjectConfig(`manuscript: ${JSON.stringify(list)}\n`).config;
}

function agentMayWrite(config: ProjectConfig, p: string): boolean {
  const viaMatcher = resolveManuscriptPath(ROOT, p, config.manuscriptMatcher);
  const viaGlobs = resolveManuscriptPath(ROOT, p, config.manuscript); // what the shell passes today
  assert.equal(viaGlobs.ok && viaGlobs.rel, viaMatcher.ok && viaMatcher.rel, p);
  return viaMatcher.ok && viaMatcher.rel === p;
}

/** What the walk selects for a path known to be a file on disk: the file matches, and no folder above it is pruned. */
function walkSelects(config: ProjectConfig, p: string): boolean {
  const m = config.manuscriptMatcher;
  const segs = p.split('/');
  for (let i = 1; i < segs.length; i++) if (!m.mayContain(segs.slice(0, i).join('/'))) return false;
  return m.matches(p);
}

/** Canonical paths, none both a file and a folder, none where the store lives. */
function fileSet(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of [...new Set(paths)]) {
    if (!p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')) continue;
    if (p === '.worldline' || p.startsWith('.worldline/')) continue; // the store's own folder: a file there stops it
    const clash = out.some((q) => q.startsWith(`${p}/`) || p.startsWith(`${q}/`));
    if (!clash) out.push(p);
  }
  return out.sort();
}

describe('project/manuscript property: the agent may write p ⇔ the checkpoints track p ⇔ p is counted', () => {
  const temps: string[] = [];
  after(() => {
    for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
  });

  it('the cases of issue 11', () => {
    const c = configOf(['**/*.md', '!drafts/**']);
    for (const p of ['worldline.yaml', '.vscode/settings.json', 'scripts/x.js', 'drafts/a.md']) {
      assert.ok(!agentMayWrite(c, p) && !walkSelects(c, p), p);
    }
    for (const list of [['*.md'], ['chapters/']]) {
      const k = configOf(list);
      assert.ok(agentMayWrite(k, 'chapters/01.md') && walkSelects(k, 'chapters/01.md'), list.join());
      assert.ok(isManuscriptAt(k.manuscriptMatcher, ROOT, path.join(ROOT, 'chapters', '01.md')), list.join());
    }
  });

  it('as a function of globs and path (agent ⇔ walk ⇔ unsaved-editor check; reserved never)', () => {
    let taken = 0;
    let refused = 0;
    fc.assert(
      fc.property(listAndPath, fc.boolean(), ([list, written], swap) => {
        const config = configOf(list);
        // Letter case flipped too: the folders a walk enters are compared as the patterns are.
        const p = swap ? [...written].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('') : written;
        const agent = agentMayWrite(config, p);
        const walk = walkSelects(config, p);
        assert.equal(agent, walk, `${JSON.stringify(list)} ${p}: agent ${agent}, checkpoints ${walk}`);
        // An editor's file has a real place: only canonical paths have one.
        if (p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')) {
          const editor = isManuscriptAt(config.manuscriptMatcher, ROOT, path.join(ROOT, ...p.split('/')));
          assert.equal(editor, walk, `${JSON.stringify(list)} ${p}: unsaved-editor check ${editor}`);
        }
        if (isReservedPath(p)) assert.ok(!agent && !walk, p);
        if (agent) taken++;
        else refused++;
      }),
      { numRuns: runs(3000, 50_000) },
    );
    assert.ok(taken > 200 && refused > 200, `exercised too little: ${taken} taken, ${refused} refused`);
  });

  it('the agent never accepts a path the checkpoints would not track, whatever its spelling', () => {
    const anyPath = fc.array(fc.oneof(fc.constantFrom(...DIRS, ...FILES, '..', '.', '', ' ', 'a:b.md', 'GIT~1', 'x.md.', '\\', '%2e'), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    fc.assert(
      fc.property(globs, anyPath, (list, p) => {
        const config = configOf(list);
        const r = resolveManuscriptPath(ROOT, p, config.manuscriptMatcher);
        if (r.ok) assert.ok(walkSelects(config, r.rel), `${JSON.stringify(list)} ${JSON.stringify(p)} → ${r.rel}`);
      }),
      { numRuns: runs(2000, 30_000) },
    );
  });

  it('on a real folder: the walk (checkpoints and word count) lists exactly the files the agent may write, and a real store commits them', async function () {
    this.timeout(runs(60_000, 900_000));
    let stores = 0;
    let tracked = 0;
    await fc.assert(
      fc.asyncProperty(globs.chain((l) => fc.tuple(fc.constant(l), fc.array(fc.oneof(relPath, nearPath(l)), { minLength: 3, maxLength: 14 }))), fc.boolean(), async ([list, paths], withStore) => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-manuscript-'));
        temps.push(root);
        const files = fileSet(paths);
        for (const f of files) {
          fs.mkdirSync(path.join(root, ...f.split('/').slice(0, -1)), { recursive: true });
          fs.writeFileSync(path.join(root, ...f.split('/')), `${f}\n`);
        }
        const config = configOf(list);
        const agent = files.filter((f) => agentMayWrite(config, f));
        const walked = (await walkManuscript(root, config.manuscriptMatcher)).files.sort();
        assert.deepEqual(walked, agent, `${JSON.stringify(list)}: walk vs agent`);
        tracked += walked.length;
        // A real store for about one run in four (git is the slow part).
        if (withStore && stores < runs(12, 120)) {
          stores++;
          for (const spec of [config.manuscriptMatcher, config.manuscript]) {
            const repo = await ShadowRepo.open(root, { globs: spec });
            if (!(repo instanceof ShadowRepo)) assert.fail(`open: ${repo.message}`);
            const r = await repo.checkpoint('t1', 's');
            if (isCheckpointProblem(r)) assert.fail(r.message);
            assert.deepEqual((await repo.filesAt(r.commit)).sort(), agent, `${JSON.stringify(list)}: store vs agent`);
          }
        }
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: runs(60, 600) },
    );
    assert.ok(stores >= 3 && tracked > 20, `exercised too little: ${stores} stores, ${tracked} files tracked`);
  });
});
