// The status bar's figures: the words of exactly the files the project's one matcher accepts, an
// open editor's text preferred, counts run in the order asked, and the turn's delta. The count is
// kept per file: after the walk at open only changed files are read, and it stays equal to a full
// recount through writes, deletes, folder moves, restores and matcher changes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { countWords } from '../../../src/agent/manuscript';
import { compileManuscript } from '../../../src/project/manuscript';
import { WordCounter, countManuscript, diskReader, type CountSource, type ReadText } from '../../../src/project/wordCount';
import { ManuscriptChanges } from '../../../src/project/manuscriptChanges';
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

  it('counts run one after another in the order asked: a later count is never overwritten by an earlier one', async () => {
    const root = book();
    const slow = gatedReader();
    let source: CountSource = { root, matcher, read: slow.read };
    const shown: (number | undefined)[] = [];
    const c = new WordCounter({ source: () => source, changed: () => shown.push(c.words), warn: (m) => assert.fail(m) });
    const older = c.count();
    await new Promise((r) => setTimeout(r, 20));
    source = { root, matcher };
    const newer = c.count();
    slow.release();
    const total = countWords('# 第一章\n\n雨夜，客栈。') + countWords('The rain kept on.');
    assert.deepEqual([await older, await newer], [total, total], 'each settles with the count as of its end');
    assert.deepEqual(shown, [2, total], 'the older count (its own text) first, the newer one last');
    assert.equal(c.words, total);
  });

  it('a turn sets the delta from its changes, then counts its files again; whenTurnCounted waits for it', async () => {
    const root = book();
    const { c, log } = counter(() => ({ root, matcher }));
    assert.equal(c.turnDelta, undefined);
    await c.count();
    write(root, 'chapters/01.md', '# 第一章\n\n雨夜，客栈。她推门进来。');
    void c.turnEnded([{ path: 'chapters/01.md', before: '# 第一章\n\n雨夜，客栈。', after: '# 第一章\n\n雨夜，客栈。她推门进来。' }]);
    assert.equal(c.turnDelta, countWords('她推门进来。'));
    await c.whenTurnCounted();
    assert.equal(c.words, countWords('# 第一章\n\n雨夜，客栈。她推门进来。') + countWords('The rain kept on.'));
    assert.equal(log.changed, 3, 'the walk, the delta, the total');
    write(root, 'chapters/03.md', 'Two words');
    await c.turnEnded([{ path: './chapters/03.md', before: undefined, after: 'Two words' }]);
    assert.equal(c.turnDelta, 2, 'only the last turn');
    assert.equal(c.words, await countManuscript({ root, matcher }), 'a file the turn created counts');
  });

  it('after the walk, a change reads only the files that changed', async () => {
    const root = book();
    const reads: string[] = [];
    const disk = diskReader(root);
    const read: ReadText = (rel) => { reads.push(rel); return disk(rel); };
    const feed = new ManuscriptChanges();
    const c = new WordCounter({ source: () => ({ root, matcher, read }), changed: () => {}, warn: (m) => assert.fail(m), feed });
    await c.count();
    assert.deepEqual(reads.sort(), ['chapters/01.md', 'chapters/02.md']);
    reads.length = 0;
    write(root, 'chapters/02.md', 'The rain kept on and on.');
    feed.changed(['chapters/02.md']);
    await c.turnEnded([]);
    assert.deepEqual(reads, ['chapters/02.md']);
    assert.equal(c.words, countWords('# 第一章\n\n雨夜，客栈。') + countWords('The rain kept on and on.'));
    c.dispose();
  });

  it('the feed keeps the count equal to a full recount through writes, deletes, folders that go and come, and "anything changed"', async () => {
    const root = book();
    const feed = new ManuscriptChanges();
    const warnings: string[] = [];
    const c = new WordCounter({ source: () => ({ root, matcher }), changed: () => {}, warn: (m) => warnings.push(m), feed });
    await c.count();
    const settled = async (): Promise<void> => { await c.turnEnded([]); };
    const check = async (what: string): Promise<void> => {
      await settled();
      assert.equal(c.words, await countManuscript({ root, matcher }), what);
    };
    write(root, 'chapters/02.md', '他走了。');
    feed.changed(['chapters/02.md']);
    await check('a restore rewrote a chapter');
    fs.rmSync(path.join(root, 'chapters', '01.md'));
    feed.changed(['chapters/01.md']);
    await check('a chapter deleted');
    write(root, 'chapters/part2/10.md', '第二部');
    write(root, 'chapters/part2/11.md', '第二部续');
    feed.changed(['chapters/part2']);
    await check('a folder arrived: walked');
    fs.rmSync(path.join(root, 'chapters', 'part2'), { recursive: true });
    feed.changed(['chapters/part2']);
    await check('a folder went: its files left the count');
    write(root, 'drafts/new.md', '不算的草稿');
    write(root, 'worldline.yaml', 'title: 字\n');
    feed.changed(['drafts/new.md', 'worldline.yaml', '../outside.md', '/abs.md']);
    await check('paths that are not manuscript change nothing');
    write(root, 'a.md', '外面改的');
    feed.everything();
    await check('anything may have changed: walked');
    assert.deepEqual(warnings, []);
    c.dispose();
  });

  it('a symlink named like a chapter, or a chapter reached through a linked folder, is not counted (as the walk skips them)', async function () {
    const root = book();
    const outside = tmpDir('wl-words-outside-');
    write(outside, 'x.md', '外面的字外面的字');
    write(outside, 'd/y.md', '外面的字');
    try {
      fs.symlinkSync(path.join(outside, 'x.md'), path.join(root, 'chapters', 'link.md'));
      fs.symlinkSync(path.join(outside, 'd'), path.join(root, 'chapters', 'linked'));
    } catch {
      this.skip();
    }
    const feed = new ManuscriptChanges();
    const c = new WordCounter({ source: () => ({ root, matcher }), changed: () => {}, warn: () => {}, feed });
    await c.count();
    const expected = await countManuscript({ root, matcher });
    feed.changed(['chapters/link.md', 'chapters/linked/y.md']);
    await c.turnEnded([]);
    assert.equal(c.words, expected);
    feed.changed(['chapters/linked']);
    await c.turnEnded([]);
    assert.equal(c.words, expected);
    c.dispose();
  });

  it('a change of the manuscript patterns walks again with the new ones', async () => {
    const root = book();
    let m = matcher;
    const { c } = counter(() => ({ root, matcher: m }));
    await c.count();
    m = compileManuscript(['**/*.md']).matcher;
    write(root, 'chapters/01.md', '改了');
    c.touched(['chapters/01.md']);
    await c.turnEnded([]);
    assert.equal(c.words, await countManuscript({ root, matcher: m }), 'drafts count now');
  });

  it('changes made while the first walk runs are counted after it', async () => {
    const root = book();
    const disk = diskReader(root);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let oldRead!: () => void;
    const readOld = new Promise<void>((r) => (oldRead = r));
    // 02 is read at once (its old text), 01 waits: the change to 02 comes while the walk still runs.
    const read: ReadText = async (rel) => {
      if (rel === 'chapters/02.md') { const text = await disk(rel); oldRead(); return text; }
      await gate;
      return disk(rel);
    };
    const feed = new ManuscriptChanges();
    const c = new WordCounter({ source: () => ({ root, matcher, read }), changed: () => {}, warn: () => {}, feed });
    const first = c.count();
    await readOld;
    write(root, 'chapters/02.md', '新写的一句');
    feed.changed(['chapters/02.md']);
    release();
    await first;
    assert.equal(c.words, await countManuscript({ root, matcher }));
    c.dispose();
  });

  it('property: any sequence of writes, deletes and restores told through the feed keeps the count exact', async () => {
    const root = tmpDir('wl-words-seq-');
    write(root, 'worldline.yaml', 'title: x\n');
    const names = ['chapters/01.md', 'chapters/02.md', 'chapters/sub/03.md', 'drafts/x.md', 'notes.txt'];
    const op = fc.record({ file: fc.constantFrom(...names), text: fc.option(fc.constantFrom('', '雨', '雨夜客栈', 'one two three', '她说：「走。」 ok'), { nil: undefined }), told: fc.boolean() });
    const feed = new ManuscriptChanges();
    const c = new WordCounter({ source: () => ({ root, matcher }), changed: () => {}, warn: (m) => assert.fail(m), feed });
    await c.count();
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
      const untold = new Set<string>();
      for (const o of ops) {
        if (o.text === undefined) fs.rmSync(path.join(root, ...o.file.split('/')), { force: true });
        else write(root, o.file, o.text);
        if (o.told) feed.changed([o.file]);
        else untold.add(o.file);
      }
      // What the feed was not told of is told by the end of the turn (its tool changes).
      await c.turnEnded([...untold].map((p) => ({ path: p, before: '', after: '' })));
      assert.equal(c.words, await countManuscript({ root, matcher }));
    }), { numRuns: runs(40, 400) });
    c.dispose();
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
    await c.count();
    log.changed = 0;
    c.fileSaved(path.join(root, 'drafts', 'old.md'));
    c.fileSaved(path.join(root, 'worldline.yaml'));
    c.fileSaved(path.join(path.dirname(root), 'elsewhere.md'));
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(log.changed, 0);
    write(root, 'chapters/01.md', '改过');
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
