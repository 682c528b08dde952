// The summary's prompt. System: the five fixed sections and the rules. User: the previous summary
// (to be merged, not appended to), an optional ledger snapshot (auxiliary: the dialogue wins), and
// the covered turns as a transcript. Long transcripts are cut per message, head and tail kept, so
// the side call stays within a predictable size however long the stretch was.
import { excerpt } from '../state/scribePrompt';
import type { Lang, SourceText } from './types';

export const SUMMARY_SECTIONS: Readonly<Record<Lang, readonly string[]>> = {
  zh: ['前情提要', '人物', '承诺与伏笔', '事实账', '当前场景'],
  en: ['Recap', 'Characters', 'Promises and foreshadowing', 'Fact ledger', 'Current scene'],
};

/** Default cap on the transcript part of the prompt, in characters. */
export const SUMMARY_TRANSCRIPT_CHARS = 60_000;
/** No message is cut below this, however many there are. */
const MIN_MESSAGE_CHARS = 300;

export interface SummaryPromptInput {
  lang: Lang;
  /** The covered turns' story text (`storySources(plan.coveredEntries, view)`). */
  sources: readonly SourceText[];
  /** The active summary being merged, when the branch has one. */
  previousSummary?: string;
  /** The scene state at the covered stretch's end, as text (e.g. JSON). Auxiliary. */
  ledger?: string;
  maxTranscriptChars?: number;
}

export interface SummaryPrompt {
  system: string;
  user: string;
}

const SYSTEM_ZH = `你是小说的摘要员。作者和写作助手已经写了很长一段，较早的部分要压缩成一份摘要，代替原文留在写作助手的上下文里。读【此前的摘要】（如有）和【对话】，写一份新的、完整的摘要：把此前的摘要和新的对话合并成一份，不是只写新增的部分。

固定格式：五节，按下面的顺序，每节用「## 标题」开头。
## 前情提要
按时间顺序概述发生了什么，每段开头标注故事内的时间（如「第三日傍晚」）。越早的内容可以压得越短，但转折、决定和后果不能丢。
## 人物
每人一条：身份；说话方式和口头禅；怎么称呼别人、别人怎么称呼他；和其他人的关系与亲疏冷暖。
## 承诺与伏笔
所有还没兑现的承诺、约定、悬念和埋下的伏笔，各一条，宁多勿漏。已经了结的注明「已了结」。
## 事实账
谁持有什么东西；伤势和病；数字（钱数、人数、距离、期限）；故事进行到第几天。
## 当前场景
截至【对话】结尾：时间、地点、在场的人、正在发生的事。只写最新的场景。

规则：
- 只记原文里真的发生的事，不推测，不续写，不评价。
- 名字、地名、物品名沿用原文的写法，一字不差。
- 【当前账本】（如有）只作参考；和对话冲突时以对话为准。
- 关键的对白保留原话。
- 全文不超过 3000 字。
- 只输出这五节，不要前言，不要代码块。`;

const SYSTEM_EN = `You are the story's summariser. The novelist and the writing assistant have written a long stretch; the older part is to be folded into a summary that replaces it in the assistant's context. Read [Previous summary] (if any) and [Dialogue], and write one new, complete summary: merge the previous summary with the new dialogue into a single text, not just the new part.

Fixed format: five sections, in this order, each starting with "## Title".
## Recap
What happened, in order, each paragraph starting with the in-story time (e.g. "Day 3, dusk"). Older events may be shorter, but turning points, decisions and their consequences must stay.
## Characters
One item per person: who they are; how they speak and their pet phrases; how they address others and are addressed; their relationships and how warm or cold those are.
## Promises and foreshadowing
Every promise, appointment, open question and planted hint not yet resolved, one item each; better too many than one missed. Mark resolved ones "resolved".
## Fact ledger
Who holds what; injuries and illness; numbers (money, head counts, distances, deadlines); which day of the story it is.
## Current scene
As of the end of [Dialogue]: time, place, who is present, what is happening. Only the latest scene.

Rules:
- Record only what actually happened; do not guess, continue the story or judge it.
- Keep the exact spelling of names, places and items.
- [Current ledger] (if any) is only a reference; where it disagrees with the dialogue, the dialogue wins.
- Keep key lines of dialogue word for word.
- At most 2000 words.
- Output only these five sections: no preface, no code fence.`;

const LABELS: Record<Lang, { user: string; assistant: string; prose: string; previous: string; ledger: string; dialogue: string; ask: string }> = {
  zh: { user: '作者：', assistant: '助手：', prose: '正文：', previous: '【此前的摘要】', ledger: '【当前账本】', dialogue: '【对话】', ask: '请写出合并后的完整摘要。' },
  en: { user: 'Novelist: ', assistant: 'Assistant: ', prose: 'Prose: ', previous: '[Previous summary]', ledger: '[Current ledger]', dialogue: '[Dialogue]', ask: 'Write the merged, complete summary.' },
};

export function buildSummaryPrompt(input: SummaryPromptInput): SummaryPrompt {
  const l = LABELS[input.lang];
  const parts: string[] = [];
  const previous = input.previousSummary?.trim() ?? '';
  if (previous !== '') parts.push(`${l.previous}\n${previous}`);
  const ledger = input.ledger?.trim() ?? '';
  if (ledger !== '') parts.push(`${l.ledger}\n${ledger}`);
  parts.push(`${l.dialogue}\n${renderTranscript(input.sources, input.lang, input.maxTranscriptChars ?? SUMMARY_TRANSCRIPT_CHARS)}`);
  parts.push(l.ask);
  return { system: input.lang === 'en' ? SYSTEM_EN : SYSTEM_ZH, user: parts.join('\n\n') };
}

/** The covered turns as labelled lines; a blank line before each instruction marks a new turn. */
export function renderTranscript(sources: readonly SourceText[], lang: Lang, maxChars = SUMMARY_TRANSCRIPT_CHARS): string {
  const l = LABELS[lang];
  let total = 0;
  for (const s of sources) total += s.text.length;
  const scale = total > maxChars ? maxChars / total : 1;
  const lines: string[] = [];
  for (const s of sources) {
    const cap = Math.max(MIN_MESSAGE_CHARS, Math.floor(s.text.length * scale));
    const text = scale < 1 ? excerpt(s.text, cap, lang) : s.text;
    if (s.role === 'user' && lines.length > 0) lines.push('');
    lines.push(`${l[s.role]}${text}`);
  }
  return lines.join('\n');
}
