// The agent's `codex_lookup` tool: entries found by name or key, their lore returned whole, within
// a bound, so one call never floods the context. Exact name or key first, then names and keys
// that contain the query (or that the query contains), higher priority first within each.
import type { CodexEntry } from './types';

type Lang = 'zh' | 'en';

/** What one call returns at most, in characters, and in entries. */
export const LOOKUP_MAX_CHARS = 12_000;
export const LOOKUP_MAX_ENTRIES = 5;

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

function fold(s: string): string {
  return s.normalize('NFKC').trim().toLowerCase();
}

/** 0: the name or a key is the query; 1: one contains the other; undefined: no match. */
function rank(entry: CodexEntry, q: string): number | undefined {
  const names = [entry.name, ...entry.keys].map(fold).filter((n) => n !== '');
  if (names.includes(q)) return 0;
  if (names.some((n) => n.includes(q) || (n.length >= 2 && q.includes(n)))) return 1;
  return undefined;
}

/** The entries matching `query`, best first (disabled ones too: the novelist kept them, the agent may read them). */
export function findEntries(entries: readonly CodexEntry[], query: string): CodexEntry[] {
  const q = fold(query);
  if (q === '') return [];
  const found: { entry: CodexEntry; rank: number }[] = [];
  for (const entry of entries) {
    const r = rank(entry, q);
    if (r !== undefined) found.push({ entry, rank: r });
  }
  found.sort((a, b) => a.rank - b.rank || b.entry.priority - a.entry.priority || a.entry.path.localeCompare(b.entry.path));
  return found.map((f) => f.entry);
}

/** The tool's answer: each entry as a heading (name, kind, path, keys) and its lore, bounded. */
export function lookupText(entries: readonly CodexEntry[], query: string, lang: Lang): string {
  if (entries.length === 0) return t(lang, 'The book has no codex entries yet.', '这本书还没有设定条目。');
  const found = findEntries(entries, query);
  if (found.length === 0) {
    return t(lang, `No codex entry has the name or key "${query.trim()}". Try another spelling or a shorter name.`, `没有名字或关键词为「${query.trim()}」的设定条目。可以换个写法或更短的名字再查。`);
  }
  const parts: string[] = [];
  let size = 0;
  let shown = 0;
  for (const e of found.slice(0, LOOKUP_MAX_ENTRIES)) {
    const keys = e.keys.length > 0 ? ` · ${t(lang, 'keys', '关键词')}: ${e.keys.join(', ')}` : '';
    const head = `## ${e.name} (${e.kind}) · ${e.path}${keys}`;
    const room = LOOKUP_MAX_CHARS - size - head.length - 1;
    if (room <= 0) break;
    const body = e.body.length > room ? `${e.body.slice(0, room)}\n${t(lang, `[cut; read_file "${e.path}" for the rest]`, `[已截断；用 read_file "${e.path}" 读取其余部分]`)}` : e.body;
    const part = `${head}\n${body}`;
    parts.push(part);
    size += part.length + 2;
    shown++;
  }
  const more = found.length - shown;
  const tail = more > 0 ? `\n\n${t(lang, `[${more} more ${more === 1 ? 'entry matches' : 'entries match'}; ask with a more exact name.]`, `[还有 ${more} 条匹配；请用更准确的名字查询。]`)}` : '';
  return parts.join('\n\n') + tail;
}
