// "Edit as YAML": hostile text comes back as an error value, never as a throw.
import * as assert from 'node:assert/strict';
import { parseStateYaml } from '../../../src/state/stateYaml';

describe('state/parseStateYaml', () => {
  it('reads a plain state edit', () => {
    assert.deepEqual(parseStateYaml('time: 夜里\nfacts: [甲]\n'), { ok: true, value: { time: '夜里', facts: ['甲'] } });
  });

  it('a syntax error names its line and says nothing changed', () => {
    const r = parseStateYaml('time: 夜里\nfacts: [甲\nlocation: x\n', 'en');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, /^Invalid YAML at line 3: .*Nothing was changed\.$/);
  });

  it('never throws on an alias bomb, deep nesting or a huge scalar', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    ].join('\n');
    const r = parseStateYaml(bomb);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, /too many aliases.*Nothing was changed/);
    const zh = parseStateYaml(bomb, 'zh');
    assert.match(zh.ok ? '' : zh.error, /别名.*未做任何修改/);
    const deep = parseStateYaml(`facts: ${'['.repeat(20000)}${']'.repeat(20000)}\n`);
    assert.equal(deep.ok, false);
    const huge = parseStateYaml(`notes: "${'x'.repeat(1_000_000)}"\n`);
    assert.ok(huge.ok);
  });
});
