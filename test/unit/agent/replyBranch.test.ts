// Edit as a new branch on an agent reply: which entries the copy holds and how its text reads.
import { strict as assert } from 'node:assert';
import { replyBranchCopy } from '../../../src/agent/replyBranch';
import type { ChainEntry } from '../../../src/session/entries';

const ts = '2026-01-01T00:00:00.000Z';
function chain(entries: Record<string, unknown>[]): ChainEntry[] {
  return entries.map((e, i) => ({ id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, ts, ...e }) as unknown as ChainEntry);
}

describe('agent/replyBranchCopy', () => {
  const path = chain([
    { type: 'user', text: '写雨停。' },
    { type: 'assistant', text: '这就写。', model: 'm', finish: 'stop', toolCalls: [{ id: 'c1', name: 'append_file', arguments: '{}' }] },
    { type: 'tool', callId: 'c1', name: 'append_file', result: 'ok', isError: false },
    { type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' },
    { type: 'checkpoint', commit: 'a'.repeat(40), ref: 'refs/x', changed: ['chapters/01.md'] },
    { type: 'state', state: {}, by: 'scribe', warnings: [] },
    { type: 'save', saveId: 's1', name: '雨停', worldlineId: 'w1', worldlineName: '主线', kind: 'first' },
    { type: 'user', text: '继续。' },
    { type: 'assistant', text: '好。', model: 'm', finish: 'stop' },
  ]);

  it('copies the turn from the reply to the next instruction, without saves; the new text on the edited part only', () => {
    const copy = replyBranchCopy(path, 'e1', 'e3', '我自己的回复。');
    assert.ok(copy);
    assert.deepEqual(copy.map((e) => e.type), ['assistant', 'tool', 'assistant', 'checkpoint', 'state']);
    assert.deepEqual(copy.map((e) => (e.type === 'assistant' ? e.text : null)), ['', null, '我自己的回复。', null, null]);
    const first = copy[0]!;
    assert.ok(first.type === 'assistant' && first.toolCalls?.[0]?.id === 'c1', 'the tool calls stay, paired with their results');
    for (const e of copy) assert.ok(!('id' in e) && !('parentId' in e) && !('ts' in e), 'fresh ids, parents and times come from the append');
  });

  it('stops at the end of the turn: a pin taken after its state (new prose) stays with the original', () => {
    const pinned = chain([
      { type: 'user', text: '写雨停。' },
      { type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' },
      { type: 'checkpoint', commit: 'a'.repeat(40), ref: 'refs/a', changed: ['chapters/01.md'] },
      { type: 'state', state: {}, by: 'scribe', warnings: [] },
      { type: 'checkpoint', commit: 'b'.repeat(40), ref: 'refs/b', changed: ['chapters/01.md'] },
      { type: 'state', state: {}, by: 'user', warnings: [] },
      { type: 'user', text: '继续。' },
    ]);
    const copy = replyBranchCopy(pinned, 'e1', 'e1', '改过的话。');
    assert.deepEqual(copy?.map((e) => e.type), ['assistant', 'checkpoint', 'state']);
    const checkpoint = copy?.find((e) => e.type === 'checkpoint');
    assert.ok(checkpoint?.type === 'checkpoint' && checkpoint.commit === 'a'.repeat(40), 'the turn\'s own prose');
  });

  it('refuses an id that is not a reply on the path', () => {
    assert.equal(replyBranchCopy(path, 'e0', 'e0', 'x'), undefined);
    assert.equal(replyBranchCopy(path, 'nope', 'nope', 'x'), undefined);
  });
});
