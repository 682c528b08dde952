// runScribe against a real Session: the leaf guard must hold even when a navigate is already in
// the session's write queue when the scribe's reply arrives (the check and the write are one step).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { ChatCompleter, CompleteResult } from '../../../src/model/types';
import { Session } from '../../../src/session/session';
import { runScribe, type ScribeDeps, type ScribeInput } from '../../../src/state/scribeRun';
import { assistant, removeTempDirs, tempDir, tool, user } from '../session/helpers';
import { seedOpening } from './helpers';

/** u → a1, and u → a2 (a regenerated sibling); the leaf is a2. */
async function twoBranches(): Promise<{ s: Session; a1: string; a2: string }> {
  const s = await Session.create(path.join(tempDir('wl-scribe-'), 'abc123.jsonl'), { id: 'abc123', title: '雨夜' });
  const u = await s.append(user('写林砚进门避雨'));
  const a1 = await s.append(assistant('第一版。'));
  await s.navigate(u.id);
  const a2 = await s.append(assistant('第二版。'));
  return { s, a1: a1.id, a2: a2.id };
}

/** A model that answers at once, running `during` first (what the novelist does meanwhile). */
function model(text: string, during: () => void = () => undefined): ChatCompleter {
  return {
    complete: async (): Promise<CompleteResult> => {
      during();
      return { text };
    },
  };
}

/** Deps wired the way the extension wires them: the guard goes on to session.append. */
function deps(s: Session, client: ChatCompleter, over: Partial<ScribeDeps> = {}): ScribeDeps {
  return {
    client,
    model: 'test-scribe',
    getLeafId: () => s.leafId,
    isAncestorOrSelf: (a, b) => s.isAncestorOrSelf(a, b),
    appendState: async (e, guard) => {
      await s.append({ type: 'state', state: e.state, by: e.by, warnings: e.warnings }, { guard });
    },
    ...over,
  };
}

const input: ScribeInput = {
  state: seedOpening(),
  warnings: [],
  instruction: '写林砚进门避雨',
  proseAdded: '雨越下越大，林砚推门进来。',
  reply: '写好了。',
  lang: 'zh',
  hasVariables: false,
  turnFinishedNormally: true,
};

describe('state/runScribe on a real Session', () => {
  afterEach(removeTempDirs);

  it('a navigate queued while the call is in flight → stale; no state entry on either branch', async () => {
    const { s, a1 } = await twoBranches();
    let moved: Promise<void> = Promise.resolve();
    // The novelist switches to the other variant just as the reply lands: the navigate is queued,
    // not yet written, when runScribe checks the leaf.
    const out = await runScribe(deps(s, model('{"patch":{"time":"深夜"}}', () => void (moved = s.navigate(a1)))), input);
    await moved;
    assert.deepEqual(out, { kind: 'stale' });
    assert.equal(s.leafId, a1);
    assert.equal(s.entries().filter((e) => e.type === 'state').length, 0);
    await s.close();
  });

  it('a navigate queued right before the append → stale, nothing written', async () => {
    const { s, a1 } = await twoBranches();
    let moved: Promise<void> = Promise.resolve();
    const out = await runScribe(
      deps(s, model('{"patch":{"time":"深夜"}}'), {
        getCurrentState: () => {
          moved = s.navigate(a1);
          return seedOpening();
        },
      }),
      input,
    );
    await moved;
    assert.deepEqual(out, { kind: 'stale' });
    assert.equal(s.entries().filter((e) => e.type === 'state').length, 0);
    await s.close();
  });

  it('an append on the same chain queued before → applied, under the newer leaf', async () => {
    const { s, a2 } = await twoBranches();
    let appended: Promise<{ id: string }> | undefined;
    const out = await runScribe(deps(s, model('{"patch":{"time":"深夜"}}', () => void (appended = s.append(tool('c1', 'ok'))))), input);
    assert.equal(out.kind, 'applied');
    const written = await (appended as Promise<{ id: string }>);
    const state = s.lastOnPath('state');
    assert.equal(state?.parentId, written.id);
    assert.equal(s.get(written.id)?.parentId, a2);
    assert.equal((state as { state?: { time?: string } } | undefined)?.state?.time, '深夜');
    await s.close();
  });
});
