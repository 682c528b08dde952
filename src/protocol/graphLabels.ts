// The words the worldline graph page (media/graph.js) shows, in English, marked with `l10n.t` so
// the localisation test finds them; the shell translates the table (`translate` in
// src/views/webviewHost.ts), keeping "{0}" for the page to fill.
import type { Labels } from './labels';

/** The marker only: the string as written. VS Code's l10n.t does the translating, in the shell. */
const l10n = { t: (s: string): string => s };

export const GRAPH_LABELS: Labels = {
  empty: l10n.t('No save points yet. Save Point… marks where the story is; going back to a save and writing on starts a new worldline.'),
  savePoint: l10n.t('Save Point…'),
  here: l10n.t('you are here'),
  after: l10n.t('story after the last save'),
  load: l10n.t('Load save "{0}"'),
  graph: l10n.t('Worldline graph'),
};
