// The scribe's prompt. System: what each field means and the bookkeeping rules. User: only the
// current ledger, last merge's warnings and THIS turn — never the book — so the cost per turn stays
// flat however long the novel grows.
import { clip } from './json';
import { jsonLine, oneLine } from './text';
import type { Lang, SceneState } from './types';

export interface ScribePromptInput {
  state: SceneState;
  /** Warnings from the last merge, so the scribe corrects its own writing. */
  warnings: readonly string[];
  /** The novelist's instruction for this turn. */
  instruction: string;
  /** The prose added to the manuscript this turn. */
  proseAdded: string;
  /** The agent's chat reply this turn. */
  reply: string;
  lang: Lang;
  /** True when the project defines card / panel variables. */
  hasVariables: boolean;
  /** Caps in characters; long text keeps its head and (mostly) its tail. */
  maxProseChars?: number;
  maxReplyChars?: number;
  maxInstructionChars?: number;
}

export interface ScribePrompt {
  system: string;
  user: string;
}

export const SCRIBE_LIMITS = { prose: 16_000, reply: 4_000, instruction: 4_000 } as const;

const SYSTEM_ZH = `你是场记。小说作者刚和写作助手完成一轮写作。读【当前账本】和【本轮】，只记下这一轮里发生的变化，输出一个 JSON 补丁。

字段含义：
- time：故事内的时间，如「傍晚（雨中）」。故事里时间过去了就更新。
- location：当前场景所在的地点。
- characters：{"名字":{"affinity":…,"status":…,"notes":…,"at":…}}，只写有变化的人和字段。
  - affinity：此人对主角的好感，-100 到 100 的整数，写新的值（不是增量）。一次只小步变化，通常 ±1～10。
  - status：此人此刻的处境或正在做的事。
  - notes：需要长期记住的要点（身份、关系、习惯）。
  - at：此人现在在哪里。同一个地方在 location 和每个 at 里只用一种写法，一字不差；在场的人 at 就写成和 location 完全相同的字符串。
  - 有人离开：at 写他去了哪里（不要删掉他）。只有彻底退出故事的人才写 null，名录里仍会保留他。
- items：重要物品的完整清单（每次给全部）。每项一个字符串，持有人写在括号里，如「黄铜怀表（青梧持有）」。
- facts：零散事实的完整清单，每项一句话。
- threads：伏笔和未了结剧情线的完整清单。新的承诺、约定、悬念都放进来；已了结的删掉。
- roster（登场名录：出现过的人名和地名）由程序维护，只读，不要写进补丁。写名字、地名时沿用账本和名录里已有的写法。

规则：
- 只记正文里真的发生的事，不推测，不续写。
- 否定的事件也要记：礼物被拒收，东西仍在原主手里；没答应的事不算承诺。
- 沿用已有的名字写法；作品标题不是人物。
- 没有变化就输出 {"patch":{}}。
- 只输出一个 JSON：{"patch":{…}}，不要解释，不要代码块。

例：{"patch":{"time":"深夜","characters":{"青梧":{"affinity":7,"at":"镇北渡口"}},"items":["黄铜怀表（林砚持有）"],"threads":["林砚答应天亮前归还怀表"]}}`;

const VARIABLES_ZH = `
变量：
- variables：本作定义的变量（角色卡或面板的数据），当前值见账本里的 variables。按正文推进它们：只写有变化的键，嵌套对象逐层合并，写 null 删除一个键；数组每次给完整的新数组。不要发明账本里没有的顶层变量，除非正文明确需要。`;

const SYSTEM_EN = `You are the scribe. A novelist and a writing assistant have just finished one turn. Read [Current ledger] and [This turn], record only what changed in this turn, and output a JSON patch.

Fields:
- time: in-story time, e.g. "dusk (raining)". Update it when story time passes.
- location: where the current scene takes place.
- characters: {"Name":{"affinity":…,"status":…,"notes":…,"at":…}}; write only the people and fields that changed.
  - affinity: this person's warmth towards the protagonist, an integer from -100 to 100, written as the new value (not a delta). It moves in small steps, usually ±1 to 10.
  - status: their situation or what they are doing right now.
  - notes: things to remember long-term (identity, relationships, habits).
  - at: where they are now. Use one spelling per place in location and every at, character for character; for someone present, at is exactly the same string as location.
  - Someone leaves: set at to where they went (do not delete them). Write null only for someone who has left the story for good; the roster keeps them.
- items: the full list of important items (all of them, every time). One string each, holder in parentheses, e.g. "brass pocket watch (held by Qingwu)".
- facts: the full list of loose facts, one sentence each.
- threads: the full list of foreshadowing and open plot threads. New promises, appointments and mysteries go here; remove the ones resolved.
- roster (every person and place seen so far) is kept by the program, read-only; do not write it. Reuse the spellings of names and places already in the ledger and roster.

Rules:
- Record only what actually happened in the prose; do not guess or continue the story.
- Negative events count too: a refused gift stays with its owner; something not agreed to is not a promise.
- Keep existing spellings of names; the book's title is not a character.
- If nothing changed, output {"patch":{}}.
- Output only one JSON object {"patch":{…}}: no explanation, no code fence.

Example: {"patch":{"time":"late night","characters":{"Qingwu":{"affinity":7,"at":"the north ferry"}},"items":["brass pocket watch (held by Lin Yan)"],"threads":["Lin Yan promised to return the watch before dawn"]}}`;

const VARIABLES_EN = `
Variables:
- variables: this book's variables (character card or panel data); their current values are in the ledger's variables. Advance them as the prose says: write only keys that changed; nested objects merge level by level; null deletes a key; arrays are given whole. Do not invent top-level variables the ledger does not have unless the prose clearly needs one.`;

/** Keeps the head and most of the tail of a long text (the end of a turn matters most for state). */
export function excerpt(text: string, max: number, lang: Lang): string {
  if (text.length <= max) return text;
  const head = clip(text, Math.floor(max * 0.3));
  let tailStart = text.length - Math.floor(max * 0.7);
  const c = text.charCodeAt(tailStart);
  if (c >= 0xdc00 && c <= 0xdfff) tailStart++; // never start on half a surrogate pair
  const tail = text.slice(tailStart);
  const left = text.length - head.length - tail.length;
  const mark = lang === 'en' ? `\n…(${left} characters left out)…\n` : `\n…（中间省略 ${left} 字）…\n`;
  return head + mark + tail;
}

/** How many roster names per table the scribe sees (the newest ones). */
export const SCRIBE_ROSTER_NAMES = 24;

/**
 * The ledger as JSON, one top-level field per line. Of the roster only the spellings of people and
 * places are sent (names only, no times): that is what the scribe must reuse. Items and threads are
 * already whole in the lists, and old ones would only cost tokens.
 */
export function ledgerJson(state: SceneState): string {
  const fields: [string, unknown][] = [
    ['time', state.time],
    ['location', state.location],
    ['characters', state.characters],
    ['items', state.items],
    ['facts', state.facts],
    ['threads', state.threads],
  ];
  if (state.variables !== undefined) fields.push(['variables', state.variables]);
  // Only the newest spellings, and none already listed above: the roster grows to 100 + 100 names
  // over a long book, and the scribe's prompt must not grow with it.
  const recent = (table: Record<string, string>, skip: Set<string>) =>
    Object.keys(table).filter((n) => !skip.has(n)).slice(-SCRIBE_ROSTER_NAMES);
  fields.push([
    'roster',
    {
      characters: recent(state.roster.characters, new Set(Object.keys(state.characters))),
      locations: recent(state.roster.locations, new Set([state.location, ...Object.values(state.characters).map((c) => c.at)])),
    },
  ]);
  return `{\n${fields.map(([k, v]) => `${JSON.stringify(k)}: ${jsonLine(v)}`).join(',\n')}\n}`;
}

export function buildScribePrompt(input: ScribePromptInput): ScribePrompt {
  const en = input.lang === 'en';
  const system = (en ? SYSTEM_EN : SYSTEM_ZH) + (input.hasVariables ? (en ? VARIABLES_EN : VARIABLES_ZH) : '');
  const none = en ? '(none)' : '（无）';
  const orNone = (s: string): string => (s.trim() === '' ? none : s);
  const instruction = excerpt(input.instruction, input.maxInstructionChars ?? SCRIBE_LIMITS.instruction, input.lang);
  const prose = excerpt(input.proseAdded, input.maxProseChars ?? SCRIBE_LIMITS.prose, input.lang);
  const reply = excerpt(input.reply, input.maxReplyChars ?? SCRIBE_LIMITS.reply, input.lang);
  const parts: string[] = [];
  parts.push(en ? '[Current ledger]' : '【当前账本】', ledgerJson(input.state), '');
  if (input.warnings.length > 0) {
    parts.push(en ? '[Warnings from the last merge — write it this way from now on]' : '【上次合并的告警】（以后照此改正写法）');
    // Stored warnings may predate the one-line rule; each stays one list item.
    for (const w of input.warnings) parts.push(`- ${oneLine(w)}`);
    parts.push('');
  }
  parts.push(en ? '[This turn]' : '【本轮】');
  parts.push(en ? "The novelist's instruction:" : '作者的指令：', orNone(instruction), '');
  parts.push(en ? 'Prose added to the manuscript this turn:' : '本轮写进稿子的正文：', orNone(prose), '');
  parts.push(en ? "The writing assistant's reply:" : '写作助手的回复：', orNone(reply), '');
  parts.push(en ? 'Output {"patch":{…}} only.' : '只输出 {"patch":{…}}。');
  return { system, user: parts.join('\n') };
}
