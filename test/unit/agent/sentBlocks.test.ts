// The blocks in front of the instructions, on a real session tree: the full state before the first
// instruction after the old turns and every FULL_EVERY after it, the changes since the instruction
// before on the others; all re-derived from the branch, so the same bytes every later turn.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { blockedInstructions, FULL_EVERY, instructionsBeforeSummary, SentBlocks, type BlockSettings } from '../../../src/agent/sentBlocks';
import type { ChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { formatState } from '../../../src/state/format';
import { formatChanges } from '../../../src/state/formatChanges';
import { openingState } from '../../../src/state/opening';
import { stateAt } from '../../../src/state/stateAt';
import { assistant, removeTempDirs, tempDir, user } from '../session/helpers';

/** Ledgers the size of real ones, so a few changed lines are shorter than the full block. */
const FACTS = Array.from({ length: 12 }, (_, i) => `第${i}件旧事：城东的铺子在雨里关了门`);
const big = (time: string, location: string) => ({ ...openingState({ time, location }), facts: FACTS });
const SETTINGS: BlockSettings = { opening: big('开场', '茶馆'), lang: 'zh' };

describe('agent/sentBlocks', () => {
  let session: Session;
  beforeEach(async () => {
    session = await Session.create(path.join(tempDir('wl-sent-'), 's.jsonl'), { id: 's', title: 't' });
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  const state = (time: string) => session.append({ type: 'state', state: big(time, '渡口'), by: 'scribe', warnings: [] });
  const before = (id: string) => stateAt(session.path(id), SETTINGS.opening, { lang: 'zh' }).state;
  const full = (id: string) => formatState(before(id), { lang: 'zh' });
  const changes = (from: string, to: string) => formatChanges(before(from), before(to), { lang: 'zh' });

  it('the full block of an instruction is the state before it, on every branch, whatever came after', async () => {
    const u1 = await session.append(user('一'));
    await session.append(assistant('好。'));
    await state('一更');
    const u2 = await session.append(user('二'));
    await session.append(assistant('好。'));
    await session.append({ type: 'state', state: { time: 5 }, by: 'scribe', warnings: [] }); // damaged
    const u3 = await session.append(user('三'));
    const sent = new SentBlocks(session);
    const warnings: string[] = [];
    assert.equal(sent.fullBlock(u3.id, SETTINGS, warnings), full(u3.id));
    assert.ok(sent.fullBlock(u3.id, SETTINGS).includes('时间：一更'), 'the damaged state is skipped');
    assert.equal(warnings.length, 1, 'and said once');
    assert.ok(sent.fullBlock(u1.id, SETTINGS).includes('时间：开场'), 'before any state: the opening');
    await session.navigate(u1.id);
    await session.append(assistant('另一种。'));
    await state('别处');
    const v2 = await session.append(user('二（另一支）'));
    assert.ok(sent.fullBlock(v2.id, SETTINGS).includes('时间：别处'));
    for (const id of [u1.id, u2.id, u3.id, v2.id]) assert.equal(sent.fullBlock(id, SETTINGS), full(id), id);
  });

  it('the first instruction after the old turns gets the full state, each later one the changes since the one before', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await session.append(user(`指令${i}`))).id);
      await session.append(assistant('好。'));
      if (i !== 1) await state(`${i}更`); // no scribe after the second turn: nothing changes before the third
    }
    const context = session.context();
    const sent = new SentBlocks(session);
    const at0 = sent.blocks(context, 0, SETTINGS);
    assert.deepEqual([...at0.past.keys()], ids.slice(0, 3), 'the newest is apart');
    assert.equal(at0.past.get(ids[0] as string), full(ids[0] as string));
    assert.equal(at0.past.get(ids[1] as string), changes(ids[0] as string, ids[1] as string));
    assert.ok(at0.past.get(ids[1] as string)?.startsWith('【世界状态变化】') && at0.past.get(ids[1] as string)?.includes('时间：0更'));
    assert.equal(at0.past.get(ids[2] as string), '【世界状态】自上一条指令起没有变化。');
    assert.equal(at0.newest, changes(ids[2] as string, ids[3] as string));
    // Two turns old (before a summary): bare; the first after them carries the full state.
    const at2 = sent.blocks(context, 2, SETTINGS);
    assert.deepEqual([...at2.past.keys()], [ids[2]]);
    assert.equal(at2.past.get(ids[2] as string), full(ids[2] as string));
    assert.equal(sent.blocks(context, 9, SETTINGS).newest, full(ids[3] as string), 'the newest always has a block, full when it is the only one');
    // The turn's own instruction hidden and retried: the newest replayed one is brought to the turn's state.
    await session.append(assistant('好。'));
    await state('末更');
    const hidden = await session.append(user('被隐藏的指令'));
    const current = sent.blocks(context, 0, SETTINGS, { current: hidden.id });
    assert.equal(current.newest, changes(ids[2] as string, hidden.id));
    assert.ok(current.newest.includes('时间：末更'));
    assert.deepEqual(current.past, at0.past, 'the earlier ones as before');
  });

  it('the same bytes for every earlier instruction, turn after turn; a full block every FULL_EVERY', async () => {
    const sent = new SentBlocks(session);
    const seen = new Map<string, string>();
    const ids: string[] = [];
    for (let i = 0; i < FULL_EVERY * 2 + 3; i++) {
      ids.push((await session.append(user(`指令${i}`))).id);
      const b = new SentBlocks(session).blocks(session.context(), 0, SETTINGS); // a fresh cache: nothing stored
      assert.deepEqual(b, sent.blocks(session.context(), 0, SETTINGS));
      for (const [id, text] of b.past) assert.equal(text, seen.get(id), `instruction ${ids.indexOf(id)} replayed as sent`);
      seen.set(ids[i] as string, b.newest);
      const isFull = i % FULL_EVERY === 0;
      assert.equal(b.newest === full(ids[i] as string), isFull || i === 0, `instruction ${i}`);
      if (!isFull) assert.equal(b.newest, changes(ids[i - 1] as string, ids[i] as string));
      await session.append(assistant('好。'));
      await state(`${i}更`);
    }
  });

  it('an instruction edited to nothing is left out of the chain; a change block longer than the full one is the full one', async () => {
    const a = await session.append(user('一'));
    await session.append(assistant('好。'));
    await state('一更');
    const b = await session.append(user('   '));
    await session.append(assistant('好。'));
    await state('二更');
    const c = await session.append(user('三'));
    assert.deepEqual(blockedInstructions(session.context(), 0), [a.id, c.id]);
    const got = new SentBlocks(session).blocks(session.context(), 0, SETTINGS);
    assert.equal(got.past.has(b.id), false);
    assert.equal(got.newest, changes(a.id, c.id), 'the changes since the instruction the model saw');
    // A rewritten ledger: the list of changes would be longer than the state itself, so the state goes.
    const many = { ...big('三更', '码头'), facts: Array.from({ length: 30 }, (_, i) => `事实${i}`) };
    await session.append(assistant('好。'));
    await session.append({ type: 'state', state: many, by: 'scribe', warnings: [] });
    const d = await session.append(user('四'));
    const got2 = new SentBlocks(session).blocks(session.context(), 0, SETTINGS);
    assert.equal(got2.newest, full(d.id));
    assert.ok(full(d.id).length < changes(c.id, d.id).length);
  });

  it('instructionsBeforeSummary: the instructions written before the active summary entry', async () => {
    const users: ChainEntry[] = [];
    for (const t of ['一', '二', '三', '四']) {
      users.push(await session.append(user(t)));
      await session.append(assistant(`${t}好。`));
      if (t === '二') {
        await session.append({ type: 'summary', text: '前情一', coversThroughId: users[0]?.id as string });
      }
    }
    const view = () => session.contextWithSummary();
    assert.equal(instructionsBeforeSummary(session, { messages: session.context() }), 0, 'no summary: none');
    assert.equal(instructionsBeforeSummary(session, view()), 1, 'the second instruction is before the summary; the first is covered');
    const second = await session.append({ type: 'summary', text: '前情二', coversThroughId: users[1]?.id as string });
    assert.equal(instructionsBeforeSummary(session, view()), 2, 'a summary below every message: all of them');
    await session.appendSide({ type: 'hide', targetId: second.id, hidden: true });
    assert.equal(instructionsBeforeSummary(session, view()), 1, 'a hidden summary is not the active one');
  });
});
