// The status bar's words: the model (demo named as such, none chosen said so), the phase while the
// agent works, the length and the last turn's change.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Text } from '../../../src/common/text';
import { STATUS_TOOLTIP, statusText, type StatusInputs } from '../../../src/protocol/statusLine';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
/** English as VS Code shows it without a bundle: the key, "{n}" filled. */
const en = (t: Text): string => t.message.replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m));

describe('status line', () => {
  const at = (over: Partial<StatusInputs>): string => statusText({ model: 'gpt-4o', phase: 'idle', words: undefined, delta: undefined, ...over }, en);

  it('idle: the book icon and the model; nothing else before the count', () => {
    assert.equal(at({}), '$(book) gpt-4o');
    assert.equal(at({ model: '' }), '$(book) no model selected');
    assert.equal(at({ model: 'worldline-demo' }), '$(book) demo model');
  });

  it('while the agent works: the spinning icon and the phase (a tool call is writing too)', () => {
    assert.equal(at({ phase: 'writing' }), '$(sync~spin) gpt-4o · writing');
    assert.equal(at({ phase: 'tool' }), '$(sync~spin) gpt-4o · writing');
    assert.equal(at({ phase: 'scribe' }), '$(sync~spin) gpt-4o · scribe');
  });

  it('the length with the signed change of the last turn; no change shows nothing', () => {
    assert.equal(at({ words: 12345 }), `$(book) gpt-4o · ${(12345).toLocaleString()} words`);
    assert.equal(at({ words: 10, delta: 5 }), '$(book) gpt-4o · 10 words (+5)');
    assert.equal(at({ words: 10, delta: -3 }), '$(book) gpt-4o · 10 words (-3)');
    assert.equal(at({ words: 10, delta: 0 }), '$(book) gpt-4o · 10 words');
  });

  it('every word it asks for has a translation', () => {
    const asked: Text[] = [];
    const spy = (t: Text) => (asked.push(t), en(t));
    for (const phase of ['idle', 'writing', 'tool', 'scribe'] as const) statusText({ model: '', phase, words: 3, delta: 1 }, spy);
    statusText({ model: 'worldline-demo', phase: 'idle', words: undefined, delta: undefined }, spy);
    asked.push(STATUS_TOOLTIP);
    assert.deepEqual([...new Set(asked.map((t) => t.message))].filter((m) => !(m in bundle)), []);
    assert.ok(asked.some((t) => t.message === 'demo model'));
  });
});
