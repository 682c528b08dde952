// applyPatch: the fixed merge rules of DESIGN.md "Scene state". The patch comes from a model, so
// nothing in it is trusted: every value is checked, bad parts are dropped with a warning that tells
// the scribe how to write it next time, and the result always satisfies the schema.
import { clip, hasOwn, isPlainObject, setOwn, show, tooLong, typeName } from './json';
import { LIMITS, RESERVED_KEYS } from './limits';
import { messages, type Messages } from './messages';
import { registerRoster } from './roster';
import { oneLine } from './text';
import { mergeVariables } from './variables';
import { LIST_FIELDS, PATCH_FIELDS, type CharacterState, type Lang, type ListField, type SceneState } from './types';

export interface ApplyOptions {
  lang?: Lang;
  /** Soft cap on elements scanned per list, so a million-element array costs little. */
  scanLimit?: number;
}

export type Warn = (w: string) => void;

/** Unknown keys warned about per object: the warning sink keeps no more than this anyway. */
const MAX_UNKNOWN_WARNED = 1000;

const AFFINITY_STRING = /^\s*-?\d+(\.\d+)?\s*$/;

export { oneLine } from './text';

/**
 * How much of a raw string is looked at before it is cleaned and clipped to `max`: room for the
 * spaces and breaks that cleaning collapses, and a fixed ceiling however long the model wrote.
 */
function rawCap(max: number): number {
  return max * 2 + 64;
}

/** `raw` cleaned to one line and clipped to `max`; `clipped` when anything was cut. Bounded work. */
export function cleanText(raw: string, max: number): { text: string; clipped: boolean } {
  const head = clip(raw, rawCap(max));
  const s = oneLine(head);
  if (tooLong(s, max)) return { text: clip(s, max).trim(), clipped: true };
  return { text: s, clipped: head.length < raw.length };
}

/**
 * Affinity is the new absolute value. Numbers are rounded and clamped to ±100. A string that is
 * a plain decimal ("5", "-12", "7.5") is taken as that number with a warning; anything else
 * ("+5", "high", non-finite) is refused, because reading a delta as a value would be worse than
 * keeping the old value.
 */
function readAffinity(name: string, raw: unknown, m: Messages, warn: Warn): number | undefined {
  let n: number;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) {
      warn(m.affinityInvalid(name, show(raw)));
      return undefined;
    }
    n = raw;
  } else if (typeof raw === 'string' && raw.length < 40 && AFFINITY_STRING.test(raw)) {
    n = Number(raw);
    const used = Math.max(-100, Math.min(100, Math.round(n)));
    warn(m.affinityFromString(name, show(raw), used));
  } else {
    warn(m.affinityInvalid(name, show(raw)));
    return undefined;
  }
  const rounded = Math.round(n);
  const clamped = Math.max(-100, Math.min(100, rounded));
  if (clamped !== rounded && typeof raw === 'number') warn(m.affinityClamped(name, raw, clamped));
  // Math.round(-0.4) is -0; store a plain 0.
  return clamped === 0 ? 0 : clamped;
}

function readText(field: string, raw: unknown, max: number, m: Messages, warn: Warn): string | undefined {
  if (typeof raw !== 'string') {
    warn(m.notString(field, typeName(raw)));
    return undefined;
  }
  const { text, clipped } = cleanText(raw, max);
  if (clipped) warn(m.clipped(field, max));
  return text;
}

/** A usable character name, or undefined (with a warning). */
export function cleanName(raw: string, m: Messages, warn: Warn): string | undefined {
  const { text, clipped } = cleanText(raw, LIMITS.name);
  if (text === '') {
    warn(m.badName(show(raw)));
    return undefined;
  }
  if (RESERVED_KEYS.has(text)) {
    warn(m.reservedName(text));
    return undefined;
  }
  if (clipped) warn(m.nameClipped(text, LIMITS.name));
  return text;
}

function applyCharacter(
  next: SceneState,
  name: string,
  raw: Record<string, unknown>,
  m: Messages,
  warn: Warn,
): void {
  const existing = hasOwn(next.characters, name) ? next.characters[name] : undefined;
  if (!existing && Object.keys(next.characters).length >= LIMITS.sceneCharacters) {
    warn(m.tooManyCharacters(LIMITS.sceneCharacters));
    return;
  }
  const ch: CharacterState = existing ? { ...existing } : { affinity: 0, status: '', notes: '', at: next.location };
  let unknown = 0;
  for (const field of Object.keys(raw)) {
    const v = raw[field];
    const label = `characters.${name}.${field}`;
    switch (field) {
      case 'affinity': {
        if (v === null) ch.affinity = 0;
        else {
          const a = readAffinity(name, v, m, warn);
          if (a !== undefined) ch.affinity = a;
        }
        break;
      }
      case 'status':
      case 'notes': {
        if (v === null) ch[field] = '';
        else {
          const s = readText(label, v, field === 'status' ? LIMITS.status : LIMITS.notes, m, warn);
          if (s !== undefined) ch[field] = s;
        }
        break;
      }
      case 'at': {
        // null = "back here": the character is with the scene again.
        if (v === null) ch.at = next.location;
        else {
          const s = readText(label, v, LIMITS.place, m, warn);
          if (s !== undefined) ch.at = s;
        }
        break;
      }
      default:
        if (unknown++ < MAX_UNKNOWN_WARNED) warn(m.unknownCharField(name, clip(field, 40)));
    }
  }
  setOwn(next.characters, name, ch);
}

function applyCharacters(next: SceneState, raw: unknown, m: Messages, warn: Warn): void {
  if (!isPlainObject(raw)) {
    warn(m.charactersNotObject());
    return;
  }
  const keys = Object.keys(raw);
  // Scanning is bounded too: a hostile patch with 100 000 names costs no more than a few hundred.
  for (const key of keys.slice(0, LIMITS.sceneCharacters * 2)) {
    const name = cleanName(key, m, warn);
    if (name === undefined) continue;
    const v = raw[key];
    if (v === null) {
      // Leaves the scene; the roster keeps the name, so views show them as departed.
      if (hasOwn(next.characters, name)) delete next.characters[name];
    } else if (isPlainObject(v)) {
      applyCharacter(next, name, v, m, warn);
    } else {
      warn(m.characterNotObject(name));
    }
  }
  if (keys.length > LIMITS.sceneCharacters * 2) warn(m.tooManyCharacters(LIMITS.sceneCharacters));
}

function applyList(next: SceneState, field: ListField, raw: unknown, scanLimit: number, m: Messages, warn: Warn): void {
  if (raw === null) return warn(m.listNull(field));
  if (!Array.isArray(raw)) return warn(m.listNotArray(field));
  const out: string[] = [];
  const seen = new Set<string>();
  const dropped: unknown[] = [];
  let clipped = false;
  const n = Math.min(raw.length, scanLimit);
  for (let i = 0; i < n; i++) {
    const el: unknown = raw[i];
    if (typeof el !== 'string') {
      if (dropped.length < 3) dropped.push(el);
      continue;
    }
    const cleaned = cleanText(el, LIMITS.listItem);
    const s = cleaned.text;
    if (s === '') continue;
    if (cleaned.clipped) clipped = true;
    if (seen.has(s)) continue;
    seen.add(s);
    out.push(s);
  }
  if (dropped.length > 0) warn(m.listDropped(field, dropped.map((d) => show(d, 20)).join('、')));
  if (clipped) warn(m.clipped(field, LIMITS.listItem));
  const cap = LIMITS.list[field];
  // The scribe appends new entries at the end of the full list, so the tail is the newest.
  if (out.length > cap || raw.length > scanLimit) warn(m.listCapped(field, cap));
  next[field] = out.length > cap ? out.slice(out.length - cap) : out;
}

/**
 * Applies `patch` to `next` in place (the caller passes a fresh copy of a valid state) and
 * registers the roster. Warnings go to `warn`. Shared by applyPatch, normalizeState and userEdit.
 */
export function mergePatch(next: SceneState, patch: unknown, opts: ApplyOptions, warn: Warn): SceneState {
  const m = messages(opts.lang);
  const done = (): SceneState => {
    next.roster = registerRoster(next);
    return next;
  };
  if (!isPlainObject(patch)) {
    warn(m.patchNotObject(typeName(patch)));
    return done();
  }
  let unknown = 0;
  for (const key of Object.keys(patch)) {
    if ((PATCH_FIELDS as readonly string[]).includes(key)) continue;
    if (key === 'roster') warn(m.rosterIsProgram());
    else if (unknown++ < MAX_UNKNOWN_WARNED) warn(m.unknownField(clip(key, 40)));
  }
  // Fixed order: the place first, so new characters start "here" in the new scene.
  if (hasOwn(patch, 'time')) {
    const t = readText('time', patch['time'], LIMITS.place, m, warn);
    if (t !== undefined) next.time = t;
  }
  if (hasOwn(patch, 'location')) {
    const l = readText('location', patch['location'], LIMITS.place, m, warn);
    if (l !== undefined) next.location = l;
  }
  if (hasOwn(patch, 'characters')) applyCharacters(next, patch['characters'], m, warn);
  const scanLimit = opts.scanLimit ?? 1000;
  for (const f of LIST_FIELDS) if (hasOwn(patch, f)) applyList(next, f, patch[f], scanLimit, m, warn);
  if (hasOwn(patch, 'variables')) {
    const v = mergeVariables(next.variables, patch['variables'], m, warn);
    if (v === undefined) delete next.variables;
    else next.variables = v;
  }
  return done();
}
