// Initialize Novel as the novelist meets it: a folder that already is a novel is left as it is (and
// its worldline.yaml opened); otherwise the template and .worldline/.gitignore are written, the
// config read again, the first chapter opened and the next step said. Over the Prompter port and
// an "open this file" port.
import * as path from 'node:path';
import type { Text } from '../common/text';
import type { Prompter } from '../protocol/prompter';
import { CONFIG_FILE, resolveLanguage } from './config';
import { initializeNovelFolder } from './initialize';
import { ensureWorldlineIgnore } from './worldlineIgnore';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface InitializeHost {
  readonly prompter: Prompter;
  /** The editor's display language (the template's language follows it). */
  readonly displayLanguage: string;
  /** Opens a file of the book in an editor (not as a preview). */
  openFile(absPath: string): PromiseLike<unknown>;
  /** worldline.yaml changed: read it again. */
  reloadConfig(): PromiseLike<unknown>;
}

/** True when the folder was initialized now; false when it already had worldline.yaml. */
export async function initializeNovel(host: InitializeHost, root: string, title?: string): Promise<boolean> {
  const result = await initializeNovelFolder(root, resolveLanguage('auto', host.displayLanguage), title ?? path.basename(root));
  if (!result.initialized) {
    void host.prompter.notify('info', l10n.t('This folder already has worldline.yaml; nothing was changed.'));
    await host.openFile(path.join(root, CONFIG_FILE));
    return false;
  }
  await ensureWorldlineIgnore(root);
  await host.reloadConfig();
  await host.openFile(path.join(root, 'chapters', '01.md'));
  void host.prompter.notify('info', l10n.t('Novel initialized: worldline.yaml and chapters/01.md are ready. Open the Worldline view to start writing.'));
  return true;
}
