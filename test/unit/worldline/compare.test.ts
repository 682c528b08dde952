// Compare Saves over a real checkpoint store, and the scene state document of a save from its branch.
import { strict as assert } from 'node:assert';
import { parse } from 'yaml';
import { openingState } from '../../../src/state/opening';
import { branchOf, type BranchOptions } from '../../../src/story/branch';
import { changeToShow, compareSaves, stateDocumentAt } from '../../../src/worldline/compare';
import { planNewSave } from '../../../src/worldline/plan';
import type { SaveEntry } from '../../../src/session/entries';
import { cleanupTmp } from '../checkpoints/helpers';
import { ProseBook } from './proseBook';

const OPTIONS: BranchOptions = { opening: openingState({ time: '开场', location: '客栈' }), lang: 'zh' };

describe('compare saves', () => {
  afterEach(cleanupTmp);

  it('lists the files that differ between the prose of two saves, on two worldlines', async () => {
    const book = await ProseBook.open();
    await book.turn('问名', { 'chapters/01.md': '# 第一章\n\n她说她叫青梧。\n' }, '夜里');
    const ask = await book.save('雨夜问名');
    await book.turn('问生死', { 'chapters/02.md': '茶盏落地。\n' }, '子时');
    const direct = await book.save('直问生死');
    await book.session.navigate(ask.id);
    await book.turn('坦言来意', { 'chapters/01.md': '# 第一章\n\n她说她叫青梧。她点头。\n', 'chapters/02.md': '' }, '清晨');
    const confess = await book.save('坦言来意');

    const c = await compareSaves(book.session, direct.saveId, confess.saveId, book.repo);
    assert.equal(c.kind, 'changed');
    assert.deepEqual(c.kind === 'changed' && c.changes.map((f) => f.path).sort(), ['chapters/01.md', 'chapters/02.md']);
    const same = await compareSaves(book.session, ask.saveId, ask.saveId, book.repo);
    assert.equal(same.kind, 'same');
    const earlier = await compareSaves(book.session, ask.saveId, direct.saveId, book.repo);
    assert.deepEqual(earlier.kind === 'changed' && earlier.changes.map((f) => [f.path, f.status]), [['chapters/02.md', 'A']]);
    assert.deepEqual(await compareSaves(book.session, ask.saveId, direct.saveId, undefined), { kind: 'no-prose' });

    // Each save's state document is the state its branch carries, whatever the current leaf.
    assert.equal(parse(stateDocumentAt(book.session, OPTIONS, direct.id)).time, '子时');
    assert.equal(parse(stateDocumentAt(book.session, OPTIONS, confess.id)).time, '清晨');
    assert.deepEqual(parse(stateDocumentAt(book.session, OPTIONS, ask.id)), branchOf(book.session, OPTIONS, ask.id).state.state);
    assert.equal(stateDocumentAt(book.session, OPTIONS, 'no-such-entry'), '');
    await book.close();
  });

  it('saves whose checkpoints the store no longer has are "lost", not a git error', async () => {
    const book = await ProseBook.open();
    await book.turn('问名', { 'chapters/01.md': '# 第一章\n\n她说她叫青梧。\n' }, '夜里');
    const ask = await book.save('雨夜问名');
    await book.turn('问生死', { 'chapters/02.md': '茶盏落地。\n' }, '子时');
    const direct = await book.save('直问生死');
    // Another store (as after the shadow repo was deleted and rebuilt) holds none of these commits.
    const rebuilt = await ProseBook.open();
    assert.deepEqual(await compareSaves(book.session, ask.saveId, direct.saveId, rebuilt.repo), { kind: 'lost' });
    assert.equal((await compareSaves(book.session, ask.saveId, direct.saveId, book.repo)).kind, 'changed', 'its own store still compares');
    await rebuilt.close();
    await book.close();
  });

  it('a save before any checkpoint has no prose to compare; its state is the opening', async () => {
    const book = await ProseBook.open();
    await book.session.append({ type: 'user', text: '开场' });
    const bare = (await book.session.append(planNewSave({ name: '开场', lang: 'zh', tree: book.session }))) as SaveEntry;
    await book.turn('写', { 'chapters/01.md': '雨。\n' });
    const later = await book.save('雨');
    assert.deepEqual(await compareSaves(book.session, bare.saveId, later.saveId, book.repo), { kind: 'no-prose' });
    assert.deepEqual(parse(stateDocumentAt(book.session, OPTIONS, bare.id)), OPTIONS.opening);
    await book.close();
  });

  it('which file to show: the one asked for, the only one, else ask', () => {
    const a = { path: 'a.md', status: 'M' as const };
    const b = { path: 'b.md', status: 'A' as const };
    assert.equal(changeToShow([a, b], 'b.md'), b);
    assert.equal(changeToShow([a, b], 'c.md'), undefined, 'a file that did not change');
    assert.equal(changeToShow([a]), a);
    assert.equal(changeToShow([a, b]), 'ask');
    assert.equal(changeToShow([]), undefined);
  });
});
