// Which words each Story event gets: every kind the shell does not show otherwise has words, the
// restore names its files, Undo rides along only when offered, a busy refusal names the verb in
// the project's language, and the core's own bilingual texts are shown as they are.
import { strict as assert } from 'node:assert';
import type { RestoreResult } from '../../../src/checkpoints';
import type { StoryEvent, UndoOffer } from '../../../src/story';
import { eventWords, leaveTurnsWords, noticeWords, sayWords } from '../../../src/story/words';
import { bundle, en as english } from '../fixtures/translation';


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
  { kind: 'instructionWaiting' }, { kind: 'branched', laterTurns: 1, undo: offer }, { kind: 'branched', laterTurns: 3, restored: result(['a.md'], ['b.md']), undo: offer },
];

describe('Story words', () => {
  it('every worded event has a translated key (or the core\'s own text), and the shell-only ones have none', () => {
    for (const e of worded) {
      const w = eventWords(e, 'en');
      assert.ok(w, `${e.kind} has words`);
      for (const t of [w.text, ...(w.more ? [w.more] : [])]) {
        if (!t.literal) assert.ok(t.message in bundle, `"${t.message}" has a zh-cn translation`);
        assert.doesNotMatch(t.message, /\(s\)/, 'no "(s)" plurals');
      }
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

  it('counts read in the singular and the plural, never "(s)"', () => {
    const restored = (written: string[], withChat: boolean) => english(eventWords({ kind: 'restored', withChat, result: result(written, ['z.md']) }, 'en')!.text);
    assert.equal(restored(['a.md'], true), 'Prose and chat restored: 1 file written, 1 removed.');
    assert.equal(restored(['a.md', 'b.md'], true), 'Prose and chat restored: 2 files written, 1 removed.');
    assert.equal(restored([], false), 'Prose restored: 0 files written, 1 removed. The chat stays where it is.');
    assert.equal(restored(['a.md'], false), 'Prose restored: 1 file written, 1 removed. The chat stays where it is.');
    const undone = (written: string[], chatStays: boolean) => english(eventWords({ kind: 'undone', result: result(written), chatStays }, 'en')!.text);
    assert.equal(undone(['a.md'], false), 'Restore undone: 1 file written, 0 removed.');
    assert.match(undone(['a.md', 'b.md'], true), /^Restore undone: 2 files written, 0 removed\. That restore was made before/);
    const branched = (laterTurns: number) => english(eventWords({ kind: 'branched', laterTurns, undo: offer }, 'en')!.text);
    assert.equal(branched(1), 'Branched from here: 1 later turn is kept as a variant.');
    assert.equal(branched(4), 'Branched from here: 4 later turns are kept as a variant.');
    assert.match(english(leaveTurnsWords(1).detail), /^1 later turn leaves this branch\. It is kept/);
    assert.match(english(leaveTurnsWords(3).detail), /^3 later turns leave this branch\. They are kept/);
  });

  it('branch here offers Undo, and says the prose followed with its files when it did', () => {
    const plain = eventWords({ kind: 'branched', laterTurns: 2, undo: offer }, 'en')!;
    assert.equal(plain.undo, offer);
    assert.equal(plain.more, undefined);
    const followed = eventWords({ kind: 'branched', laterTurns: 2, restored: result(['a.md'], ['b.md']), undo: offer }, 'en')!;
    assert.equal(followed.undo, offer);
    assert.equal(sayWords(followed, english), 'Branched from here: 2 later turns are kept as a variant. The prose followed: 1 file written, 1 removed. (a.md, −b.md)');
  });

  it('the question before a regenerate that leaves turns: its words and buttons are translated', () => {
    const w = leaveTurnsWords(2);
    for (const t of [w.question, w.detail, w.regenerate, w.dontAskAgain]) assert.ok(t.message in bundle, `"${t.message}" has a zh-cn translation`);
  });

  it('a stop says whether anything of the reply was kept', () => {
    const kept = noticeWords({ kind: 'stopped', kept: true });
    const empty = noticeWords({ kind: 'stopped', kept: false });
    assert.match(kept.text.message, /partial reply is kept/);
    assert.equal(empty.text.message, 'Stopped before the model wrote anything. Retry writes the turn again.');
    assert.doesNotMatch(empty.text.message, /kept/);
    assert.equal(kept.action, 'retry');
    assert.equal(empty.action, 'retry');
    for (const t of [kept.text, empty.text]) assert.ok(t.message in bundle);
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
    assert.equal(noticeWords({ kind: 'stopped', kept: true }).action, 'retry');
    assert.equal(noticeWords({ kind: 'noModel' }).action, 'selectModel');
    assert.deepEqual(noticeWords({ kind: 'keyWithheld', setFor: 'https://a', endpoint: 'https://b' }).text.args, ['https://a', 'https://b']);
  });
});
