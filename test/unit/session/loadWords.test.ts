// What opening a session says: a torn last entry (by the file it was set aside in), damaged lines
// (how many, the first), nothing for a whole file; the read-only word; a first session's title.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { firstSessionTitle, loadReportWords, readOnlyWords } from '../../../src/session/loadWords';
import { english } from '../fixtures/scriptedPrompter';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

describe('session load words', () => {
  it('a whole file says nothing; a torn tail and damaged lines each say what was done, in translated words', () => {
    assert.deepEqual(loadReportWords('雨夜', { corruptLines: [] }), []);
    const movedTo = path.join('/novel', '.worldline', 'sessions', 's1.jsonl.torn-1');
    const words = loadReportWords('雨夜', { tornTail: { bytes: 12, movedTo }, corruptLines: [{ line: 7, error: 'x' }, { line: 9, error: 'y' }] });
    assert.deepEqual(words.map(english), [
      'The last entry of session "雨夜" was cut off (probably by a crash). It was set aside in s1.jsonl.torn-1; everything before it is kept.',
      'Session "雨夜" has 2 damaged line(s) (first: line 7). They were skipped; see the Worldline log.',
    ]);
    assert.ok(words.every((w) => w.message in bundle));
    assert.deepEqual(loadReportWords('雨夜', { corruptLines: [{ line: 3, error: 'z' }] }).map(english), ['Session "雨夜" has 1 damaged line(s) (first: line 3). They were skipped; see the Worldline log.']);
  });

  it('read-only names the other window\'s process when it is known', () => {
    assert.match(english(readOnlyWords({ pid: 4242 })), /\(process 4242\)/);
    assert.match(english(readOnlyWords(undefined)), /\(process \?\)/);
    assert.ok(readOnlyWords(undefined).message in bundle);
  });

  it("a first session's title is in the novel's language", () => {
    assert.equal(firstSessionTitle('zh'), '第一个会话');
    assert.equal(firstSessionTitle('en'), 'First session');
  });
});
