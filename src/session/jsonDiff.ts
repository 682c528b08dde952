// A generic structural diff of JSON values, and its copy-on-write application, for storing a state
// as the change from the state before it. The patch is a subset of JSON Patch (RFC 6902):
// `add`, `replace` and `remove` on object members, addressed by JSON Pointer. Arrays are replaced
// whole (scene-state lists are short and reordered freely). Unlike JSON Merge Patch, a value can
// be set to null, which scene-state `variables` may hold.
//
// Key order is part of the value: the roster's tables are ordered oldest first. An object whose
// common keys changed order is replaced whole, so applying a patch gives back the same JSON text.
// Pure: no fs, no scene-state knowledge.

export type PatchOp =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

type JsonObject = Record<string, unknown>;

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

export function isPlainJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The ops that turn `base` into `target`, both JSON objects. Undefined when only replacing the
 * root would do (its keys changed order): the caller then stores `target` whole.
 */
export function diffJson(base: JsonObject, target: JsonObject): PatchOp[] | undefined {
  if (!sameOrder(base, target)) return undefined;
  const ops: PatchOp[] = [];
  diffObject(base, target, '', ops);
  return ops;
}

function diffObject(base: JsonObject, target: JsonObject, at: string, ops: PatchOp[]): void {
  const baseKeys = Object.keys(base);
  const targetKeys = Object.keys(target);
  for (const key of baseKeys) if (!hasOwn(target, key)) ops.push({ op: 'remove', path: `${at}/${escapeToken(key)}` });
  for (const key of targetKeys) {
    const path = `${at}/${escapeToken(key)}`;
    if (!hasOwn(base, key)) {
      ops.push({ op: 'add', path, value: target[key] });
      continue;
    }
    const b = base[key];
    const t = target[key];
    if (jsonEqual(b, t)) continue;
    if (isPlainJsonObject(b) && isPlainJsonObject(t) && sameOrder(b, t)) diffObject(b, t, path, ops);
    else ops.push({ op: 'replace', path, value: t });
  }
}

/**
 * True when removing `base`'s missing keys and appending `target`'s new ones keeps `target`'s key
 * order: the common keys appear in the same order in both, and every new key comes after them.
 */
function sameOrder(base: JsonObject, target: JsonObject): boolean {
  const baseKeys = Object.keys(base).filter((k) => hasOwn(target, k));
  const targetKeys = Object.keys(target);
  for (let i = 0; i < baseKeys.length; i++) if (targetKeys[i] !== baseKeys[i]) return false;
  return true;
}

/** Deep equality of JSON values, key order included. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  for (let i = 0; i < ak.length; i++) {
    if (ak[i] !== bk[i]) return false;
    if (!jsonEqual((a as JsonObject)[ak[i]], (b as JsonObject)[bk[i]])) return false;
  }
  return true;
}

export type Applied = { ok: true; value: JsonObject } | { ok: false; error: string };

/**
 * Applies `ops` to `base` without changing it: every object on a changed path is copied once,
 * everything else is shared with `base`. The objects made here and the values taken from the
 * patch are frozen, so a shared part cannot be changed through one state and show in another.
 */
export function applyJsonPatch(base: JsonObject, ops: readonly PatchOp[]): Applied {
  const copies: JsonObject[] = [];
  const root = copyOf(base, copies);
  for (const op of ops) {
    const tokens = parsePointer(op.path);
    if (!tokens || tokens.length === 0) return { ok: false, error: `the path "${op.path}" is not a JSON Pointer to an object member` };
    let parent = root;
    for (let i = 0; i < tokens.length - 1; i++) {
      const key = tokens[i];
      const child = hasOwn(parent, key) ? parent[key] : undefined;
      if (!isPlainJsonObject(child)) return { ok: false, error: `"${op.path}" goes through something that is not an object` };
      if (copies.includes(child)) {
        parent = child;
        continue;
      }
      const own = copyOf(child, copies);
      define(parent, key, own);
      parent = own;
    }
    const key = tokens[tokens.length - 1];
    if (op.op === 'remove') {
      if (!hasOwn(parent, key)) return { ok: false, error: `"${op.path}" is not there to remove` };
      delete parent[key];
    } else {
      if (op.op === 'replace' && !hasOwn(parent, key)) return { ok: false, error: `"${op.path}" is not there to replace` };
      define(parent, key, deepFreeze(op.value));
    }
  }
  for (const o of copies) Object.freeze(o);
  return { ok: true, value: root };
}

function copyOf(o: JsonObject, copies: JsonObject[]): JsonObject {
  // Spread defines own data properties, so a "__proto__" key stays a plain key.
  const copy = { ...o };
  copies.push(copy);
  return copy;
}

/** Sets an own data property; "__proto__" as a plain key (assignment would set the prototype). */
function define(o: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** Freezes a JSON value and everything in it (values parsed from a file, not yet shared). */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    if (Array.isArray(v)) for (const x of v) deepFreeze(x);
    else for (const k in v) deepFreeze((v as JsonObject)[k]);
  }
  return v;
}

function escapeToken(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

/** "/a/b~1c" → ["a", "b/c"]; undefined when it is not a pointer. (indexOf, not split: it runs per op on open.) */
function parsePointer(path: string): string[] | undefined {
  if (path.length === 0) return [];
  if (path.charCodeAt(0) !== 0x2f) return undefined;
  const tokens: string[] = [];
  let start = 1;
  for (;;) {
    const end = path.indexOf('/', start);
    const token = end === -1 ? path.slice(start) : path.slice(start, end);
    if (token.includes('~')) {
      if (/~[^01]|~$/.test(token)) return undefined;
      tokens.push(token.replace(/~1/g, '/').replace(/~0/g, '~'));
    } else tokens.push(token);
    if (end === -1) return tokens;
    start = end + 1;
  }
}

/** Why `v` is not a list of patch ops, or undefined when it is one (shape only). */
export function patchProblem(v: unknown): string | undefined {
  if (!Array.isArray(v)) return 'should be a list of {op, path, value} changes';
  for (const op of v) {
    if (!isPlainJsonObject(op) || typeof op.path !== 'string') return 'should be a list of {op, path, value} changes';
    if (op.op === 'remove') continue;
    if (op.op !== 'add' && op.op !== 'replace') return `has an unknown change "${String(op.op)}" (add, replace or remove)`;
    if (!hasOwn(op, 'value')) return `has an ${op.op} without a value`;
  }
  return undefined;
}
