// The names the planner gives saves and worldlines, in the project's language. The formats are
// the seed's ("主线", "从「prev」分出 · 线N") and their English twins.

import type { ProjectLanguage } from '../project/config';

/** Longest save or worldline name kept (in code points): a pasted paragraph is not a name. */
export const MAX_NAME_LENGTH = 80;

export function mainLineName(lang: ProjectLanguage): string {
  return lang === 'zh' ? '主线' : 'Main line';
}

export function forkLineName(lang: ProjectLanguage, prevSaveName: string, lineNumber: number): string {
  return lang === 'zh' ? `从「${prevSaveName}」分出 · 线${lineNumber}` : `Branched from "${prevSaveName}" · line ${lineNumber}`;
}

/** A line started where the branch has no save but the tree already has lines elsewhere. */
export function detachedLineName(lang: ProjectLanguage, lineNumber: number): string {
  return lang === 'zh' ? `线${lineNumber}` : `Line ${lineNumber}`;
}

export function defaultSaveName(lang: ProjectLanguage, saveNumber: number): string {
  return lang === 'zh' ? `存档 ${saveNumber}` : `Save ${saveNumber}`;
}

/** One line, single spaces, at most MAX_NAME_LENGTH code points ("…" when cut). "" stays "". */
export function cleanName(name: string): string {
  const flat = name.replace(/\s+/gu, ' ').trim();
  const chars = [...flat];
  return chars.length <= MAX_NAME_LENGTH ? flat : `${chars.slice(0, MAX_NAME_LENGTH - 1).join('').trimEnd()}…`;
}
