// The status bar's figures: the words of exactly the files the project's one matcher accepts, an
// open editor's text preferred, overlapping counts resolved newest-first, and the turn's delta.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { countWords } from '../../../src/agent/manuscript';
import { compileManuscript } from '../../../src/project/manuscript';
import { WordCounter, countManuscript, diskReader, type CountSource, type ReadText } from '../../../src/project/wordCount';
import { cleanupTmp, tmpDir, write } from '../checkpoints/helpers';
import { runs } from '../long-mode';

function book(): string {
  const root = tmpDir('wl-words-');
  write(root, 'chapters/01.md', '# 第一章\n\n雨夜，客栈。');
  write(root, 'chapters/02.md', 'The rain kept on.');
  write(root, 'drafts/old.md', '废稿废稿废稿');
  write(root, 'notes.txt', 'one two');
  write(root, 'worldline.yaml', 'title: 雨夜\nmanuscript: ["**/*.md", "!drafts/**"]\n');
  write(root, '.vscode/settings.json', '{"worldline.model": "x"}');
  write(root, '.worldline/sessions/s.jsonl', '{"type":"session"}\n');
  return root;
}

const matcher = compileManuscript(['**/*.md', '!drafts/**']).matcher;

/** A reader that waits until the test lets it go, then reads every file as one character. */
function gatedReader(): { read: ReadText; release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { read: async () => { await gate; return '字'; }, release };
}

function counter(source: () => CountSource | undefined, debounceMs = 500) {
  const log = { changed: 0, warnings: [] as string[] };
  const c = new WordCounter({ source, changed: () => log.changed++, warn: (m) => log.warnings.push(m), debounceMs });
  return { c, log };
}

describe('word count', () => {
  afterEach(cleanupTmp);

  it('counts the words of the manuscript files only, with ! excludes and reserved paths left out', async () => {
    const root = book();
    const expected = countWords('# 第一章\n\n雨夜，客栈。') + countWords('The rain kept on.');
    assert.equal(await countManuscript({ root, matcher }), expected);
    // notes.txt is not in these globs; drafts are excluded; worldline.yaml and .vscode never count.
    assert.equal(await countManuscript({ root, matcher: compileManuscript(['**/*']).matcher }),
      expected + countWords('废稿废稿废稿') + countWords('one two'));
  });

  it('prefers what the reader gives (an open editor\'s unsaved text), and skips a file that is gone', async () => {
    const root = book();
    const disk = diskReader(root);
    const read: ReadText = async (rel) => (rel === 'chapters/01.md' ? '未保存的一句话' : rel === 'chapters/02.md' ? undefined : disk(rel));
    assert.equal(await countManuscript({ root, matcher, read }), countWords('未保存的一句话'));
    fs.rmSync(path.join(root, 'chapters', '02.md'));
    assert.equal(await diskReader(root)('chapters/02.md'), undefined);
    assert.equal(await countManuscript({ root, matcher }), countWords('# 第一章\n\n雨夜，客栈。'));
  });

  it('counted ⇔ the matcher accepts the path (never a reserved one), for random globs', async () => {
    const root = tmpDir('wl-words-prop-');
    const names = ['a.md', 'b.txt', 'c/d.md', 'c/.hidden.md', '.obsidian/x.md', 'drafts/e.md', 'c/drafts/f.txt', 'worldline.yaml', '.vscode/s.md', '.git/g.md'];
    // File i has 2^i words, so the total names exactly the set of files counted.
    names.forEach((n, i) => write(root, n, 'w '.repeat(2 ** i)));
    const glob = fc.constantFrom('**/*.md', '*.md', '**/*.txt', 'c/', 'drafts/**', '!drafts/**', '!c/**', '**/*', '.obsidian/', '!*.txt', '**/.*', '*', 'worldline.yaml', '.vscode/**');
    await fc.assert(fc.asyncProperty(fc.array(glob, { minLength: 1, maxLength: 4 }), async (globs) => {
      const m = compileManuscript(globs).matcher;
      const counted = names.filter((n) => m.matches(n));
      assert.ok(!counted.some((n) => n === 'worldline.yaml' || n.startsWith('.vscode/') || n.startsWith('.git/')), `reserved path accepted by ${globs.join(' ')}`);
      const expected = names.reduce((sum, n, i) => sum + (m.matches(n) ? 2 ** i : 0), 0);
      assert.equal(await countManuscript({ root, matcher: m }), expected, globs.join(' '));
    }), { numRuns: runs(40, 400) });
  });

  it('an older count that finishes last never overwrites a newer one', async () => {
    const root = book();
    const slow = gatedReader();
    let source: CountSource = { root, matcher, read: slow.read };
    const { c, log } = counter(() => source);
    const older = c.count();
    source = { root, matcher };
    const newer = await c.count();
    assert.equal(c.words, newer);
    slow.release();
    const old = await older;
    assert.equal(old, 2, 'the older count read its own text');
    assert.equal(c.words, newer, 'the newer total stays shown');
    assert.equal(log.changed, 1);
  });

  it('a turn sets the delta from its changes, then counts again; whenTurnCounted waits for it', async () => {
    const root = book();
    const { c, log } = counter(() => ({ root, matcher }));
    assert.equal(c.turnDelta, undefined);
    write(root, 'chapters/01.md', '# 第一章\n\n雨夜，客栈。她推门进来。');
    void c.turnEnded([{ before: '# 第一章\n\n雨夜，客栈。', after: '# 第一章\n\n雨夜，客栈。她推门进来。' }]);
    assert.equal(c.turnDelta, countWords('她推门进来。'));
    await c.whenTurnCounted();
    assert.equal(c.words, countWords('# 第一章\n\n雨夜，客栈。她推门进来。') + countWords('The rain kept on.'));
    assert.equal(log.changed, 2, 'once for the delta, once for the total');
    await c.turnEnded([{ before: undefined, after: 'Two words' }]);
    assert.equal(c.turnDelta, 2, 'only the last turn');
  });

  it('a failed count is reported and keeps the last total; no novel counts nothing', async () => {
    const root = book();
    let source: CountSource | undefined = { root, matcher };
    const { c, log } = counter(() => source);
    const first = await c.count();
    source = { root: path.join(root, 'gone'), matcher };
    assert.equal(await c.count(), undefined);
    assert.equal(c.words, first);
    assert.match(log.warnings[0] ?? '', /could not count the manuscript's words/);
    source = undefined;
    assert.equal(await c.count(), undefined);
    assert.equal(log.warnings.length, 1);
  });

  it('a saved manuscript file is counted after a quiet moment; other files are not', async () => {
    const root = book();
    const { c, log } = counter(() => ({ root, matcher }), 20);
    c.fileSaved(path.join(root, 'drafts', 'old.md'));
    c.fileSaved(path.join(root, 'worldline.yaml'));
    c.fileSaved(path.join(path.dirname(root), 'elsewhere.md'));
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(log.changed, 0);
    for (let i = 0; i < 3; i++) c.fileSaved(path.join(root, 'chapters', '01.md'));
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(log.changed, 1, 'three quick saves, one count');
    assert.equal(c.words, await countManuscript({ root, matcher }));
    c.fileSaved(path.join(root, 'chapters', '01.md'));
    c.dispose();
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(log.changed, 1, 'no count after dispose');
  });
});
