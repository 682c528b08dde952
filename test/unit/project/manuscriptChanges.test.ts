// What the shell may report to the change feed: paths inside the book, book-relative and POSIX,
// never Worldline's own folder or a .git folder; and a dirty set collects until taken.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { DirtyPaths, ManuscriptChanges, reportablePaths } from '../../../src/project/manuscriptChanges';
import { bookPathOf, compileManuscript, manuscriptPathAt } from '../../../src/project/manuscript';

const root = path.resolve('/books/雨夜');
const at = (...parts: string[]) => path.join(root, ...parts);

describe('manuscript change reports', () => {
  it('paths inside the book, relative and POSIX; not the folder itself, nothing outside, not .worldline or .git', () => {
    const got = reportablePaths(root, [
      at('chapters', '01.md'), at('chapters'), root, path.resolve('/books/other.md'), path.resolve('/books/雨夜2/01.md'),
      at('.worldline', 'sessions', 's.jsonl'), at('.Worldline'), at('notes', '.git', 'index'), at('.git'), at('a.gitkeep'),
    ]);
    assert.deepEqual(got, ['chapters/01.md', 'chapters', 'a.gitkeep']);
  });

  it('a manuscript path is the book path the matcher accepts', () => {
    const matcher = compileManuscript(['chapters/*.md']).matcher;
    assert.equal(bookPathOf(root, at('x', 'y.txt')), 'x/y.txt');
    assert.equal(bookPathOf(root, root), undefined);
    assert.equal(manuscriptPathAt(matcher, root, at('chapters', '02.md')), 'chapters/02.md');
    assert.equal(manuscriptPathAt(matcher, root, at('notes.txt')), undefined);
    assert.equal(manuscriptPathAt(matcher, root, at('worldline.yaml')), undefined);
  });

  it('a dirty set starts unknown, then collects until taken; a failed taker puts its paths back; too many become unknown', () => {
    const feed = new ManuscriptChanges();
    const dirty = new DirtyPaths(3);
    const stop = feed.listen((p) => dirty.add(p));
    assert.equal(dirty.take(), 'all', 'nothing known at first');
    assert.equal(dirty.clean, true);
    feed.changed(['a.md']);
    feed.changed(['b.md', 'a.md']);
    assert.deepEqual(dirty.take(), ['a.md', 'b.md']);
    dirty.restore(['c.md']);
    assert.deepEqual(dirty.take(), ['c.md']);
    feed.everything();
    assert.equal(dirty.take(), 'all');
    feed.changed(['1.md', '2.md', '3.md', '4.md']);
    assert.equal(dirty.take(), 'all', 'past its limit the set is the whole book');
    stop();
    feed.changed(['d.md']);
    assert.equal(dirty.clean, true, 'a feed stopped listening to reports nothing');
  });
});
