// The Worldlines tree's nodes and what each shows: a line (its name, where it forked, how many
// saves), a save (its icon by where the novelist stands, "you are here", when written), and the
// story written after the current save. The shell turns these into VS Code tree items; the words
// are English keys marked for the localisation test and translated by the shell's `say`.
import type { Say, Text } from '../common/text';
import { lineRows, type LineRow } from './lineRows';
import type { WorldlineNode, WorldlineView } from './view';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export type TreeNode = { kind: 'line'; line: WorldlineNode } | (LineRow & { line: WorldlineNode });

/** The nodes under `parent`: the lines at the top, a line's rows under it (see `lineRows`). */
export function treeChildren(view: WorldlineView | undefined, parent?: TreeNode): TreeNode[] {
  if (!view) return [];
  if (!parent) return view.worldlines.map((line) => ({ kind: 'line', line }));
  if (parent.kind !== 'line') return [];
  return lineRows(view, parent.line).map((row) => ({ ...row, line: parent.line }));
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
  tooltip: string;
  /** For the context menu's `when` clauses (package.json). */
  contextValue?: 'worldline' | 'save';
  /** A click loads this save. */
  loads?: string;
}

/** What a node shows, in the novelist's language. */
export function treeItem(node: TreeNode, say: Say): TreeItemView {
  if (node.kind === 'line') {
    const { line } = node;
    return {
      id: `line:${line.id}`, label: line.name, expanded: true, icon: 'git-branch', highlight: line.isCurrent,
      description: say(line.forkFrom ? l10n.t('from "{0}" · {1} save(s)', line.forkFrom.name, line.saves.length) : l10n.t('{0} save(s)', line.saves.length)),
      tooltip: line.originalName !== line.name ? `${line.name} (${line.originalName})` : line.name,
      contextValue: 'worldline',
    };
  }
  if (node.kind === 'after') {
    return {
      id: 'after-last-save', expanded: false, icon: 'edit',
      label: say(node.forks ? l10n.t('Story written after "{0}", not saved', node.from.name) : l10n.t('Story written after the last save')),
      description: say(l10n.t('you are here')),
      tooltip: say(node.forks
        ? l10n.t('This story went another way than the later saves of this line. Save Point… keeps it as a new worldline.')
        : l10n.t('Save Point… keeps it.')),
    };
  }
  const s = node.save;
  return {
    id: `save:${s.saveId}`, label: s.name, expanded: false,
    icon: s.isCurrent ? 'location' : s.onCurrentBranch ? 'circle-filled' : 'circle-outline',
    description: [node.here ? say(l10n.t('you are here')) : '', new Date(s.ts).toLocaleString()].filter(Boolean).join(' · '),
    tooltip: say(l10n.t('Click to load this save (prose and chat; Undo Last Restore returns).')),
    contextValue: 'save',
    loads: s.saveId,
  };
}

/** A save id from a command's argument: the id itself (palette, tests) or the tree node (context menu). */
export function saveIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const node = asNode(arg);
  return node?.kind === 'save' ? node.save.saveId : undefined;
}

/** A worldline id from a command's argument: the id, a line node, or a save node (its line). */
export function worldlineIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const node = asNode(arg);
  return node?.kind === 'line' || node?.kind === 'save' ? node.line.id : undefined;
}

function asNode(arg: unknown): TreeNode | undefined {
  return arg && typeof arg === 'object' && 'kind' in arg ? (arg as TreeNode) : undefined;
}
