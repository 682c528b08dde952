// The schema of SceneState as a checker: what a valid state is, with every limit. Used to guard
// reads from disk, the novelist's edits, and (in tests) every result of applyPatch.
import { hasOwn, isPlainObject, tooLong } from './json';
import { LIMITS, RESERVED_KEYS } from './limits';
import { messages } from './messages';
import { CHARACTER_FIELDS, LIST_FIELDS, ROSTER_TABLES, type Lang, type SceneState } from './types';

export type ProblemCode =
  | 'notObject'
  | 'notString'
  | 'notArray'
  | 'tooLong'
  | 'tooMany'
  | 'notInteger'
  | 'outOfRange'
  | 'unknownKey'
  | 'missing'
  | 'reservedKey'
  | 'badName'
  | 'notJson'
  | 'tooDeep';

export interface Problem {
  path: string;
  code: ProblemCode;
}

const WHY: Record<Lang, Record<ProblemCode, string>> = {
  zh: {
    notObject: '必须是对象',
    notString: '必须是字符串',
    notArray: '必须是字符串数组',
    tooLong: '太长',
    tooMany: '条目太多',
    notInteger: '必须是整数',
    outOfRange: '必须在 -100～100 之间',
    unknownKey: '不认识的字段',
    missing: '缺少这个字段',
    reservedKey: '保留字不能作键',
    badName: '名字不能为空，且首尾不能有空白',
    notJson: '不是 JSON 值',
    tooDeep: '嵌套太深',
  },
  en: {
    notObject: 'must be an object',
    notString: 'must be a string',
    notArray: 'must be an array of strings',
    tooLong: 'too long',
    tooMany: 'too many entries',
    notInteger: 'must be an integer',
    outOfRange: 'must be between -100 and 100',
    unknownKey: 'unknown field',
    missing: 'missing',
    reservedKey: 'reserved word cannot be a key',
    badName: 'names must be non-empty with no surrounding spaces',
    notJson: 'not a JSON value',
    tooDeep: 'nested too deeply',
  },
};

export function describeProblem(p: Problem, lang: Lang): string {
  return messages(lang).invalidAt(p.path, WHY[lang][p.code]);
}

const MAX_PROBLEMS = 20;
const TOP_KEYS = new Set(['time', 'location', 'characters', 'items', 'facts', 'threads', 'roster', 'variables']);

class Checker {
  readonly problems: Problem[] = [];
  private nodes = 0;

  full(): boolean {
    return this.problems.length >= MAX_PROBLEMS;
  }

  add(path: string, code: ProblemCode): void {
    if (!this.full()) this.problems.push({ path, code });
  }

  str(path: string, x: unknown, max: number): void {
    if (typeof x !== 'string') this.add(path, 'notString');
    else if (tooLong(x, max)) this.add(path, 'tooLong');
  }

  name(path: string, key: string): boolean {
    if (RESERVED_KEYS.has(key)) {
      this.add(path, 'reservedKey');
      return false;
    }
    if (key === '' || key.trim() !== key) {
      this.add(path, 'badName');
      return false;
    }
    if (tooLong(key, LIMITS.name)) {
      this.add(path, 'tooLong');
      return false;
    }
    return true;
  }

  list(path: string, x: unknown, max: number): void {
    if (!Array.isArray(x)) return this.add(path, 'notArray');
    if (x.length > max) this.add(path, 'tooMany');
    x.forEach((el, i) => this.str(`${path}[${i}]`, el, LIMITS.listItem));
  }

  /** JSON-safe value: plain containers, finite numbers, bounded depth, size and fan-out. */
  json(path: string, x: unknown, depth: number): void {
    if (this.full()) return;
    if (++this.nodes > LIMITS.variableNodes) return this.add(path, 'tooMany');
    if (x === null || typeof x === 'boolean') return;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) this.add(path, 'notJson');
      return;
    }
    if (typeof x === 'string') {
      if (tooLong(x, LIMITS.variableString)) this.add(path, 'tooLong');
      return;
    }
    if (depth >= LIMITS.variableDepth && (Array.isArray(x) || isPlainObject(x))) return this.add(path, 'tooDeep');
    if (Array.isArray(x)) {
      if (x.length > LIMITS.variableFanout) this.add(path, 'tooMany');
      x.forEach((el, i) => this.json(`${path}[${i}]`, el, depth + 1));
      return;
    }
    if (isPlainObject(x)) {
      const keys = Object.keys(x);
      if (keys.length > LIMITS.variableFanout) this.add(path, 'tooMany');
      for (const k of keys) {
        if (RESERVED_KEYS.has(k)) this.add(`${path}.${k}`, 'reservedKey');
        else this.json(`${path}.${k}`, x[k], depth + 1);
      }
      return;
    }
    this.add(path, 'notJson');
  }
}

/** Every way `x` fails the SceneState schema (at most 20); empty means valid. */
export function checkState(x: unknown): Problem[] {
  const c = new Checker();
  if (!isPlainObject(x)) {
    c.add('state', 'notObject');
    return c.problems;
  }
  for (const k of Object.keys(x)) if (!TOP_KEYS.has(k)) c.add(k, 'unknownKey');
  for (const k of ['time', 'location', 'characters', 'items', 'facts', 'threads', 'roster']) {
    if (!hasOwn(x, k)) c.add(k, 'missing');
  }
  if (hasOwn(x, 'time')) c.str('time', x['time'], LIMITS.place);
  if (hasOwn(x, 'location')) c.str('location', x['location'], LIMITS.place);

  const chars = x['characters'];
  if (hasOwn(x, 'characters')) {
    if (!isPlainObject(chars)) c.add('characters', 'notObject');
    else {
      const names = Object.keys(chars);
      if (names.length > LIMITS.sceneCharacters) c.add('characters', 'tooMany');
      for (const name of names) {
        if (c.full()) break;
        const p = `characters.${name}`;
        if (!c.name(p, name)) continue;
        const ch = chars[name];
        if (!isPlainObject(ch)) {
          c.add(p, 'notObject');
          continue;
        }
        for (const k of Object.keys(ch)) if (!(CHARACTER_FIELDS as readonly string[]).includes(k)) c.add(`${p}.${k}`, 'unknownKey');
        for (const k of CHARACTER_FIELDS) if (!hasOwn(ch, k)) c.add(`${p}.${k}`, 'missing');
        const a = ch['affinity'];
        if (hasOwn(ch, 'affinity')) {
          if (typeof a !== 'number' || !Number.isInteger(a)) c.add(`${p}.affinity`, 'notInteger');
          else if (a < -100 || a > 100) c.add(`${p}.affinity`, 'outOfRange');
        }
        if (hasOwn(ch, 'status')) c.str(`${p}.status`, ch['status'], LIMITS.status);
        if (hasOwn(ch, 'notes')) c.str(`${p}.notes`, ch['notes'], LIMITS.notes);
        if (hasOwn(ch, 'at')) c.str(`${p}.at`, ch['at'], LIMITS.place);
      }
    }
  }

  for (const f of LIST_FIELDS) if (hasOwn(x, f)) c.list(f, x[f], LIMITS.list[f]);

  const roster = x['roster'];
  if (hasOwn(x, 'roster')) {
    if (!isPlainObject(roster)) c.add('roster', 'notObject');
    else {
      for (const k of Object.keys(roster)) if (!(ROSTER_TABLES as readonly string[]).includes(k)) c.add(`roster.${k}`, 'unknownKey');
      for (const t of ROSTER_TABLES) {
        const table = roster[t];
        const p = `roster.${t}`;
        if (!hasOwn(roster, t)) c.add(p, 'missing');
        else if (!isPlainObject(table)) c.add(p, 'notObject');
        else {
          const keys = Object.keys(table);
          if (keys.length > LIMITS.roster[t]) c.add(p, 'tooMany');
          for (const k of keys) {
            if (c.full()) break;
            // Roster keys for items/threads are list strings, so their length limit is the list's.
            const max = t === 'characters' ? LIMITS.name : t === 'locations' ? LIMITS.place : LIMITS.listItem;
            if (RESERVED_KEYS.has(k)) c.add(`${p}.${k}`, 'reservedKey');
            else if (k === '' || k.trim() !== k) c.add(`${p}.${k}`, 'badName');
            else if (tooLong(k, max)) c.add(`${p}.${k}`, 'tooLong');
            c.str(`${p}.${k}`, table[k], LIMITS.place);
          }
        }
      }
    }
  }

  if (hasOwn(x, 'variables') && x['variables'] !== undefined) {
    if (!isPlainObject(x['variables'])) c.add('variables', 'notObject');
    else c.json('variables', x['variables'], 0);
  }
  return c.problems;
}

export function validateState(x: unknown): x is SceneState {
  return checkState(x).length === 0;
}
