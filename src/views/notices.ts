// Notifications that nobody awaits: failures of the notification (and of what its button starts)
// are logged, never unhandled; a warning can be shown once per distinct text in this window.
import * as vscode from 'vscode';
import type { Text } from '../common/text';
import type { Log } from './log';

export class Notices {
  /** Warnings already shown in this window (each distinct problem once; writing is never blocked). */
  private readonly warned = new Set<string>();

  constructor(private readonly log: Log) {}

  notify(level: 'info' | 'warning' | 'error', text: string, ...buttons: string[]): Thenable<string | undefined> {
    const shown = level === 'info' ? vscode.window.showInformationMessage(text, ...buttons)
      : level === 'warning' ? vscode.window.showWarningMessage(text, ...buttons)
      : vscode.window.showErrorMessage(text, ...buttons);
    this.background(shown, 'a notification');
    return shown;
  }

  /** A notification whose button starts `then` (clicked perhaps long after: it waits in the bell). */
  offer(level: 'info' | 'warning', text: string, button: string, then: () => Thenable<unknown> | Promise<unknown>): void {
    this.background(this.notify(level, text, button).then((pick) => (pick === button ? then() : undefined)), text);
  }

  /** Shown at most once per distinct text in this window; false when it was shown before. */
  once(text: string): boolean {
    if (this.warned.has(text)) return false;
    this.warned.add(text);
    return true;
  }

  /** A warning at most once per text; `offerRebuild` adds the way out. */
  warnOnce(text: string, offerRebuild: boolean): void {
    if (!this.once(text)) return;
    if (!offerRebuild) {
      this.notify('warning', text);
      return;
    }
    this.offer('warning', text, vscode.l10n.t('Rebuild Checkpoints'), () => vscode.commands.executeCommand('worldline.rebuildCheckpoints'));
  }

  /** Work that nobody awaits: failures are logged. */
  background(work: Thenable<unknown>, what: string): void {
    Promise.resolve(work).catch((err: unknown) => this.log.warn(`${what} failed: ${err instanceof Error ? err.message : String(err)}`));
  }
}

/** Core words through VS Code's l10n (a literal is already in the novelist's language). */
export function translate(text: Text): string {
  return text.literal ? text.message : vscode.l10n.t(text.message, ...text.args);
}
