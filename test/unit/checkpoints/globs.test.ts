import { strict as assert } from 'node:assert';
import { CheckpointError, compileGlobs } from '../../../src/checkpoints';
import { expandBraces } from '../../../src/checkpoints/globs';

describe('checkpoints: manuscript globs', () => {
  it('"**/*.md" matches at any depth but not inside dot folders, .git, node_modules or .worldline', () => {
    const m = compileGlobs(['**/*.md']);
    for (const p of ['a.md', 'chapters/01.md', 'part 1/第一章.md', 'x/y/z/w.md']) assert.ok(m.matches(p), p);
    for (const p of ['a.txt', '.obsidian/x.md', 'a/.trash/b.md', '.git/x.md', 'node_modules/p/readme.md', '.worldline/sessions/a.md', 'sub/.git/x.md', '.hidden.md']) {
      assert.ok(!m.matches(p), p);
    }
  });

  it('a pattern without "/" matches the file name at any depth', () => {
    const m = compileGlobs(['*.txt']);
    assert.ok(m.matches('notes.txt'));
    assert.ok(m.matches('deep/er/notes.txt'));
    assert.ok(!m.matches('notes.md'));
  });

  it('anchored patterns, braces, classes, ? and negation', () => {
    const m = compileGlobs(['chapters/**/*.{md,txt}', 'ch?.md', '[ab]*.md', '!chapters/drafts/**']);
    assert.ok(m.matches('chapters/01.md'));
    assert.ok(m.matches('chapters/part/02.txt'));
    assert.ok(!m.matches('chapters/drafts/old.md'));
    assert.ok(!m.matches('notes/x.md'));
    assert.ok(m.matches('ch1.md') && m.matches('sub/ch2.md'));
    assert.ok(m.matches('alpha.md') && m.matches('beta.md') && !m.matches('gamma.md'));
  });

  it('a pattern that spells the dot reaches a dot folder', () => {
    const m = compileGlobs(['.drafts/*.md']);
    assert.ok(m.matches('.drafts/a.md'));
    assert.ok(!m.matches('.drafts/b/a.md'));
  });

  it('mayContain prunes folders that cannot hold manuscript files', () => {
    const m = compileGlobs(['chapters/**/*.md']);
    assert.ok(m.mayContain(''));
    assert.ok(m.mayContain('chapters'));
    assert.ok(m.mayContain('chapters/part1'));
    assert.ok(!m.mayContain('research'));
    const all = compileGlobs(['**/*.md']);
    assert.ok(all.mayContain('anything/deep'));
    assert.ok(!all.mayContain('.obsidian'));
    assert.ok(!all.mayContain('node_modules'));
    assert.ok(!all.mayContain('.worldline'));
    const dotted = compileGlobs(['**/.worldline/*.md']);
    assert.ok(dotted.mayContain('sub/.worldline'), 'only the top-level .worldline is ours');
    assert.ok(!dotted.mayContain('.worldline'));
  });

  it('expands nested braces', () => {
    assert.deepEqual(expandBraces('a{b,c{d,e}}f').sort(), ['abf', 'acdf', 'acef']);
    assert.deepEqual(expandBraces('{x}'), ['{x}']);
  });

  it('rejects empty or escaping patterns with a message for the novelist', () => {
    for (const bad of [[], [''], ['!x.md'], ['../*.md']]) {
      assert.throws(
        () => compileGlobs(bad),
        (e: unknown) => e instanceof CheckpointError && e.kind === 'badInput' && /manuscript/.test(e.message),
      );
    }
  });
});
