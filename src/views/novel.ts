// The open novel: which folder it is, its worldline.yaml, and its sessions. The views and commands
// share this one object; it adapts the plain core (project config, session library) to VS Code.
import * as vscode from 'vscode';
import { CONFIG_FILE, defaultConfig, parseProjectConfig, resolveLanguage, type LoadedConfig, type ProjectLanguage } from '../project/config';
import { configReport, novelLanguage } from '../project/configReport';
import { ensureWorldlineIgnore } from '../project/worldlineIgnore';
import { SessionLibrary } from '../session/library';
import { CurrentSession } from '../session/currentSession';
import { firstSessionTitle, loadReportWords, readOnlyWords } from '../session/loadWords';
import type { Session } from '../session/session';
import { branchOf, openingOf, type Branch, type BranchOptions } from '../story/branch';
import type { Log } from './log';
import { translate } from './notices';

export class NovelWorkspace implements vscode.Disposable {
  private loaded: LoadedConfig = { config: defaultConfig(), problems: [] };
  private libraryInstance: SessionLibrary | undefined;
  private currentInstance: CurrentSession | undefined;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('worldline');
  private readonly disposables: vscode.Disposable[] = [this.diagnostics];
  private readonly sessionChanged = new vscode.EventEmitter<Session | undefined>();
  private readonly treeChanged = new vscode.EventEmitter<Session>();
  private readonly configChanged = new vscode.EventEmitter<LoadedConfig>();
  /** .worldline/.gitignore was looked for in this window (once, when worldline.yaml is first read). */
  private ignoreEnsured = false;

  /** Fires when another session becomes current (or none). */
  readonly onDidChangeSession = this.sessionChanged.event;
  /** Fires after every append or navigation in the current session. */
  readonly onDidChangeTree = this.treeChanged.event;
  readonly onDidChangeConfig = this.configChanged.event;

  constructor(readonly root: vscode.Uri, private readonly log: Log) {
    this.disposables.push(this.sessionChanged, this.treeChanged, this.configChanged);
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, CONFIG_FILE));
    const reload = () => void this.reloadConfig(true);
    this.disposables.push(watcher, watcher.onDidChange(reload), watcher.onDidCreate(reload), watcher.onDidDelete(reload));
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('worldline.language')) this.configChanged.fire(this.loaded);
    }));
  }

  /** The first folder holding worldline.yaml, else the first folder; undefined without a folder. */
  static async pickRoot(): Promise<vscode.Uri | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    for (const folder of folders) {
      if (await exists(vscode.Uri.joinPath(folder.uri, CONFIG_FILE))) return folder.uri;
    }
    return folders[0]?.uri;
  }

  get config(): LoadedConfig['config'] {
    return this.loaded.config;
  }

  get language(): ProjectLanguage {
    return novelLanguage(vscode.workspace.getConfiguration('worldline').get<string>('language', 'auto'), this.loaded.config.language, vscode.env.language);
  }

  get configUri(): vscode.Uri {
    return vscode.Uri.joinPath(this.root, CONFIG_FILE);
  }

  async hasProjectFile(): Promise<boolean> {
    return exists(this.configUri);
  }

  /** Reads worldline.yaml; problems go to the Problems panel (with line numbers) and the log. */
  async reloadConfig(notify = false): Promise<LoadedConfig> {
    let text = '';
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(this.configUri));
    } catch {
      this.loaded = { config: defaultConfig(), problems: [] };
      this.diagnostics.delete(this.configUri);
      this.configChanged.fire(this.loaded);
      return this.loaded;
    }
    this.ensureIgnore();
    this.loaded = parseProjectConfig(text, resolveLanguage('auto', vscode.env.language));
    const report = configReport(this.loaded.problems);
    this.diagnostics.set(this.configUri, report.diagnostics.map(({ line, message }) => {
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), message, vscode.DiagnosticSeverity.Warning);
      d.source = 'Worldline';
      return d;
    }));
    for (const line of report.logLines) this.log.warn(line);
    if (notify && report.first !== undefined) {
      void vscode.window.showWarningMessage(vscode.l10n.t('worldline.yaml has problems; defaults are used where needed. {0}', report.first));
    }
    this.configChanged.fire(this.loaded);
    return this.loaded;
  }

  /** The first open of a novel without .worldline/.gitignore writes one (an existing one is never touched). */
  private ensureIgnore(): void {
    if (this.ignoreEnsured) return;
    this.ignoreEnsured = true;
    ensureWorldlineIgnore(this.root.fsPath).then(
      (done) => { if (done === 'written') this.log.info('wrote .worldline/.gitignore: git keeps the sessions and worldlines.json, not the backups, lock, checkpoints or memory'); },
      (err: unknown) => this.log.warn(`could not write .worldline/.gitignore: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  get library(): SessionLibrary {
    if (!this.libraryInstance) this.libraryInstance = new SessionLibrary(this.root.fsPath);
    return this.libraryInstance;
  }

  /** Which session is open, and how one becomes current (src/session/currentSession.ts). */
  private get current(): CurrentSession {
    this.currentInstance ??= new CurrentSession(this.library, {
      sessionChanged: (s) => this.sessionChanged.fire(s),
      treeChanged: (s) => this.treeChanged.fire(s),
      loaded: (session, report) => {
        for (const words of loadReportWords(session.title, report)) void vscode.window.showWarningMessage(translate(words));
      },
      readOnly: (owner) => void vscode.window.showWarningMessage(translate(readOnlyWords(owner))),
      info: (m) => this.log.info(m),
      warn: (m) => this.log.warn(m),
    });
    return this.currentInstance;
  }

  get session(): Session | undefined {
    return this.currentInstance?.session;
  }

  /** What every Branch of this novel is computed with: the opening scene (parsed once per config) and the language. */
  get branchOptions(): BranchOptions {
    const lang = this.language;
    return { opening: openingOf(this.config.opening, lang), lang };
  }

  /** The open session's branch at its leaf, the one value the views render from; undefined without a session. */
  branch(): Branch | undefined {
    const session = this.session;
    return session ? branchOf(session, this.branchOptions) : undefined;
  }

  /** Opens the remembered session, if the novel has one. Never creates files. */
  async restoreCurrent(): Promise<void> {
    await this.current.restore();
  }

  /** The current session, creating a first one when the novel has none. */
  ensureSession(): Promise<Session> {
    return this.current.ensure(firstSessionTitle(this.language));
  }

  create(title: string): Promise<Session> {
    return this.current.create(title);
  }

  open(id: string): Promise<Session> {
    return this.current.open(id);
  }

  async dispose(): Promise<void> {
    await this.currentInstance?.close();
    await this.libraryInstance?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** A file or folder is there (any stat failure counts as not). */
export async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
