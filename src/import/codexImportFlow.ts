// "Import SillyTavern Lorebook or Character Card…" as the novelist meets it: the files picked (or
// given), read (a file over the limit is not read, only reported), the codex folder listed, what
// src/import/codexImport.ts plans written (never over an existing file), its summary said with
// the count of files that could not be written, and "Open Codex Folder" offered when any was.
// Over the Prompter and the novel's files; the shell gives the open dialog and the reveal.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { NovelFiles } from '../codex/novelFiles';
import { ofCount, type Say, type Text } from '../common/text';
import type { Prompter } from '../protocol/prompter';
import { IMPORT_HEADINGS, importOutcome, importSummary, importToCodex, MAX_IMPORT_BYTES, type ImportHeadings, type ImportSource } from './codexImport';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** The open dialog's words and the files it offers. */
export interface PickFilesOptions {
  readonly openLabel: Text;
  readonly filterName: Text;
  readonly extensions: readonly string[];
}

export interface CodexImportHost {
  readonly prompter: Prompter;
  readonly log: { info(message: string): void; error(message: string): void };
  /** The shell's translator: the headings written into the files, the summary in the log and the notice. */
  readonly say: Say;
  /** The open novel's files and its codex folder; undefined without a folder. */
  novel(): { readonly files: NovelFiles; readonly codexFolder: string } | undefined;
  /** The open dialog: the absolute paths chosen, undefined when cancelled. */
  pickFiles(options: PickFilesOptions): Promise<readonly string[] | undefined>;
  /** Shows the codex folder (the novelist's "Open Codex Folder"). */
  revealFolder(folder: string): Promise<unknown>;
}

/** What an import did, for tests: the files written and those that could not be. */
export interface ImportRun {
  readonly written: readonly string[];
  readonly unwritten: readonly string[];
}

/** The import of `files` (absolute paths), or of the files picked; a failure is logged and said. */
export async function importIntoCodex(host: CodexImportHost, files?: readonly string[]): Promise<ImportRun | undefined> {
  try {
    return await run(host, files);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    host.log.error(`import failed: ${message}`);
    void host.prompter.notify('error', l10n.t('The import failed: {0}', message));
    return undefined;
  }
}

async function run(host: CodexImportHost, files: readonly string[] | undefined): Promise<ImportRun | undefined> {
  const novel = host.novel();
  if (!novel) {
    void host.prompter.notify('error', l10n.t('Open a novel folder to import into its codex.'));
    return undefined;
  }
  const picked = files ?? await host.pickFiles({
    openLabel: l10n.t('Import'),
    filterName: l10n.t('SillyTavern lorebooks and character cards'),
    extensions: ['json', 'png'],
  });
  if (!picked || picked.length === 0) return undefined;
  const folder = novel.codexFolder;
  const sources: ImportSource[] = [];
  for (const file of picked) sources.push(await readSource(file));
  const existing = await novel.files.list(folder);
  const headings = Object.fromEntries(Object.entries(IMPORT_HEADINGS).map(([k, v]) => [k, host.say(l10n.t(v))])) as ImportHeadings;
  const plan = importToCodex({ sources, codexFolder: folder, existing, headings });
  const written: string[] = [];
  const unwritten: string[] = [];
  for (const file of plan.files) {
    try {
      await novel.files.writeNew(file.path, file.text);
      written.push(file.path);
    } catch (err) {
      unwritten.push(file.path);
      host.log.error(`import: ${file.path} not written: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const line of importSummary(plan)) host.log.info(`import: ${host.say(line)}`);
  const n = unwritten.length;
  const notWritten = n === 0 ? [] : [ofCount(n, l10n.t('{0} file could not be written (see the Worldline log).', n), l10n.t('{0} files could not be written (see the Worldline log).', n))];
  const message = [...importSummary(plan, 3), ...notWritten].map(host.say).join(' ');
  const open = l10n.t('Open Codex Folder');
  const pick = await host.prompter.notify(importOutcome(plan), literal(message), ...(plan.files.length > 0 ? [open] : []));
  if (pick?.message === open.message) await host.revealFolder(folder);
  return { written, unwritten };
}

/** A picked file: its name and size, and its bytes unless it is over the limit (then it is only reported). */
async function readSource(file: string): Promise<ImportSource> {
  const { size } = await fs.stat(file);
  return { name: path.basename(file), size, bytes: size > MAX_IMPORT_BYTES ? new Uint8Array(0) : await fs.readFile(file) };
}
