// The Codex view's nodes: groups by kind (only kinds that have entries, in the fixed order), rows
// sorted by name with their keys, the "injected last turn" badge, the missing names' group, and a
// Markdown tooltip in which no hostile name or lore line becomes a link or HTML.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { markdownText } from '../../../src/common/markdownText';
import type { Text } from '../../../src/common/text';
import { codexChildren, codexItem, codexNodeOf, codexTooltip, TOOLTIP_LINES, type CodexNode, type CodexTreeInput } from '../../../src/codex/tree';
import { CODEX_KINDS, type CodexEntry, type CodexKind } from '../../../src/codex/types';
import { runs } from '../long-mode';

const en = (t: Text): string => t.message.replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m));

interface Markdown { render(src: string): string }
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it') as new (options: { html: boolean; linkify: boolean }) => Markdown;
const markdown = new MarkdownIt({ html: true, linkify: true });

function entry(name: string, kind: CodexKind, over: Partial<CodexEntry> = {}): CodexEntry {
  return { path: `codex/${kind}s/${name}.md`, name, kind, keys: [name], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body: `${name}的设定。`, ...over };
}

function all(input: CodexTreeInput): CodexNode[] {
  return codexChildren(input).flatMap((g) => [g, ...codexChildren(input, g)]);
}

describe('codex tree items', () => {
  it('groups by kind in the fixed order, only kinds with entries, rows by name; then the missing names', () => {
    const qingwu = entry('青梧', 'character', { keys: ['青梧', '阿梧', 'Qingwu'] });
    const input: CodexTreeInput = {
      entries: [entry('听雨轩', 'place'), entry('沈砚', 'character'), qingwu, entry('押韵', 'style')],
      injected: new Set([qingwu.path]),
      missing: [{ name: '黄铜怀表', kind: 'item' }],
    };
    const top = codexChildren(input);
    assert.deepEqual(top.map((n) => (n.kind === 'group' ? n.group : n.kind)), ['character', 'place', 'style', 'missingGroup']);
    const people = codexChildren(input, top[0]);
    assert.deepEqual(people.map((n) => n.kind === 'entry' && n.entry.name), ['沈砚', '青梧'].sort((a, b) => a.localeCompare(b)));
    assert.deepEqual(codexChildren(input, people[0]), [], 'a row has no children');
    assert.deepEqual(codexItem(top[0]!, en), {
      id: 'group:character', label: 'Characters', expanded: true, icon: 'person', description: '2 entries', accessibleLabel: 'Characters, 2 entries',
    });
    assert.equal(codexItem(top[1]!, en).description, '1 entry');

    const row = people.find((n) => n.kind === 'entry' && n.entry.name === '青梧')!;
    assert.deepEqual(codexItem(row, en), {
      id: `entry:${qingwu.path}`, label: '青梧', expanded: false, icon: 'pass-filled', highlight: true,
      description: '阿梧, Qingwu · injected last turn', accessibleLabel: '青梧, Character, 阿梧, Qingwu, injected last turn',
      contextValue: 'codexEntry', open: qingwu.path,
    });
    const other = codexItem(people.find((n) => n !== row)!, en);
    assert.equal(other.highlight, false);
    assert.equal(other.icon, 'book');
    assert.equal(other.description, '', 'the name alone is no key worth showing');
    assert.match(codexTooltip(row, en), /injected last turn/);

    const missingGroup = top[3]!;
    assert.deepEqual(codexItem(missingGroup, en).label, 'Not in the codex yet');
    const [missing] = codexChildren(input, missingGroup);
    assert.deepEqual(codexItem(missing!, en), {
      id: 'missing:item:黄铜怀表', label: '黄铜怀表', expanded: false, icon: 'add', description: 'Item',
      accessibleLabel: '黄铜怀表: in the roster, no codex entry yet', contextValue: 'codexMissing',
    });
    assert.deepEqual(codexChildren({ entries: [], injected: new Set(), missing: [] }), [], 'an empty codex shows nothing');
  });

  it('always and disabled entries say so; the tooltip shows the first lines of the lore only', () => {
    const body = Array.from({ length: TOOLTIP_LINES + 3 }, (_, i) => `第${i + 1}行`).join('\n');
    const e = entry('规矩', 'rule', { always: true, disabled: true, body, secondaryKeys: ['夜里'], logic: 'not-any' });
    const [group] = codexChildren({ entries: [e], injected: new Set(), missing: [] });
    const [row] = codexChildren({ entries: [e], injected: new Set(), missing: [] }, group);
    const item = codexItem(row!, en);
    assert.equal(item.description, 'always · disabled');
    assert.equal(item.icon, 'circle-slash');
    const tip = codexTooltip(row!, en);
    assert.ok(tip.includes(`第${TOOLTIP_LINES}行`) && !tip.includes(`第${TOOLTIP_LINES + 1}行`), tip);
    assert.ok(tip.includes('Secondary keys \\(not\\-any\\)\\: 夜里'), tip);
  });

  it('row ids are unique across the tree', () => {
    const input: CodexTreeInput = {
      entries: CODEX_KINDS.map((k) => entry('同名', k)),
      injected: new Set(),
      missing: [{ name: '同名', kind: 'character' }, { name: '同名', kind: 'place' }],
    };
    const ids = all(input).map((n) => codexItem(n, en).id);
    assert.equal(new Set(ids).size, ids.length, ids.join('\n'));
  });

  it('a hostile name, key or lore line never becomes a link, an image or HTML in a tooltip (property)', () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('[', ']', '(', ')', '<', '>', '!', '*', '_', '`', '\\', '&', '#', '\n', ' ', 'a', '雨', ':', '/', '.', '@', '|', '~', '=', '"', "'") }),
      fc.constantFrom('[x](javascript:alert(1))', '![i](https://evil.example/p.png)', '<img src=x onerror=alert(1)>', '<script>alert(1)</script>',
        'https://evil.example', 'www.evil.example', 'me@evil.example', '\n# Heading\n- list', '<https://evil.example>', '[x][1]\n\n[1]: https://evil.example', '    indented'),
    );
    const kind = fc.constantFrom(...CODEX_KINDS);
    const input = fc.record({
      entries: fc.array(fc.record({ name: hostile, kind, key: hostile, body: hostile }).map((r) => entry(r.name, r.kind, { keys: [r.name, r.key], body: r.body, path: `codex/${r.kind}/${r.name}.md` })), { maxLength: 4 }),
      missing: fc.array(fc.record({ name: hostile, kind }), { maxLength: 3 }),
      badge: fc.boolean(),
    }).map((r): CodexTreeInput => ({ entries: r.entries, missing: r.missing, injected: new Set(r.badge ? r.entries.map((e) => e.path) : []) }));
    fc.assert(fc.property(input, (tree) => {
      for (const node of all(tree)) {
        const html = markdown.render(codexTooltip(node, en));
        const tags = [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase());
        assert.deepEqual(tags.filter((t) => !['p', 'strong', 'em', 'blockquote'].includes(t)), [], html);
        const name = node.kind === 'entry' ? node.entry.name : node.kind === 'missing' ? node.missing.name : '';
        const shown = markdownText(name.trim()).replace(/\\(.)/gu, '$1').trim();
        if (shown !== '') assert.ok(decode(html.replace(/<[^>]*>/g, '')).includes(shown), `${JSON.stringify(shown)} in ${html}`);
      }
    }), { numRuns: runs(150, 2000) });
  });

  it('a command argument is a node or nothing, never a throw', () => {
    const node: CodexNode = { kind: 'missing', missing: { name: 'x', kind: 'item' } };
    assert.equal(codexNodeOf(node), node);
    fc.assert(fc.property(fc.anything(), (arg) => {
      const got = codexNodeOf(arg);
      if (typeof arg !== 'object' || arg === null || !('kind' in arg)) assert.equal(got, undefined);
    }), { numRuns: runs(200, 3000) });
  });
});

function decode(html: string): string {
  return html.replace(/&(lt|gt|quot|amp|#39);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&', '#39': "'" })[e] ?? '');
}
