// Decoding what a webview page posts. The page is a browser context that renders model text, so
// its messages are untrusted input: each one is checked against its protocol's shape here, once,
// and the host only ever sees a well-formed, typed message (or a reason to log).

export type Decoded<T> = { ok: true; message: T } | { ok: false; error: string };

/** The shape of one field: a JSON type, or a fixed set of allowed values. */
export type FieldKind = 'string' | 'boolean' | 'present' | readonly (string | number)[];

/**
 * For every message type of the union, the kind of each of its fields (all but `type`). The mapped
 * type makes the compiler insist that every tag and every field of the union is listed.
 */
export type Shape<T extends { type: string }> = {
  [K in T['type']]: { [F in Exclude<keyof Extract<T, { type: K }>, 'type'>]-?: FieldKind };
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fits(kind: FieldKind, value: unknown): boolean {
  if (kind === 'present') return value !== undefined;
  if (kind === 'string' || kind === 'boolean') return typeof value === kind;
  return (typeof value === 'string' || typeof value === 'number') && kind.includes(value);
}

/** A decoder for one protocol. The message it returns is a fresh object holding only the known fields. */
export function decoderFor<T extends { type: string }>(protocol: string, shape: Shape<T>): (raw: unknown) => Decoded<T> {
  const fields: Record<string, Record<string, FieldKind>> = shape;
  return (raw) => {
    if (!isRecord(raw)) return { ok: false, error: `${protocol}: a message must be an object` };
    const type = raw['type'];
    if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(fields, type)) {
      return { ok: false, error: `${protocol}: unknown message type ${JSON.stringify(type)?.slice(0, 60)}` };
    }
    const out: Record<string, unknown> = { type };
    for (const [name, kind] of Object.entries(fields[type]!)) {
      const value = raw[name];
      if (!fits(kind, value)) return { ok: false, error: `${protocol}: "${type}" has a bad or missing field "${name}"` };
      out[name] = value;
    }
    // Checked field by field against `shape` above, which the compiler ties to T.
    return { ok: true, message: out as T };
  };
}
