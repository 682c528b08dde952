// "Import SillyTavern Lorebook or Character Card…": pick files, read them, list the codex folder,
// write what src/import/codexImport.ts plans (never over an existing file), show its summary.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ofCount } from '../common/text';
import { IMPORT_HEADINGS, importOutcome, importSummary, importToCodex, MAX_IMPORT_BYTES, type ImportHeadings, type ImportSource } from '../import/codexImport';
import type { Log } from './log';
import type { NovelWorkspace } from './novel';
import { translate } from './notices';

export function registerImportCommands(getNovel: () => NovelWorkspace | undefined, log: Log): vscode.Disposable[] {
  return [vscode.commands.registerCommand('worldline.importSillyTavern', (files?: string[]) => importFiles(getNovel(), log, files).catch((err: unknown) => {
    log.error(`import failed: ${err instanceof Error ? err.message : String(err)}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('The import failed: {0}', err instanceof Error ? err.message : String(err)));
  }))];
}

async function importFiles(novel: NovelWorkspace | undefined, log: Log, files: string[] | undefined): Promise<void> {
  if (!novel) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Open a novel folder to import into its codex.'));
    return;
  }
  const picked = files ?? (await vscode.window.showOpenDialog({
    canSelectMany: true,
    openLabel: vscode.l10n.t('Import'),
    filters: { [vscode.l10n.t('SillyTavern lorebooks and character cards')]: ['json', 'png'] },
  }))?.map((u) => u.fsPath);
  if (!picked || picked.length === 0) return;
  const root = novel.root.fsPath;
  const folder = novel.config.codex;
  const sources: ImportSource[] = [];
  for (const file of picked) {
    const { size } = await fs.stat(file);
    sources.push({ name: path.basename(file), size, bytes: size > MAX_IMPORT_BYTES ? new Uint8Array(0) : await fs.readFile(file) });
  }
  const existing = (await fs.readdir(path.join(root, folder), { recursive: true }).catch(() => [] as string[]))
    .map((p) => `${folder}/${p.split(path.sep).join('/')}`);
  const headings = Object.fromEntries(Object.entries(IMPORT_HEADINGS).map(([k, v]) => [k, vscode.l10n.t(v)])) as ImportHeadings;
  const plan = importToCodex({ sources, codexFolder: folder, existing, headings });
  let unwritten = 0;
  for (const file of plan.files) {
    const target = path.join(root, ...file.path.split('/'));
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
      // 'wx': a file that appeared since the folder was listed is never overwritten.
      await fs.writeFile(target, file.text, { flag: 'wx' });
    } catch (err) {
      unwritten++;
      log.error(`import: ${file.path} not written: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const line of importSummary(plan)) log.info(`import: ${translate(line)}`);
  const notWritten = unwritten === 0 ? [] : [ofCount(unwritten, vscode.l10n.t('{0} file could not be written (see the Worldline log).', unwritten), vscode.l10n.t('{0} files could not be written (see the Worldline log).', unwritten))];
  const message = [...importSummary(plan, 3).map(translate), ...notWritten].join(' ');
  const open = vscode.l10n.t('Open Codex Folder');
  const show = importOutcome(plan) === 'error' ? vscode.window.showErrorMessage : importOutcome(plan) === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  if (await show(message, ...(plan.files.length > 0 ? [open] : [])) === open) {
    await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(path.join(root, folder)));
  }
}
