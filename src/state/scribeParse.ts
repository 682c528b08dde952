// Reading the scribe's reply. Models wrap JSON in fences, add prose, or think aloud first; take
// the first balanced {...} that parses and looks like a patch. Never throws.
import { isPlainObject } from './json';
import { PATCH_FIELDS } from './types';

export type ParseResult = { ok: true; patch: Record<string, unknown> } | { ok: false; error: string };

// Bounds keep a hostile reply cheap: scanning is O(input × attempts) in the worst case.
const MAX_INPUT = 64_000;
const MAX_ATTEMPTS = 500;

/** End index (inclusive) of the balanced object starting at `start`, honouring JSON strings. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
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

export function parseScribeOutput(text: string): ParseResult {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, error: 'empty reply' };
  // Some models put their reasoning inline; whatever braces it holds are not the answer.
  const body = text.slice(0, MAX_INPUT).replace(/<think>[\s\S]*?<\/think>/gi, '');
  let attempts = 0;
  let sawJson = false;
  for (let start = body.indexOf('{'); start !== -1 && attempts < MAX_ATTEMPTS; start = body.indexOf('{', start + 1)) {
    attempts++;
    const end = balancedEnd(body, start);
    if (end === -1) continue; // an unclosed brace in prose; a later one may still open the JSON
    let value: unknown;
    try {
      value = JSON.parse(body.slice(start, end + 1));
    } catch {
      continue;
    }
    if (!isPlainObject(value)) continue;
    sawJson = true;
    const patch = asPatch(value);
    if (patch) return { ok: true, patch };
    // An object that is not a patch may still contain one ({"result":{"patch":…}}): keep scanning inside.
  }
  return { ok: false, error: sawJson ? 'JSON found, but no {"patch":{…}} in it' : 'no JSON object found' };
}
