// The words the webview pages show, in English. Each is marked with `l10n.t` so the localisation
// bundle and its test find it (test/unit/l10n.test.ts); the shell translates the table at run time
// (`translate` in src/views/webviewHost.ts). "{0}" stays in a label: the page fills it in.

/** The marker only: the string as written. VS Code's l10n.t does the translating, in the shell. */
const l10n = { t: (s: string): string => s };

export type Labels = Readonly<Record<string, string>>;

/** The Chat page (media/chat.js). */
export const CHAT_LABELS: Labels = {
  instruction: l10n.t('Instruction for the agent'),
  placeholder: l10n.t('Tell the agent what to write next… (Enter sends, Shift+Enter breaks the line)'),
  send: l10n.t('Send'),
  stop: l10n.t('Stop'),
  retry: l10n.t('Retry'),
  you: l10n.t('You'),
  agent: l10n.t('Agent'),
  empty: l10n.t('No conversation yet. Your first instruction starts one.'),
  conversation: l10n.t('Conversation'),
  actions: l10n.t('Message actions'),
  moreActions: l10n.t('More actions'),
  variantOf: l10n.t('Variant {0} of {1}'),
  prevVariant: l10n.t('Previous variant'),
  nextVariant: l10n.t('Next variant'),
  regenerate: l10n.t('Regenerate'),
  edit: l10n.t('Edit'),
  saveInPlace: l10n.t('Save'),
  saveAsBranch: l10n.t('Save as new branch'),
  cancel: l10n.t('Cancel'),
  hide: l10n.t('Hide from the model'),
  unhide: l10n.t('Unhide'),
  hiddenMark: l10n.t('hidden from the model'),
  editedBadge: l10n.t('edited'),
  stopped: l10n.t('stopped'),
  checkpointLost: l10n.t('checkpoint lost'),
  checkpointLostWhy: l10n.t('This turn\'s checkpoint was lost when the checkpoint store was rebuilt.'),
  thinking: l10n.t('Thinking · {0} s'),
  thought: l10n.t('Thought for {0} s'),
  reasoning: l10n.t('Reasoning'),
  replyFinished: l10n.t('Reply finished.'),
  replyStopped: l10n.t('Reply stopped.'),
  waiting: l10n.t('Waiting for the scribe…'),
  cancelPending: l10n.t('Cancel this instruction'),
  branchHere: l10n.t('Branch here'),
  copy: l10n.t('Copy'),
  openFile: l10n.t('Open {0}'),
  restoreProse: l10n.t('Restore Prose Only'),
  restoreBoth: l10n.t('Restore Prose and Chat'),
  showChanges: l10n.t('Show Changes'),
  setKey: l10n.t('Set API Key'),
  selectModel: l10n.t('Select Model'),
  demoModel: l10n.t('demo model'),
  demoExplain: l10n.t('A scripted local model for trying Worldline offline. Choose a real model with Worldline: Select Model.'),
  readOnly: l10n.t('Read-only window'),
  phase_idle: '',
  phase_writing: l10n.t('Writing…'),
  phase_tool: l10n.t('Working in the manuscript…'),
  phase_scribe: l10n.t('The scribe is updating the scene state…'),
};

/** The Scene State page (media/state.js). */
export const STATE_LABELS: Labels = {
  time: l10n.t('Time'),
  place: l10n.t('Place'),
  present: l10n.t('present'),
  at: l10n.t('at: {0}'),
  departed: l10n.t('departed'),
  characters: l10n.t('Characters'),
  affinity: l10n.t('Affinity'),
  status: l10n.t('Status'),
  notes: l10n.t('Notes'),
  location: l10n.t('Location'),
  items: l10n.t('Items'),
  facts: l10n.t('Facts'),
  threads: l10n.t('Threads'),
  roster: l10n.t('Roster'),
  rosterCharacters: l10n.t('Characters'),
  rosterLocations: l10n.t('Locations'),
  rosterItems: l10n.t('Items'),
  rosterThreads: l10n.t('Threads'),
  filter: l10n.t('Filter'),
  firstSeen: l10n.t('first seen'),
  edit: l10n.t('Edit'),
  save: l10n.t('Save'),
  cancel: l10n.t('Cancel'),
  editYaml: l10n.t('Edit as YAML'),
  applyYaml: l10n.t('Apply'),
  addCharacter: l10n.t('Add character'),
  removeCharacter: l10n.t('Remove from scene'),
  newCharacterName: l10n.t('Name of the character'),
  onePerLine: l10n.t('One per line'),
  empty: l10n.t('(none)'),
  scribe: l10n.t('Scribe'),
  scribeRunning: l10n.t('The scribe is updating the scene state…'),
  scribeNever: l10n.t('The scribe has not run in this window yet.'),
  outcome_applied: l10n.t('applied'),
  outcome_stale: l10n.t('dropped as stale (the branch changed during the call)'),
  outcome_failed: l10n.t('failed'),
  outcome_skipped: l10n.t('skipped'),
  source_opening: l10n.t('Opening scene from worldline.yaml'),
  source_scribe: l10n.t('Written by the scribe'),
  source_user: l10n.t('Edited by you'),
  source_import: l10n.t('Imported'),
  warnings: l10n.t('Warnings'),
  saved: l10n.t('Saved to the current branch.'),
  readOnly: l10n.t('Read-only window'),
};

/**
 * The table in the novelist's language: every key kept, every word put through `translate` (which
 * must return "{0}" as it is). The empty string is no word and stays empty.
 */
export function localize(table: Labels, translate: (english: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, english] of Object.entries(table)) out[key] = english === '' ? '' : translate(english);
  return out;
}
