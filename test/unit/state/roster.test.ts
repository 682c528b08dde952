// registerRoster: grow-only, first-seen times, caps with oldest (inactive first) dropped.
import * as assert from 'node:assert/strict';
import { applyPatch } from '../../../src/state/apply';
import { LIMITS } from '../../../src/state/limits';
import { emptyState } from '../../../src/state/normalize';
import { departedCharacters, itemName, registerRoster } from '../../../src/state/roster';
import { seedOpening } from './helpers';

describe('state/roster', () => {
  it('records the in-story time a name is first seen, and never overwrites it', () => {
    let s = seedOpening();
    s = applyPatch(s, { time: '第二天', characters: { 林砚: {} } }).state;
    s = applyPatch(s, { time: '第三天', characters: { 林砚: { status: 'x' }, 青梧: { status: 'y' } } }).state;
    assert.deepEqual(s.roster.characters, { 青梧: '夜里', 林砚: '第二天' });
  });

  it('names are never removed when characters leave or lists are emptied', () => {
    let s = applyPatch(seedOpening(), { items: ['伞（林砚持有）'], threads: ['三日之约'] }).state;
    s = applyPatch(s, { characters: { 青梧: null }, items: [], threads: [], location: '渡口' }).state;
    assert.ok('青梧' in s.roster.characters);
    assert.ok('伞' in s.roster.items);
    assert.ok('三日之约' in s.roster.threads);
    assert.ok('听雨轩' in s.roster.locations);
    assert.deepEqual(departedCharacters(s), ['青梧']);
  });

  it('locations come from location and every at', () => {
    const s = applyPatch(emptyState(), { location: '客栈', characters: { a: { at: '后院' }, b: { at: '客栈' }, c: { at: '' } } }).state;
    assert.deepEqual(Object.keys(s.roster.locations), ['客栈', '后院']);
  });

  it('an item changing hands stays one roster name', () => {
    assert.equal(itemName('黄铜怀表（青梧持有）'), '黄铜怀表');
    assert.equal(itemName('brass watch (held by Qingwu)'), 'brass watch');
    assert.equal(itemName('（空）'), '（空）');
    let s = applyPatch(emptyState(), { items: ['黄铜怀表（青梧持有）'] }).state;
    s = applyPatch(s, { items: ['黄铜怀表（林砚持有）'] }).state;
    assert.deepEqual(Object.keys(s.roster.items), ['黄铜怀表']);
  });

  it('caps: characters/locations 100, items/threads 60, oldest dropped first', () => {
    let s = emptyState();
    for (let i = 0; i < 130; i++) {
      s = applyPatch(s, {
        time: `第${i}天`,
        location: `地${i}`,
        characters: { [`人${i}`]: {}, ...(i > 0 ? { [`人${i - 1}`]: null } : {}) },
        items: [`物${i}`],
        threads: [`线${i}`],
      }).state;
    }
    assert.equal(Object.keys(s.roster.characters).length, LIMITS.roster.characters);
    assert.equal(Object.keys(s.roster.locations).length, LIMITS.roster.locations);
    assert.equal(Object.keys(s.roster.items).length, LIMITS.roster.items);
    assert.equal(Object.keys(s.roster.threads).length, LIMITS.roster.threads);
    assert.equal(Object.keys(s.roster.characters)[0], '人30');
    assert.equal(Object.keys(s.roster.items)[0], '物70');
    assert.equal(s.roster.characters['人129'], '第129天');
  });

  it('names on stage are evicted only after every inactive one', () => {
    const s = emptyState();
    // The oldest roster name is on stage: it must survive the cap.
    s.characters['老友'] = { affinity: 0, status: '', notes: '', at: '' };
    s.roster.characters['老友'] = '开场';
    for (let i = 0; i < 100; i++) s.roster.characters[`路人${i}`] = 't';
    const r = registerRoster(s);
    assert.equal(Object.keys(r.characters).length, 100);
    assert.ok('老友' in r.characters);
    assert.equal('路人0' in r.characters, false);
  });
});
