// The Worldlines tree: its nodes from the view, what each shows (icon by where the novelist stands,
// "you are here", the fork, the in-story time, the words translated), that a click only selects
// (no item carries a command), a screen-reader label no other row has however names repeat, a
// Markdown tooltip in which no hostile name becomes a link or HTML, and the ids a command takes
// from a node. Hostile command arguments never throw.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { markdownText } from '../../../src/common/markdownText';
import type { Text } from '../../../src/common/text';
import { emptySidecar } from '../../../src/worldline/sidecar-data';
import { saveIdOf, treeChildren, treeItem, treeTooltip, worldlineIdOf, type TreeNode } from '../../../src/worldline/treeItems';
import { buildWorldlineView, type SaveNode, type WorldlineNode, type WorldlineView } from '../../../src/worldline/view';
import { sceneAt } from '../story/helpers';
import { runs } from '../long-mode';
import { newSession, removeTempDirs, save, turn } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const bundle = JSON.parse(fs.readFileSync(path.join(repo, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const en = (t: Text): string => t.message.replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m));
const NOW = Date.UTC(2025, 2, 1, 13, 0, 0);

/** markdown-it (a CommonMark + GFM-autolink renderer, here through @vscode/vsce) with HTML and linkify on: the strictest reading. */
interface Markdown { render(src: string): string }
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it') as new (options: { html: boolean; linkify: boolean }) => Markdown;
const markdown = new MarkdownIt({ html: true, linkify: true });

/** Every node of the tree, lines then their rows. */
function allNodes(view: WorldlineView): TreeNode[] {
  return treeChildren(view).flatMap((line) => [line, ...treeChildren(view, line)]);
}

describe('worldlines tree items', () => {
  afterEach(removeTempDirs);

  it('lines at the top, each line\'s rows under it; what each shows; no row acts on a click', async () => {
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
      description: '2 saves', accessibleLabel: `Worldline "${view.worldlines[0]!.name}", 2 saves, you are on this line`, contextValue: 'worldline',
    });
    const [atA, after, atB] = rows.map((n) => treeItem(n, say));
    assert.deepEqual([atA!.icon, atA!.contextValue, atA!.expanded], ['location', 'save', false]);
    assert.equal(atA!.description, new Date(a.ts).toLocaleString(), 'story after it: not "here"; the helper\'s state is no scene state, so no time');
    assert.deepEqual([after!.id, after!.icon, after!.label, after!.description], ['after-last-save', 'edit', 'Story not saved yet', 'after "雨夜问名" · you are here']);
    assert.match(treeTooltip(rows[1]!, say, NOW), /went another way/);
    assert.equal(atB!.icon, 'circle-outline', 'not on the current branch');
    for (const item of [line, atA, after, atB]) {
      assert.ok(!('command' in item!) && !('loads' in item!), 'a click selects; Load is the inline button and the context menu');
    }
    for (const node of [...lines, ...rows]) treeTooltip(node, say, NOW);
    assert.deepEqual(asked.filter((t) => !t.literal && !(t.message in bundle)).map((t) => t.message), []);

    await session.navigate(b.id);
    const here = buildWorldlineView(session, emptySidecar(), session.leafId);
    const [first, second] = treeChildren(here, treeChildren(here)[0]).map((n) => treeItem(n, en));
    assert.equal(first!.icon, 'circle-filled', 'on the branch, not current');
    assert.deepEqual([second!.icon, second!.description.split(' · ')[0]], ['location', 'you are here']);
    assert.equal(second!.accessibleLabel, `Save "直问生死" on worldline "${here.worldlines[0]!.name}", 2 of 2, you are here`);
    assert.equal(treeItem(treeChildren(here)[0]!, en).highlight, true, 'the line the novelist is on');
    await session.close();
  });

  it('a save shows its in-story time; its tooltip has the full names, worldline, time and place, first words and when', async () => {
    const session = await newSession();
    await session.append({ type: 'user', text: '写雨夜。' });
    await session.append({
      type: 'assistant', text: '', model: 'm', finish: 'stop',
      toolCalls: [{ id: 'w1', name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: '\n雨落在客栈的瓦上。\n' }) }],
    });
    await session.append({ type: 'tool', callId: 'w1', name: 'append_file', result: 'ok', isError: false });
    await session.append({ type: 'state', state: { ...sceneAt('第二天傍晚'), location: '听雨客栈' }, by: 'scribe', warnings: [] });
    await save(session, '雨夜', 'en');
    const view = buildWorldlineView(session, emptySidecar(), session.leafId);
    const [lineNode, row] = allNodes(view);
    const item = treeItem(row!, en);
    assert.equal(item.description, ['you are here', '第二天傍晚', new Date(view.worldlines[0]!.saves[0]!.ts).toLocaleString()].join(' · '));
    assert.equal(item.accessibleLabel, `Save "雨夜" on worldline "${view.worldlines[0]!.name}", 1 of 1, in-story 第二天傍晚, you are here`);
    const tip = treeTooltip(row!, en, Date.parse(view.worldlines[0]!.saves[0]!.ts) + 5 * 60_000);
    assert.match(tip, /^\*\*雨夜\*\*\n\n/);
    assert.match(tip, /In-story time: 第二天傍晚 · Place: 听雨客栈/);
    assert.match(tip, /\n> 雨落在客栈的瓦上。\n/);
    assert.match(tip, /\*5 minutes ago · /);
    assert.match(tip, /Load Save \(the button on this row/);
    const html = markdown.render(tip);
    assert.match(html, /<strong>雨夜<\/strong>/);
    assert.match(html, /<blockquote>\s*<p>雨落在客栈的瓦上。<\/p>/);
    assert.match(treeTooltip(lineNode!, en, NOW), /^\*\*/);
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
    assert.equal(treeItem({ kind: 'line', line: fork }, en).description, 'from "雨夜问名" · 1 save');
    const renamed = { ...fork, name: '坦白线' };
    assert.ok(treeTooltip({ kind: 'line', line: renamed }, en, NOW).startsWith(`**坦白线**\n\nFirst named "${markdownText(fork.originalName)}"`));
    const saveNode: TreeNode = { kind: 'save', save: fork.saves[0]!, here: true, line: fork, position: { index: 1, of: 1 } };
    assert.deepEqual([saveIdOf(saveNode), worldlineIdOf(saveNode), worldlineIdOf({ kind: 'line', line: fork }), saveIdOf({ kind: 'line', line: fork })], [fork.saves[0]!.saveId, fork.id, fork.id, undefined]);
    await session.close();
  });

  it('the shell sets no command on a tree item, and shows the tooltip as untrusted Markdown without HTML', () => {
    const shell = fs.readFileSync(path.join(repo, 'src', 'views', 'worldlinesTree.ts'), 'utf8');
    assert.doesNotMatch(shell, /\.command\s*=/);
    assert.match(shell, /isTrusted = false/);
    assert.match(shell, /supportHtml = false/);
    assert.match(shell, /accessibilityInformation = \{ label: shown\.accessibleLabel \}/);
  });

  it('every row has a screen-reader label no other row has, however names repeat (property)', () => {
    const pool = ['主线', 'Main', 'Rain at the inn', '雨夜'];
    fc.assert(fc.property(hostileView(fc.constantFrom(...pool)), (view) => {
      const labels = allNodes(view).map((n) => treeItem(n, en).accessibleLabel);
      assert.equal(new Set(labels).size, labels.length, labels.join('\n'));
    }), { numRuns: runs(200, 3000) });
  });

  it('a hostile name or model text never becomes a link, an image or HTML in a tooltip (property)', () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('[', ']', '(', ')', '<', '>', '!', '*', '_', '`', '\\', '&', '#', '\n', ' ', 'a', '雨', ':', '/', '.', '@', '|', '~', '=', '"', "'") }),
      fc.constantFrom('[x](javascript:alert(1))', '![i](https://evil.example/p.png)', '<img src=x onerror=alert(1)>', '<script>alert(1)</script>',
        'https://evil.example', 'www.evil.example', 'me@evil.example', '&lt;b&gt;', '[x]: https://evil.example', '\n# Heading\n- list', '<https://evil.example>',
        '`code`', '**bold**', '\\[x\\](y)', '[x][1]\n\n[1]: https://evil.example', '\u202eevil\u202c', '    indented code'),
    );
    fc.assert(fc.property(hostileView(hostile), (view) => {
      for (const node of allNodes(view)) {
        const html = markdown.render(treeTooltip(node, en, NOW));
        const tags = [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase());
        assert.deepEqual(tags.filter((t) => !['p', 'strong', 'em', 'blockquote'].includes(t)), [], html);
        // And each name reads as itself: its characters are all there, in order, as text.
        const text = decode(html.replace(/<[^>]*>/g, ''));
        for (const shown of namesOf(node)) assert.ok(text.includes(shown), `${JSON.stringify(shown)} in ${JSON.stringify(text)}`);
      }
    }), { numRuns: runs(150, 2000) });
  });

  it('command arguments: an id as it is, a node\'s id, anything else nothing (and never a throw)', () => {
    assert.equal(saveIdOf('s1'), 's1');
    assert.equal(worldlineIdOf('w1'), 'w1');
    assert.equal(saveIdOf(undefined), undefined);
    assert.equal(worldlineIdOf({ kind: 'after' }), undefined);
    assert.equal(saveIdOf({ kind: 'save' }), undefined);
    fc.assert(fc.property(fc.anything(), (arg) => {
      const s = saveIdOf(arg);
      const w = worldlineIdOf(arg);
      if (typeof arg === 'string') assert.deepEqual([s, w], [arg, arg]);
      else if (typeof arg !== 'object' || arg === null || !('kind' in arg)) assert.deepEqual([s, w], [undefined, undefined]);
    }), { numRuns: runs(300, 5000) });
  });
});

/** A view of 1–4 lines of 1–4 saves each, named from `names`, the novelist at some save (and perhaps past it). */
function hostileView(names: fc.Arbitrary<string>): fc.Arbitrary<WorldlineView> {
  const saveArb = fc.record({ name: names, originalName: names, time: names, place: names, words: names });
  return fc.record({
    lines: fc.array(fc.record({ name: names, originalName: names, saves: fc.array(saveArb, { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 4 }),
    current: fc.nat(),
    after: fc.boolean(),
  }).map(({ lines, current, after }) => {
    let order = 0;
    const total = lines.reduce((n, l) => n + l.saves.length, 0);
    const at = current % total;
    const worldlines: WorldlineNode[] = lines.map((l, li) => ({
      id: `w${li}`, name: l.name, originalName: l.originalName, isCurrent: false,
      ...(li > 0 ? { forkFrom: { saveId: 's0', name: lines[0]!.saves[0]!.name, worldlineId: 'w0' } } : {}),
      saves: l.saves.map((s): SaveNode => {
        const n = order++;
        return {
          saveId: `s${n}`, entryId: `e${n}`, name: s.name, originalName: s.originalName, worldlineId: `w${li}`, kind: n === 0 ? 'first' : 'sameLine',
          ts: new Date(NOW - n * 3_600_000).toISOString(), order: n, onCurrentBranch: n <= at, isCurrent: n === at,
          facts: { time: s.time, place: s.place, firstWords: s.words },
        };
      }),
    }));
    for (const l of worldlines) l.isCurrent = l.saves.some((s) => s.isCurrent);
    const cur = worldlines.flatMap((l) => l.saves).find((s) => s.isCurrent)!;
    return { worldlines, current: { saveId: cur.saveId, worldlineId: cur.worldlineId, storyAfterLastSave: after }, deleted: [] };
  });
}

/** The names a node's tooltip shows, as they read on one line (breaks and bidi controls gone, spaces collapsed, trimmed). */
function namesOf(node: TreeNode): string[] {
  const read = (s: string) => s.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu, ' ').replace(/ {2,}/gu, ' ').trim();
  const names = node.kind === 'line' ? [node.line.name, node.line.originalName]
    : node.kind === 'save' ? [node.save.name, node.save.originalName, node.line.name, node.save.facts!.time, node.save.facts!.place, node.save.facts!.firstWords]
      : [node.from.name];
  return names.map(read).filter((s) => s !== '');
}

function decode(html: string): string {
  return html.replace(/&(lt|gt|quot|amp|#39);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&', '#39': "'" })[e] ?? '');
}
