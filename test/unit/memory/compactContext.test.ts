// Old turns' tool payloads shortened to one line each, in steps that keep the prefix stable.
import { strict as assert } from 'node:assert';
import type { ContextMessage } from '../../../src/session/entries';
import { shortArguments, shortenOldToolPayloads } from '../../../src/memory/compactContext';

function turns(n: number): ContextMessage[] {
  const out: ContextMessage[] = [];
  for (let t = 0; t < n; t++) {
    out.push({ entryId: `u${t}`, role: 'user', text: `第${t}轮` });
    const content = `第一段第${t}轮。\n${'雨'.repeat(300)}\n最后一段。`;
    out.push({ entryId: `a${t}`, role: 'assistant', text: '写好了。', toolCalls: [{ id: `c${t}`, name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content }) }] });
    out.push({ entryId: `t${t}`, role: 'tool', text: `Appended 305 characters.\n${'x'.repeat(400)}`, callId: `c${t}`, name: 'append_file' });
  }
  return out;
}

describe('memory/shortenOldToolPayloads', () => {
  it('old turns: results and arguments one line each; recent turns untouched', () => {
    const msgs = turns(12);
    const out = shortenOldToolPayloads(msgs, 6);
    for (let i = 0; i < 18; i++) {
      const m = out[i] as ContextMessage;
      if (m.role === 'tool') {
        assert.ok(!m.text.includes('\n'));
        assert.ok(m.text.startsWith('Appended 305 characters.'));
        assert.ok(m.text.includes('chars in full'));
      }
      if (m.role === 'assistant') {
        const args = JSON.parse(m.toolCalls?.[0]?.arguments ?? '') as { path: string; content: string };
        assert.equal(args.path, 'chapters/01.md', 'short values are kept');
        assert.ok(!args.content.includes('\n'));
        assert.ok(args.content.startsWith('第一段'));
        assert.ok(args.content.length < 100);
        assert.equal(m.text, '写好了。', 'the reply text itself stays');
      }
      if (m.role === 'user') assert.equal(m, msgs[i]);
    }
    for (let i = 18; i < out.length; i++) assert.equal(out[i], msgs[i], 'recent messages are the same objects');
  });

  it('the boundary moves in steps: the replayed prefix is byte-identical between steps', () => {
    assert.deepEqual(shortenOldToolPayloads(turns(11), 6), turns(11), 'fewer than 6 turns beyond the kept ones: nothing shortened');
    const at12 = JSON.stringify(shortenOldToolPayloads(turns(12), 6));
    for (let n = 13; n < 18; n++) {
      const out = JSON.stringify(shortenOldToolPayloads(turns(n), 6));
      assert.ok(out.startsWith(at12.slice(0, -1)), `turn ${n} keeps the prefix of turn 12`);
    }
    const at18 = shortenOldToolPayloads(turns(18), 6);
    assert.ok(!(at18[18 + 2] as ContextMessage).text.includes('\n'), 'at 18 turns the next 6 are shortened');
    const everyTurn = shortenOldToolPayloads(turns(8), 6, { step: 1 });
    assert.ok(!(everyTurn[5] as ContextMessage).text.includes('\n'));
    assert.ok((everyTurn[8] as ContextMessage).text.includes('\n'));
  });

  it('arguments stay a JSON object; malformed ones become {}; odd keys stay plain keys', () => {
    assert.equal(shortArguments('not json', 60, 'en'), '{}');
    assert.equal(shortArguments('[1,2]', 60, 'en'), '{}');
    assert.equal(shortArguments('{"path":"a.md"}', 60, 'en'), '{"path":"a.md"}');
    const odd = shortArguments(`{"__proto__":"${'y'.repeat(100)}","n":3}`, 10, 'zh');
    const parsed = JSON.parse(odd) as Record<string, unknown>;
    assert.ok(Object.prototype.hasOwnProperty.call(parsed, '__proto__'));
    assert.equal(parsed['n'], 3);
    assert.match(String(parsed['__proto__']), /全文 100 字/);
  });
});
