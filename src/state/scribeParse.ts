// Reading the scribe's reply. Models wrap JSON in fences, add prose, or think aloud first; take
// the first balanced {...} that parses and holds a patch. Never throws, and the work is linear in
// the (capped) reply: a hostile reply costs about as much as an honest one of the same size.
import { isPlainObject } from './json';
import { PATCH_FIELDS } from './types';

export type ParseResult = { ok: true; patch: Record<string, unknown> } | { ok: false; error: string };

/** The reply is cut to this before anything else is done with it. */
const MAX_INPUT = 64_000;
/**
 * Matching passes over the reply (see matchBraces). One pass serves every brace it meets outside
 * a string; a new one is needed only for a brace an earlier pass saw inside a string.
 */
const MAX_PASSES = 4;
/** Characters handed to JSON.parse in all, so candidates that fail late cannot add up. */
const PARSE_BUDGET = 2 * MAX_INPUT;
/** JSON.parse calls in all: each failure throws, and thousands of small ones add up too. */
const MAX_ATTEMPTS = 200;
/** Values looked at inside one parsed object when searching it for a patch. */
const MAX_WALK = 2000;
const MAX_WALK_DEPTH = 16;

const UNSEEN = -2;
const UNCLOSED = -1;

/**
 * One left-to-right pass from `start`, honouring JSON strings, that records for every '{' met
 * outside a string the index of its matching '}' (or UNCLOSED). That is exactly what a scan
 * started at that brace would find: from there on both see the same characters in the same
 * string state. Braces the pass meets inside a string stay UNSEEN.
 */
function matchBraces(text: string, start: number, ends: Int32Array): void {
  const open = new Int32Array(text.length - start); // a stack of unmatched '{' positions
  let top = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b) {
      ends[i] = UNCLOSED;
      open[top++] = i;
    } else if (c === 0x7d && top > 0) {
      ends[open[--top] ?? 0] = i;
    }
  }
}

/** Index of the next '{' at or after `from`, or -1. */
function nextBrace(text: string, from: number): number {
  for (let i = from; i < text.length; i++) if (text.charCodeAt(i) === 0x7b) return i;
  return -1;
}

/** Removes <think>…</think> blocks (any case) in one pass; an unclosed one is left as text. */
function stripThinking(text: string): string {
  const openTag = /<think>/gi;
  const closeTag = /<\/think>/gi;
  let out = '';
  let from = 0;
  for (;;) {
    openTag.lastIndex = from;
    const o = openTag.exec(text);
    if (!o) break;
    closeTag.lastIndex = o.index + o[0].length;
    const c = closeTag.exec(text);
    if (!c) break; // no closing tag after this one, so none after any later one either
    out += text.slice(from, o.index);
    from = c.index + c[0].length;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A bare object counts as a patch only if it is empty or names at least one patch field. */
function asPatch(x: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.prototype.hasOwnProperty.call(x, 'patch')) {
    const p = x['patch'];
    if (isPlainObject(p)) return p;
    if (p === null) return {};
    return undefined;
  }
  const keys = Object.keys(x);
  if (keys.length === 0 || keys.some((k) => (PATCH_FIELDS as readonly string[]).includes(k))) return x;
  return undefined;
}

/**
 * The first patch in a parsed object, depth first in document order ({"result":{"patch":…}}).
 * Searching the parsed value, rather than parsing again from each inner brace, keeps it linear.
 */
function findPatch(root: Record<string, unknown>): Record<string, unknown> | undefined {
  let budget = MAX_WALK;
  const walk = (v: unknown, depth: number): Record<string, unknown> | undefined => {
    if (--budget < 0 || depth > MAX_WALK_DEPTH) return undefined;
    if (Array.isArray(v)) {
      for (const el of v) {
        const found = walk(el, depth + 1);
        if (found || budget < 0) return found;
      }
      return undefined;
    }
    if (!isPlainObject(v)) return undefined;
    const patch = asPatch(v);
    if (patch) return patch;
    for (const k of Object.keys(v)) {
      const found = walk(v[k], depth + 1);
      if (found || budget < 0) return found;
    }
    return undefined;
  };
  return walk(root, 0);
}

export function parseScribeOutput(text: string): ParseResult {
  if (typeof text !== 'string') return { ok: false, error: 'empty reply' };
  const capped = text.slice(0, MAX_INPUT);
  if (capped.trim() === '') return { ok: false, error: 'empty reply' };
  // Some models put their reasoning inline; whatever braces it holds are not the answer.
  const body = stripThinking(capped);
  const ends = new Int32Array(body.length).fill(UNSEEN);
  let passes = 0;
  let parseBudget = PARSE_BUDGET;
  let attempts = 0;
  let sawJson = false;
  for (let start = nextBrace(body, 0); start !== -1; ) {
    if (ends[start] === UNSEEN) {
      if (passes++ >= MAX_PASSES) break;
      matchBraces(body, start, ends);
    }
    const end = ends[start] ?? UNCLOSED;
    // An unclosed brace in prose: a later one may still open the JSON.
    if (end < 0) {
      start = nextBrace(body, start + 1);
      continue;
    }
    parseBudget -= end + 1 - start;
    if (parseBudget < 0 || ++attempts > MAX_ATTEMPTS) break;
    let value: unknown;
    try {
      value = JSON.parse(body.slice(start, end + 1));
    } catch {
      // Not JSON as a whole ("{ I think {"patch":…} }"): an inner brace may be.
      start = nextBrace(body, start + 1);
      continue;
    }
    if (isPlainObject(value)) {
      sawJson = true;
      const patch = findPatch(value);
      if (patch) return { ok: true, patch };
    }
    // Everything inside has been searched already.
    start = nextBrace(body, end + 1);
  }
  return { ok: false, error: sawJson ? 'JSON found, but no {"patch":{…}} in it' : 'no JSON object found' };
}
