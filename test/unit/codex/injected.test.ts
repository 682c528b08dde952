import { strict as assert } from 'node:assert';
import { injectedAt, lastInjected } from '../../../src/codex/injected';
import type { ChainEntry } from '../../../src/session/entries';
import { checkEntry } from '../../../src/session/validate';

let n = 0;
const user = (): ChainEntry => ({ id: `u${++n}`, parentId: null, ts: '', type: 'user', text: 'x' });
const reply = (codex?: string[]): ChainEntry => ({ id: `a${++n}`, parentId: null, ts: '', type: 'assistant', text: '', model: 'm', finish: 'stop', ...(codex ? { codex } : {}) });

describe('codex: what was injected, as recorded', () => {
  it('lastInjected: the newest turn with a reply, its first reply\'s record', () => {
    const u1 = user();
    const u2 = user();
    const path = [u1, reply(['codex/a.md']), reply(['codex/ignored.md']), u2, reply(['codex/b.md', 'codex/c.md']), reply()];
    assert.deepEqual(lastInjected(path), { userEntryId: u2.id, paths: ['codex/b.md', 'codex/c.md'] });
    assert.deepEqual(injectedAt(path, u1.id), ['codex/a.md'], 'the first reply of the turn holds it');
    // A turn still being written: the badge stays on the last finished one.
    assert.deepEqual(lastInjected([...path, user()]), { userEntryId: u2.id, paths: ['codex/b.md', 'codex/c.md'] });
  });

  it('an older session (no record anywhere) reads as nothing injected; no turn at all is undefined', () => {
    const u = user();
    assert.deepEqual(lastInjected([u, reply()]), { userEntryId: u.id, paths: [] });
    assert.equal(lastInjected([]), undefined);
    assert.equal(lastInjected([user()]), undefined);
    assert.equal(injectedAt([u, reply()], 'missing'), undefined);
  });

  it('the session format accepts the field, and refuses a malformed one', () => {
    const base = { id: 'a', parentId: null, ts: 't', type: 'assistant', text: '', model: 'm', finish: 'stop' };
    assert.equal(checkEntry(base).ok, true, 'older entries load');
    assert.equal(checkEntry({ ...base, codex: ['codex/a.md'] }).ok, true);
    assert.equal(checkEntry({ ...base, codex: 'codex/a.md' }).ok, false);
    assert.equal(checkEntry({ ...base, codex: [1] }).ok, false);
  });
});
