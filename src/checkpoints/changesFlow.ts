// Show Turn Changes and Compare with Current Prose as the novelist meets them: nothing to compare,
// nothing changed, which file (asked when several changed and none was named), and the diff with
// its title. Over the Prompter port and a diff-editor port; turnChanges.ts finds the files.
import type { Text } from '../common/text';
import { checkpointReason } from '../story/problemWords';
import { CheckpointError } from './errors';
import type { CheckpointDocument, ShowDiff, WorkingDocument } from '../protocol/diff';
import type { Prompter } from '../protocol/prompter';
import type { Session } from '../session/session';
import type { ShadowRepo } from './shadowRepo';
import { diffSides, turnChanges, type ChangesAgainst, type DiffSide } from './turnChanges';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

export interface ChangesHost {
  readonly prompter: Prompter;
  /** The open session; undefined when none is open. */
  session(): Pick<Session, 'get' | 'lastOnPath'> | undefined;
  /** The checkpoint store; undefined when checkpoints are off. */
  store(): Promise<Pick<ShadowRepo, 'changedFiles'> | undefined>;
  readonly showDiff: ShowDiff<CheckpointDocument | WorkingDocument>;
}

/**
 * Show Turn Changes (`against` 'previous': the checkpoint against the one before it on its path)
 * or Compare with Current Prose ('working': against the files now, the right side editable).
 * Returns how many files differ (0 when there is nothing to show).
 */
export async function showChanges(host: ChangesHost, checkpointEntryId: string | undefined, file?: string, against: ChangesAgainst = 'previous'): Promise<number> {
  const session = host.session();
  if (!session) return 0;
  let found;
  try {
    found = await turnChanges(session, await host.store(), checkpointEntryId, against, file);
  } catch (err) {
    // A lost checkpoint (or a store that cannot be read) is said in words, never as a failed command with a commit id.
    if (!(err instanceof CheckpointError)) throw err;
    void host.prompter.notify('warning', err.kind === 'notFound'
      ? l10n.t('A checkpoint this needs is no longer in the checkpoint store (the store was lost or rebuilt since), so the changes cannot be shown. Your manuscript files are as they were.')
      : checkpointReason(err.kind));
    return 0;
  }
  if (found.kind === 'none') {
    void host.prompter.notify('info', l10n.t('There is no checkpoint to compare yet: one is taken at the end of every agent turn.'));
    return 0;
  }
  const { changes } = found;
  if (changes.length === 0) {
    void host.prompter.notify('info', against === 'working'
      ? l10n.t('The manuscript is exactly as it was at this checkpoint.')
      : l10n.t('This turn changed no manuscript file.'));
    return 0;
  }
  const pick = found.pick ?? await host.prompter.pick(
    changes.map((c) => ({ label: literal(c.path), description: literal(c.status), value: c })),
    { title: l10n.t('Show Turn Changes') },
  );
  if (!pick) return changes.length;
  const sides = diffSides(found, pick);
  const doc = (side: DiffSide): CheckpointDocument | WorkingDocument =>
    side === 'working' ? { kind: 'working', path: pick.path } : { kind: 'checkpoint', commit: side, path: pick.path };
  const title = against === 'working' ? l10n.t('{0} (checkpoint ↔ now)', pick.path) : l10n.t('{0} (this turn\'s changes)', pick.path);
  await host.showDiff(doc(sides.left), doc(sides.right), title, true);
  return changes.length;
}
