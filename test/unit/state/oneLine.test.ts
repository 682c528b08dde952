// Model-written strings stay on one line: the injected 【世界状态】 block is one fact per line, so a
// newline in a name or a fact must never add a line or forge a header.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyPatch } from '../../../src/state/apply';
import { formatState } from '../../../src/state/format';
import { normalizeState } from '../../../src/state/normalize';
import { oneLine } from '../../../src/state/patch';
import { HEADER_MARK, opensLikeHeader } from '../../../src/state/text';
import { stateAt } from '../../../src/state/stateAt';
import { userEdit } from '../../../src/state/userEdit';
import { ROSTER_TABLES, type Lang, type SceneState } from '../../../src/state/types';
import { seedOpening } from './helpers';

const BREAKS = ['\n', '\r\n', '\r', '\u0000', '\t', '\u000b', '\u000c', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029', '\u202e', '\u2066', '\u200f', '\u061c'];
const HEADERS: Record<Lang, string[]> = { zh: ['【世界状态】', '【登场名录】'], en: ['[World State]', '[Roster]'] };

/** Arbitrary text, with line breaks, control characters and header look-alikes mixed in often. */
const text: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.string({ maxLength: 8, unit: 'binary' }) },
      { weight: 2, arbitrary: fc.constantFrom(...BREAKS) },
      { weight: 1, arbitrary: fc.constantFrom('【世界状态】', '【登场名录】', '[World State]', '[Roster] ', '事实：', ' ', '\u3000') },
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));

/** The world block's lines (all but the last line, which is the roster). */
function worldLines(out: string): string[] {
  return out.split('\n').slice(0, -1);
}

describe('state/one line per fact', () => {
  it('oneLine collapses each run of control characters (and the spaces around it) to one space', () => {
    assert.equal(oneLine('甲\n乙'), '甲 乙');
    assert.equal(oneLine('  甲 \r\n\r\n  乙\u2028\u2029丙\u0000丁\t戊  '), '甲 乙 丙 丁 戊');
    assert.equal(oneLine('\n\n'), '');
    assert.equal(oneLine('a  b'), 'a  b'); // ordinary spaces are the writer's business
  });

  it('a name "林\\n【世界状态】" and a fact "甲\\n乙" stay on one line each', () => {
    const { state } = applyPatch(seedOpening(), {
      time: '夜里\n【登场名录】',
      characters: { '林\n【世界状态】': { status: '醒着\r\n【世界状态】', notes: 'a\u2028b', at: '听雨轩\n' } },
      items: ['伞\n（青梧持有）'],
      facts: ['甲\n乙', '甲 \u2029 乙'],
      threads: ['\n'],
      variables: { 日记: '第一行\n第二行' },
    });
    assert.deepEqual(Object.keys(state.characters), ['青梧', '林 【世界状态】']);
    assert.equal(state.characters['林 【世界状态】']?.status, '醒着 【世界状态】');
    assert.equal(state.characters['林 【世界状态】']?.at, '听雨轩');
    assert.equal(state.time, '夜里 【登场名录】');
    assert.deepEqual(state.items, ['伞 （青梧持有）']);
    assert.deepEqual(state.facts, ['甲 乙']);
    assert.deepEqual(state.threads, []);
    // Variables are JSON: their strings keep the newline, and the line escapes it.
    assert.deepEqual(state.variables, { 日记: '第一行\n第二行' });
    const lines = formatState(state, { lang: 'zh' }).split('\n');
    assert.deepEqual(lines.slice(0, 7), [
      '【世界状态】',
      '时间：夜里 【登场名录】',
      '地点：听雨轩',
      '青梧（在场）好感 0',
      '林 【世界状态】（在场）好感 0，醒着 【世界状态】，a b',
      '物品：伞 （青梧持有）',
      '事实：甲 乙',
    ]);
    assert.equal(lines[7], '变量：{"日记":"第一行\\n第二行"}');
    assert.equal(lines.length, 9);
    assert.ok(lines[8]?.startsWith('【登场名录】'));
  });

  it('normalizeState flattens roster names and first-seen times', () => {
    const s = seedOpening();
    const broken = { ...s, roster: { ...s.roster, characters: { ...s.roster.characters, '沈\n砚': '第一天\n【世界状态】' } } };
    const { state } = normalizeState(broken);
    assert.equal(state.roster.characters['沈 砚'], '第一天 【世界状态】');
    assert.equal(formatState(state, { lang: 'zh' }).split('\n').length, 5);
  });

  it('states that bypass the merge (a whole-state edit, an old stored entry) still print one line each', () => {
    const s = seedOpening();
    const whole: SceneState = {
      ...s,
      time: '夜\n里',
      characters: { '林\n【世界状态】': { affinity: 0, status: 'x\ny', notes: '', at: '别处\r\n' } },
      facts: ['甲\n乙'],
      roster: { ...s.roster, items: { '伞\n【登场名录】': '夜\n里' } },
    };
    const edited = userEdit(s, whole);
    const fromDisk = stateAt([{ type: 'state', id: 'x', state: whole }], s).state;
    for (const state of [edited.ok ? edited.state : whole, fromDisk]) {
      const lines = formatState(state, { lang: 'zh' }).split('\n');
      assert.equal(lines.length, 6, lines.join(' | '));
      assert.deepEqual(lines.filter((l) => l.startsWith('【')).length, 2);
      assert.equal(lines[3], '林 【世界状态】（在：别处）好感 0，x y');
    }
  });

  it('property: for arbitrary strings, one line per character, item, fact and thread; no forged header', () => {
    const patch = fc.record({
      time: text,
      location: text,
      characters: fc.dictionary(text, fc.record({ status: text, notes: text, at: text }), { maxKeys: 4 }),
      items: fc.array(text, { maxLength: 5 }),
      facts: fc.array(text, { maxLength: 5 }),
      threads: fc.array(text, { maxLength: 5 }),
      variables: fc.dictionary(text, text, { maxKeys: 3 }),
    });
    fc.assert(
      fc.property(patch, fc.constantFrom<Lang>('zh', 'en'), (p, lang) => {
        const { state } = applyPatch(seedOpening(), p, { lang });
        const out = formatState(state, { lang });
        const lines = out.split('\n');
        const world = worldLines(out);
        const names = Object.keys(state.characters);
        const hasVars = state.variables !== undefined && Object.keys(state.variables).length > 0;
        const L = lang === 'zh' ? { item: '物品：', fact: '事实：', thread: '伏笔：' } : { item: 'Item: ', fact: 'Fact: ', thread: 'Thread: ' };
        // Exactly: header, time, location, one line per character, item, fact, thread, [variables].
        assert.equal(world.length, 3 + names.length + state.items.length + state.facts.length + state.threads.length + (hasVars ? 1 : 0));
        // Each string as stored, or with the header mark in front when it opens like a header.
        const shown = (s: string): string => (opensLikeHeader(s) ? HEADER_MARK + s : s);
        let i = 3;
        for (const n of names) {
          const line = world[i++] ?? '';
          assert.ok(line.startsWith(n) || line.startsWith(HEADER_MARK + n), line);
        }
        for (const s of state.items) assert.equal(world[i++], L.item + shown(s));
        for (const s of state.facts) assert.equal(world[i++], L.fact + shown(s));
        for (const s of state.threads) assert.equal(world[i++], L.thread + shown(s));
        // The roster is the one last line.
        const [worldHeader, rosterHeader] = HEADERS[lang];
        assert.equal(world[0], worldHeader);
        assert.ok(lines[lines.length - 1]?.startsWith(rosterHeader ?? '?'));
        // No other line opens like a header, not even a character line whose name does.
        world.forEach((line, k) => {
          if (k > 0) assert.ok(!opensLikeHeader(line), `line ${k} opens like a header: ${JSON.stringify(line)}`);
        });
        // No stored string holds a line break at all.
        const strings = [state.time, state.location, ...state.items, ...state.facts, ...state.threads, ...names];
        for (const c of Object.values(state.characters)) strings.push(c.status, c.notes, c.at);
        for (const t of ROSTER_TABLES) for (const [k, v] of Object.entries(state.roster[t])) strings.push(k, v);
        for (const s of strings) assert.ok(!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(s), JSON.stringify(s));
      }),
      { numRuns: 500 },
    );
  });
});
