// What a save picker shows of each save, and where it comes from: the in-story time and place of
// the save's scene state, and the first words of the prose written last before it (a write, an
// append, an edit that did not fail; else the reply of the save's own turn), read from the
// session's entries alone, each entry walked about once however many saves a book has.
import { strict as assert } from 'node:assert';
import type { ChainEntry, Entry, NewChainEntry } from '../../../src/session/entries';
import type { Session } from '../../../src/session/session';
import { saveFactsReader } from '../../../src/worldline/saveFacts';
import { savePickItems } from '../../../src/worldline/savePicks';
import { emptySidecar } from '../../../src/worldline/sidecar-data';
import { buildWorldlineView } from '../../../src/worldline/view';
import { english } from '../fixtures/scriptedPrompter';
import { sceneAt } from '../story/helpers';
import { newSession, removeTempDirs, save } from './helpers';

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const state = (time: string, location: string): NewChainEntry => ({ type: 'state', state: { ...sceneAt(time), location }, by: 'scribe', warnings: [] });

describe('save picks and what a save held', () => {
  let session: Session;
  beforeEach(async () => {
    session = await newSession();
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  const add = (e: NewChainEntry) => session.append(e);
  const factsAt = (saveEntryId: string) => saveFactsReader(session)(saveEntryId);

  it('the newest manuscript write before the save: content of a write or append, new text of an edit; a failed or malformed call wrote nothing', async () => {
    await add({ type: 'user', text: '第一章' });
    await add({ type: 'assistant', text: '', model: 'm', finish: 'stop', toolCalls: [call('a', 'write_file', { path: 'chapters/01.md', content: '# 第一章 雨夜\n\n雨落在客栈的瓦上，一夜未停。' })] });
    await add({ type: 'tool', callId: 'a', name: 'write_file', result: 'ok', isError: false });
    await add(state('第一夜', '听雨客栈'));
    const first = await save(session, '雨夜');
    assert.deepEqual(factsAt(first.id), { time: '第一夜', place: '听雨客栈', firstWords: '第一章 雨夜 雨落在客栈的瓦上，一夜未停。' }, 'the heading mark is not a word');

    await add({ type: 'user', text: '改一句' });
    await add({ type: 'assistant', text: '改好了。', model: 'm', finish: 'stop', toolCalls: [
      call('b', 'edit_file', { path: 'chapters/01.md', old_text: '一夜未停', new_text: '直到天明才歇' }),
      call('c', 'edit_file', { path: 'chapters/01.md', old_text: 'no such text', new_text: '这句没写进去' }),
      call('d', 'append_file', '{not json'),
      call('e', 'read_file', { path: 'chapters/01.md' }),
    ] });
    await add({ type: 'tool', callId: 'b', name: 'edit_file', result: 'ok', isError: false });
    await add({ type: 'tool', callId: 'c', name: 'edit_file', result: 'old_text not found', isError: true });
    await add({ type: 'tool', callId: 'd', name: 'append_file', result: 'bad arguments', isError: true });
    await add({ type: 'tool', callId: 'e', name: 'read_file', result: '……', isError: false });
    await add({ type: 'state', state: null, by: 'scribe', warnings: [] });
    const second = await save(session, '天明');
    assert.deepEqual(factsAt(second.id), { time: '第一夜', place: '听雨客栈', firstWords: '直到天明才歇' }, 'a damaged state is skipped, as the Scene State skips it');

    // A turn that wrote nothing: the prose is still the last one written on the path.
    await add({ type: 'user', text: '聊聊' });
    await add({ type: 'assistant', text: '', model: 'm', finish: 'stop' });
    const third = await save(session, '闲聊');
    assert.equal(factsAt(third.id).firstWords, '直到天明才歇');
    assert.deepEqual(factsAt(first.id).firstWords, '第一章 雨夜 雨落在客栈的瓦上，一夜未停。', 'each save its own');
  });

  it('no write on the path: the reply of the save\'s own turn, as edited; none at all: nothing', async () => {
    const opening = await save(session, '开场');
    assert.deepEqual(factsAt(opening.id), { time: '', place: '', firstWords: '' });
    await add({ type: 'user', text: '写' });
    const reply = await add({ type: 'assistant', text: '她推开门，\n\n   雨声涌了进来。', model: 'm', finish: 'stop' });
    const s = await save(session, '推门');
    assert.equal(factsAt(s.id).firstWords, '她推开门， 雨声涌了进来。');
    await session.appendSide({ type: 'edit', targetId: reply.id, text: '改过的回复' });
    assert.equal(factsAt(s.id).firstWords, '改过的回复', 'the edit is read again');
  });

  it('the pick items: name (you are here marked), line with time and place, when with the first words; the excluded save left out', async () => {
    await add({ type: 'user', text: '写' });
    await add({ type: 'assistant', text: '', model: 'm', finish: 'stop', toolCalls: [call('a', 'append_file', { path: 'c.md', content: 'Rain fell on the inn all night long, and nobody slept at all.' })] });
    await add({ type: 'tool', callId: 'a', name: 'append_file', result: 'ok', isError: false });
    await add(state('Day 2, evening', 'The inn'));
    const a = await save(session, 'Rain at the inn', 'en');
    const b = await save(session, 'Rain at the inn', 'en');
    const view = buildWorldlineView(session, emptySidecar(), session.leafId);
    const items = savePickItems(view);
    const line = view.worldlines[0]!.name;
    assert.deepEqual(items.map((i) => [english(i.label), i.description && english(i.description), i.detail && english(i.detail)]), [
      ['Rain at the inn', `${line} · Day 2, evening · The inn`, `${new Date(a.ts).toLocaleString()} · “Rain fell on the inn all night long,…”`],
      ['$(location) Rain at the inn', `${line} · Day 2, evening · The inn`, `${new Date(b.ts).toLocaleString()} · “Rain fell on the inn all night long,…”`],
    ]);
    assert.ok(items.every((i) => i.label.literal && i.description?.literal && i.detail?.literal), 'the novelist\'s and the model\'s own words');
    assert.deepEqual(savePickItems(view, a.saveId).map((i) => i.value.saveId), [b.saveId]);
    assert.deepEqual(savePickItems(undefined), []);
    const iconName = savePickItems({ ...view, worldlines: [{ ...view.worldlines[0]!, saves: [{ ...view.worldlines[0]!.saves[0]!, name: '$(trash) 雨' }] }] });
    assert.equal(english(iconName[0]!.label), '\\$(trash) 雨', 'a name is shown as its letters, not as an icon');
  });
});

/** An in-memory tree that counts its lookups. */
class CountingTree {
  readonly list: Entry[] = [];
  private readonly byId = new Map<string, Entry>();
  gets = 0;
  private last: string | null = null;
  private n = 0;
  add(entry: Omit<ChainEntry, 'id' | 'parentId' | 'ts'> & { type: ChainEntry['type'] }): ChainEntry {
    const e = { ...entry, id: `e${++this.n}`, parentId: this.last, ts: new Date(Date.UTC(2025, 0, 1) + this.n * 1000).toISOString() } as ChainEntry;
    this.list.push(e);
    this.byId.set(e.id, e);
    this.last = e.id;
    return e;
  }
  entries(): readonly Entry[] { return this.list; }
  get(id: string): Entry | undefined { this.gets++; return this.byId.get(id); }
  path(): readonly ChainEntry[] { return []; }
  isAncestorOrSelf(): boolean { return true; }
}

describe('what a save held, in a book of a thousand saves', () => {
  it('each entry is walked about once; asking again costs a lookup or two per save', () => {
    const tree = new CountingTree();
    const saves: string[] = [];
    for (let i = 0; i < 1000; i++) {
      tree.add({ type: 'user', text: `第${i}回` } as never);
      tree.add({ type: 'assistant', text: '', model: 'm', finish: 'stop', toolCalls: [call(`c${i}`, 'append_file', { path: 'a.md', content: `第${i}段。` })] } as never);
      tree.add({ type: 'tool', callId: `c${i}`, name: 'append_file', result: 'ok', isError: false } as never);
      // A turn in three writes nothing; the scribe runs every other turn.
      tree.add({ type: 'assistant', text: i % 3 === 0 ? '' : '好。', model: 'm', finish: 'stop' } as never);
      if (i % 2 === 0) tree.add(state(`第${i}夜`, '客栈') as never);
      saves.push(tree.add({ type: 'save', saveId: `s${i}`, name: `存档${i}`, worldlineId: 'w', worldlineName: '主线', kind: 'sameLine' } as never).id);
    }
    const read = saveFactsReader(tree);
    const first = saves.map(read);
    assert.equal(first[999]!.firstWords, '第999段。');
    assert.equal(first[999]!.time, '第998夜');
    assert.ok(tree.gets < tree.list.length * 3, `${tree.gets} lookups for ${tree.list.length} entries`);
    tree.gets = 0;
    const again = saves.map(saveFactsReader(tree));
    assert.deepEqual(again, first);
    assert.ok(tree.gets <= saves.length * 2, `${tree.gets} lookups for ${saves.length} saves`);
  });
});
