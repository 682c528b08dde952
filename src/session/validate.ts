// Shape checks for lines read from disk and entries about to be written. The same rules apply to
// both, so nothing is ever written that a later load would reject. Extra fields are allowed
// (a newer version may add some); missing or mistyped known fields are not.

import { Entry, SESSION_FORMAT_VERSION, SessionFormatVersion, SessionHeader, isChainType, isSideType } from './entries';
import { patchProblem } from './jsonDiff';
import type { StoredEntry } from './stateCodec';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

type FieldCheck = { test: (v: unknown) => boolean; expect: string; optional?: boolean };

const str: FieldCheck = { test: (v) => typeof v === 'string', expect: 'a string' };
const bool: FieldCheck = { test: (v) => typeof v === 'boolean', expect: 'true or false' };
const anyValue: FieldCheck = { test: (v) => v !== undefined, expect: 'a value' };
const strOrNull: FieldCheck = { test: (v) => v === null || typeof v === 'string', expect: 'a string or null' };
const strArray: FieldCheck = {
  test: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  expect: 'a list of strings',
};

function oneOf(...values: string[]): FieldCheck {
  return { test: (v) => typeof v === 'string' && values.includes(v), expect: `one of ${values.join(', ')}` };
}

function optional(check: FieldCheck): FieldCheck {
  return { ...check, optional: true };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The most JSON text one `providerFields` object may take. Reasoning text is stored there (it must
 * go back to DeepSeek, GLM, Kimi in tool loops), so it is generous, but a hand-edited or hostile
 * file cannot make one entry hold megabytes.
 */
export const PROVIDER_FIELDS_MAX_CHARS = 256 * 1024;

/** Nesting a provider field may have (Gemini's extra_content.google.thought_signature is 3). */
const PROVIDER_FIELDS_MAX_DEPTH = 8;

/** Plain JSON data only: what the provider sent is kept and sent back, never run or merged into code. */
function isJsonData(v: unknown, depth: number): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (depth >= PROVIDER_FIELDS_MAX_DEPTH) return false;
  if (Array.isArray(v)) return v.every((x) => isJsonData(x, depth + 1));
  if (!isRecord(v) || Object.getPrototypeOf(v) !== Object.prototype) return false;
  return Object.values(v).every((x) => isJsonData(x, depth + 1));
}

/** Why a `providerFields` value is refused, or undefined when it is fine. */
export function providerFieldsProblem(v: unknown): string | undefined {
  if (!isRecord(v) || !isJsonData(v, 0)) return 'should be a plain JSON object';
  if (JSON.stringify(v).length > PROVIDER_FIELDS_MAX_CHARS) return `should be at most ${PROVIDER_FIELDS_MAX_CHARS} characters of JSON`;
  return undefined;
}

const providerFields: FieldCheck = {
  test: (v) => providerFieldsProblem(v) === undefined,
  expect: `a plain JSON object of at most ${PROVIDER_FIELDS_MAX_CHARS} characters`,
};

const toolCalls: FieldCheck = {
  test: (v) =>
    Array.isArray(v) &&
    v.every(
      (c) =>
        isRecord(c) &&
        typeof c.id === 'string' &&
        typeof c.name === 'string' &&
        typeof c.arguments === 'string' &&
        (c.providerFields === undefined || providerFields.test(c.providerFields)),
    ),
  expect: 'a list of {id, name, arguments} with string fields (and providerFields a plain JSON object)',
};

const optionalCount = (v: unknown): boolean => v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0);

const usage: FieldCheck = {
  test: (v) =>
    isRecord(v) && typeof v.promptTokens === 'number' && typeof v.completionTokens === 'number' && optionalCount(v.cachedTokens) && optionalCount(v.reasoningTokens),
  expect: '{promptTokens, completionTokens} numbers (cachedTokens, reasoningTokens: counts when present)',
};

/** Where an imported message came from: its source's fields are kept as they were (export back), so only the frame is checked. */
const imported: FieldCheck = {
  test: (v) => isRecord(v) && v.from === 'sillytavern' && typeof v.name === 'string',
  expect: '{from: "sillytavern", name} with the source\'s own fields',
};

const CONFIDENCES = ['high', 'medium', 'low'];

/**
 * The continuity checker's findings: each a record with its string fields. `type` is any string,
 * so a finding type a newer version adds does not turn the whole line into damage (readers leave
 * out the types they do not know).
 */
const findingList: FieldCheck = {
  test: (v) =>
    Array.isArray(v) &&
    v.every(
      (f) =>
        isRecord(f) &&
        ['id', 'type', 'file', 'quote', 'subject', 'reason'].every((k) => typeof f[k] === 'string') &&
        (f.id as string).length > 0 &&
        (f.expected === undefined || typeof f.expected === 'string') &&
        (f.offset === undefined || (typeof f.offset === 'number' && Number.isInteger(f.offset) && f.offset >= 0)) &&
        typeof f.confidence === 'string' && CONFIDENCES.includes(f.confidence) &&
        (f.by === 'rules' || f.by === 'judge'),
    ),
  expect: 'a list of {id, type, file, quote, subject, reason} strings with confidence high/medium/low, by rules/judge (offset: a position when present)',
};

const BASE_FIELDS: Record<string, FieldCheck> = { id: str, parentId: strOrNull, ts: str };

const FIELDS_BY_TYPE: Record<Entry['type'], Record<string, FieldCheck>> = {
  user: { text: str, imported: optional(imported) },
  assistant: {
    text: str,
    model: str,
    finish: oneOf('stop', 'length', 'aborted', 'error'),
    toolCalls: optional(toolCalls),
    usage: optional(usage),
    error: optional(str),
    codex: optional(strArray),
    providerFields: optional(providerFields),
    imported: optional(imported),
  },
  tool: { callId: str, name: str, result: str, isError: bool },
  checkpoint: { commit: str, ref: str, changed: strArray },
  state: { state: anyValue, by: oneOf('scribe', 'user', 'import'), warnings: strArray },
  summary: { text: str, coversThroughId: str },
  save: {
    saveId: str,
    name: str,
    worldlineId: str,
    worldlineName: str,
    parentSaveId: optional(str),
    forkFromSaveId: optional(str),
    kind: oneOf('first', 'sameLine', 'fork'),
  },
  edit: { targetId: str, text: str },
  hide: { targetId: str, hidden: bool },
  label: { targetId: str, label: str },
  leaf: { targetId: strOrNull },
  findings: { targetId: str, findings: findingList, intended: strArray },
};

function checkFields(obj: Record<string, unknown>, fields: Record<string, FieldCheck>): string | undefined {
  for (const name in fields) {
    const check = fields[name];
    const value = obj[name];
    if (value === undefined) {
      if (check.optional) continue;
      return `field "${name}" is missing`;
    }
    if (!check.test(value)) return `field "${name}" should be ${check.expect}`;
  }
  return undefined;
}

/** Checks that a parsed JSON value is a well-formed entry. */
export function checkEntry(value: unknown): Checked<Entry> {
  if (!isRecord(value)) return { ok: false, error: 'not a JSON object' };
  const type = value.type;
  if (typeof type !== 'string') return { ok: false, error: 'field "type" is missing' };
  if (!isChainType(type) && !isSideType(type)) {
    return { ok: false, error: `unknown entry type "${type === 'session' ? 'session (a second header)' : type}"` };
  }
  const error = checkFields(value, BASE_FIELDS) ?? checkFields(value, FIELDS_BY_TYPE[type]);
  if (error) return { ok: false, error: `${type} entry: ${error}` };
  if ((value.id as string).length === 0) return { ok: false, error: `${type} entry: field "id" is empty` };
  return { ok: true, value: value as unknown as Entry };
}

const statePatch: FieldCheck = { test: (v) => patchProblem(v) === undefined, expect: 'a list of {op, path, value} changes (add, replace or remove)' };
const STATE_PATCH_FIELDS: Record<string, FieldCheck> = { base: str, patch: statePatch, by: FIELDS_BY_TYPE.state.by, warnings: strArray };

/**
 * Checks a line of a file of format `version`: an entry, or (from version 2) a `state` entry
 * stored as a patch against an earlier one (`base` + `patch` instead of `state`).
 */
export function checkStoredEntry(value: unknown, version: SessionFormatVersion): Checked<StoredEntry> {
  if (version >= 2 && isRecord(value) && value.type === 'state' && value.state === undefined && (value.base !== undefined || value.patch !== undefined)) {
    const error = checkFields(value, BASE_FIELDS) ?? checkFields(value, STATE_PATCH_FIELDS);
    if (error) return { ok: false, error: `state entry: ${error}` };
    if ((value.id as string).length === 0) return { ok: false, error: 'state entry: field "id" is empty' };
    return { ok: true, value: value as unknown as StoredEntry };
  }
  return checkEntry(value);
}

/** The versions this code reads, oldest first. */
export const READABLE_VERSIONS: readonly SessionFormatVersion[] = [1, 2];

export type HeaderCheck =
  | { kind: 'header'; header: SessionHeader }
  | { kind: 'newer-version'; version: number }
  | { kind: 'not-a-header'; error: string };

/** Checks line 1. A header from a newer format version is refused rather than guessed at. */
export function checkHeader(value: unknown): HeaderCheck {
  if (!isRecord(value) || value.type !== 'session') return { kind: 'not-a-header', error: 'line 1 is not a session header' };
  if (typeof value.version === 'number' && value.version > SESSION_FORMAT_VERSION) {
    return { kind: 'newer-version', version: value.version };
  }
  const error = checkFields(value, { id: str, createdAt: str, title: str });
  if (error) return { kind: 'not-a-header', error: `session header: ${error}` };
  if (!READABLE_VERSIONS.includes(value.version as SessionFormatVersion)) {
    return { kind: 'not-a-header', error: `session header: field "version" should be one of ${READABLE_VERSIONS.join(', ')}` };
  }
  return { kind: 'header', header: value as unknown as SessionHeader };
}
