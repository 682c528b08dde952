// planNewSave on the seed's run (seed 000, "存档和世界线") with real sessions, its English twin,
// and the choices around it: renames, soft deletes, a second root line, names and ids.
import { strict as assert } from 'node:assert';
import { Session } from '../../../src/session/session';
import { planNewSave } from '../../../src/worldline/plan';
import { deleteSave, emptySidecar, renameSave, renameWorldline } from '../../../src/worldline/sidecar-data';
import { removeTempDirs, newSession, save, turn } from './helpers';

/** The seed's tree: opening → round 1 (save 雨夜问名) → round 2 (save 直问生死); back at 雨夜问名, another round. */
async function seedTree(names = ['雨夜问名', '直问生死', '坦言来意'], lang: 'zh' | 'en' = 'zh') {
  const s = await newSession();
  await s.append({ type: 'assistant', text: '雨夜，客栈。青梧擦着柜台。', model: 'test-model', finish: 'stop' });
  await turn(s, '我推门进去，问她叫什么名字。', '她抬眼：「青梧。」');
  const ask = await save(s, names[0] as string, lang);
  await turn(s, '我直接问她沈家的人是生是死。', '她手一顿，茶盏落地。');
  const direct = await save(s, names[1] as string, lang);
  await s.navigate(ask.id);
  await turn(s, '我坦白来意：是来找沈家旧宅的。', '她沉默良久，点了点头。');
  const confess = await save(s, names[2] as string, lang);
  return { s, ask, direct, confess };
}

describe('planNewSave', () => {
  afterEach(removeTempDirs);

  describe('the seed run', () => {
    it('a tree with no saves: "开场" starts "主线" (first)', async () => {
      const s = await newSession();
      await turn(s, '开场。', '雨夜，客栈。');
      const plan = planNewSave({ name: '开场', lang: 'zh', tree: s });
      assert.deepEqual(
        { ...plan, saveId: '', worldlineId: '' },
        { type: 'save', saveId: '', name: '开场', worldlineId: '', worldlineName: '主线', kind: 'first' },
      );
      assert.match(plan.saveId, /^[0-9a-f]{8}$/);
      assert.match(plan.worldlineId, /^[0-9a-f]{8}$/);
      await s.close();
    });

    it('"雨夜问名" then "直问生死" stay on one line; back at "雨夜问名", "坦言来意" forks "从「雨夜问名」分出 · 线2"', async () => {
      const { s, ask, direct, confess } = await seedTree();
      assert.equal(ask.kind, 'first');
      assert.equal(ask.worldlineName, '主线');
      assert.equal(ask.parentSaveId, undefined);

      assert.equal(direct.kind, 'sameLine');
      assert.equal(direct.worldlineId, ask.worldlineId);
      assert.equal(direct.worldlineName, '主线');
      assert.equal(direct.parentSaveId, ask.saveId);
      assert.equal(direct.forkFromSaveId, undefined);

      assert.equal(confess.kind, 'fork');
      assert.equal(confess.worldlineName, '从「雨夜问名」分出 · 线2');
      assert.notEqual(confess.worldlineId, ask.worldlineId);
      assert.equal(confess.parentSaveId, ask.saveId);
      assert.equal(confess.forkFromSaveId, ask.saveId);
      assert.equal(confess.parentId, s.path().at(-2)?.id, 'the save is appended at the end of the new round');
      await s.close();
    });

    it('the same run in English names the lines in English', async () => {
      const { s, ask, direct, confess } = await seedTree(['Her name in the rain', 'Life or death', 'Why I came'], 'en');
      assert.equal(ask.worldlineName, 'Main line');
      assert.equal(direct.worldlineName, 'Main line');
      assert.equal(direct.kind, 'sameLine');
      assert.equal(confess.kind, 'fork');
      assert.equal(confess.worldlineName, 'Branched from "Her name in the rain" · line 2');
      await s.close();
    });

    it('the saves are ordinary entries: they survive reopening unchanged', async () => {
      const { s, ask, direct, confess } = await seedTree();
      await s.close();
      const { session, report } = await Session.open(s.file);
      assert.deepEqual(report.warnings, []);
      assert.deepEqual(session.entries().filter((e) => e.type === 'save'), [ask, direct, confess]);
      await session.close();
    });
  });

  describe('after the seed', () => {
    it('saving again on the fork extends it, carrying the line name and the fork point', async () => {
      const { s, ask, confess } = await seedTree();
      await turn(s, '她带我去后院。', '井边有一块石碑。');
      const next = await save(s, '后院石碑');
      assert.equal(next.kind, 'sameLine');
      assert.equal(next.worldlineId, confess.worldlineId);
      assert.equal(next.worldlineName, '从「雨夜问名」分出 · 线2');
      assert.equal(next.parentSaveId, confess.saveId);
      assert.equal(next.forkFromSaveId, ask.saveId);
      await s.close();
    });

    it('back at the end of the main line, the main line goes on; back at its start again, line 3', async () => {
      const { s, ask, direct } = await seedTree();
      await s.navigate(direct.id);
      await turn(s, '我扶起她。', '她的手冰凉。');
      const more = await save(s, '扶起');
      assert.equal(more.kind, 'sameLine');
      assert.equal(more.worldlineId, direct.worldlineId);
      assert.equal(more.parentSaveId, direct.saveId);

      await s.navigate(ask.id);
      await turn(s, '我转身离开。', '雨更大了。');
      const leave = await save(s, '转身离开');
      assert.equal(leave.kind, 'fork');
      assert.equal(leave.worldlineName, '从「雨夜问名」分出 · 线3');
      await s.close();
    });

    it('rewinding into the middle of a turn after a save forks too (the old continuation holds a save)', async () => {
      const { s, ask, direct } = await seedTree();
      const midTurn = s.path(direct.id).find((e) => e.type === 'user' && e.text.startsWith('我直接问'));
      assert.ok(midTurn);
      await s.navigate(midTurn.id);
      await s.append({ type: 'assistant', text: '她摇头，不答。', model: 'test-model', finish: 'stop' });
      const plan = planNewSave({ name: '不答', lang: 'zh', tree: s });
      assert.equal(plan.kind, 'fork');
      assert.equal(plan.forkFromSaveId, ask.saveId);
      await s.close();
    });

    it('plans at a given leaf without moving the session', async () => {
      const { s, ask, direct } = await seedTree();
      const leaf = s.leafId;
      const atDirect = planNewSave({ name: 'x', lang: 'zh', tree: s, leafId: direct.id });
      assert.equal(atDirect.kind, 'sameLine');
      assert.equal(atDirect.parentSaveId, direct.saveId);
      const atAsk = planNewSave({ name: 'x', lang: 'zh', tree: s, leafId: ask.id });
      assert.equal(atAsk.kind, 'fork');
      assert.equal(s.leafId, leaf);
      await s.close();
    });
  });

  describe('renames and soft deletes', () => {
    it('a renamed line: a same-line save keeps the ORIGINAL name (the sidecar holds the rename)', async () => {
      const { s, direct } = await seedTree();
      await s.navigate(direct.id);
      const sidecar = renameWorldline(emptySidecar(), direct.worldlineId, '雨夜线');
      const plan = planNewSave({ name: '再存', lang: 'zh', tree: s, sidecar });
      assert.equal(plan.kind, 'sameLine');
      assert.equal(plan.worldlineName, '主线');
      await s.close();
    });

    it('a fork is named after the previous save as the novelist sees it (renamed)', async () => {
      const { s, ask } = await seedTree();
      await s.navigate(ask.id);
      const sidecar = renameSave(emptySidecar(), ask.saveId, '问名');
      const plan = planNewSave({ name: '另一种', lang: 'zh', tree: s, sidecar });
      assert.equal(plan.worldlineName, '从「问名」分出 · 线3');
      await s.close();
    });

    it('soft-deleted saves still shape the plan: the tree is unchanged, and a restore must not break a line', async () => {
      const { s, ask, direct, confess } = await seedTree();
      const sidecar = deleteSave(deleteSave(emptySidecar(), direct.saveId), confess.saveId);
      await s.navigate(ask.id);
      const plan = planNewSave({ name: '又一种', lang: 'zh', tree: s, sidecar });
      assert.equal(plan.kind, 'fork');
      assert.equal(plan.worldlineName, '从「雨夜问名」分出 · 线3');
      await s.close();
    });
  });

  describe('a branch without saves in a tree that has some', () => {
    it('starts a numbered line, not a second main line', async () => {
      const { s } = await seedTree();
      await s.navigate(null);
      await turn(s, '换一个开头：晴天。', '阳光照在客栈门口。');
      const zh = planNewSave({ name: '晴天', lang: 'zh', tree: s });
      const en = planNewSave({ name: 'Sunny', lang: 'en', tree: s });
      assert.equal(zh.kind, 'first');
      assert.equal(zh.worldlineName, '线3');
      assert.equal(en.worldlineName, 'Line 3');
      assert.equal(zh.parentSaveId, undefined);
      assert.equal(zh.forkFromSaveId, undefined);
      await s.close();
    });
  });

  describe('names and ids', () => {
    it('a blank name becomes "存档 N" / "Save N"; a pasted paragraph becomes one short line', async () => {
      const { s } = await seedTree();
      assert.equal(planNewSave({ name: '  ', lang: 'zh', tree: s }).name, '存档 4');
      assert.equal(planNewSave({ name: '', lang: 'en', tree: s }).name, 'Save 4');
      assert.equal(planNewSave({ name: ' 雨\n夜\t问名 ', lang: 'zh', tree: s }).name, '雨 夜 问名');
      const long = planNewSave({ name: '字'.repeat(500), lang: 'zh', tree: s }).name;
      assert.equal([...long].length, 80);
      assert.ok(long.endsWith('…'));
      await s.close();
    });

    it('ids never repeat one already in the tree', async () => {
      const { s, ask, confess } = await seedTree();
      const offered = [ask.saveId, 'aaaa0001', confess.worldlineId, ask.worldlineId, 'bbbb0002'];
      const newId = (taken: (id: string) => boolean) => {
        for (;;) {
          const id = offered.shift() as string;
          if (!taken(id)) return id;
        }
      };
      await s.navigate(ask.id);
      const plan = planNewSave({ name: 'x', lang: 'zh', tree: s, newId });
      assert.equal(plan.saveId, 'aaaa0001');
      assert.equal(plan.worldlineId, 'bbbb0002');
      await s.close();
    });
  });
});
