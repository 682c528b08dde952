// formatState and injectState.
import * as assert from 'node:assert/strict';
import { applyPatch } from '../../../src/state/apply';
import { formatState } from '../../../src/state/format';
import { injectState } from '../../../src/state/inject';
import { emptyState } from '../../../src/state/normalize';
import type { SceneState } from '../../../src/state/types';
import { SEED_PATCH_1, seedOpening } from './helpers';

function seedAfterTurn1(): SceneState {
  return applyPatch(seedOpening(), SEED_PATCH_1).state;
}

describe('state/formatState', () => {
  it('renders 【世界状态】 one fact per line and 【登场名录】 in one line', () => {
    const text = formatState(seedAfterTurn1(), { lang: 'zh' });
    const lines = text.split('\n');
    assert.deepEqual(lines.slice(0, 7), [
      '【世界状态】',
      '时间：傍晚（雨中）',
      '地点：青梧的客栈（檐外下雨）',
      '青梧（在：青梧的客栈）好感 5，收留了避雨的林砚，客栈老板娘，随身带着黄铜怀表',
      '林砚（在：青梧的客栈）好感 0，浑身湿透，借宿客栈',
      '物品：黄铜怀表（青梧持有）',
      '伏笔：林砚似乎认得那只怀表',
    ]);
    assert.equal(lines.length, 8);
    const roster = lines[7] ?? '';
    assert.ok(roster.startsWith('【登场名录】人物：青梧@夜里、林砚@傍晚（雨中）；地点：听雨轩@夜里、'));
    assert.ok(roster.includes('物品：黄铜怀表@傍晚（雨中）'));
    assert.ok(roster.includes('事件：林砚似乎认得那只怀表@傍晚（雨中）'));
    assert.ok(roster.endsWith('名录之外的名字才是新登场。'));
  });

  it('presence is an exact string compare: branch A vs branch B of the seed', () => {
    // Branch A: the location has "（檐外下雨）", the at does not → 在：青梧的客栈.
    const a = formatState(seedAfterTurn1(), { lang: 'zh' });
    assert.ok(a.includes('青梧（在：青梧的客栈）'));
    // Branch B: the scribe wrote the same string in both → 在场.
    const b = applyPatch(seedOpening(), {
      location: '镇北渡口附近的客栈',
      characters: { 青梧: { at: '镇北渡口附近的客栈' }, 林砚: { at: '镇北渡口附近的客栈' } },
    }).state;
    const tb = formatState(b, { lang: 'zh' });
    assert.ok(tb.includes('青梧（在场）好感 0'));
    assert.ok(tb.includes('林砚（在场）好感 0'));
  });

  it('English labels', () => {
    const text = formatState(seedAfterTurn1(), { lang: 'en' });
    assert.ok(text.startsWith('[World State]\nTime: 傍晚（雨中）\nLocation: '));
    assert.ok(text.includes('青梧 (at: 青梧的客栈) affinity 5, '));
    assert.ok(text.includes('\n[Roster] characters: 青梧@夜里, 林砚@傍晚（雨中）; locations: '));
    assert.ok(text.endsWith('Names not listed here are new.'));
  });

  it('an empty state still renders, with (not recorded) / empty roster', () => {
    const t = formatState(emptyState(), { lang: 'zh' });
    assert.equal(t, '【世界状态】\n时间：（未记）\n地点：（未记）\n【登场名录】（空）。名录之外的名字才是新登场。');
  });

  it('variables appear as one line of JSON', () => {
    const s = applyPatch(seedOpening(), { variables: { hp: 3 } }).state;
    assert.ok(formatState(s, { lang: 'zh' }).includes('\n变量：{"hp":3}\n'));
  });

  describe('budget', () => {
    function bigState(): SceneState {
      let s = seedOpening();
      for (let i = 0; i < 40; i++) {
        s = applyPatch(s, { time: `第${i}日黄昏`, characters: { [`角色${i}`]: { at: `别处${i}` } }, items: [`物件${i}`] }).state;
      }
      return s;
    }

    it('within budget: unchanged', () => {
      const s = bigState();
      const full = formatState(s, { lang: 'zh' });
      assert.equal(formatState(s, { lang: 'zh', budget: full.length }), full);
    });

    it('over budget: first-seen times go before any name', () => {
      const s = bigState();
      const full = formatState(s, { lang: 'zh' });
      const noTimes = full.length - 200;
      const t = formatState(s, { lang: 'zh', budget: noTimes });
      assert.ok(t.length <= noTimes);
      for (const name of Object.keys(s.roster.characters)) assert.ok(t.includes(name), name);
      for (const name of Object.keys(s.roster.items)) assert.ok(t.includes(name), name);
      assert.ok(t.includes('@'), 'only as many times as needed are dropped');
      // The oldest entries lose their time first.
      assert.ok(!t.includes('青梧@'));
    });

    it('still over: oldest names not on stage go, with a note saying how many', () => {
      const s = bigState();
      const world = formatState(s, { lang: 'zh' }).split('\n【登场名录】')[0] ?? '';
      const budget = world.length + 200;
      const t = formatState(s, { lang: 'zh', budget });
      assert.ok(t.length <= budget);
      assert.ok(!t.includes('@'));
      assert.match(t, /另有 \d+ 个较早的名字因篇幅未列出/);
      assert.ok(t.startsWith(world), 'the world state itself is never cut');
    });

    it('a budget smaller than the world state keeps the world state whole', () => {
      const s = bigState();
      const t = formatState(s, { lang: 'en', budget: 10 });
      assert.ok(t.startsWith('[World State]'));
      assert.ok(t.includes('older names left out'));
    });
  });
});

describe('state/injectState', () => {
  it('prepends the block to the newest user message only; older ones untouched', () => {
    const msgs = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: '第一轮' },
      { role: 'assistant', content: '好' },
      { role: 'user', content: '第二轮' },
      { role: 'assistant', content: '…' },
    ];
    const before = JSON.stringify(msgs);
    const out = injectState(msgs, '【世界状态】\n时间：夜');
    assert.equal(JSON.stringify(msgs), before, 'input not mutated');
    assert.equal(out[1], msgs[1], 'older user message is the same object');
    assert.equal(out[3]?.content, '【世界状态】\n时间：夜\n\n第二轮');
    assert.equal(out[4], msgs[4]);
  });

  it('content parts get a text part in front; no user message → unchanged', () => {
    const out = injectState([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], 'B');
    assert.deepEqual(out[0]?.content, [{ type: 'text', text: 'B' }, { type: 'text', text: 'hi' }]);
    const none = [{ role: 'system', content: 's' }];
    assert.deepEqual(injectState(none, 'B'), none);
  });

  it('the prefix stays byte-stable across turns', () => {
    const turn1 = [{ role: 'user', content: 'a' }];
    const sent1 = injectState(turn1, 'S1');
    const turn2 = [...turn1, { role: 'assistant', content: 'x' }, { role: 'user', content: 'b' }];
    const sent2 = injectState(turn2, 'S2');
    // History is replayed raw (without the old block), so turn 2's prefix equals turn 1's raw history.
    assert.equal(JSON.stringify(sent2.slice(0, 1)), JSON.stringify(turn1));
    assert.notEqual(sent1[0], turn1[0]);
  });
});
