import { strict as assert } from 'node:assert';
import { turnWordDelta } from '../../../src/agent/wordDelta';
import { countWords } from '../../../src/agent/manuscript';

describe('agent/wordDelta turnWordDelta', () => {
  it('a turn without file changes changed nothing', () => {
    assert.equal(turnWordDelta([]), 0);
  });

  it('an append adds its words; CJK characters count one each, Latin words one each', () => {
    const before = '# 第一章\n\n雨下了一夜。\n';
    const after = `${before}\n沈砚推门进来。He smiled.\n`;
    assert.equal(turnWordDelta([{ before, after }]), 6 + 2);
  });

  it('a new file counts whole; an edit that shortens gives a negative change', () => {
    assert.equal(turnWordDelta([{ before: undefined, after: '青梧关上了门。' }]), 6);
    assert.equal(turnWordDelta([{ before: '青梧关上了门，又落了闩。', after: '青梧关上了门。' }]), -4);
  });

  it('several changes to one file count from its text before the first to its text after the last', () => {
    const t0 = '开头。\n';
    const t1 = `${t0}沈砚上楼。\n`;
    const t2 = t1.replace('沈砚上楼', '沈砚提灯上楼');
    const t3 = `${t2}夜深了。\n`;
    const changes = [{ before: t0, after: t1 }, { before: t1, after: t2 }, { before: t2, after: t3 }];
    assert.equal(turnWordDelta(changes), countWords(t3) - countWords(t0));
  });

  it('changes to several files add up; the text before the turn (however long, however it got there) does not count', () => {
    const long = '旧'.repeat(5000);
    assert.equal(turnWordDelta([
      { before: long, after: `${long}新的一段。` },
      { before: undefined, after: 'Chapter two begins.' },
    ]), 4 + 3);
  });
});
