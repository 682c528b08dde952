// The Codex view's nodes and what each shows: a group per kind that has entries (Characters,
// Places, …), each entry a row (its name, its keys, a badge when it was injected at the newest
// turn), and "Not in the codex yet" with the roster names no entry covers, each with Create Entry.
// The shell turns these into VS Code tree items; the words are English keys marked for the
// localisation test and translated by the shell's `say`. Tooltips escape every name and line of
// lore (../common/markdownText.ts): a file's text is the novelist's, or a model's.
import { markdownText } from '../common/markdownText';
import { ofCount, type Say, type Text } from '../common/text';
import type { MissingName } from './missing';
import { CODEX_KINDS, type CodexEntry, type CodexKind } from './types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface CodexTreeInput {
  readonly entries: readonly CodexEntry[];
  /** Paths of the entries injected at the newest turn of the branch. */
  readonly injected: ReadonlySet<string>;
  readonly missing: readonly MissingName[];
}

export type CodexNode =
  | { readonly kind: 'group'; readonly group: CodexKind; readonly count: number }
  | { readonly kind: 'entry'; readonly entry: CodexEntry; readonly injected: boolean }
  | { readonly kind: 'missingGroup'; readonly count: number }
  | { readonly kind: 'missing'; readonly missing: MissingName };

/** The nodes under `parent`: the kinds that have entries, then the missing names' group. */
export function codexChildren(input: CodexTreeInput, parent?: CodexNode): CodexNode[] {
  if (!parent) {
    const groups: CodexNode[] = CODEX_KINDS
      .map((group) => ({ kind: 'group' as const, group, count: input.entries.filter((e) => e.kind === group).length }))
      .filter((g) => g.count > 0);
    if (input.missing.length > 0) groups.push({ kind: 'missingGroup', count: input.missing.length });
    return groups;
  }
  if (parent.kind === 'group') {
    return input.entries
      .filter((e) => e.kind === parent.group)
      .slice()
      .sort((a, b) => a.name.localeCompare(b.name) || a.path.localeCompare(b.path))
      .map((entry) => ({ kind: 'entry', entry, injected: input.injected.has(entry.path) }));
  }
  if (parent.kind === 'missingGroup') return input.missing.map((missing) => ({ kind: 'missing', missing }));
  return [];
}

export interface CodexItemView {
  id: string;
  label: string;
  expanded: boolean;
  /** A codicon name; `highlight` colours it (an entry injected at the newest turn). */
  icon: string;
  highlight?: boolean;
  description: string;
  accessibleLabel: string;
  contextValue?: 'codexEntry' | 'codexMissing';
  /** The entry's file to open on a click (relative to the book folder). */
  open?: string;
}

const GROUP_NAMES: Readonly<Record<CodexKind, Text>> = {
  character: l10n.t('Characters'),
  place: l10n.t('Places'),
  item: l10n.t('Items'),
  faction: l10n.t('Factions'),
  rule: l10n.t('Rules'),
  style: l10n.t('Style'),
};

const GROUP_ICONS: Readonly<Record<CodexKind, string>> = {
  character: 'person', place: 'location', item: 'package', faction: 'organization', rule: 'law', style: 'symbol-color',
};

export const KIND_NAMES: Readonly<Record<CodexKind, Text>> = {
  character: l10n.t('Character'),
  place: l10n.t('Place'),
  item: l10n.t('Item'),
  faction: l10n.t('Faction'),
  rule: l10n.t('Rule'),
  style: l10n.t('Style entry'),
};

function entriesCount(n: number): Text {
  return ofCount(n, l10n.t('{0} entry', n), l10n.t('{0} entries', n));
}

/** An entry's keys besides its name, as the row's description. */
function keysLine(entry: CodexEntry): string {
  const own = entry.keys.filter((k) => k.trim() !== '' && k.trim().toLowerCase() !== entry.name.trim().toLowerCase());
  return own.join(', ');
}

/** What a node shows, in the novelist's language. */
export function codexItem(node: CodexNode, say: Say): CodexItemView {
  if (node.kind === 'group') {
    const name = say(GROUP_NAMES[node.group]);
    return {
      id: `group:${node.group}`, label: name, expanded: true, icon: GROUP_ICONS[node.group],
      description: say(entriesCount(node.count)),
      accessibleLabel: say(l10n.t('{0}, {1}', name, say(entriesCount(node.count)))),
    };
  }
  if (node.kind === 'missingGroup') {
    const name = say(l10n.t('Not in the codex yet'));
    const count = say(ofCount(node.count, l10n.t('{0} name', node.count), l10n.t('{0} names', node.count)));
    return { id: 'missing', label: name, expanded: true, icon: 'question', description: count, accessibleLabel: say(l10n.t('{0}, {1}', name, count)) };
  }
  if (node.kind === 'missing') {
    const { name, kind } = node.missing;
    return {
      id: `missing:${kind}:${name}`, label: name, expanded: false, icon: 'add', description: say(KIND_NAMES[kind]),
      accessibleLabel: say(l10n.t('{0}: in the roster, no codex entry yet', name)),
      contextValue: 'codexMissing',
    };
  }
  const { entry, injected } = node;
  const keys = keysLine(entry);
  const badge = injected ? say(l10n.t('injected last turn')) : '';
  const flags = [entry.always ? say(l10n.t('always')) : '', entry.disabled ? say(l10n.t('disabled')) : ''].filter(Boolean);
  return {
    id: `entry:${entry.path}`, label: entry.name, expanded: false,
    icon: injected ? 'pass-filled' : entry.disabled ? 'circle-slash' : 'book', highlight: injected,
    description: [keys, ...flags, badge].filter(Boolean).join(' · '),
    accessibleLabel: [entry.name, say(KIND_NAMES[entry.kind]), keys, ...flags, badge].filter(Boolean).join(', '),
    contextValue: 'codexEntry',
    open: entry.path,
  };
}

/** How many lines of the lore a tooltip shows. */
export const TOOLTIP_LINES = 6;

/** A node's tooltip as Markdown: the full name, the keys, the first lines of the lore, all escaped. */
export function codexTooltip(node: CodexNode, say: Say): string {
  const md = markdownText;
  const strong = (s: string) => (s.trim() ? `**${md(s.trim())}**` : undefined);
  const paragraphs = (parts: readonly (string | undefined)[]) => parts.filter((p): p is string => !!p).join('\n\n');
  if (node.kind === 'group') return paragraphs([strong(say(GROUP_NAMES[node.group])), md(say(entriesCount(node.count)))]);
  if (node.kind === 'missingGroup') {
    return paragraphs([strong(say(l10n.t('Not in the codex yet'))), md(say(l10n.t('Names in the roster that no codex entry names or keys. Create Entry drafts one for you to review.')))]);
  }
  if (node.kind === 'missing') {
    return paragraphs([strong(node.missing.name), md(say(l10n.t('In the roster, no codex entry yet. Create Entry (the button on this row) drafts one from the scene state and the turns that name it; nothing is written until you choose Write.')))]);
  }
  const { entry, injected } = node;
  const lines = entry.body.split(/\r?\n/u).map((l) => l.trim()).filter((l) => l !== '');
  const shown = lines.slice(0, TOOLTIP_LINES).map((l) => `> ${md(l)}`).join('\n>\n');
  return paragraphs([
    strong(entry.name),
    md(`${say(KIND_NAMES[entry.kind])} · ${entry.path}`),
    entry.keys.length > 0 ? md(say(l10n.t('Keys: {0}', entry.keys.join(', ')))) : undefined,
    entry.secondaryKeys.length > 0 ? md(say(l10n.t('Secondary keys ({0}): {1}', entry.logic, entry.secondaryKeys.join(', ')))) : undefined,
    shown || undefined,
    lines.length > TOOLTIP_LINES ? md('…') : undefined,
    injected ? `*${md(say(l10n.t('injected last turn')))}*` : undefined,
  ]);
}

/** The node a command was given (the tree passes its node), or undefined. */
export function codexNodeOf(arg: unknown): CodexNode | undefined {
  return arg && typeof arg === 'object' && 'kind' in arg ? (arg as CodexNode) : undefined;
}
