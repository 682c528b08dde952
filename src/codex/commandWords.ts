// What the Codex commands ask and say: the kinds to pick from, the name check, the question
// before a draft is written. English keys marked for the localisation test; the shell translates.
import type { Text } from '../common/text';
import type { PickItem } from '../protocol/prompter';
import { KIND_NAMES } from './tree';
import { CODEX_KINDS, type CodexKind } from './types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export const CODEX_WORDS = {
  kindTitle: l10n.t('New Codex Entry: what is it?'),
  nameTitle: l10n.t('New Codex Entry: its name'),
  renameTitle: l10n.t('Rename Codex Entry'),
  namePrompt: l10n.t('The name the prose uses; other spellings go into "keys" in the file.'),
  drafting: l10n.t('Worldline: drafting a codex entry for "{0}"…'),
  write: l10n.t('Write'),
  discard: l10n.t('Discard'),
  noNovel: l10n.t('Open the folder of your novel first (File > Open Folder).'),
  pickEntry: l10n.t('Choose a codex entry in the Codex view first.'),
  pickName: l10n.t('Choose a name under "Not in the codex yet" in the Codex view first.'),
} as const;

export function kindPicks(): PickItem<CodexKind>[] {
  return CODEX_KINDS.map((kind) => ({ label: KIND_NAMES[kind], value: kind }));
}

/** Why a name cannot be an entry's, or undefined when it can. */
export function nameProblem(name: string): Text | undefined {
  if (name.trim() === '') return l10n.t('Give the entry a name.');
  if (/[\u0000-\u001f\u007f]/u.test(name)) return l10n.t('A name is one line of text.');
  if ([...name.trim()].length > 120) return l10n.t('A name this long would not be found in the prose; keep it under 120 characters.');
  return undefined;
}

export function writeQuestion(path: string): Text {
  return l10n.t('Write this entry to {0}? You may edit the draft first; Write takes its text as it is then.', path);
}

export function written(path: string): Text {
  return l10n.t('Wrote the codex entry {0}.', path);
}


export function writtenNotEntry(path: string, error: string): Text {
  return l10n.t('Nothing was written to {0}: the text is not a codex entry ({1}).', path, error);
}
