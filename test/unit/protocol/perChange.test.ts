// The worldline tree and graph share one computation of the view per change; a failed one is not kept.
import { strict as assert } from 'node:assert';
import { PerChange, perChangeOf } from '../../../src/protocol/perChange';

describe('one computation per change', () => {
  it('every get between two changes shares one computation; a change computes again', async () => {
    const memo = new PerChange<number>();
    let computed = 0;
    const compute = async () => ++computed;
    assert.deepEqual(await Promise.all([memo.get(compute), memo.get(compute)]), [1, 1]);
    memo.changed();
    memo.changed();
    assert.equal(await memo.get(compute), 2);
    assert.equal(await memo.get(compute), 2);
  });

  it('a failed computation is tried again by the next get; each owner has its own', async () => {
    const memo = new PerChange<string>();
    await assert.rejects(memo.get(() => Promise.reject(new Error('sidecar unreadable'))), /sidecar/);
    await new Promise((r) => setImmediate(r));
    assert.equal(await memo.get(async () => 'ok'), 'ok');
    const a = {};
    assert.equal(perChangeOf(a), perChangeOf(a));
    assert.notEqual(perChangeOf(a), perChangeOf({}));
  });
});
