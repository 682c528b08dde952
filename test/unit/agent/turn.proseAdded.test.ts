// proseAdded: what the scribe is told was written this turn.
import * as assert from 'node:assert/strict';
import { addedText, proseAdded } from '../../../src/agent/proseAdded';
import type { ToolChange } from '../../../src/agent/tools';

const change = (path: string, before: string | undefined, after: string, kind: ToolChange['kind'] = 'write'): ToolChange => ({ path, before, after, kind });

describe('agent/proseAdded', () => {
  it('a new file is all new; an append gives the appended lines', () => {
    assert.equal(addedText(undefined, '第一段。'), '第一段。');
    assert.equal(addedText('甲。\n', '甲。\n乙。\n'), '乙。\n');
    assert.equal(addedText('甲。', '甲。\n乙。'), '\n乙。');
    assert.equal(proseAdded([change('a.md', '甲。', '甲。\n乙。', 'append')]), '乙。');
  });

  it('an edit gives the whole rewritten lines, not fragments', () => {
    const before = '第一行。\n她的眼睛是灰色的。\n第三行。\n';
    const after = '第一行。\n她的眼睛是琥珀色的。\n第三行。\n';
    assert.equal(addedText(before, after), '她的眼睛是琥珀色的。');
  });

  it('a pure deletion adds nothing', () => {
    assert.equal(addedText('甲。\n乙。\n', '甲。\n'), '');
    assert.equal(proseAdded([change('a.md', '甲。\n乙。\n', '甲。\n', 'edit')]), '');
  });

  it('several changes to one file count once (first before → last after); files keep their order', () => {
    const changes = [
      change('ch/02.md', undefined, '二。'),
      change('ch/01.md', '旧。\n', '旧。\n新一。\n', 'append'),
      change('ch/01.md', '旧。\n新一。\n', '旧。\n新一。\n新二。\n', 'append'),
    ];
    assert.equal(proseAdded(changes), '二。\n\n新一。\n新二。');
  });

  it('is capped, keeping head and tail', () => {
    const long = `开头${'中'.repeat(1000)}结尾`;
    const out = proseAdded([change('a.md', undefined, long)], 101);
    assert.ok(out.length <= 101);
    assert.ok(out.startsWith('开头') && out.endsWith('结尾') && out.includes('…'));
  });
});
