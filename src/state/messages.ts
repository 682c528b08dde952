// Warning texts in the project language. They are stored on the `state` entry and shown to the
// scribe next turn, so each one says what was wrong AND how to write it instead.
import { LIMITS } from './limits';
import { oneLine } from './text';
import type { Lang, ListField } from './types';

export interface Messages {
  patchNotObject(got: string): string;
  unknownField(key: string): string;
  rosterIsProgram(): string;
  notString(field: string, got: string): string;
  clipped(field: string, max: number): string;
  charactersNotObject(): string;
  characterNotObject(name: string): string;
  badName(name: string): string;
  nameClipped(name: string, max: number): string;
  tooManyCharacters(max: number): string;
  unknownCharField(name: string, field: string): string;
  affinityClamped(name: string, given: number, used: number): string;
  affinityFromString(name: string, given: string, used: number): string;
  affinityInvalid(name: string, given: string): string;
  listNull(field: ListField): string;
  listNotArray(field: ListField): string;
  listDropped(field: ListField, sample: string): string;
  listCapped(field: ListField, max: number): string;
  variablesNotObject(got: string): string;
  variableTooDeep(path: string): string;
  variableBadValue(path: string, got: string): string;
  variableReservedKey(path: string): string;
  variableTooBig(): string;
  reservedName(name: string): string;
  moreWarnings(n: number): string;
  notAState(): string;
  entryCorrupt(id: string, why: string): string;
  openingIgnored(key: string): string;
  invalidAt(path: string, why: string): string;
}

const LIST_ZH: Record<ListField, { label: string; how: string }> = {
  items: { label: '物品', how: '物品写成字符串，持有人写在括号里：“黄铜怀表（青梧持有）”' },
  facts: { label: '事实', how: '事实写成一句话的字符串：“渡口的船每天只开一班”' },
  threads: { label: '伏笔', how: '伏笔写成一句话的字符串：“青梧答应三日后来取伞”' },
};

const LIST_EN: Record<ListField, { label: string; how: string }> = {
  items: { label: 'items', how: 'Write each item as a string with the holder in parentheses: "brass pocket watch (held by Qingwu)"' },
  facts: { label: 'facts', how: 'Write each fact as one sentence in a string: "The ferry runs once a day"' },
  threads: { label: 'threads', how: 'Write each thread as one sentence in a string: "Qingwu promised to fetch the umbrella in three days"' },
};

const zh: Messages = {
  patchNotObject: (got) => `补丁必须是 JSON 对象 {"patch":{…}}，收到的是 ${got}，本次未改动账本。`,
  unknownField: (key) => `未知字段「${key}」已整个拒收。可写的字段只有 time、location、characters、items、facts、threads、variables。`,
  rosterIsProgram: () => '「roster」（登场名录）由程序维护，补丁里不要写它，已忽略。',
  notString: (field, got) => `「${field}」必须是字符串，收到 ${got}，本次未改。`,
  clipped: (field, max) => `「${field}」过长，已截断到 ${max} 字，请写得更简短。`,
  charactersNotObject: () => '「characters」必须是对象 {"名字":{字段…} 或 null}，本次未改人物。',
  characterNotObject: (name) => `人物「${name}」的值必须是对象 {"affinity":…,"status":…,"notes":…,"at":…} 或 null（移出场景），已忽略。`,
  badName: (name) => `名字 ${name} 无效（为空），已忽略。`,
  nameClipped: (name, max) => `名字「${name}」过长，已截断到 ${max} 字。名字请只写称呼本身。`,
  tooManyCharacters: (max) => `场景里最多 ${max} 个人物，多出的新人物已忽略；离开很久的人可写 null 移出场景。`,
  unknownCharField: (name, field) => `人物「${name}」没有字段「${field}」，已忽略（可写：affinity、status、notes、at）。`,
  affinityClamped: (name, given, used) => `人物「${name}」的好感 ${given} 超出 -100～100，已按 ${used} 记。好感每次只小步变化。`,
  affinityFromString: (name, given, used) => `人物「${name}」的好感写成了字符串 ${given}，已按数字 ${used} 记；请直接写数字。`,
  affinityInvalid: (name, given) => `人物「${name}」的好感 ${given} 不是数字，本次未改；请写 -100～100 的整数（新的值，不是增量）。`,
  listNull: (field) => `「${field}」为 null，本次未改；要清空请写 []，没变化就不要写这个字段。`,
  listNotArray: (field) => `「${field}」必须是字符串数组（每次给完整清单），本次未改。${LIST_ZH[field].how}。`,
  listDropped: (field, sample) => `「${field}」里的非字符串元素已丢弃（${sample}）。${LIST_ZH[field].how}。`,
  listCapped: (field, max) => `「${field}」（${LIST_ZH[field].label}）超过 ${max} 条，只保留了最后 ${max} 条；已了结或不再重要的请删掉。`,
  variablesNotObject: (got) => `「variables」必须是对象，收到 ${got}，本次未改变量。`,
  variableTooDeep: (path) => `变量「${path}」嵌套超过 ${LIMITS.variableDepth} 层，已丢弃。`,
  variableBadValue: (path, got) => `变量「${path}」的值 ${got} 不是 JSON 值（字符串、有限数字、布尔、null、数组、对象），已丢弃。`,
  variableReservedKey: (path) => `变量键「${path}」是保留字，已忽略。`,
  variableTooBig: () => `变量整体过大（超过 ${LIMITS.variableNodes} 个值），超出部分已丢弃。只写有变化的键。`,
  reservedName: (name) => `「${name}」是保留字，不能用作名字或键，已忽略。`,
  moreWarnings: (n) => `另有 ${n} 条同类告警未列出。`,
  notAState: () => '不是有效的场景状态，也不是补丁对象。',
  entryCorrupt: (id, why) => `state 条目 ${id} 无法读取（${why}），已改用它之前的一份账本。`,
  openingIgnored: (key) => `开场设置里的「${key}」无法识别，已忽略。`,
  invalidAt: (path, why) => `${path}：${why}`,
};

const en: Messages = {
  patchNotObject: (got) => `The patch must be a JSON object {"patch":{…}}; got ${got}. Nothing was changed.`,
  unknownField: (key) => `Unknown field "${key}" rejected whole. Allowed fields: time, location, characters, items, facts, threads, variables.`,
  rosterIsProgram: () => '"roster" is kept by the program; do not write it in a patch. Ignored.',
  notString: (field, got) => `"${field}" must be a string; got ${got}. Not changed.`,
  clipped: (field, max) => `"${field}" was too long and was cut to ${max} characters; keep it shorter.`,
  charactersNotObject: () => '"characters" must be an object {"Name": {fields…} or null}. Characters not changed.',
  characterNotObject: (name) => `Character "${name}" must be an object {"affinity","status","notes","at"} or null (removes them from the scene). Ignored.`,
  badName: (name) => `The name ${name} is empty and was ignored.`,
  nameClipped: (name, max) => `The name "${name}" was too long and was cut to ${max} characters; write only the name itself.`,
  tooManyCharacters: (max) => `A scene holds at most ${max} characters; extra new characters were ignored. Write null for people long gone to remove them from the scene.`,
  unknownCharField: (name, field) => `Character "${name}" has no field "${field}"; ignored (allowed: affinity, status, notes, at).`,
  affinityClamped: (name, given, used) => `Affinity ${given} for "${name}" is outside -100..100; recorded as ${used}. Affinity moves in small steps.`,
  affinityFromString: (name, given, used) => `Affinity for "${name}" was the string ${given}; recorded as the number ${used}. Write a number.`,
  affinityInvalid: (name, given) => `Affinity ${given} for "${name}" is not a number; not changed. Write the new value as an integer from -100 to 100 (not a delta).`,
  listNull: (field) => `"${field}" was null; not changed. Write [] to empty it, or leave the field out when nothing changed.`,
  listNotArray: (field) => `"${field}" must be an array of strings (the full list each time); not changed. ${LIST_EN[field].how}.`,
  listDropped: (field, sample) => `Non-string elements of "${field}" were dropped (${sample}). ${LIST_EN[field].how}.`,
  listCapped: (field, max) => `"${field}" had more than ${max} entries; only the last ${max} were kept. Remove the ones that are resolved or no longer matter.`,
  variablesNotObject: (got) => `"variables" must be an object; got ${got}. Variables not changed.`,
  variableTooDeep: (path) => `Variable "${path}" is nested deeper than ${LIMITS.variableDepth} levels and was dropped.`,
  variableBadValue: (path, got) => `Variable "${path}" has value ${got}, which is not JSON (string, finite number, boolean, null, array, object); dropped.`,
  variableReservedKey: (path) => `Variable key "${path}" is reserved and was ignored.`,
  variableTooBig: () => `Variables are too large (over ${LIMITS.variableNodes} values); the excess was dropped. Write only the keys that changed.`,
  reservedName: (name) => `"${name}" is a reserved word and cannot be a name or key; ignored.`,
  moreWarnings: (n) => `${n} more warnings of the same kind not listed.`,
  notAState: () => 'Not a valid scene state, nor a patch object.',
  entryCorrupt: (id, why) => `State entry ${id} could not be read (${why}); the ledger before it is used instead.`,
  openingIgnored: (key) => `"${key}" in the opening settings is not recognised and was ignored.`,
  invalidAt: (path, why) => `${path}: ${why}`,
};

export function messages(lang: Lang | undefined): Messages {
  return lang === 'en' ? en : zh;
}

/**
 * Drops exact repeats and caps the count, so the scribe's next prompt stays short. Each warning
 * becomes one line: warnings quote model-written keys, and the prompt lists one per line.
 */
export function finishWarnings(list: string[], lang: Lang | undefined): string[] {
  const unique = Array.from(new Set(list.map(oneLine)));
  if (unique.length <= LIMITS.warnings) return unique;
  const kept = unique.slice(0, LIMITS.warnings - 1);
  kept.push(messages(lang).moreWarnings(unique.length - kept.length));
  return kept;
}
