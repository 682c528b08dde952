// The turn pick of the checkpoint verbs run from the palette: only the current branch's turns with
// a checkpoint, newest first, numbered along the branch, each named by its instruction's first
// words (CJK too), in-story time, files changed and when; the opening's checkpoint; lost
// checkpoints marked and refused; Escape does nothing; an id given asks nothing. Over real
// session files, and once end to end with a real Story and git store.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckpointEntry, NewChainEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { turnPickItems, turnToActOn, type TurnPickStory } from '../../../src/story/turnPicks';
import { english, ScriptedPrompter } from '../fixtures/scriptedPrompter';
import { FakeClock, removeTempDirs, tempDir } from '../session/helpers';
import { CHAPTER, openStoryFixture, OPTIONS, sceneAt } from './helpers';
import { branchOf } from '../../../src/story';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const MINUTE = 60_000;

let count = 0;

describe('turn picks', () => {
  let clock: FakeClock;
  let session: Session;
  beforeEach(async () => {
    clock = new FakeClock();
    session = await Session.create(path.join(tempDir('wl-picks-'), `p${++count}.jsonl`), { id: `p${count}`, title: '雨夜' }, { clock });
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  const add = (entry: NewChainEntry) => session.append(entry);
  let commits = 0;
  /** A turn as the extension writes it, `minutes` after the clock's start. */
  async function turn(text: string, opts: { minutes: number; time?: string; changed?: string[]; checkpoint?: boolean }) {
    clock.t = Date.UTC(2025, 2, 1, 12, 0, 0) + opts.minutes * MINUTE;
    const user = (await add({ type: 'user', text })) as UserEntry;
    await add({ type: 'assistant', text: '写好了。', model: 'm', finish: 'stop' });
    const checkpoint = opts.checkpoint === false ? undefined
      : (await add({ type: 'checkpoint', commit: `c${++commits}`, ref: `refs/worldline/c${commits}`, changed: opts.changed ?? ['chapters/01.md'] })) as CheckpointEntry;
    if (opts.time) await add({ type: 'state', state: sceneAt(opts.time), by: 'scribe', warnings: [] });
    return { user, checkpoint };
  }
  const now = () => Date.UTC(2025, 2, 1, 12, 0, 0) + 60 * MINUTE;
  const items = (lost: ReadonlySet<string> = new Set()) =>
    turnPickItems(branchOf(session, OPTIONS).path, { textOf: (id) => session.textOf(id), lost, now: now() });
  const shown = (list: ReturnType<typeof items>) => list.map((i) => [english(i.label), i.description && english(i.description), i.detail && english(i.detail)]);

  it('only the current branch\'s turns, newest first, numbered along the branch; a turn without a checkpoint keeps its number', async () => {
    const one = await turn('第一回：雨夜投宿', { minutes: 0, time: '第一夜', changed: ['chapters/01.md', 'chapters/02.md'] });
    await turn('第二回：茶凉了', { minutes: 10, time: '第一夜', checkpoint: false });
    // A variant of turn 3 off the branch, then the branch's own turn 3 beside it.
    const atTwo = session.leafId;
    const off = await turn('第三回（另一种）', { minutes: 20, time: '第二天' });
    await session.navigate(atTwo);
    const three = await turn('  第三回：\n\n天亮   了  ', { minutes: 55, time: '第二天清晨', changed: [] });

    const list = items();
    assert.deepEqual(shown(list), [
      ['Turn 3 · 第三回： 天亮 了', '第二天清晨 · no file changed', '5 minutes ago'],
      ['Turn 1 · 第一回：雨夜投宿', '第一夜 · 2 files changed', '1 hour ago'],
    ]);
    assert.deepEqual(list.map((i) => i.value), [
      { turn: 3, checkpointEntryId: three.checkpoint!.id, lost: false },
      { turn: 1, checkpointEntryId: one.checkpoint!.id, lost: false },
    ]);
    assert.ok(!list.some((i) => i.value.checkpointEntryId === off.checkpoint!.id), 'the variant off the branch is not offered');

    // On the variant's branch, its turn is offered instead (with the same number).
    await session.navigate(off.checkpoint!.id);
    assert.deepEqual(items().map((i) => [english(i.label), i.value.checkpointEntryId]), [
      ['Turn 3 · 第三回（另一种）', off.checkpoint!.id],
      ['Turn 1 · 第一回：雨夜投宿', one.checkpoint!.id],
    ]);
  });

  it('first words: an edited instruction, a long CJK one cut with an ellipsis, an empty one; the opening\'s checkpoint; a damaged state skipped', async () => {
    clock.t = Date.UTC(2025, 2, 1, 12, 0, 0);
    const opening = (await add({ type: 'checkpoint', commit: 'c0', ref: 'refs/worldline/c0', changed: ['chapters/01.md'] })) as CheckpointEntry;
    const long = '她推开客栈的门，雨水顺着斗笠滴落在门槛上，掌柜抬起头来看了她一眼，又低下头去拨他的算盘。';
    const first = await turn(long, { minutes: 1, time: '雨夜' });
    await turn('原来的话', { minutes: 2 });
    const second = session.path().find((e) => e.type === 'user' && e.text === '原来的话') as UserEntry;
    await session.appendSide({ type: 'edit', targetId: second.id, text: '改过的话' });
    await add({ type: 'state', state: { time: 'not a scene state' }, by: 'scribe', warnings: [] });
    await turn('', { minutes: 3 });

    const list = items();
    const labels = list.map((i) => english(i.label));
    assert.equal(labels[0], 'Turn 3');
    assert.equal(labels[1], 'Turn 2 · 改过的话');
    assert.equal(labels[2], `Turn 1 · ${long.slice(0, 19)}…`, '40 columns: 19 汉字 and the ellipsis');
    assert.equal(labels[3], 'The opening, before the first instruction');
    assert.equal(list[3]!.value.checkpointEntryId, opening.id);
    assert.equal(list[3]!.value.turn, 0);
    assert.deepEqual(list.slice(0, 3).map((i) => i.description && english(i.description)), ['雨夜 · 1 file changed', '雨夜 · 1 file changed', '雨夜 · 1 file changed'],
      'the damaged state is skipped: the time stays the last valid one');
    assert.equal(list[3]!.description && english(list[3]!.description), 'the prose as it stood', 'no scene state yet, no opening time given');
    const withOpening = turnPickItems(branchOf(session, OPTIONS).path, { textOf: (id) => session.textOf(id), lost: new Set(), now: now(), openingTime: '开场' });
    assert.equal(english(withOpening[3]!.description!), '开场 · the prose as it stood', 'the opening shows the opening scene\'s time, not a file count');
    assert.equal(first.checkpoint?.id, list[2]!.value.checkpointEntryId);
    for (const i of list) for (const t of [i.label, i.description, i.detail]) if (t && !t.literal) assert.ok(t.message in bundle, t.message);
  });

  /** A TurnPickStory over this test's session. */
  const storyOver = (lost: ReadonlySet<string> = new Set()): TurnPickStory => ({
    branch: () => branchOf(session, OPTIONS), session, lostCheckpoints: lost,
  });

  it('the flow: an id given asks nothing; no session or no checkpoint lets the verb say so; Escape does nothing; a pick names its checkpoint; the title names the action', async () => {
    const prompter = new ScriptedPrompter();
    assert.deepEqual(await turnToActOn('ckpt-1', storyOver(), 'restoreProse', { prompter }), { checkpointEntryId: 'ckpt-1' });
    assert.deepEqual(await turnToActOn(undefined, undefined, 'restoreProse', { prompter }), {});
    assert.deepEqual(await turnToActOn(undefined, storyOver(), 'showChanges', { prompter }), {}, 'no checkpoint on the branch');
    assert.deepEqual(prompter.asked, [], 'nothing was asked');

    const one = await turn('第一回', { minutes: 0 });
    const two = await turn('第二回', { minutes: 1 });
    const escaped = new ScriptedPrompter([{ escape: 'pick' }]);
    assert.equal(await turnToActOn({ not: 'an id' }, storyOver(), 'restoreProseAndChat', { prompter: escaped, now }), undefined);
    assert.equal(escaped.asked[0]?.title, 'Restore prose and chat to which turn?');
    assert.equal(escaped.notified.length, 0);

    const titles: string[] = [];
    for (const [action, pick] of [['restoreProse', 'Turn 1 · 第一回'], ['showChanges', 'Turn 2 · 第二回'], ['compare', 'Turn 1 · 第一回']] as const) {
      const p = new ScriptedPrompter([{ pick }]);
      const target = await turnToActOn(undefined, storyOver(), action, { prompter: p, now });
      assert.deepEqual(target, { checkpointEntryId: (pick.endsWith('一回') ? one : two).checkpoint!.id });
      titles.push(p.asked[0]!.title);
      assert.ok(p.asked[0]!.pick?.placeHolder && english(p.asked[0]!.pick.placeHolder).startsWith('Newest first'));
    }
    assert.deepEqual(titles, ['Restore prose to which turn?', 'Show the changes of which turn?', 'Compare the current prose with which turn?']);
  });

  it('a lost checkpoint is shown marked and refused with a word when picked', async () => {
    const one = await turn('第一回', { minutes: 0, time: '雨夜' });
    await turn('第二回', { minutes: 1 });
    const lost = new Set([one.checkpoint!.commit]);
    assert.deepEqual(items(lost).map((i) => [english(i.label), i.description && english(i.description), i.value.lost]), [
      ['Turn 2 · 第二回', '雨夜 · 1 file changed', false],
      ['Turn 1 · 第一回', 'checkpoint lost · 雨夜', true],
    ]);
    const p = new ScriptedPrompter([{ pick: 'Turn 1 · 第一回' }]);
    assert.equal(await turnToActOn(undefined, storyOver(lost), 'restoreProse', { prompter: p, now }), undefined);
    assert.deepEqual(p.notified.map((n) => [n.level, n.text]), [['warning', 'The checkpoint of turn 1 was lost with the old checkpoint store: its prose can no longer be restored or compared.']]);
    assert.ok(p.notified[0]!.words.message in bundle);
    const ok = new ScriptedPrompter([{ pick: 'Turn 2 · 第二回' }]);
    assert.ok((await turnToActOn(undefined, storyOver(lost), 'restoreProse', { prompter: ok, now }))?.checkpointEntryId);
  });
});

describe('turn picks with a real Story', function () {
  this.timeout(20_000);

  it('the turn picked is the one restored, not the newest', async () => {
    const fx = await openStoryFixture('always');
    try {
      await fx.book.turn('第一回', '「客官贵姓？」\n');
      const atOne = fx.book.prose;
      await fx.book.turn('第二回', '「还活着吗？」\n');
      assert.notEqual(fx.book.prose, atOne);
      const p = new ScriptedPrompter([{ pick: 'Turn 1 · 第一回' }]);
      const target = await turnToActOn(undefined, fx.story, 'restoreProse', { prompter: p });
      assert.equal(p.asked[0]?.labels.length, 2);
      await fx.story.restoreProse(target?.checkpointEntryId);
      assert.equal(fs.readFileSync(path.join(fx.book.root, CHAPTER), 'utf8'), atOne);
    } finally {
      await fx.close();
    }
  });
});
