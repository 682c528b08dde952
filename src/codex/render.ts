// The codex block: the selected entries as the model reads them in the newest-message block,
//
//   【设定】
//   ## 青雾（人物）
//   …the lore…
//
// Entries in the order given (the selection's: priority first), each whole or not at all, within
// a budget of characters: an entry that does not fit is skipped and a shorter later one may still
// go in. The same selection gives the same bytes. A name or a line of lore can be a model's text
// (the agent may write the codex, when allowed), so names go through blockText and bodies through
// blockLines, as in the state block: no line of either opens like a block header (【…】, […]).
// Headings inside a body are lowered to "###", so a body cannot start an entry of its own.
import { blockLines, blockText } from '../state/text';
import type { CodexKind, SelectedEntry } from './types';

export interface RenderCodexOptions {
  /** Most characters (UTF-16 code units) of the whole block, header included. */
  readonly budget: number;
  readonly lang: 'zh' | 'en';
}

export interface RenderedCodex {
  /** The block; '' when no entry is selected or none fits. */
  readonly text: string;
  /** Paths of the entries in `text`, in its order. */
  readonly included: string[];
}

interface Words {
  readonly header: string;
  readonly kinds: Readonly<Record<CodexKind, string>>;
  readonly kind: (name: string, kind: string) => string;
}

const ZH: Words = {
  header: '【设定】',
  kinds: { character: '人物', place: '地点', item: '物品', faction: '势力', rule: '规则', style: '文风' },
  kind: (name, kind) => `## ${name}（${kind}）`,
};

const EN: Words = {
  header: '[Codex]',
  kinds: { character: 'character', place: 'place', item: 'item', faction: 'faction', rule: 'rule', style: 'style' },
  kind: (name, kind) => `## ${name} (${kind})`,
};

/** The block's header in each language (a header nothing else in a block can open with). */
export const CODEX_HEADERS: readonly string[] = [ZH.header, EN.header];

const ENTRY_SEPARATOR = '\n\n';

/** A body as printed: header-like lines marked, its Markdown headings below the entries' own. */
function bodyText(body: string): string {
  return blockLines(body.trim())
    .split('\n')
    .map((line) => line.replace(/^#{1,2}(?=[ \t]|$)/, '###'))
    .join('\n')
    .trim();
}

/** One entry as printed. */
export function renderCodexEntry(selected: SelectedEntry, lang: 'zh' | 'en'): string {
  const W = lang === 'en' ? EN : ZH;
  const e = selected.entry;
  const heading = W.kind(blockText(e.name), W.kinds[e.kind] ?? e.kind);
  const body = bodyText(e.body);
  return body === '' ? heading : `${heading}\n${body}`;
}

/** The codex block for `selected`, in its order, within `options.budget` characters. */
export function renderCodexBlock(selected: readonly SelectedEntry[], options: RenderCodexOptions): RenderedCodex {
  const W = options.lang === 'en' ? EN : ZH;
  const parts: string[] = [W.header];
  const included: string[] = [];
  let length = W.header.length;
  const seen = new Set<string>();
  for (const s of selected) {
    if (seen.has(s.entry.path)) continue;
    const text = renderCodexEntry(s, options.lang);
    // The header and the first entry are joined by one line break, later entries by a blank line.
    const cost = (included.length === 0 ? 1 : ENTRY_SEPARATOR.length) + text.length;
    if (length + cost > options.budget) continue;
    seen.add(s.entry.path);
    parts.push(included.length === 0 ? `\n${text}` : `${ENTRY_SEPARATOR}${text}`);
    included.push(s.entry.path);
    length += cost;
  }
  if (included.length === 0) return { text: '', included: [] };
  return { text: parts.join(''), included };
}
