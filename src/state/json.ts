// Small helpers for handling untrusted JSON-ish values without ever throwing.

export function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Own enumerable string keys with their values; never consults the prototype chain. */
export function ownEntries(o: Record<string, unknown>): [string, unknown][] {
  return Object.keys(o).map((k) => [k, o[k]]);
}

/** Defines an own data property, so even odd keys can never reach a prototype setter. */
export function setOwn<T>(o: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Truncates to `max` code points without splitting a surrogate pair; O(max), not O(length). */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let i = 0;
  for (let count = 0; i < s.length && count < max; count++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  }
  return s.slice(0, i);
}

/** True when `s` is longer than `max` code points. */
export function tooLong(s: string, max: number): boolean {
  return s.length > max && clip(s, max).length < s.length;
}

/**
 * A short, safe rendering of any value for a warning message. Bounded work however big or deep
 * the value is (it never serialises more than it shows).
 */
export function show(x: unknown, max = 40): string {
  let out = '';
  let budget = 64; // nodes visited
  const emit = (s: string): boolean => {
    out += s;
    return out.length <= max;
  };
  const walk = (v: unknown, depth: number): boolean => {
    if (--budget < 0) return emit('…') && false;
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return emit(String(v));
    if (typeof v === 'string') return emit(JSON.stringify(clip(v, max + 1)));
    if (typeof v === 'bigint') return emit(`${v}n`);
    if (Array.isArray(v)) {
      if (depth > 3) return emit('[…]');
      if (!emit('[')) return false;
      for (let i = 0; i < v.length; i++) if ((i > 0 && !emit(',')) || !walk(v[i], depth + 1)) return false;
      return emit(']');
    }
    if (typeof v === 'object') {
      if (depth > 3) return emit('{…}');
      if (!emit('{')) return false;
      let first = true;
      for (const k of Object.keys(v)) {
        if ((!first && !emit(',')) || !emit(`${JSON.stringify(clip(k, max))}:`) || !walk((v as Record<string, unknown>)[k], depth + 1)) return false;
        first = false;
      }
      return emit('}');
    }
    return emit(typeof v);
  };
  try {
    walk(x, 0);
  } catch {
    return typeName(x);
  }
  return out.length > max ? `${clip(out, max)}…` : out;
}

export function typeName(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  return typeof x;
}
