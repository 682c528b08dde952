// The Worldlines tree's nodes and what each shows: a line (its name, where it forked, how many
// saves), a save (its icon by where the novelist stands, "you are here", the in-story time, when
// written), and the story written after the current save. A click only selects: loading is the
// row's inline button and its context menu (package.json), so nothing moves by accident. Every
// row has a Markdown tooltip with the full names (the view may clip a label) and a screen-reader
// label no other row has. The shell turns these into VS Code tree items; the words are English
// keys marked for the localisation test and translated by the shell's `say`.
import { firstWords } from '../common/firstWords';
import { markdownText } from '../common/markdownText';
import { relativeTime } from '../common/relativeTime';
import { ofCount, type Say, type Text } from '../common/text';
import { lineRows, type LineRow } from './lineRows';
import { savesCount } from './savePicks';
import type { WorldlineNode, WorldlineView } from './view';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** A place among siblings, 1-based. */
export interface Ordinal {
  readonly index: number;
  readonly of: number;
}

interface NodePlace {
  /** The line's place among the lines, set only when another line has the same name. */
  lineOrdinal?: Ordinal;
}

export type TreeNode =
  | ({ kind: 'line'; line: WorldlineNode } & NodePlace)
  | (Extract<LineRow, { kind: 'save' }> & { line: WorldlineNode; position: Ordinal } & NodePlace)
  | (Extract<LineRow, { kind: 'after' }> & { line: WorldlineNode } & NodePlace);

/** The nodes under `parent`: the lines at the top, a line's rows under it (see `lineRows`). */
export function treeChildren(view: WorldlineView | undefined, parent?: TreeNode): TreeNode[] {
  if (!view) return [];
  const lines = view.worldlines;
  const named = new Map<string, number>();
  for (const l of lines) named.set(l.name, (named.get(l.name) ?? 0) + 1);
  const placeOf = (line: WorldlineNode): NodePlace => ((named.get(line.name) ?? 0) > 1
    ? { lineOrdinal: { index: lines.indexOf(line) + 1, of: lines.length } }
    : {});
  if (!parent) return lines.map((line) => ({ kind: 'line', line, ...placeOf(line) }));
  if (parent.kind !== 'line') return [];
  const line = lines.find((l) => l.id === parent.line.id) ?? parent.line;
  const place = placeOf(line);
  const count = line.saves.length;
  let at = 0;
  return lineRows(view, line).map((row): TreeNode => (row.kind === 'save'
    ? { ...row, line, position: { index: ++at, of: count }, ...place }
    : { ...row, line, ...place }));
}

export interface TreeItemView {
  id: string;
  label: string;
  /** Lines are shown open; rows have no children. */
  expanded: boolean;
  /** A codicon name; `highlight` colours it (the line the novelist is on). */
  icon: string;
  highlight?: boolean;
  description: string;
  /** What a screen reader says for the row: no two rows of a tree say the same. */
  accessibleLabel: string;
  /** For the context menu's `when` clauses (package.json). */
  contextValue?: 'worldline' | 'save';
}

/** What a node shows, in the novelist's language. */
export function treeItem(node: TreeNode, say: Say): TreeItemView {
  const join = (parts: readonly Text[]) => parts.map(say).reduce((a, b) => say(l10n.t('{0}, {1}', a, b)));
  const lineOrdinal = node.lineOrdinal ? [l10n.t('line {0} of {1}', node.lineOrdinal.index, node.lineOrdinal.of)] : [];
  if (node.kind === 'line') {
    const { line } = node;
    return {
      id: `line:${line.id}`, label: line.name, expanded: true, icon: 'git-branch', highlight: line.isCurrent,
      description: say(line.forkFrom ? fromWords(line.forkFrom.name, line.saves.length) : savesCount(line.saves.length)),
      accessibleLabel: join([
        l10n.t('Worldline "{0}"', line.name), ...lineOrdinal, savesCount(line.saves.length),
        ...(line.forkFrom ? [l10n.t('branched from "{0}"', line.forkFrom.name)] : []),
        ...(line.isCurrent ? [l10n.t('you are on this line')] : []),
      ]),
      contextValue: 'worldline',
    };
  }
  if (node.kind === 'after') {
    return {
      id: 'after-last-save', expanded: false, icon: 'edit',
      label: say(l10n.t('Story not saved yet')),
      description: say(l10n.t('after "{0}" · you are here', node.from.name)),
      accessibleLabel: join([l10n.t('Story written after "{0}", not saved', node.from.name), l10n.t('you are here')]),
    };
  }
  const s = node.save;
  const time = firstWords(s.facts?.time ?? '', { width: 24 });
  return {
    id: `save:${s.saveId}`, label: s.name, expanded: false,
    icon: s.isCurrent ? 'location' : s.onCurrentBranch ? 'circle-filled' : 'circle-outline',
    description: [node.here ? say(l10n.t('you are here')) : '', time, new Date(s.ts).toLocaleString()].filter(Boolean).join(' · '),
    accessibleLabel: join([
      l10n.t('Save "{0}" on worldline "{1}"', s.name, node.line.name), ...lineOrdinal,
      l10n.t('{0} of {1}', node.position.index, node.position.of),
      ...(time ? [l10n.t('in-story {0}', time)] : []),
      ...(node.here ? [l10n.t('you are here')] : []),
    ]),
    contextValue: 'save',
  };
}

/**
 * A node's tooltip as Markdown: full names, and for a save its worldline, in-story time and place,
 * first words and when. Every name and every model-written word is escaped (./markdownText.ts);
 * the shell renders it with HTML and command links off. `now` (epoch ms) for "5 minutes ago".
 */
export function treeTooltip(node: TreeNode, say: Say, now: number): string {
  const md = markdownText;
  // A blank name would leave "****", a thematic break: no emphasis for nothing.
  const strong = (s: string) => (s.trim() ? `**${s.trim()}**` : undefined);
  const paragraphs = (parts: readonly (string | undefined)[]) => parts.filter((p): p is string => !!p).join('\n\n');
  if (node.kind === 'line') {
    const { line } = node;
    return paragraphs([
      strong(md(line.name)),
      line.originalName !== line.name ? say(l10n.t('First named "{0}"', md(line.originalName))) : undefined,
      say(line.forkFrom ? fromWords(md(line.forkFrom.name), line.saves.length) : savesCount(line.saves.length)),
      line.isCurrent ? say(l10n.t('you are on this line')) : undefined,
    ]);
  }
  if (node.kind === 'after') {
    return paragraphs([
      strong(md(say(l10n.t('Story written after "{0}", not saved', node.from.name)))),
      say(node.forks
        ? l10n.t('This story went another way than the later saves of this line. Save Point… keeps it as a new worldline.')
        : l10n.t('Save Point… keeps it.')),
    ]);
  }
  const s = node.save;
  const scene = [
    s.facts?.time ? say(l10n.t('In-story time: {0}', md(s.facts.time))) : undefined,
    s.facts?.place ? say(l10n.t('Place: {0}', md(s.facts.place))) : undefined,
  ].filter(Boolean).join(' · ');
  return paragraphs([
    strong(md(s.name)),
    s.originalName !== s.name ? say(l10n.t('First named "{0}"', md(s.originalName))) : undefined,
    `${say(l10n.t('Worldline: {0}', md(node.line.name)))} · ${say(l10n.t('{0} of {1}', node.position.index, node.position.of))}`,
    scene || undefined,
    s.facts?.firstWords.trim() ? `> ${md(s.facts.firstWords)}` : undefined,
    `*${md(say(relativeTime(s.ts, now)))} · ${md(new Date(s.ts).toLocaleString())}*`,
    node.here ? say(l10n.t('you are here')) : undefined,
    say(l10n.t('Load Save (the button on this row, or its context menu) brings back its prose and chat; Undo Last Restore returns.')),
  ]);
}

function fromWords(name: string, saves: number): Text {
  return ofCount(saves, l10n.t('from "{0}" · {1} save', name, saves), l10n.t('from "{0}" · {1} saves', name, saves));
}

/** A save id from a command's argument: the id itself (palette, tests) or the tree node (context menu). */
export function saveIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const node = asNode(arg);
  return node?.kind === 'save' ? node.save?.saveId : undefined;
}

/** A worldline id from a command's argument: the id, a line node, or a save node (its line). */
export function worldlineIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const node = asNode(arg);
  return node?.kind === 'line' || node?.kind === 'save' ? node.line?.id : undefined;
}

function asNode(arg: unknown): TreeNode | undefined {
  return arg && typeof arg === 'object' && 'kind' in arg ? (arg as TreeNode) : undefined;
}
