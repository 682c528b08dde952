// What the novelist is told about the checkpoint store itself: checkpoints off in Restricted Mode
// (and the way out), unavailable, rebuilt. English keys marked with `l10n.t` here and translated by
// the shell (test/unit/l10n.test.ts checks each has a translation).
import type { Text } from '../common/text';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** Why checkpoints are off in a folder that is not trusted, and what to do. */
export const RESTRICTED_WORDS: Text = l10n.t('This folder is open in Restricted Mode, so checkpoints are off: Worldline runs no Git on a folder you have not trusted. Your writing is saved as usual. To turn checkpoints on, trust the folder.');
/** The button after RESTRICTED_WORDS. */
export const MANAGE_TRUST: Text = l10n.t('Manage Workspace Trust');
/** Checkpoints are off, and the store gave no reason of its own. */
export const UNAVAILABLE_WORDS: Text = l10n.t('Checkpoints are not available.');
/** The health check on start found a problem (its reason follows). */
export const NEEDS_ATTENTION: Text = l10n.t('The checkpoint store needs attention.');

/** Rebuild Checkpoints finished; `aside`: where the old store was kept, when there was one. */
export function rebuiltWords(aside: string | undefined): Text {
  return aside
    ? l10n.t('Checkpoints rebuilt from the current manuscript. The old store was kept in {0}.', aside)
    : l10n.t('Checkpoints rebuilt from the current manuscript.');
}
