// What the novelist is told about the checkpoint store itself: checkpoints off in Restricted Mode
// (and the way out), unavailable, rebuilt. English keys marked with `l10n.t` here and translated by
// the shell (test/unit/l10n.test.ts checks each has a translation).
import { ofCount, type Text } from '../common/text';
import type { RebuildReport } from './storeHandle';

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

/**
 * What Rebuild Checkpoints did, sentence by sentence (the shell translates each and joins them):
 * the new store; which turns can no longer be restored (their checkpoints are not in it); and the
 * old store, only when there was one, with what it holds. An empty store is not called "kept".
 */
export function rebuiltWords(report: RebuildReport): Text[] {
  const words = [l10n.t('Checkpoints rebuilt: a new store starts from the manuscript as it is now. Your manuscript files were not touched.')];
  const lost = report.lostTurns;
  if (lost > 0) {
    words.push(ofCount(lost,
      l10n.t('The checkpoint of {0} earlier turn is not in the new store: that turn can no longer be restored or compared.', lost),
      l10n.t('The checkpoints of {0} earlier turns are not in the new store: those turns can no longer be restored or compared.', lost)));
  }
  if (report.aside !== undefined) {
    const held = report.asideTurns;
    if (held === undefined) words.push(l10n.t('The old store could not be read; it is kept as {0}.', report.aside));
    else if (held === 0) words.push(l10n.t('The old store held no checkpoint of this session; it is kept as {0}.', report.aside));
    else {
      words.push(ofCount(held,
        l10n.t('The old store, kept as {1}, holds the checkpoint of {0} turn of this session.', held, report.aside),
        l10n.t('The old store, kept as {1}, holds the checkpoints of {0} turns of this session.', held, report.aside)));
    }
  } else if (lost > 0) {
    words.push(l10n.t('There was no old store to keep: it had been deleted or moved.'));
  }
  return words;
}
