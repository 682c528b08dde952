// Which words each Story event gets: every kind the shell does not show otherwise has words, the
// restore names its files, Undo rides along only when offered, a busy refusal names the verb in
// the project's language, and the core's own bilingual texts are shown as they are.
import { strict as assert } from 'node:assert';
import type { RestoreResult } from '../../../src/checkpoints';
import type { StoryEvent, UndoOffer } from '../../../src/story';
import { eventWords, noticeWords } from '../../../src/story/words';
import { bundle } from '../fixtures/translation';


const result = (written: string[], deleted: string[] = []): RestoreResult => ({ written, deleted } as unknown as RestoreResult);
const offer: UndoOffer = { action: { kind: 'chat', leafBefore: null }, asked: undefined };

const worded: StoryEvent[] = [
  { kind: 'noCheckpoint' }, { kind: 'busy' }, { kind: 'busyVerb', verb: 'save' }, { kind: 'readOnly' },
  { kind: 'nothingToRegenerate' }, { kind: 'replyCopyStopped' },
  { kind: 'saved', entry: { name: 'A', worldlineName: 'L' } as never, fork: true },
  { kind: 'saved', entry: { name: 'A', worldlineName: 'L' } as never, fork: false },
  { kind: 'compacted', outcome: { kind: 'applied' } as never }, { kind: 'compacted', outcome: { kind: 'stale' } as never },
  { kind: 'compacted', outcome: { kind: 'noMemory', reason: 'x' } }, { kind: 'compacted', outcome: { kind: 'readOnly' } },
  { kind: 'compacted', outcome: { kind: 'failed', error: { message: 'boom' } } as never },
  { kind: 'restored', withChat: true, result: result(['a.md']) }, { kind: 'restored', withChat: false, result: result([]), undo: offer },
  { kind: 'chatOnlyLoad', undo: offer }, { kind: 'staleAnswer', reason: 'moved' }, { kind: 'staleAnswer', reason: 'busy' },
  { kind: 'staleUndoButton' }, { kind: 'undone', result: result(['a.md']), chatStays: true }, { kind: 'undone', result: result([]), chatStays: false },
  { kind: 'undoneChatOnly' }, { kind: 'undoNotNewest' }, { kind: 'undoGone' }, { kind: 'nothingToUndo' },
  { kind: 'undoFailed', message: 'x' }, { kind: 'checkpointSkipped', message: 'disk full', corrupt: true },
];

describe('Story words', () => {
  it('every worded event has a translated key (or the core\'s own text), and the shell-only ones have none', () => {
    for (const e of worded) {
      const w = eventWords(e, 'en');
      assert.ok(w, `${e.kind} has words`);
      if (!w.text.literal) assert.ok(w.text.message in bundle, `"${w.text.message}" has a zh-cn translation`);
    }
    for (const e of [{ kind: 'live', change: 'render' }, { kind: 'unavailable' }] as StoryEvent[]) assert.equal(eventWords(e, 'en'), undefined);
  });

  it('a restore names its first files, removed ones marked, and carries Undo only when offered', () => {
    const w = eventWords({ kind: 'restored', withChat: false, result: result(['a.md', 'b.md', 'c.md'], ['d.md']), undo: offer }, 'en')!;
    assert.equal(w.suffix, ' (a.md, b.md, c.md, …)');
    assert.deepEqual(w.text.args, [3, 1]);
    assert.equal(w.undo, offer);
    const quiet = eventWords({ kind: 'restored', withChat: true, result: result([], ['x.md']) }, 'en')!;
    assert.equal(quiet.suffix, ' (−x.md)');
    assert.equal(quiet.undo, undefined);
  });

  it('a busy refusal reads like the runner\'s own, in the project language', () => {
    assert.match(eventWords({ kind: 'busyVerb', verb: 'switch variants' }, 'zh')!.text.message, /切换变体/);
    assert.match(eventWords({ kind: 'busyVerb', verb: 'compact' }, 'en')!.text.message, /^Cannot compact while the agent is writing/);
  });

  it('a skipped checkpoint is said once, with Rebuild only when the store is damaged', () => {
    assert.deepEqual(eventWords({ kind: 'checkpointSkipped', message: 'x', corrupt: true }, 'en')!.once, { rebuild: true });
    assert.deepEqual(eventWords({ kind: 'checkpointSkipped', message: 'x', corrupt: false }, 'en')!.once, { rebuild: false });
  });

  it('the notice line: the failure\'s own words, Set API Key for an auth failure, Retry otherwise', () => {
    assert.deepEqual(noticeWords({ kind: 'failed', message: '401 bad key', auth: true }), { kind: 'error', text: { message: '401 bad key', args: [], literal: true }, action: 'setKey' });
    assert.equal(noticeWords({ kind: 'failed', auth: false }).text.message, 'The turn failed.');
    assert.equal(noticeWords({ kind: 'stopped' }).action, 'retry');
    assert.equal(noticeWords({ kind: 'noModel' }).action, 'selectModel');
    assert.deepEqual(noticeWords({ kind: 'keyWithheld', setFor: 'https://a', endpoint: 'https://b' }).text.args, ['https://a', 'https://b']);
  });
});
