// The rule "is this answer still current": a question answered later acts only on the branch it
// was asked on. Over a real session file.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import type { NewChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { answerStillCurrent, markBranch } from '../../../src/story';
import { removeTempDirs, tempDir } from '../session/helpers';
import { sceneAt } from './helpers';

const user = (text: string): NewChainEntry => ({ type: 'user', text });
const reply = (text: string): NewChainEntry => ({ type: 'assistant', text, model: 'm', finish: 'stop' });
const checkpoint: NewChainEntry = { type: 'checkpoint', commit: 'c', ref: 'refs/worldline/c', changed: [] };
const state: NewChainEntry = { type: 'state', state: sceneAt('夜'), by: 'scribe', warnings: [] };

describe('answerStillCurrent', () => {
  let session: Session;
  beforeEach(async () => {
    session = await Session.create(path.join(tempDir('wl-answer-'), 'a.jsonl'), { id: 'a', title: 't' });
    await session.append(user('一'));
    await session.append(reply('好'));
    await session.append(checkpoint);
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  const now = (busy = false) => markBranch(session, busy);

  it('nothing changed: current', () => {
    const asked = now();
    assert.deepEqual(answerStillCurrent(asked, now(), session), { current: true });
  });

  it('the scribe\'s state or a summary appended below: current (no prose, no story added)', async () => {
    const asked = now();
    await session.append(state);
    await session.append({ type: 'summary', text: '前情', coversThroughId: session.path()[0]!.id });
    await session.append({ ...state, by: 'user' } as NewChainEntry);
    assert.deepEqual(answerStillCurrent(asked, now(), session), { current: true });
  });

  it('a new instruction, a reply, a pinned checkpoint or a save below: moved', async () => {
    for (const entry of [user('二'), reply('嗯'), checkpoint, { type: 'save', saveId: 's', name: 'n', worldlineId: 'w', worldlineName: 'l', kind: 'first' } as NewChainEntry]) {
      const asked = now();
      await session.append(state);
      await session.append(entry);
      assert.deepEqual(answerStillCurrent(asked, now(), session), { current: false, reason: 'moved' }, entry.type);
    }
  });

  it('switched elsewhere: moved; switched away and back: current', async () => {
    const asked = now();
    const here = session.leafId;
    await session.navigate(session.path()[0]!.id);
    assert.deepEqual(answerStillCurrent(asked, now(), session), { current: false, reason: 'moved' }, 'an ancestor is not the branch asked about');
    await session.navigate(null);
    assert.deepEqual(answerStillCurrent(asked, now(), session), { current: false, reason: 'moved' });
    await session.navigate(here);
    assert.deepEqual(answerStillCurrent(asked, now(), session), { current: true });
  });

  it('a turn started since: busy; a question a running turn asked itself: current', () => {
    assert.deepEqual(answerStillCurrent(now(false), now(true), session), { current: false, reason: 'busy' });
    assert.deepEqual(answerStillCurrent(now(true), now(true), session), { current: true });
    assert.deepEqual(answerStillCurrent(now(true), now(false), session), { current: true });
  });

  it('another session, or none: session', () => {
    const asked = now();
    assert.deepEqual(answerStillCurrent(asked, { ...now(), sessionId: 'other' }, session), { current: false, reason: 'session' });
    assert.deepEqual(answerStillCurrent(asked, undefined, session), { current: false, reason: 'session' });
  });

  it('asked before the first entry: only bookkeeping since keeps it current', async () => {
    const empty = await Session.create(path.join(tempDir('wl-answer-'), 'e.jsonl'), { id: 'e', title: 't' });
    const asked = markBranch(empty, false);
    await empty.append(state);
    assert.deepEqual(answerStillCurrent(asked, markBranch(empty, false), empty), { current: true });
    await empty.append(user('一'));
    assert.deepEqual(answerStillCurrent(asked, markBranch(empty, false), empty), { current: false, reason: 'moved' });
    await empty.close();
  });
});
