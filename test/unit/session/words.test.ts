// What the novelist is told about sessions: the error words by code (each translated), the rows of
// Switch Session and Restore Session from Backup, and the default title of a new session.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import type { Text } from '../../../src/common/text';
import { SessionError, type SessionErrorCode } from '../../../src/session/errors';
import type { SessionSummary } from '../../../src/session/library';
import { backupRows, defaultSessionTitle, sessionErrorWords, sessionRows } from '../../../src/session/words';
import { bundle, en } from '../fixtures/translation';


// Every code, and whether the novelist gets words for it: adding a code without deciding fails to compile.
const WORDED: Record<SessionErrorCode, boolean> = {
  'read-only': true, 'not-found': true, 'newer-version': true, closed: true, 'invalid-backup': true,
  'invalid-name': true, 'too-large': true, 'not-a-file': true,
  // A caller's mistake, not the novelist's: the store's message is shown as it is.
  'unknown-entry': false, 'invalid-entry': false, 'no-turn': false,
};

describe('session words', () => {
  it('each error the novelist can meet has words with a translation; the others, and foreign errors, have none', () => {
    for (const [code, worded] of Object.entries(WORDED) as [SessionErrorCode, boolean][]) {
      const words = sessionErrorWords(new SessionError(code, `detail for the log: ${code}`));
      if (!worded) {
        assert.equal(words, undefined, code);
        continue;
      }
      assert.ok(words, code);
      assert.ok(words.message in bundle, `${code}: ${words.message}`);
      assert.ok(!words.message.includes('detail for the log'), 'the log detail stays out');
    }
    assert.equal(sessionErrorWords(new Error('read-only')), undefined);
    assert.equal(sessionErrorWords({ code: 'read-only' }), undefined);
    assert.equal(sessionErrorWords(undefined), undefined);
    assert.match(sessionErrorWords(new SessionError('read-only', 'x'))!.message, /another VS Code window/);
  });

  it('Switch Session: most recently written first, the current one marked, a file too large to open said so', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5);
    const sessions: SessionSummary[] = [
      { id: 'a', title: '旧', createdAt: '', entries: 3, modified: at - 1000 },
      { id: 'b', title: '新', createdAt: '', entries: 12, modified: at },
      { id: 'c', title: '大', createdAt: '', entries: 0, modified: at - 500, tooLarge: true },
    ];
    const rows = sessionRows(sessions, 'a');
    const when = (ms: number) => new Date(ms).toLocaleString();
    const shown = (t: Text | undefined) => t && (t.literal ? t.message : en(t));
    assert.deepEqual(rows.map((r) => [shown(r.label), shown(r.description), shown(r.detail), r.value]), [
      ['新', undefined, `12 entries · last written ${when(at)}`, 'b'],
      ['大', undefined, `too large to open · last written ${when(at - 500)}`, 'c'],
      ['旧', 'current', `3 entries · last written ${when(at - 1000)}`, 'a'],
    ]);
    assert.ok(rows.every((r) => r.label.literal), 'a title is shown as it is, never looked up');
    const keys = rows.flatMap((r) => [r.description, r.detail]).filter((t): t is Text => t !== undefined);
    assert.deepEqual(keys.filter((t) => t.literal || !(t.message in bundle)), [], 'the words are translated keys');
    assert.deepEqual(sessions.map((s) => s.id), ['a', 'b', 'c'], 'the list given is not reordered');
    assert.deepEqual(sessionRows([], undefined), []);
  });

  it('Restore from Backup: the title, when it was taken, and the file name', () => {
    const rows = backupRows([{ file: path.join('/x', '.worldline', 'backups', 's1-2025.jsonl'), sessionId: 's1', title: '雨夜', createdAt: 0, bytes: 10 }]);
    const literal = (message: string): Text => ({ message, args: [], literal: true });
    assert.deepEqual(rows, [{ label: literal('雨夜'), description: literal(new Date(0).toLocaleString()), detail: literal('s1-2025.jsonl'), value: path.join('/x', '.worldline', 'backups', 's1-2025.jsonl') }]);
  });

  it("a new session's default title is in the project's language, with the date", () => {
    const day = new Date(Date.UTC(2025, 5, 1, 12));
    assert.equal(defaultSessionTitle('zh', day), `会话 ${day.toLocaleDateString()}`);
    assert.equal(defaultSessionTitle('en', day), `Session ${day.toLocaleDateString()}`);
  });
});
