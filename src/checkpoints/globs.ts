// Manuscript globs from worldline.yaml → a matcher over POSIX paths relative to the book folder.
// Our own matcher (not git pathspecs) so that checkpoint, restore and the walker agree exactly:
//  - `**` spans any number of folders, `*` and `?` stay inside one name, `[..]` and `{a,b}` work;
//  - a pattern without "/" matches a file name at any depth ("*.md" = "**/*.md"), as in .gitignore;
//  - names starting with "." (".obsidian/", ".trash/") match only when the pattern spells the dot,
//    so editor and sync folders stay out of the manuscript;
//  - "!pattern" takes paths back out;
//  - `.git`, `node_modules` and the top-level `.worldline` are never manuscript, whatever the globs.
import { CheckpointError, messages } from './errors';

type Token = { kind: 'globstar' } | { kind: 'segment'; re: RegExp; dot: boolean };

interface CompiledGlob {
  tokens: Token[];
  negated: boolean;
}

export interface ManuscriptMatcher {
  readonly globs: readonly string[];
  /** True when the file at `path` is part of the manuscript. */
  matches(path: string): boolean;
  /** True when the folder at `dir` may hold manuscript files (the walker prunes the rest). */
  mayContain(dir: string): boolean;
}

/** Names that are never manuscript and never entered. */
export function isExcludedSegment(segment: string, depth: number): boolean {
  const s = segment.toLowerCase();
  return s === '.git' || s === 'node_modules' || (depth === 0 && s === '.worldline');
}

export function compileGlobs(globs: readonly string[]): ManuscriptMatcher {
  const compiled: CompiledGlob[] = [];
  for (const raw of globs) {
    if (typeof raw !== 'string' || raw.trim() === '') throw new CheckpointError('badInput', messages.badGlobs('a pattern is empty'));
    for (const g of expandBraces(raw.trim())) compiled.push(compileOne(g));
  }
  const positives = compiled.filter((c) => !c.negated);
  const negatives = compiled.filter((c) => c.negated);
  if (positives.length === 0) throw new CheckpointError('badInput', messages.badGlobs('no pattern says which files to include'));
  const frozen = Object.freeze([...globs]);
  return {
    globs: frozen,
    matches(path: string): boolean {
      const segs = path.split('/');
      if (segs.some((s, i) => s === '' || s === '.' || s === '..' || isExcludedSegment(s, i))) return false;
      return positives.some((c) => matchTokens(c.tokens, segs)) && !negatives.some((c) => matchTokens(c.tokens, segs));
    },
    mayContain(dir: string): boolean {
      if (dir === '') return true;
      const segs = dir.split('/');
      if (segs.some((s, i) => isExcludedSegment(s, i))) return false;
      return positives.some((c) => prefixOpen(c.tokens, segs));
    },
  };
}

function compileOne(pattern: string): CompiledGlob {
  let p = pattern;
  let negated = false;
  if (p.startsWith('!')) {
    negated = true;
    p = p.slice(1);
  }
  while (p.startsWith('./')) p = p.slice(2);
  const anchored = p.startsWith('/');
  p = p.replace(/^\/+/, '');
  if (p.endsWith('/')) p += '**';
  const segs = p.split('/').filter((s) => s !== '' && s !== '.');
  if (segs.length === 0 || segs.includes('..')) throw new CheckpointError('badInput', messages.badGlobs(`"${pattern}" is not a file pattern`));
  if (!anchored && segs.length === 1 && segs[0] !== '**') segs.unshift('**');
  const tokens: Token[] = [];
  for (const s of segs) {
    if (s === '**') {
      if (tokens.at(-1)?.kind !== 'globstar') tokens.push({ kind: 'globstar' });
    } else {
      tokens.push({ kind: 'segment', re: segmentRegExp(s, pattern), dot: s.startsWith('.') });
    }
  }
  return { tokens, negated };
}

function segmentRegExp(seg: string, whole: string): RegExp {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i];
    if (ch === '\\' && i + 1 < seg.length) {
      out += escapeRe(seg[++i]);
    } else if (ch === '*') {
      out += '[^/]*';
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '[') {
      const end = classEnd(seg, i);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, end);
      let neg = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        neg = true;
        body = body.slice(1);
      }
      out += `[${neg ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]').replace(/\[/g, '\\[')}]`;
      i = end;
    } else {
      out += escapeRe(ch);
    }
  }
  try {
    return new RegExp(`^${out}$`, 'u');
  } catch {
    throw new CheckpointError('badInput', messages.badGlobs(`"${whole}" has a bracket expression that cannot be read`));
  }
}

function classEnd(seg: string, open: number): number {
  let j = open + 1;
  if (seg[j] === '!' || seg[j] === '^') j++;
  if (seg[j] === ']') j++; // a leading "]" is literal
  for (; j < seg.length; j++) if (seg[j] === ']') return j;
  return -1;
}

function escapeRe(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** "a{b,c{d,e}}" → ["ab", "acd", "ace"]; a brace without a top-level comma stays literal. */
export function expandBraces(pattern: string): string[] {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') {
      i++;
      continue;
    }
    if (pattern[i] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i; j < pattern.length; j++) {
      const c = pattern[j];
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          close = j;
          break;
        }
      } else if (c === ',' && depth === 1) commas.push(j);
    }
    if (close < 0) return [pattern];
    if (commas.length === 0) continue;
    const pre = pattern.slice(0, i);
    const post = pattern.slice(close + 1);
    const bounds = [i, ...commas, close];
    const out: string[] = [];
    for (let k = 0; k + 1 < bounds.length; k++) {
      for (const e of expandBraces(pre + pattern.slice(bounds[k] + 1, bounds[k + 1]) + post)) out.push(e);
    }
    return out;
  }
  return [pattern];
}

// Token automaton: a state is the index of the next token to satisfy.
function closure(tokens: Token[], states: Set<number>): Set<number> {
  const out = new Set(states);
  for (const s of states) {
    let i = s;
    while (i < tokens.length && tokens[i].kind === 'globstar') out.add(++i);
  }
  return out;
}

function step(tokens: Token[], states: Set<number>, seg: string): Set<number> {
  const next = new Set<number>();
  for (const i of closure(tokens, states)) {
    const t = tokens[i];
    if (t === undefined) continue;
    if (t.kind === 'globstar') {
      if (!seg.startsWith('.')) next.add(i);
    } else if ((!seg.startsWith('.') || t.dot) && t.re.test(seg)) {
      next.add(i + 1);
    }
  }
  return next;
}

function matchTokens(tokens: Token[], segs: string[]): boolean {
  let states = new Set([0]);
  for (const s of segs) {
    states = step(tokens, states, s);
    if (states.size === 0) return false;
  }
  return closure(tokens, states).has(tokens.length);
}

function prefixOpen(tokens: Token[], segs: string[]): boolean {
  let states = new Set([0]);
  for (const s of segs) {
    states = step(tokens, states, s);
    if (states.size === 0) return false;
  }
  for (const i of closure(tokens, states)) if (i < tokens.length) return true;
  return false;
}
