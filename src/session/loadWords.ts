// What the novelist is told when a session opens: a torn last entry set aside, damaged lines
// skipped, another window writing (this one read-only); and the title of a first session. English
// keys marked with `l10n.t` here, translated by the shell (test/unit/l10n.test.ts checks each).
import * as path from 'node:path';
import type { Text } from '../common/text';
import type { ProjectLanguage } from '../project/config';
import type { LockOwner } from './library';
import type { LoadReport } from './session';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** The warnings for what opening session `title` found in its file; none for a whole file. */
export function loadReportWords(title: string, report: Pick<LoadReport, 'tornTail' | 'corruptLines'>): Text[] {
  const words: Text[] = [];
  if (report.tornTail) {
    words.push(l10n.t('The last entry of session "{0}" was cut off (probably by a crash). It was set aside in {1}; everything before it is kept.', title, path.basename(report.tornTail.movedTo)));
  }
  const first = report.corruptLines[0];
  if (first) {
    words.push(l10n.t('Session "{0}" has {1} damaged line(s) (first: line {2}). They were skipped; see the Worldline log.', title, report.corruptLines.length, first.line));
  }
  return words;
}

/** Another window holds the novel's lock: this one is read-only until it closes. */
export function readOnlyWords(owner: Pick<LockOwner, 'pid'> | undefined): Text {
  return l10n.t('Another VS Code window (process {0}) is writing to this novel. This window is read-only until that window closes.', owner ? String(owner.pid) : '?');
}

/** The title of the session made when a novel has none. */
export function firstSessionTitle(lang: ProjectLanguage): string {
  return lang === 'zh' ? '第一个会话' : 'First session';
}
