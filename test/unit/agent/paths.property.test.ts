// Hostile paths as properties: whatever string the model sends, nothing outside the manuscript is
// ever read or written.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { resolveManuscriptPath } from '../../../src/agent/paths';
import { isReservedSegment } from '../../../src/agent/manuscript';
import { manuscriptOf } from '../../../src/project/manuscript';
import { GLOBS, SECRET, makeSandbox, snapshot, trySymlink, type Sandbox } from './toolsHelpers';

const isManuscriptFile = (rel: string, globs: readonly string[]) => manuscriptOf(globs).matches(rel);

const PIECES = [
  '..', '.', '/', '\\', '//', 'C:', 'c:\\', '\\\\', '\0', ':', '*', '~', ' ', '\u200c', '．', '%2e', '%2e%2e', '%2f', '%5c',
  '.git', '.GIT', '.Git', '.worldline', '.WORLDLINE', 'node_modules', 'Node_Modules', 'GIT~1',
  'chapters', 'out', 'deep', 'leak.md', 'secret.md', 'outside', 'novel', '第一章', 'a b', 'x', 'CON',
  '.md', '.txt', '.json', 'worldline.yaml', 'notes.json', 'file://', '\u202e',
];

const hostilePath = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) }), { maxLength: 10 })
  .map((parts) => parts.join(''));

// Paths that are well-formed but land on the links and protected files of the sandbox.
const targetedPath = fc
  .tuple(
    fc.constantFrom('', 'chapters/', 'out/', 'deep/', 'chapters/deep/', 'chapters/inlink/', './', 'a b/', '第一卷/'),
    fc.constantFrom('secret.md', 'leak.md', 'new.md', '01.md', 'x.txt', 'inlink.md', 'yaml.md', 'dangling.md', 'loop.md', 'config.md'),
  )
  .map(([dir, file]) => dir + file);

function isInside(root: string, abs: string): boolean {
  const r = path.relative(root, abs);
  return r !== '' && !r.startsWith('..') && !path.isAbsolute(r);
}

describe('agent/paths properties', () => {
  it('every accepted path is a manuscript file strictly inside the root, canonical and idempotent', () => {
    const root = path.resolve('/books/novel');
    fc.assert(
      fc.property(hostilePath, (input) => {
        const r = resolveManuscriptPath(root, input, GLOBS);
        if (!r.ok) {
          assert.ok(r.error.length > 0 && r.error.length < 800);
          return;
        }
        assert.ok(isInside(root, r.abs), `${JSON.stringify(input)} → ${r.abs}`);
        assert.equal(r.abs, path.join(root, ...r.rel.split('/')));
        assert.ok(isManuscriptFile(r.rel, GLOBS), r.rel);
        const segs = r.rel.split('/');
        assert.ok(segs.every((s) => s !== '' && s !== '.' && s !== '..' && !isReservedSegment(s)), r.rel);
        assert.ok(!/[\0\\:*?]/.test(r.rel), r.rel);
        assert.ok(!/%2e|%2f|%5c/i.test(r.rel), r.rel);
        const again = resolveManuscriptPath(root, r.rel, GLOBS);
        assert.ok(again.ok && again.rel === r.rel);
      }),
      { numRuns: 3000 },
    );
  });

  describe('through the tools, on a real folder with links pointing out', () => {
    let sb: Sandbox;
    let links = false;

    before(() => {
      sb = makeSandbox();
      sb.write('chapters/01.md', 'Chapter one.\n');
      sb.write('worldline.yaml', 'title: t\n');
      sb.write('notes.json', '{}');
      sb.write('.git/config.md', 'git');
      sb.write('.worldline/sessions/a.md', 'session');
      fs.writeFileSync(path.join(sb.outside, 'leak.md'), SECRET);
      links =
        trySymlink(sb.outside, path.join(sb.root, 'out'), 'dir') &&
        trySymlink(path.join('..', '..', 'outside'), path.join(sb.root, 'chapters', 'deep'), 'dir') &&
        trySymlink(path.join('..', 'outside', 'secret.md'), path.join(sb.root, 'leak.md'), 'file') &&
        trySymlink(path.join(sb.outside, 'not-yet.md'), path.join(sb.root, 'dangling.md'), 'file') &&
        trySymlink('worldline.yaml', path.join(sb.root, 'yaml.md'), 'file') &&
        trySymlink('loop.md', path.join(sb.root, 'loop.md'), 'file') &&
        trySymlink('01.md', path.join(sb.root, 'chapters', 'inlink.md'), 'file');
    });
    after(() => sb.cleanup());

    it('never reads outside content nor writes outside the manuscript', async function () {
      this.timeout(120_000);
      if (!links) this.skip();
      const outsideBefore = snapshot(sb.outside);
      const protectedFiles = ['worldline.yaml', 'notes.json', '.git/config.md', '.worldline/sessions/a.md'];
      const protectedBefore = protectedFiles.map((f) => sb.read(f));
      let changes = 0;
      let refusals = 0;

      await fc.assert(
        fc.asyncProperty(
          fc.oneof(hostilePath, targetedPath),
          fc.constantFrom('read_file', 'write_file', 'append_file', 'edit_file'),
          async (p, tool) => {
            const args =
              tool === 'read_file' ? { path: p }
              : tool === 'edit_file' ? { path: p, old_text: 'Chapter one.', new_text: 'Chapter one!' }
              : { path: p, content: 'x' };
            const out = await sb.run(tool, args);
            assert.ok(!out.result.includes(SECRET), `${tool} ${JSON.stringify(p)} leaked: ${out.result}`);
            if (out.isError) refusals++;
            if (out.change) {
              changes++;
              const rel = out.change.path;
              assert.ok(isManuscriptFile(rel, GLOBS), rel);
              const real = fs.realpathSync(path.join(sb.root, rel));
              assert.ok(isInside(fs.realpathSync(sb.root), real), `${rel} → ${real}`);
              assert.ok(isManuscriptFile(path.relative(sb.root, real).split(path.sep).join('/'), GLOBS), real);
            }
          },
        ),
        { numRuns: 600 },
      );

      assert.ok(changes > 20 && refusals > 100, `the property exercised too little: ${changes} changes, ${refusals} refusals`);
      assert.deepEqual(snapshot(sb.outside), outsideBefore, 'the outside folder changed');
      assert.deepEqual(protectedFiles.map((f) => sb.read(f)), protectedBefore, 'a protected file changed');
      // Every file that now exists in the novel (links not followed) is a manuscript file or was there before.
      for (const [rel, kind] of snapshot(sb.root)) {
        if (!kind.startsWith('file:')) continue;
        assert.ok(isManuscriptFile(rel, GLOBS) || protectedFiles.includes(rel), `unexpected file ${rel}`);
      }
      assert.ok(!fs.existsSync(path.join(sb.outside, 'not-yet.md')), 'a dangling link was followed');
    });
  });
});
