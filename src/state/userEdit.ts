// The novelist's edits from the Scene State view: either a whole state or a patch. Unlike the
// scribe's patches, nothing is repaired silently: any problem rejects the edit and nothing changes.
import { copyOrRepair, warningSink } from './apply';
import { clip, hasOwn, isPlainObject, setOwn, show, tooLong } from './json';
import { LIMITS, RESERVED_KEYS } from './limits';
import { messages } from './messages';
import { mergePatch } from './patch';
import { registerRoster } from './roster';
import { checkState, describeProblem } from './schema';
import { ROSTER_TABLES, type Lang, type Roster, type SceneState } from './types';

export type UserEditResult = { ok: true; state: SceneState; warnings: string[] } | { ok: false; error: string };

const FULL_KEYS = ['time', 'location', 'characters', 'items', 'facts', 'threads', 'roster'];

function fail(lang: Lang, problems: string[]): UserEditResult {
  const head = lang === 'en' ? 'The edit was not applied: ' : '修改未生效：';
  return { ok: false, error: head + problems.slice(0, 5).join(lang === 'en' ? '; ' : '；') };
}

/** `roster` in a user patch: {table: {name: "first-seen time" | null}}; null removes a name. */
function applyRosterEdit(roster: Roster, edit: unknown, lang: Lang): string[] {
  const m = messages(lang);
  if (!isPlainObject(edit)) return [m.invalidAt('roster', lang === 'en' ? 'must be an object' : '必须是对象')];
  const problems: string[] = [];
  for (const t of Object.keys(edit)) {
    if (!(ROSTER_TABLES as readonly string[]).includes(t)) {
      problems.push(m.invalidAt(`roster.${t}`, lang === 'en' ? 'unknown table' : '不认识的表'));
      continue;
    }
    const table = roster[t as keyof Roster];
    const changes = edit[t];
    if (!isPlainObject(changes)) {
      problems.push(m.invalidAt(`roster.${t}`, lang === 'en' ? 'must be an object' : '必须是对象'));
      continue;
    }
    for (const raw of Object.keys(changes)) {
      const name = raw.trim();
      const v = changes[raw];
      if (name === '' || RESERVED_KEYS.has(name) || tooLong(name, LIMITS.listItem)) {
        problems.push(m.invalidAt(`roster.${t}.${clip(raw, 40)}`, lang === 'en' ? 'invalid name' : '名字无效'));
      } else if (v === null) {
        if (hasOwn(table, name)) delete table[name];
      } else if (typeof v === 'string' && !tooLong(v, LIMITS.place)) {
        setOwn(table, name, v);
      } else {
        problems.push(m.invalidAt(`roster.${t}.${name}`, lang === 'en' ? `must be a time string or null, got ${show(v)}` : `必须是时间字符串或 null，收到 ${show(v)}`));
      }
    }
  }
  return problems;
}

/**
 * Applies the novelist's edit to `state`. `input` is a whole SceneState (replaces the state) or
 * a patch (same fields as the scribe's, plus `roster` edits). Active names always stay listed.
 */
export function userEdit(state: SceneState, input: unknown, opts: { lang?: Lang } = {}): UserEditResult {
  const lang = opts.lang ?? 'zh';
  if (!isPlainObject(input)) return fail(lang, [messages(lang).notAState()]);

  if (FULL_KEYS.every((k) => hasOwn(input, k))) {
    const problems = checkState(input);
    if (problems.length > 0) return fail(lang, problems.map((p) => describeProblem(p, lang)));
    const next = structuredClone(input as unknown as SceneState);
    next.roster = registerRoster(next);
    return { ok: true, state: next, warnings: [] };
  }

  const sink = warningSink();
  const base = copyOrRepair(state, { lang }, () => undefined);
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(input)) if (k !== 'roster') setOwn(patch, k, input[k]);
  const next = mergePatch(base, patch, { lang }, sink.warn);
  const rosterProblems = hasOwn(input, 'roster') ? applyRosterEdit(next.roster, input['roster'], lang) : [];
  const problems = [...sink.warnings, ...rosterProblems];
  if (problems.length > 0) return fail(lang, problems);
  next.roster = registerRoster(next);
  const after = checkState(next);
  if (after.length > 0) return fail(lang, after.map((p) => describeProblem(p, lang)));
  return { ok: true, state: next, warnings: [] };
}
