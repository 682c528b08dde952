// The side model's draft of a codex entry for a roster name (Create Entry). It sees the name, what
// the scene state knows of it, and the turns of the branch that name it (the newest few, each
// clipped), and answers {"keys":[…],"body":"…"}. A reply that is not that gives a clear error
// and no entry: nothing is ever written from here; the shell shows the draft for the novelist to
// review, edit and Write.
import type { Text } from '../common/text';
import type { ChatCompleter } from '../model/types';
import type { ChainEntry } from '../session/entries';
import { excerpt } from '../state/scribePrompt';
import { jsonLine } from '../state/text';
import { itemName } from '../state/roster';
import type { Lang, SceneState } from '../state/types';
import { entryPath } from './entryFile';
import { nameKey } from './missing';
import type { CodexEntry, CodexKind } from './types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export const DRAFT_MAX_TOKENS = 1500;

export const DRAFT_LIMITS = {
  /** The newest turns that name it. */
  turns: 6,
  /** Characters per turn (instruction, prose and reply together). */
  turnChars: 3_000,
  /** A reply longer than this is not read. */
  replyChars: 64_000,
  /** Keys kept from the reply, and their length. */
  keys: 12,
  keyChars: 60,
  bodyChars: 8_000,
} as const;

/** One turn of the branch as the draft sees it. */
export interface DraftTurn {
  readonly instruction: string;
  /** The prose the agent's tools wrote this turn. */
  readonly prose: string;
  readonly reply: string;
}

export interface DraftInput {
  readonly name: string;
  readonly kind: CodexKind;
  readonly state: SceneState;
  readonly turns: readonly DraftTurn[];
  readonly lang: Lang;
}

const PROSE_TOOLS = new Set(['append_file', 'write_file', 'edit_file']);

/** The prose a tool call wrote (its `content` or `new_text`), or '' for anything else. */
function proseOf(name: string, args: string): string {
  if (!PROSE_TOOLS.has(name)) return '';
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v !== 'object' || v === null) return '';
    const o = v as Record<string, unknown>;
    const text = o['content'] ?? o['new_text'];
    return typeof text === 'string' ? text : '';
  } catch {
    return '';
  }
}

/** The turns of a branch path (oldest first) whose words name `name`, the newest `limit` of them. */
export function turnsNaming(path: readonly ChainEntry[], name: string, limit: number = DRAFT_LIMITS.turns): DraftTurn[] {
  const turns: { instruction: string; prose: string[]; reply: string[] }[] = [];
  for (const e of path) {
    if (e.type === 'user') turns.push({ instruction: e.text, prose: [], reply: [] });
    const turn = turns[turns.length - 1];
    if (!turn) continue;
    if (e.type === 'assistant') {
      if (e.text.trim() !== '') turn.reply.push(e.text);
      for (const call of e.toolCalls ?? []) {
        const prose = proseOf(call.name, call.arguments);
        if (prose.trim() !== '') turn.prose.push(prose);
      }
    }
  }
  const key = nameKey(name);
  if (key === '') return [];
  return turns
    .map((t) => ({ instruction: t.instruction, prose: t.prose.join('\n'), reply: t.reply.join('\n\n') }))
    .filter((t) => nameKey(`${t.instruction}\n${t.prose}\n${t.reply}`).includes(key))
    .slice(-Math.max(0, limit));
}

/** What the scene state says about `name`: its state, where the roster first saw it, the items, facts and threads naming it. */
export function stateFacts(state: SceneState, name: string): Record<string, unknown> {
  const key = nameKey(name);
  const naming = (list: readonly string[]) => list.filter((s) => nameKey(s).includes(key));
  const facts: Record<string, unknown> = {};
  const character = Object.entries(state.characters).find(([n]) => nameKey(n) === key);
  if (character) facts['character'] = character[1];
  for (const table of ['characters', 'locations', 'items'] as const) {
    const seen = Object.entries(state.roster[table]).find(([n]) => nameKey(n) === key);
    if (seen) facts['firstSeen'] = seen[1];
  }
  if (nameKey(state.location) === key) facts['isCurrentLocation'] = true;
  const items = state.items.filter((i) => nameKey(i).includes(key) || nameKey(itemName(i)) === key);
  if (items.length > 0) facts['items'] = items;
  if (naming(state.facts).length > 0) facts['facts'] = naming(state.facts);
  if (naming(state.threads).length > 0) facts['threads'] = naming(state.threads);
  return key === '' ? {} : facts;
}

const KIND_ZH: Readonly<Record<CodexKind, string>> = { character: '人物', place: '地点', item: '物品', faction: '势力', rule: '设定规则', style: '文风' };
const KIND_EN: Readonly<Record<CodexKind, string>> = { character: 'character', place: 'place', item: 'item', faction: 'faction', rule: 'rule of the world', style: 'style note' };

const SYSTEM_ZH = `你是小说设定集的编辑。根据【场景状态】和【相关轮次】里写到的内容，为一个名字写一条设定条目。

规则：
- 只写正文和状态里确实出现过的事，不编造，不续写剧情。不确定的就不写。
- body 用 Markdown，几行即可：身份或概貌、外貌或特征、关系、已发生的要事。
- keys 是正文里用来称呼它的别名和写法（不含名字本身也可以），没有就给空数组。
- 只输出一个 JSON：{"keys":["…"],"body":"…"}，不要解释，不要代码块。`;

const SYSTEM_EN = `You edit a novel's codex. From what [Scene state] and [Turns] say, write one codex entry for a name.

Rules:
- Write only what the prose and the state actually say; invent nothing and do not continue the story. Leave out what you are unsure of.
- body is Markdown, a few lines: who or what it is, looks or traits, relationships, what has happened so far.
- keys are the other names and spellings the prose uses for it (the name itself may be left out); an empty array if none.
- Output only one JSON object {"keys":["…"],"body":"…"}: no explanation, no code fence.`;

export interface DraftPrompt {
  system: string;
  user: string;
}

export function buildDraftPrompt(input: DraftInput): DraftPrompt {
  const en = input.lang === 'en';
  const parts: string[] = [];
  parts.push(en ? `[Name] ${input.name} (${KIND_EN[input.kind]})` : `【名字】${input.name}（${KIND_ZH[input.kind]}）`, '');
  parts.push(en ? '[Scene state]' : '【场景状态】', jsonLine(stateFacts(input.state, input.name)), '');
  parts.push(en ? '[Turns] (the newest ones that name it, oldest first)' : '【相关轮次】（提到它的最近几轮，按时间先后）');
  if (input.turns.length === 0) parts.push(en ? '(none)' : '（无）');
  input.turns.forEach((t, i) => {
    const text = [
      t.instruction.trim() ? `${en ? 'Instruction' : '指令'}: ${t.instruction.trim()}` : '',
      t.prose.trim() ? `${en ? 'Prose' : '正文'}:\n${t.prose.trim()}` : '',
      t.reply.trim() ? `${en ? 'Reply' : '回复'}: ${t.reply.trim()}` : '',
    ].filter(Boolean).join('\n');
    parts.push(`--- ${i + 1} ---`, excerpt(text, DRAFT_LIMITS.turnChars, input.lang));
  });
  parts.push('', en ? 'Output {"keys":[…],"body":"…"} only.' : '只输出 {"keys":[…],"body":"…"}。');
  return { system: en ? SYSTEM_EN : SYSTEM_ZH, user: parts.join('\n') };
}

export type DraftResult = { ok: true; entry: CodexEntry } | { ok: false; error: Text };

export interface DraftTarget {
  readonly name: string;
  readonly kind: CodexKind;
  /** The codex folder (worldline.yaml `codex:`). */
  readonly folder: string;
}

/** The JSON object in a reply: the whole reply, or the text between a code fence, or from its first `{` to its last `}`. */
function jsonObjectIn(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/u.exec(trimmed)?.[1];
  const candidates = [trimmed, fenced, trimmed.slice(trimmed.indexOf('{'), trimmed.lastIndexOf('}') + 1)];
  for (const c of candidates) {
    if (!c || !c.trim().startsWith('{')) continue;
    try {
      return JSON.parse(c) as unknown;
    } catch {
      // the next candidate
    }
  }
  return undefined;
}

function fail(error: Text): DraftResult {
  return { ok: false, error };
}

/** The model's reply as an entry for `target`, or why it is not one (a sentence the novelist can act on). */
export function parseDraft(text: unknown, target: DraftTarget): DraftResult {
  const n = target.name;
  if (typeof text !== 'string' || text.trim() === '') return fail(l10n.t('The side model sent an empty draft for "{0}". Nothing was written; try again.', n));
  if (text.length > DRAFT_LIMITS.replyChars) return fail(l10n.t('The side model\'s draft for "{0}" was far too long to be an entry. Nothing was written; try again.', n));
  const value = jsonObjectIn(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(l10n.t('The side model\'s draft for "{0}" had no JSON object with "keys" and "body". Nothing was written; try again, or choose a scribe model that follows JSON instructions.', n));
  const o = value as Record<string, unknown>;
  const body = o['body'];
  if (typeof body !== 'string' || body.trim() === '') return fail(l10n.t('The side model\'s draft for "{0}" had no text ("body" was missing or empty). Nothing was written; try again.', n));
  const rawKeys = o['keys'] ?? [];
  if (!Array.isArray(rawKeys)) return fail(l10n.t('The side model\'s draft for "{0}" gave "keys" that are not a list. Nothing was written; try again.', n));
  const seen = new Set([nameKey(target.name)]);
  const keys = [target.name.trim()];
  for (const k of rawKeys) {
    if (typeof k !== 'string') continue;
    const key = [...k.replace(/[\u0000-\u001f\u007f]+/gu, ' ').trim()].slice(0, DRAFT_LIMITS.keyChars).join('');
    if (key === '' || seen.has(nameKey(key)) || keys.length > DRAFT_LIMITS.keys) continue;
    seen.add(nameKey(key));
    keys.push(key);
  }
  return {
    ok: true,
    entry: {
      path: entryPath(target.folder, target.kind, target.name),
      name: target.name.trim(),
      kind: target.kind,
      keys,
      secondaryKeys: [],
      logic: 'and-any',
      always: false,
      priority: 0,
      disabled: false,
      body: `${[...body.trim()].slice(0, DRAFT_LIMITS.bodyChars).join('')}\n`,
    },
  };
}

export interface DraftDeps {
  client: ChatCompleter;
  /** The side model (the scribe's). */
  model: string;
  signal?: AbortSignal;
}

/** Asks the side model for a draft; a failed call or an unusable reply is an error value. */
export async function draftEntry(deps: DraftDeps, input: DraftInput & { folder: string }): Promise<DraftResult> {
  const prompt = buildDraftPrompt(input);
  let text: string;
  try {
    const req: Parameters<ChatCompleter['complete']>[0] = {
      system: prompt.system, messages: [{ role: 'user', content: prompt.user }], model: deps.model, maxTokens: DRAFT_MAX_TOKENS,
    };
    if (deps.signal) req.signal = deps.signal;
    text = (await deps.client.complete(req)).text;
  } catch (err) {
    return { ok: false, error: l10n.t('The side model\'s call for a draft of "{0}" failed: {1}', input.name, err instanceof Error ? err.message : String(err)) };
  }
  return parseDraft(text, input);
}
