// worldline.yaml: the project file. Read tolerantly: every problem becomes a message with a line
// number and the default for that field is used, so a typo never stops the novelist from writing.
import { LineCounter, parseDocument, isMap, visit, type Document } from 'yaml';
import { compileManuscript, MAX_PATTERNS, type ManuscriptMatcher } from './manuscript';
import { checkCodexFolder, DEFAULT_CODEX_FOLDER, trackedMatcher } from './codexFolder';
import { readGoalsField, type Goals } from './goals';

export type ProjectLanguage = 'zh' | 'en';
export type LanguageSetting = ProjectLanguage | 'auto';

export interface OpeningScene {
  time: string;
  location: string;
  characters: string[];
  /**
   * The project's `variables:`, present only when there are some, so `openingState(opening)` starts
   * the scene with them and every caller that builds the opening state gets them for free.
   */
  variables?: Record<string, unknown>;
}

export interface ProjectConfig {
  title: string;
  language: LanguageSetting;
  /** The usable `manuscript:` globs, as written (problem patterns left out). */
  manuscript: string[];
  /**
   * The one manuscript matcher, compiled from `manuscript` plus `!<codex>/**` (the lore is never
   * manuscript; src/project/manuscript.ts): the agent's tools, the unsaved-editor checks and the
   * word count all ask it. Its `globs` are the ones it was compiled from.
   */
  manuscriptMatcher: ManuscriptMatcher;
  /** worldline.yaml `codex:`: the lore folder, POSIX, relative to the book (src/project/codexFolder.ts). Never manuscript. */
  codex: string;
  /**
   * What the checkpoints track: the manuscript and the codex folder's *.md, so restores and "prose
   * follows the branch" bring the lore back too. Decided here only; the store is given this.
   */
  trackedMatcher: ManuscriptMatcher;
  style: string;
  opening: OpeningScene;
  variables: Record<string, unknown>;
  /** worldline.yaml `goals:` (src/project/goals.ts): each one written wins over its setting; 0 turns it off. */
  goals: Goals;
}

export interface ConfigProblem {
  /** 1-based line in worldline.yaml, when the problem has one. */
  line?: number;
  message: string;
}

export interface LoadedConfig {
  config: ProjectConfig;
  problems: ConfigProblem[];
}

export const CONFIG_FILE = 'worldline.yaml';
export const DEFAULT_MANUSCRIPT = ['**/*.md', '**/*.txt'];
/** A project file is a few kilobytes; far bigger is a mistake, and would stall activation. */
export const MAX_CONFIG_CHARS = 2_000_000;

export function defaultConfig(): ProjectConfig {
  const manuscript = manuscriptMatcherOf(DEFAULT_MANUSCRIPT, DEFAULT_CODEX_FOLDER);
  return {
    title: '',
    language: 'auto',
    manuscript: [...DEFAULT_MANUSCRIPT],
    manuscriptMatcher: manuscript,
    codex: DEFAULT_CODEX_FOLDER,
    trackedMatcher: trackedMatcher(manuscript, DEFAULT_CODEX_FOLDER),
    style: '',
    opening: { time: '', location: '', characters: [] },
    variables: {},
    goals: {},
  };
}

const KNOWN_KEYS = new Set(['title', 'language', 'manuscript', 'codex', 'style', 'opening', 'variables', 'goals']);
const OPENING_KEYS = new Set(['time', 'location', 'characters']);

/**
 * Parses the text of worldline.yaml. Never throws. Problems are worded in `uiLang` (VS Code's
 * display language: the novelist reads them in the Problems panel before any project language
 * is known).
 */
export function parseProjectConfig(text: string, uiLang: ProjectLanguage = 'en'): LoadedConfig {
  const t = (en: string, zh: string): string => (uiLang === 'zh' ? zh : en);
  const lineCounter = new LineCounter();
  const problems: ConfigProblem[] = [];
  const config = defaultConfig();
  if (text.length > MAX_CONFIG_CHARS) {
    problems.push({
      message: t(
        `worldline.yaml is too large (${Math.round(text.length / 1000)} thousand characters; the limit is ${MAX_CONFIG_CHARS / 1000} thousand). The defaults are used until it is trimmed.`,
        `worldline.yaml 太大了（${Math.round(text.length / 1000)} 千字符，上限 ${MAX_CONFIG_CHARS / 1000} 千）。删减之前先用默认设置。`,
      ),
    });
    return { config, problems };
  }
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    problems.push({ message: t(`worldline.yaml could not be read: ${String(err)}`, `worldline.yaml 读不了：${String(err)}`) });
    return { config, problems };
  }
  for (const error of doc.errors) {
    const line = error.linePos?.[0]?.line;
    const first = error.message.split('\n')[0] ?? error.message;
    problems.push({ line, message: t('Invalid YAML: ', 'YAML 格式错误：') + first.replace(/ at line \d+, column \d+:?$/, '') });
  }
  if (doc.errors.length > 0) {
    problems.push({ message: t('worldline.yaml has YAML errors; the defaults are used until they are fixed.', 'worldline.yaml 有 YAML 错误；改好之前先用默认设置。') });
    return { config, problems };
  }

  const lineOf = (path: (string | number)[]): number | undefined => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    if (node && Array.isArray(node.range)) return lineCounter.linePos(node.range[0]).line;
    return undefined;
  };
  const keyLine = (key: string): number | undefined => {
    if (!isMap(doc.contents)) return undefined;
    for (const pair of doc.contents.items) {
      const k = pair.key as { value?: unknown; range?: [number, number, number] } | null;
      if (k && k.value === key && k.range) return lineCounter.linePos(k.range[0]).line;
    }
    return undefined;
  };

  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // An alias bomb ("billion laughs") or a structure too deep to convert: report, never throw.
    const alias = /alias/i.test(String(err));
    problems.push({
      line: alias ? firstAliasLine(doc, lineCounter) : undefined,
      message: alias
        ? t('Too many aliases (*name) to read safely (a file like this can exhaust memory); write those values out in full. The defaults are used until it is fixed.',
          '别名（*名字）太多，无法安全读取（这样的文件可能耗尽内存）；请把这些值完整写出来。改好之前先用默认设置。')
        : t(`worldline.yaml could not be read (${err instanceof Error ? err.message : String(err)}); the defaults are used until it is fixed.`,
          `worldline.yaml 读不了（${err instanceof Error ? err.message : String(err)}）；改好之前先用默认设置。`),
    });
    return { config, problems };
  }
  if (root === null || root === undefined) return { config, problems };
  if (!isPlainObject(root)) {
    problems.push({ line: 1, message: t('worldline.yaml must be a mapping of fields such as "title:" and "language:".', 'worldline.yaml 应由「title:」「language:」这样的字段组成。') });
    return { config, problems };
  }

  for (const key of Object.keys(root)) {
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ line: keyLine(key), message: t(`Unknown field "${key}" is ignored (known: ${[...KNOWN_KEYS].join(', ')}).`, `未知字段「${key}」被忽略（可用的有：${[...KNOWN_KEYS].join('、')}）。`) });
    }
  }

  const wrongType = (path: (string | number)[], expected: string, expectedZh: string) => {
    problems.push({ line: lineOf(path), message: t(`"${path.join('.')}" must be ${expected}; the default is used.`, `「${path.join('.')}」应为${expectedZh}；先用默认值。`) });
  };

  if ('title' in root) {
    const v = root.title;
    if (typeof v === 'string' || typeof v === 'number') config.title = String(v);
    else wrongType(['title'], 'text', '文字');
  }
  if ('language' in root) {
    const v = root.language;
    if (v === 'zh' || v === 'en' || v === 'auto') config.language = v;
    else wrongType(['language'], 'one of zh, en, auto', ' zh、en、auto 之一');
  }
  if ('manuscript' in root) {
    const v = root.manuscript;
    const list: unknown = typeof v === 'string' ? [v] : v;
    if (Array.isArray(list) && list.length > 0) {
      // Each unusable pattern is reported on its own line and left out; none usable → the default.
      const compiled = compileManuscript(list, uiLang);
      for (const p of compiled.problems) {
        const line = p.index === undefined || typeof v === 'string' ? lineOf(['manuscript']) ?? keyLine('manuscript') : lineOf(['manuscript', p.index]);
        problems.push({ line, message: p.message });
      }
      if (compiled.usable) {
        config.manuscript = [...compiled.matcher.globs];
      }
    } else {
      wrongType(['manuscript'], 'a list of glob patterns such as "chapters/**/*.md"', '一组路径模式，如「chapters/**/*.md」');
    }
  }
  if ('codex' in root) {
    const checked = checkCodexFolder(root.codex, uiLang);
    if ('folder' in checked) config.codex = checked.folder;
    else problems.push({ line: lineOf(['codex']) ?? keyLine('codex'), message: checked.problem });
  }
  config.manuscriptMatcher = manuscriptMatcherOf(config.manuscript, config.codex);
  config.trackedMatcher = trackedMatcher(config.manuscriptMatcher, config.codex);
  if ('style' in root) {
    const v = root.style;
    if (typeof v === 'string') config.style = v;
    else if (v !== null) wrongType(['style'], 'text', '文字');
  }
  if ('opening' in root) {
    const v = root.opening;
    if (isPlainObject(v)) {
      for (const key of Object.keys(v)) {
        if (!OPENING_KEYS.has(key)) {
          problems.push({ line: lineOf(['opening', key]), message: t(`Unknown field "opening.${key}" is ignored (known: time, location, characters).`, `未知字段「opening.${key}」被忽略（可用的有：time、location、characters）。`) });
        }
      }
      for (const key of ['time', 'location'] as const) {
        if (!(key in v)) continue;
        const s = v[key];
        if (typeof s === 'string' || typeof s === 'number') config.opening[key] = String(s);
        else if (s !== null) wrongType(['opening', key], 'text', '文字');
      }
      if ('characters' in v) {
        const c = v.characters;
        if (Array.isArray(c) && c.every((n) => typeof n === 'string' || typeof n === 'number')) {
          config.opening.characters = c.map(String).filter((n) => n.trim() !== '');
        } else if (isPlainObject(c)) {
          config.opening.characters = Object.keys(c);
        } else if (c !== null) {
          wrongType(['opening', 'characters'], 'a list of names', '一组人名');
        }
      }
    } else if (v !== null) {
      wrongType(['opening'], 'a mapping with time, location and characters', '含 time、location、characters 的映射');
    }
  }
  if ('variables' in root) {
    const v = root.variables;
    if (isPlainObject(v)) config.variables = v;
    else if (v !== null) wrongType(['variables'], 'a mapping of names to values', '名字到值的映射');
  }
  if ('goals' in root) {
    const read = readGoalsField(root.goals, uiLang);
    config.goals = read.goals;
    for (const p of read.problems) problems.push({ line: lineOf(p.path) ?? keyLine('goals'), message: p.message });
  }
  // No variables → no field, so the opening state has no `variables` (as before).
  if (Object.keys(config.variables).length > 0) config.opening.variables = config.variables;
  return { config, problems };
}

/**
 * The manuscript matcher of usable `globs` with the codex folder taken out, through the one
 * compiler (so the same pair always gives the same matcher). "codex/**" has a "/" inside, so it is
 * read from the book folder: a "codex" folder deeper down stays manuscript.
 */
export function manuscriptMatcherOf(globs: readonly string[], codex: string): ManuscriptMatcher {
  return compileManuscript([...globs.slice(0, MAX_PATTERNS - 1), `!${codex}/**`]).matcher;
}

/** 1-based line of the first alias (`*name`) in the document, if any. */
function firstAliasLine(doc: Document, lineCounter: LineCounter): number | undefined {
  let line: number | undefined;
  try {
    visit(doc, {
      Alias(_key, node) {
        if (node.range) line = lineCounter.linePos(node.range[0]).line;
        return visit.BREAK;
      },
    });
  } catch {
    // Only a hint for the message: without it the problem is still reported.
  }
  return line;
}

/** `auto` follows VS Code's display language (zh-cn, zh-tw … → Chinese). */
export function resolveLanguage(setting: LanguageSetting, displayLanguage: string): ProjectLanguage {
  if (setting === 'zh' || setting === 'en') return setting;
  return displayLanguage.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function formatProblem(p: ConfigProblem): string {
  return p.line !== undefined ? `worldline.yaml:${p.line}: ${p.message}` : `worldline.yaml: ${p.message}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
