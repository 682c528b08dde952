// The Worldlines tree: its nodes from the view, what each shows (icon by where the novelist stands,
// "you are here", the fork, the words translated), and the ids a command takes from a node. Hostile
// command arguments never throw.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { Text } from '../../../src/common/text';
import { emptySidecar } from '../../../src/worldline/sidecar-data';
import { saveIdOf, treeChildren, treeItem, worldlineIdOf, type TreeNode } from '../../../src/worldline/treeItems';
import { buildWorldlineView, type WorldlineNode } from '../../../src/worldline/view';
import { runs } from '../long-mode';
import { newSession, removeTempDirs, save, turn } from './helpers';

const bundle = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const en = (t: Text): string => t.message.replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m));

describe('worldlines tree items', () => {
  afterEach(removeTempDirs);

  it('lines at the top, each line\'s rows under it; what each shows', async () => {
    const session = await newSession();
    await turn(session, '问名。', '青梧。');
    const a = await save(session, '雨夜问名', 'en');
    await turn(session, '问生死。', '茶盏落地。');
    const b = await save(session, '直问生死', 'en');
    await session.navigate(a.id);
    await turn(session, '坦言来意。', '她点头。');
    const view = buildWorldlineView(session, emptySidecar(), session.leafId);
    assert.deepEqual(treeChildren(undefined), []);
    const lines = treeChildren(view);
    assert.deepEqual(lines.map((n) => n.kind), ['line']);
    const rows = treeChildren(view, lines[0]);
    assert.deepEqual(rows.map((n) => n.kind), ['save', 'after', 'save']);
    assert.deepEqual(treeChildren(view, rows[0]), [], 'a row has no children');

    const asked: Text[] = [];
    const say = (t: Text) => (asked.push(t), en(t));
    const line = treeItem(lines[0]!, say);
    assert.deepEqual(line, {
      id: `line:${a.worldlineId}`, label: view.worldlines[0]!.name, expanded: true, icon: 'git-branch', highlight: true,
      description: '2 save(s)', tooltip: view.worldlines[0]!.name, contextValue: 'worldline',
    });
    const [atA, after, atB] = rows.map((n) => treeItem(n, say));
    assert.deepEqual([atA!.icon, atA!.loads, atA!.contextValue, atA!.expanded], ['location', a.saveId, 'save', false]);
    assert.equal(atA!.description, new Date(a.ts).toLocaleString(), 'story after it: not "here"');
    assert.deepEqual([after!.id, after!.icon, after!.label, after!.description, after!.loads], ['after-last-save', 'edit', 'Story written after "雨夜问名", not saved', 'you are here', undefined]);
    assert.match(after!.tooltip, /went another way/);
    assert.equal(atB!.icon, 'circle-outline', 'not on the current branch');
    assert.equal(atB!.loads, b.saveId);
    assert.deepEqual(asked.filter((t) => !(t.message in bundle)).map((t) => t.message), []);

    await session.navigate(b.id);
    const here = buildWorldlineView(session, emptySidecar(), session.leafId);
    const [first, second] = treeChildren(here, treeChildren(here)[0]).map((n) => treeItem(n, en));
    assert.equal(first!.icon, 'circle-filled', 'on the branch, not current');
    assert.deepEqual([second!.icon, second!.description.split(' · ')[0]], ['location', 'you are here']);
    assert.equal(treeItem(treeChildren(here)[0]!, en).highlight, true, 'the line the novelist is on');
    await session.close();
  });

  it('a forked line says where it branched; a renamed one shows its first name in the tooltip', async () => {
    const session = await newSession();
    await turn(session, '问名。', '青梧。');
    const a = await save(session, '雨夜问名', 'en');
    await turn(session, '问生死。', '茶盏落地。');
    await save(session, '直问生死', 'en');
    await session.navigate(a.id);
    await turn(session, '坦言来意。', '她点头。');
    await save(session, '坦言来意', 'en');
    const [main, fork] = buildWorldlineView(session, emptySidecar(), session.leafId).worldlines as [WorldlineNode, WorldlineNode];
    assert.deepEqual([treeItem({ kind: 'line', line: main }, en).highlight, treeItem({ kind: 'line', line: fork }, en).highlight], [false, true]);
    assert.equal(treeItem({ kind: 'line', line: fork }, en).description, 'from "雨夜问名" · 1 save(s)');
    const renamed = { ...fork, name: '坦白线' };
    assert.equal(treeItem({ kind: 'line', line: renamed }, en).tooltip, `坦白线 (${fork.originalName})`);
    const saveNode: TreeNode = { kind: 'save', save: fork.saves[0]!, here: true, line: fork };
    assert.deepEqual([saveIdOf(saveNode), worldlineIdOf(saveNode), worldlineIdOf({ kind: 'line', line: fork }), saveIdOf({ kind: 'line', line: fork })], [fork.saves[0]!.saveId, fork.id, fork.id, undefined]);
    await session.close();
  });

  it('command arguments: an id as it is, a node\'s id, anything else nothing (and never a throw)', () => {
    assert.equal(saveIdOf('s1'), 's1');
    assert.equal(worldlineIdOf('w1'), 'w1');
    assert.equal(saveIdOf(undefined), undefined);
    assert.equal(worldlineIdOf({ kind: 'after' }), undefined);
    fc.assert(fc.property(fc.anything(), (arg) => {
      const s = saveIdOf(arg);
      const w = worldlineIdOf(arg);
      if (typeof arg === 'string') assert.deepEqual([s, w], [arg, arg]);
      else if (typeof arg !== 'object' || arg === null || !('kind' in arg)) assert.deepEqual([s, w], [undefined, undefined]);
    }), { numRuns: runs(300, 5000) });
  });
});
