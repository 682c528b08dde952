// The manuscript: which files of the book folder are the novel. One matcher, compiled from
// worldline.yaml's `manuscript:` globs when the project config is loaded, decides it for everyone:
// the agent's tools, the checkpoints, the unsaved-editor checks and the word count. So "the agent
// may write p", "the checkpoints track p" and "p is counted" are one fact.
//
// What a pattern means (README, "Your book's folder"; the .gitignore rules a novelist may know):
//  - paths are relative to the book folder, "/" between names ("\" is read as "/");
//  - `*` and `?` stay inside one name, `**` spans folders, `{a,b}` and `[abc]` work;
//  - a pattern with no "/" before its end ("*.md", "chapters", "chapters/") matches at any depth;
//    one with a "/" inside ("chapters/*.md") is read from the book folder;
//  - a pattern ending in "/" or in a plain name takes in the files below that folder:
//    "chapters/" = "chapters" = "chapters/**" (but "*.md" never takes the files of a folder "x.md/");
//  - names starting with "." match only where the pattern spells the dot, so ".obsidian/",
//    ".trash/" and ".DS_Store" stay out;
//  - letter case is ignored: on macOS and Windows "Ch1.MD" and "ch1.md" are one file, and the
//    agent must never write a file the checkpoints would not track;
//  - "!pattern" takes paths back out, wherever it stands in the list.
// Never manuscript, whatever the globs: worldline.yaml, anything in .git/, .vscode/, .worldline/
// or node_modules/ (at any depth, any letter case), and any path outside the folder.
// Matching is picomatch (a well-kept glob library); the rules above are the layer around it.
import * as path from 'node:path';
import picomatch from 'picomatch';

type Lang = 'zh' | 'en';

export interface ManuscriptMatcher {
  /** The patterns in use, as written (unusable ones left out). */
  readonly globs: readonly string[];
  /** True when the file at `rel` (POSIX, relative to the book folder) is part of the manuscript. */
  matches(rel: string): boolean;
  /** False only when the folder at `dir` cannot hold a manuscript file (walks skip it). */
  mayContain(dir: string): boolean;
}

/** The compiled matcher, or globs that are compiled by `compileManuscript` (unusable ones dropped). */
export type ManuscriptSpec = ManuscriptMatcher | readonly string[];

export interface GlobProblem {
  /** Index of the pattern in the list; undefined for a problem of the whole list. */
  index?: number;
  message: string;
}

export interface CompiledManuscript {
  matcher: ManuscriptMatcher;
  problems: GlobProblem[];
  /** False when no usable pattern says which files to include (the matcher then matches nothing). */
  usable: boolean;
}

/** Folder names that are never manuscript, compared folded (see `isReservedSegment`). */
export const RESERVED_SEGMENTS: readonly string[] = ['.git', '.vscode', '.worldline', 'node_modules'];
/** The project file: never manuscript, so the agent cannot rewrite the book's settings. */
export const PROJECT_FILE = 'worldline.yaml';

// Characters some file systems ignore when comparing names (HFS+ drops zero-width joiners, so
// ".g\u200cit" IS ".git" there); stripped before comparing with the reserved names.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

function fold(name: string): string {
  return name.normalize('NFKC').replace(IGNORABLE, '').toLowerCase();
}

/**
 * True when one path segment names a reserved folder. Compared after NFKC folding, removal of
 * ignorable code points and lower-casing, so ".GIT", "．git" and ".g\u200cit" are all caught.
 */
export function isReservedSegment(segment: string): boolean {
  return RESERVED_SEGMENTS.includes(fold(segment));
}

/** True when `rel` can never be manuscript: reserved, outside the folder, or not a plain relative path. */
export function isReservedPath(rel: string): boolean {
  return isReservedFolder(rel) || fold(rel) === PROJECT_FILE;
}

/** The same for a folder: nothing below it can be manuscript. */
function isReservedFolder(rel: string): boolean {
  if (typeof rel !== 'string' || rel === '' || rel.startsWith('/') || /^[a-z]:/i.test(rel) || /[\0\\]/.test(rel)) return true;
  return rel.split('/').some((s) => s === '' || s === '.' || s === '..' || isReservedSegment(s));
}

// Limits that keep matching fast on any folder: picomatch's regexes backtrack, and a pattern like
// "*a*a*a*a*b" takes seconds on one long name (measured: 4 stars 0.5 s on 255 characters, 3 stars
// 8 ms). A received book's worldline.yaml must not be able to stall every walk.
export const MAX_PATTERN_CHARS = 300;
export const MAX_PATTERNS = 100;
const MAX_STARS_PER_NAME = 3;
const MAX_GLOBSTARS = 2;

const OPTIONS: picomatch.PicomatchOptions = {
  windows: false, // inputs are POSIX relative paths whatever the host
  dot: false,
  nocase: true,
  nonegate: true, // "!" is ours: stripped once before picomatch sees the pattern
  noextglob: true, // "+(a|b)" nests quantifiers (slow) and no novelist means it
  debug: true, // throw on a pattern picomatch cannot turn into a regex, instead of matching nothing
};

interface Form {
  re: RegExp;
  /** The literal folders the form starts with, one case-insensitive test each. */
  base: RegExp[];
  /** True when the rest of the form can reach a name starting with ".". */
  spellsDot: boolean;
}

interface Compiled {
  negated: boolean;
  forms: Form[];
}

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

function compileOne(raw: string, lang: Lang): Compiled | { problem: string } {
  const q = JSON.stringify(raw.length > 60 ? `${raw.slice(0, 57)}...` : raw);
  const bad = (en: string, zh: string) => ({ problem: t(lang, `Manuscript pattern ${q} ${en}; it is ignored.`, `正文规则 ${q}${zh}，已忽略。`) });
  if (raw.length > MAX_PATTERN_CHARS) return bad(`is too long (over ${MAX_PATTERN_CHARS} characters)`, `太长（超过 ${MAX_PATTERN_CHARS} 个字符）`);
  if (/[\u0000-\u001f\u007f]/u.test(raw)) return bad('contains control characters', '含有控制字符');
  let p = raw;
  const negated = p.startsWith('!');
  if (negated) p = p.slice(1).trim();
  p = p.replace(/\\/g, '/');
  if (p === '') return bad('names no files', '没有指明任何文件');
  if (p.startsWith('/') || p.startsWith('~') || /^[a-z]:/i.test(p) || /^(?:file:|[a-z][a-z0-9+.-]*:\/\/)/i.test(p)) {
    return bad(
      'is an absolute path; write it relative to the book folder, such as "chapters/*.md"',
      '是绝对路径；请写相对于小说文件夹的路径，例如「chapters/*.md」',
    );
  }
  const segs = p.split('/').filter((s, i, all) => s !== '.' && (s !== '' || i === all.length - 1));
  if (segs.includes('..')) return bad('contains "..", which leaves the book folder', '含有「..」，会超出小说文件夹');
  const folder = segs.at(-1) === '';
  if (folder) segs.pop();
  if (segs.length === 0) return bad('names the book folder itself, not files', '指向小说文件夹本身，而不是文件');
  if (!negated && (segs.some((s) => isLiteral(s) && isReservedSegment(s)) || (segs.length === 1 && fold(segs[0] as string) === PROJECT_FILE))) {
    return bad(
      'names only files that are never manuscript (worldline.yaml, .git, .vscode, .worldline, node_modules)',
      '只指向永远不算正文的文件（worldline.yaml、.git、.vscode、.worldline、node_modules）',
    );
  }
  if (segs.filter((s) => s === '**').length > MAX_GLOBSTARS) return bad(`has more than ${MAX_GLOBSTARS} "**"`, `含有超过 ${MAX_GLOBSTARS} 个「**」`);
  if (segs.some((s) => s !== '**' && (s.match(/\*+/g)?.length ?? 0) > MAX_STARS_PER_NAME)) {
    return bad(`has more than ${MAX_STARS_PER_NAME} "*" in one name`, `在一个名字里含有超过 ${MAX_STARS_PER_NAME} 个「*」`);
  }
  let body = segs.join('/');
  // No "/" before the end: any depth. A folder named by "/" or a plain last name: its files too.
  if (segs.length === 1 && body !== '**') body = `**/${body}`;
  const namesFolder = folder || isLiteral(segs.at(-1) as string);
  const sources = body.endsWith('**') || !namesFolder ? [body] : [body, `${body}/**`];
  try {
    return { negated, forms: sources.map(form) };
  } catch {
    return bad('cannot be read (check its [ ] and { })', '无法读取（请检查其中的 [ ] 和 { }）');
  }
}

function form(source: string): Form {
  const re = picomatch.makeRe(source, OPTIONS);
  const scan = picomatch.scan(source);
  const base = scan.base === '' ? [] : scan.base.split('/').map((s) => new RegExp(`^${escapeRe(s)}$`, 'i'));
  return { re, base, spellsDot: /(?:^|[/{,(|[])\./.test(scan.glob) };
}

function isLiteral(seg: string): boolean {
  return !/[*?[\]{}()!]/.test(seg);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function mayHold(f: Form, segs: string[]): boolean {
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as string;
    const literal = f.base[i];
    if (literal) {
      if (!literal.test(seg)) return false;
    } else if (seg.startsWith('.') && !f.spellsDot) {
      return false;
    }
  }
  return true;
}

// Compiled matchers by their usable patterns, and written lists → those patterns, so that a list
// compiled anywhere gets the matcher the config holds. Bounded; the least recently used goes first.
const matchers = new Map<string, ManuscriptMatcher>();
const keptOf = new Map<string, string>();
const CACHE_SIZE = 64;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > CACHE_SIZE) map.delete(map.keys().next().value as string);
}

function listKey(globs: readonly unknown[]): string | undefined {
  return globs.every((g) => typeof g === 'string') ? globs.join('\0') : undefined;
}

/**
 * Compiles the `manuscript:` list of worldline.yaml. Never throws: each unusable pattern is a
 * problem (in `lang`) and is left out. The same usable patterns always give the same matcher
 * object, so every caller that compiles the config's globs gets the config's matcher.
 */
export function compileManuscript(globs: readonly unknown[], lang: Lang = 'en'): CompiledManuscript {
  const problems: GlobProblem[] = [];
  const kept: string[] = [];
  const compiled: Compiled[] = [];
  globs.forEach((g, index) => {
    if (index >= MAX_PATTERNS) {
      if (index === MAX_PATTERNS) problems.push({ index, message: t(lang, `Only the first ${MAX_PATTERNS} manuscript patterns are used.`, `只使用前 ${MAX_PATTERNS} 条正文规则。`) });
      return;
    }
    if (typeof g !== 'string' || g.trim() === '') {
      problems.push({ index, message: t(lang, 'A manuscript pattern must be text such as "chapters/**/*.md"; this one is ignored.', '正文规则应为「chapters/**/*.md」这样的文字；这一条已忽略。') });
      return;
    }
    const raw = g.trim();
    const c = compileOne(raw, lang);
    if ('problem' in c) problems.push({ index, message: c.problem });
    else {
      kept.push(raw);
      compiled.push(c);
    }
  });
  const usable = compiled.some((c) => !c.negated);
  if (!usable) {
    problems.push({
      message: t(
        lang,
        'No usable manuscript pattern says which files to include (a "!" pattern only takes files out); the default is used.',
        '没有一条可用的正文规则指明包含哪些文件（「!」开头的规则只能排除）；先用默认值。',
      ),
    });
  }
  const key = kept.join('\0');
  const matcher = matchers.get(key) ?? makeMatcher(kept, compiled);
  remember(matchers, key, matcher);
  const written = listKey(globs);
  if (written !== undefined) remember(keptOf, written, key);
  return { matcher, problems, usable };
}

function makeMatcher(globs: string[], compiled: Compiled[]): ManuscriptMatcher {
  const include = compiled.filter((c) => !c.negated).flatMap((c) => c.forms);
  const exclude = compiled.filter((c) => c.negated).flatMap((c) => c.forms);
  return Object.freeze({
    globs: Object.freeze([...globs]),
    matches(rel: string): boolean {
      if (isReservedPath(rel)) return false;
      return include.some((f) => f.re.test(rel)) && !exclude.some((f) => f.re.test(rel));
    },
    mayContain(dir: string): boolean {
      if (dir === '') return include.length > 0;
      if (isReservedFolder(dir)) return false;
      const segs = dir.split('/');
      return include.some((f) => mayHold(f, segs));
    },
  });
}

/** The matcher of a spec: itself, or the globs compiled (unusable patterns left out). */
export function manuscriptOf(spec: ManuscriptSpec): ManuscriptMatcher {
  if (!isGlobList(spec)) return spec;
  // The tools ask per path; a lookup by the written list spares compiling each time.
  const kept = keptOf.get(spec.join('\0'));
  const known = kept === undefined ? undefined : matchers.get(kept);
  if (kept === undefined || known === undefined) return compileManuscript(spec).matcher;
  remember(matchers, kept, known);
  return known;
}

/**
 * True when the file at the native absolute path `abs` is manuscript of the book at `root`: for the
 * shell, which knows files by their place on disk (unsaved editors, saved documents).
 */
export function isManuscriptAt(matcher: ManuscriptMatcher, root: string, abs: string): boolean {
  return manuscriptPathAt(matcher, root, abs) !== undefined;
}

/** The book-relative POSIX path of `abs` when it is a manuscript file; undefined otherwise. */
export function manuscriptPathAt(matcher: ManuscriptMatcher, root: string, abs: string): string | undefined {
  const rel = bookPathOf(root, abs);
  return rel !== undefined && matcher.matches(rel) ? rel : undefined;
}

/** The POSIX path of `abs` relative to the book folder; undefined for the folder itself or anything outside it. */
export function bookPathOf(root: string, abs: string): string | undefined {
  const rel = path.relative(root, abs);
  if (rel === '' || path.isAbsolute(rel) || rel === '..' || rel.startsWith(`..${path.sep}`)) return undefined;
  return rel.split(path.sep).join('/');
}

export function isGlobList(spec: ManuscriptSpec): spec is readonly string[] {
  return Array.isArray(spec);
}
