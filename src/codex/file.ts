// One codex entry as a file: YAML front matter between `---` lines, then the lore in Markdown.
// Parsing is tolerant (a missing or wrong field gets its default and a warning; only a file that
// cannot be read as an entry at all is an error) and formatting writes what parsing reads back:
// both go through the same normalisation, so format → parse is the identity on a normalised entry.
//
// Defaults: `name` is the file name without `.md`; `kind` is the kind named by the folder the file
// is in (`characters/`, `place/`, … singular or plural), else `rule` — the least specific claim, so
// an untyped note is never presented to the model as a person; `logic` is `and-any`, `priority` 0.
import { Document, isMap, parseDocument, visit } from 'yaml';
import { ofCount } from '../common/text';
import type { ProjectLanguage } from '../project/config';
import { oneLine } from '../state/text';
import { CODEX_KINDS, type CodexEntry, type CodexKind, type KeyLogic } from './types';

export const KEY_LOGICS: readonly KeyLogic[] = ['and-any', 'and-all', 'not-any', 'not-all'];

/** Larger files are refused: lore that long belongs in several entries (and would eat the budget). */
export const MAX_CODEX_FILE_CHARS = 256 * 1024;
/** The front matter is a handful of fields; more than this is not a codex entry's header. */
export const MAX_FRONT_MATTER_CHARS = 32 * 1024;
/** Keys per list, and characters per key: beyond these a list is data, not aliases. */
export const MAX_KEYS = 200;
export const MAX_KEY_CHARS = 200;

export type ParseCodexResult =
  | { readonly ok: true; readonly entry: CodexEntry; readonly warnings: string[] }
  | { readonly ok: false; readonly error: string };

export interface ParseCodexOptions {
  /** The language of the warnings and errors (VS Code's display language); default English. */
  readonly uiLang?: ProjectLanguage;
}

const KNOWN_FIELDS = ['name', 'kind', 'keys', 'secondary_keys', 'logic', 'always', 'priority', 'depth', 'disabled'];

/** `---` opening the file (after an optional BOM), alone on its line. */
const OPEN = /^\ufeff?---[ \t]*\r?\n/;
/** The line closing the front matter: `---` (or YAML's `...`) alone. */
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/m;

/** A key or a name as stored: one line (line breaks and controls become a space), trimmed. */
export function normalizeKey(key: string): string {
  return oneLine(key);
}

/** Keys as stored: each normalised, empty and too-long ones dropped, duplicates (ignoring case) once, at most MAX_KEYS. */
export function normalizeKeys(keys: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of keys) {
    const key = normalizeKey(raw);
    if (key === '' || key.length > MAX_KEY_CHARS) continue;
    const folded = key.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    out.push(key);
    if (out.length === MAX_KEYS) break;
  }
  return out;
}

/** The body as stored: "\n" line breaks, leading blank lines and trailing white space dropped. */
export function normalizeBody(body: string): string {
  return body.replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** The file name without its folder and `.md`: the name of an entry that names none. */
export function nameFromPath(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return normalizeKey(base.replace(/\.md$/i, ''));
}

/** The kind its folder names (`codex/places/x.md` → place), if any. */
export function kindFromPath(path: string): CodexKind | undefined {
  const parts = path.split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    const folder = (parts[i] ?? '').toLowerCase();
    const kind = CODEX_KINDS.find((k) => folder === k || folder === `${k}s`);
    if (kind) return kind;
  }
  return undefined;
}

function defaultKind(path: string): CodexKind {
  return kindFromPath(path) ?? 'rule';
}

function parseLogic(value: string): KeyLogic | undefined {
  const v = value.trim().toLowerCase().replace(/[\s_]+/g, '-');
  return KEY_LOGICS.find((l) => l === v);
}

/**
 * Reads one codex file. `path` is the POSIX path relative to the book folder (the entry's path;
 * its file name is the default name). Never throws.
 */
export function parseCodexFile(path: string, text: string, options: ParseCodexOptions = {}): ParseCodexResult {
  const t = (en: string, zh: string): string => (options.uiLang === 'zh' ? zh : en);
  const warnings: string[] = [];
  if (text.length > MAX_CODEX_FILE_CHARS) {
    return {
      ok: false,
      error: t(
        `The entry is too long (${Math.ceil(text.length / 1024)} K characters; the limit is ${MAX_CODEX_FILE_CHARS / 1024} K). Split it into several entries.`,
        `这个条目太长了（${Math.ceil(text.length / 1024)} K 字符，上限 ${MAX_CODEX_FILE_CHARS / 1024} K）。请拆成几个条目。`,
      ),
    };
  }
  const fallbackName = nameFromPath(path);
  const entry = {
    path,
    name: fallbackName,
    kind: defaultKind(path),
    keys: [] as string[],
    secondaryKeys: [] as string[],
    logic: 'and-any' as KeyLogic,
    always: false,
    priority: 0,
    depth: undefined as number | undefined,
    disabled: false,
    body: '',
  };

  const open = OPEN.exec(text);
  const rest = open ? text.slice(open[0].length) : '';
  // Also an empty front matter: the closing line right after the opening one.
  const close = open ? CLOSE.exec(rest) : null;
  if (!open || !close) {
    // No front matter (or a `---` rule with nothing closing it): the whole text is the lore.
    entry.body = normalizeBody(text.replace(/^\ufeff/, ''));
    if (entry.name === '') return { ok: false, error: t('The entry has no name: give the file a name or add "name:" to its front matter.', '条目没有名字：请给文件起名，或在开头的设置里写上「name:」。') };
    return { ok: true, entry: finish(entry), warnings };
  }
  const yamlText = rest.slice(0, close.index);
  const afterClose = rest.slice(close.index + close[0].length);
  entry.body = normalizeBody(afterClose.replace(/^\r?\n/, ''));

  if (yamlText.length > MAX_FRONT_MATTER_CHARS) {
    return { ok: false, error: t(`The front matter is too long (the limit is ${MAX_FRONT_MATTER_CHARS / 1024} K characters); put the lore below the closing "---".`, `开头的设置太长了（上限 ${MAX_FRONT_MATTER_CHARS / 1024} K 字符）；设定正文请写在结尾的「---」之后。`) };
  }
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const line = (first.linePos?.[0]?.line ?? 0) + 1; // +1: the opening `---` line
    const message = (first.message.split('\n')[0] ?? first.message).replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, error: t(`Invalid YAML in the front matter (line ${line}): ${message}`, `开头的设置不是有效的 YAML（第 ${line} 行）：${message}`) };
  }
  let hasAlias = false;
  visit(doc, { Alias: () => { hasAlias = true; return visit.BREAK; } });
  let root: unknown;
  try {
    // Aliases are rare in a header; a bounded count stops a "billion laughs" file.
    root = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    return {
      ok: false,
      error: hasAlias
        ? t('Too many aliases (*name) in the front matter to read safely; write the values out in full.', '开头的设置里别名（*名字）太多，无法安全读取；请把值完整写出来。')
        : t(`The front matter could not be read: ${err instanceof Error ? err.message : String(err)}`, `开头的设置读不了：${err instanceof Error ? err.message : String(err)}`),
    };
  }
  if (root === null || root === undefined) return nameCheck();
  if (typeof root !== 'object' || Array.isArray(root) || !isMap(doc.contents)) {
    return { ok: false, error: t('The front matter must be fields such as "name:" and "keys:".', '开头的设置应由「name:」「keys:」这样的字段组成。') };
  }
  const fields = root as Record<string, unknown>;

  const keyList = (field: string, value: unknown): string[] => {
    const items = typeof value === 'string' || typeof value === 'number' ? [value] : Array.isArray(value) ? value : undefined;
    if (items === undefined) {
      if (value !== null) warnings.push(t(`"${field}" should be a list of words; it is ignored.`, `「${field}」应是一组词；已忽略。`));
      return [];
    }
    const strings: string[] = [];
    let skipped = 0;
    for (const item of items) {
      if (typeof item === 'string' || typeof item === 'number') strings.push(String(item));
      else if (item !== null) skipped++;
    }
    if (skipped > 0) warnings.push(t(`"${field}": ${skipped} ${ofCount(skipped, 'item that is not a word is', 'items that are not words are')} ignored.`, `「${field}」：${skipped} 项不是词，已忽略。`));
    if (strings.some((s) => s.length > MAX_KEY_CHARS)) warnings.push(t(`"${field}": keys longer than ${MAX_KEY_CHARS} characters are ignored.`, `「${field}」：超过 ${MAX_KEY_CHARS} 字符的词已忽略。`));
    if (strings.length > MAX_KEYS) warnings.push(t(`"${field}": only the first ${MAX_KEYS} keys are kept.`, `「${field}」：只保留前 ${MAX_KEYS} 个词。`));
    return normalizeKeys(strings);
  };
  const flag = (field: string, value: unknown): boolean => {
    if (typeof value === 'boolean') return value;
    if (value !== null) warnings.push(t(`"${field}" should be true or false; false is used.`, `「${field}」应为 true 或 false；按 false 处理。`));
    return false;
  };

  for (const [field, value] of Object.entries(fields)) {
    switch (field) {
      case 'name': {
        const name = typeof value === 'string' || typeof value === 'number' ? normalizeKey(String(value)) : '';
        if (name !== '') entry.name = name;
        else warnings.push(t(`"name" is empty or not text; the file name "${fallbackName}" is used.`, `「name」为空或不是文字；使用文件名「${fallbackName}」。`));
        break;
      }
      case 'kind': {
        const kind = typeof value === 'string' ? CODEX_KINDS.find((k) => k === value.trim().toLowerCase()) : undefined;
        if (kind) entry.kind = kind;
        else warnings.push(t(`"kind" should be one of ${CODEX_KINDS.join(', ')}; "${entry.kind}" is used.`, `「kind」应为 ${CODEX_KINDS.join('、')} 之一；使用「${entry.kind}」。`));
        break;
      }
      case 'keys':
        entry.keys = keyList(field, value);
        break;
      case 'secondary_keys':
        entry.secondaryKeys = keyList(field, value);
        break;
      case 'logic': {
        const logic = typeof value === 'string' ? parseLogic(value) : undefined;
        if (logic) entry.logic = logic;
        else warnings.push(t(`"logic" should be one of ${KEY_LOGICS.join(', ')}; and-any is used.`, `「logic」应为 ${KEY_LOGICS.join('、')} 之一；使用 and-any。`));
        break;
      }
      case 'always':
        entry.always = flag(field, value);
        break;
      case 'disabled':
        entry.disabled = flag(field, value);
        break;
      case 'priority':
        if (typeof value === 'number' && Number.isFinite(value)) entry.priority = value;
        else warnings.push(t('"priority" should be a number; 0 is used.', '「priority」应为数字；按 0 处理。'));
        break;
      case 'depth':
        if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) entry.depth = value;
        else if (value !== null) warnings.push(t('"depth" should be a whole number of messages, 1 or more; the default depth is used.', '「depth」应为 1 或以上的整数（消息条数）；使用默认深度。'));
        break;
      default:
        warnings.push(t(`Unknown field "${field}" is ignored (known: ${KNOWN_FIELDS.join(', ')}).`, `未知字段「${field}」已忽略（可用的有：${KNOWN_FIELDS.join('、')}）。`));
    }
  }
  return nameCheck();

  function nameCheck(): ParseCodexResult {
    if (entry.name === '') return { ok: false, error: t('The entry has no name: give the file a name or add "name:" to its front matter.', '条目没有名字：请给文件起名，或在开头的设置里写上「name:」。') };
    return { ok: true, entry: finish(entry), warnings };
  }
}

function finish(e: {
  path: string; name: string; kind: CodexKind; keys: string[]; secondaryKeys: string[]; logic: KeyLogic;
  always: boolean; priority: number; depth: number | undefined; disabled: boolean; body: string;
}): CodexEntry {
  // `depth` only when set, so entries compare equal whether or not they passed through a file.
  const { depth, ...rest } = e;
  return depth === undefined ? rest : { ...rest, depth };
}

/**
 * The file text of an entry. Fields in a fixed order, defaults left out (except `name`, `kind`
 * and `keys`, which a novelist looks for), keys as one flow list. Normalised as parsing
 * normalises, so `parseCodexFile(p, formatCodexFile(e))` gives back `e` normalised. The same entry
 * always gives the same bytes.
 */
export function formatCodexFile(entry: Omit<CodexEntry, 'path'>): string {
  const fields: Record<string, unknown> = { name: normalizeKey(entry.name), kind: entry.kind, keys: normalizeKeys(entry.keys) };
  const secondary = normalizeKeys(entry.secondaryKeys);
  if (secondary.length > 0) fields.secondary_keys = secondary;
  if (entry.logic !== 'and-any') fields.logic = entry.logic;
  if (entry.always) fields.always = true;
  if (entry.priority !== 0 && Number.isFinite(entry.priority)) fields.priority = entry.priority;
  if (entry.depth !== undefined && Number.isSafeInteger(entry.depth) && entry.depth > 0) fields.depth = entry.depth;
  if (entry.disabled) fields.disabled = true;
  const doc = new Document(fields);
  // Key lists on one line each ("keys: [青雾, Qingwu]"): a header the novelist reads at a glance.
  visit(doc, { Seq: (_k, node) => { node.flow = true; } });
  const header = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  const body = normalizeBody(entry.body);
  return `---\n${header}---\n${body === '' ? '' : `\n${body}\n`}`;
}
