// Card / panel variables: a JSON tree advanced by the scribe with a deep merge. Values are
// sanitised to plain JSON within the schema's limits; `null` deletes a key.
import { clip, hasOwn, isPlainObject, setOwn, show, tooLong, typeName } from './json';
import { LIMITS, RESERVED_KEYS } from './limits';
import type { Messages } from './messages';
import { checkState } from './schema';

/** Paths are built from model-written keys; keep them short in messages. */
function short(path: string): string {
  return tooLong(path, 60) ? `${clip(path, 60)}…` : path;
}

interface Ctx {
  m: Messages;
  warn: (w: string) => void;
  /** Values copied (sanitize). */
  nodes: number;
  /** Patch keys looked at (mergeInto). */
  keys: number;
}

/** Copies `x` as plain JSON; drops what cannot be stored, with a warning. `undefined` = dropped. */
function sanitize(x: unknown, path: string, depth: number, ctx: Ctx): unknown {
  if (++ctx.nodes > LIMITS.variableNodes) {
    if (ctx.nodes === LIMITS.variableNodes + 1) ctx.warn(ctx.m.variableTooBig());
    return undefined;
  }
  if (x === null || typeof x === 'boolean') return x;
  if (typeof x === 'number') {
    if (Number.isFinite(x)) return Object.is(x, -0) ? 0 : x; // JSON has no -0
    ctx.warn(ctx.m.variableBadValue(short(path), show(x)));
    return undefined;
  }
  if (typeof x === 'string') {
    if (tooLong(x, LIMITS.variableString)) {
      ctx.warn(ctx.m.clipped(short(path), LIMITS.variableString));
      return clip(x, LIMITS.variableString);
    }
    return x;
  }
  if (Array.isArray(x) || isPlainObject(x)) {
    if (depth >= LIMITS.variableDepth) {
      ctx.warn(ctx.m.variableTooDeep(short(path)));
      return undefined;
    }
  }
  if (Array.isArray(x)) {
    const out: unknown[] = [];
    for (let i = 0; i < x.length && out.length < LIMITS.variableFanout && i < LIMITS.variableNodes; i++) {
      const v = sanitize(x[i], `${path}[${i}]`, depth + 1, ctx);
      if (v !== undefined) out.push(v);
    }
    if (x.length > LIMITS.variableFanout) ctx.warn(ctx.m.variableTooBig());
    return out;
  }
  if (isPlainObject(x)) {
    const out: Record<string, unknown> = {};
    const keys = Object.keys(x);
    for (const k of keys.slice(0, LIMITS.variableFanout)) {
      if (RESERVED_KEYS.has(k)) {
        ctx.warn(ctx.m.variableReservedKey(short(`${path}.${k}`)));
        continue;
      }
      const v = sanitize(x[k], `${path}.${k}`, depth + 1, ctx);
      if (v !== undefined) setOwn(out, k, v);
    }
    if (keys.length > LIMITS.variableFanout) ctx.warn(ctx.m.variableTooBig());
    return out;
  }
  ctx.warn(ctx.m.variableBadValue(short(path), typeName(x)));
  return undefined;
}

function mergeInto(target: Record<string, unknown>, patch: Record<string, unknown>, path: string, depth: number, ctx: Ctx): void {
  for (const k of Object.keys(patch)) {
    // Deletions and refusals count too, so a flood of keys stops early.
    if (++ctx.keys > LIMITS.variableNodes) {
      if (ctx.keys === LIMITS.variableNodes + 1) ctx.warn(ctx.m.variableTooBig());
      return;
    }
    const p = path === '' ? k : `${path}.${k}`;
    if (RESERVED_KEYS.has(k)) {
      ctx.warn(ctx.m.variableReservedKey(short(p)));
      continue;
    }
    const v = patch[k];
    if (v === null) {
      delete target[k];
      continue;
    }
    const cur = hasOwn(target, k) ? target[k] : undefined;
    if (isPlainObject(v) && isPlainObject(cur) && depth + 1 < LIMITS.variableDepth) {
      mergeInto(cur, v, p, depth + 1, ctx);
      continue;
    }
    const clean = sanitize(v, p, depth + 1, ctx);
    if (clean !== undefined) setOwn(target, k, clean);
  }
}

/**
 * Deep-merges `patch` into a copy of `current`. If the result would break the schema's size
 * limits the old variables are kept whole, with a warning.
 */
export function mergeVariables(
  current: Record<string, unknown> | undefined,
  patch: unknown,
  m: Messages,
  warn: (w: string) => void,
): Record<string, unknown> | undefined {
  if (!isPlainObject(patch)) {
    warn(m.variablesNotObject(typeName(patch)));
    return current;
  }
  const ctx: Ctx = { m, warn, nodes: 0, keys: 0 };
  const next = (current === undefined ? {} : structuredClone(current)) as Record<string, unknown>;
  mergeInto(next, patch, '', 0, ctx);
  const problems = checkState({ time: '', location: '', characters: {}, items: [], facts: [], threads: [], roster: { characters: {}, locations: {}, items: {}, threads: {} }, variables: next });
  if (problems.length > 0) {
    warn(m.variableTooBig());
    return current;
  }
  return next;
}

/** Sanitises a whole variables tree (for opening settings and repair). */
export function sanitizeVariables(x: unknown, m: Messages, warn: (w: string) => void): Record<string, unknown> | undefined {
  if (!isPlainObject(x)) {
    warn(m.variablesNotObject(typeName(x)));
    return undefined;
  }
  const out = sanitize(x, 'variables', 0, { m, warn, nodes: 0, keys: 0 });
  return isPlainObject(out) ? out : undefined;
}
