// The open novel: which folder it is, its worldline.yaml, and its sessions. The views and commands
// share this one object; it adapts the plain core (project config, session library) to VS Code.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { CONFIG_FILE, defaultConfig, formatProblem, parseProjectConfig, resolveLanguage, type LoadedConfig, type ProjectLanguage } from '../project/config';
import { SessionLibrary } from '../session/library';
import type { Session } from '../session/session';
import type { Log } from './log';

export class NovelWorkspace implements vscode.Disposable {
  private loaded: LoadedConfig = { config: defaultConfig(), problems: [] };
  private libraryInstance: SessionLibrary | undefined;
  private sessionInstance: Session | undefined;
  private sessionListener: { dispose(): void } | undefined;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('worldline');
  private readonly disposables: vscode.Disposable[] = [this.diagnostics];
  private readonly sessionChanged = new vscode.EventEmitter<Session | undefined>();
  private readonly treeChanged = new vscode.EventEmitter<Session>();
  private readonly configChanged = new vscode.EventEmitter<LoadedConfig>();
  private readonly navigated = new vscode.EventEmitter<{ session: Session; from: string | null; to: string | null }>();
  private warnedReadOnly = false;

  /** Fires when another session becomes current (or none). */
  readonly onDidChangeSession = this.sessionChanged.event;
  /** Fires after every append or navigation in the current session. */
  readonly onDidChangeTree = this.treeChanged.event;
  readonly onDidChangeConfig = this.configChanged.event;
  /** Fires when the leaf moved without an append (variant, branch here, restore, load). */
  readonly onDidNavigate = this.navigated.event;

  constructor(readonly root: vscode.Uri, private readonly log: Log) {
    this.disposables.push(this.sessionChanged, this.treeChanged, this.configChanged, this.navigated);
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
    const override = vscode.workspace.getConfiguration('worldline').get<string>('language', 'auto');
    if (override === 'zh' || override === 'en') return override;
    return resolveLanguage(this.loaded.config.language, vscode.env.language);
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
    this.loaded = parseProjectConfig(text, resolveLanguage('auto', vscode.env.language));
    this.diagnostics.set(this.configUri, this.loaded.problems.map((p) => {
      const line = Math.max(0, (p.line ?? 1) - 1);
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), p.message, vscode.DiagnosticSeverity.Warning);
      d.source = 'Worldline';
      return d;
    }));
    for (const p of this.loaded.problems) this.log.warn(formatProblem(p));
    if (notify && this.loaded.problems.length > 0) {
      const first = formatProblem(this.loaded.problems[0]!);
      void vscode.window.showWarningMessage(vscode.l10n.t('worldline.yaml has problems; defaults are used where needed. {0}', first));
    }
    this.configChanged.fire(this.loaded);
    return this.loaded;
  }

  get library(): SessionLibrary {
    if (!this.libraryInstance) this.libraryInstance = new SessionLibrary(this.root.fsPath);
    return this.libraryInstance;
  }

  get session(): Session | undefined {
    return this.sessionInstance;
  }

  /** Opens the remembered session, if the novel has one. Never creates files. */
  async restoreCurrent(): Promise<void> {
    const id = await this.library.current();
    // A session over the size limits cannot open; the window starts on the newest one that can
    // (the big file is kept, and Switch Session says why it will not open).
    const list = (await this.library.list()).filter((s) => !s.tooLarge);
    const pick = list.find((s) => s.id === id) ?? list.sort((a, b) => b.modified - a.modified)[0];
    if (pick) await this.open(pick.id);
  }

  /** The current session, creating a first one when the novel has none. */
  async ensureSession(): Promise<Session> {
    if (this.sessionInstance) return this.sessionInstance;
    await this.restoreCurrent();
    if (this.sessionInstance) return this.sessionInstance;
    return this.create(this.language === 'zh' ? '第一个会话' : 'First session');
  }

  async create(title: string): Promise<Session> {
    const session = await this.library.create(title);
    await this.adopt(session);
    return session;
  }

  async open(id: string): Promise<Session> {
    const { session, report } = await this.library.open(id);
    for (const w of report.warnings) this.log.warn(`${path.basename(session.file)}: ${w}`);
    for (const c of report.corruptLines) this.log.warn(`${path.basename(session.file)}:${c.line}: ${c.error}`);
    if (report.tornTail) {
      void vscode.window.showWarningMessage(vscode.l10n.t('The last entry of session "{0}" was cut off (probably by a crash). It was set aside in {1}; everything before it is kept.', session.title, path.basename(report.tornTail.movedTo)));
    }
    if (report.corruptLines.length > 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Session "{0}" has {1} damaged line(s) (first: line {2}). They were skipped; see the Worldline log.', session.title, report.corruptLines.length, report.corruptLines[0]!.line));
    }
    await this.adopt(session);
    return session;
  }

  private async adopt(session: Session): Promise<void> {
    // Switching to the session already open returns the same object: subscribing again would
    // fire every navigation twice (and prose-follows-branch would run twice).
    this.sessionListener?.dispose();
    if (this.sessionInstance && this.sessionInstance !== session) await this.sessionInstance.close();
    this.sessionInstance = session;
    let leaf = session.leafId;
    this.sessionListener = session.onDidChange((change) => {
      const from = leaf;
      leaf = session.leafId;
      if (change.kind === 'navigate' && from !== leaf) this.navigated.fire({ session, from, to: leaf });
      this.treeChanged.fire(session);
    });
    if (!session.readOnly) await this.library.setCurrent(session.header.id);
    if (session.readOnly && !this.warnedReadOnly) {
      this.warnedReadOnly = true;
      const owner = await this.library.lockOwner();
      void vscode.window.showWarningMessage(vscode.l10n.t('Another VS Code window (process {0}) is writing to this novel. This window is read-only until that window closes.', owner ? String(owner.pid) : '?'));
    }
    this.log.info(`session ${session.header.id} "${session.title}" opened${session.readOnly ? ' read-only' : ''}`);
    this.sessionChanged.fire(session);
  }

  async dispose(): Promise<void> {
    this.sessionListener?.dispose();
    await this.sessionInstance?.close();
    await this.libraryInstance?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
