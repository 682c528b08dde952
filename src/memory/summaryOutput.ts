// Cleans the side model's summary: inline reasoning and a wrapping code fence are removed, and the
// five sections are checked. A summary missing sections is still better than none, so it is kept
// with a warning; an empty one is refused by the caller.
import { blockLines } from '../state/text';
import { SUMMARY_SECTIONS } from './summaryPrompt';
import type { Lang } from './types';

export interface CleanSummary {
  text: string;
  /** Section titles not found as headings. */
  missingSections: string[];
}

export function cleanSummary(raw: string, lang: Lang): CleanSummary {
  let text = raw.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fence = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(text);
  if (fence) text = (fence[1] as string).trim();
  const missingSections = SUMMARY_SECTIONS[lang].filter((title) => !hasHeading(text, title));
  // The summary goes into the system prompt as model-written lines: no line may pass for one of
  // the program's block headers (【世界状态】, [Roster], …), or break where "\n" does not.
  return { text: blockLines(text), missingSections };
}

function hasHeading(text: string, title: string): boolean {
  const t = title.toLowerCase();
  for (const line of text.split('\n')) {
    const bare = line
      .trim()
      .replace(/^#{1,6}\s*/, '')
      .replace(/^[【[*]+/, '')
      .trim()
      .toLowerCase();
    if (bare.startsWith(t)) return true;
  }
  return false;
}
