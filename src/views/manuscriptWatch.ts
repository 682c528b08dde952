// The novelist's own edits, told to the manuscript change feed (src/project/manuscriptChanges.ts):
// saves in the editor, file operations in the Explorer, and a file watcher on the book folder for
// everything else (another editor, a sync tool, a branch switch in their own repo). What the feed
// cannot know (the workspace folders changed, the book folder itself changed) becomes
// `everything()`: the checkpoint store then walks the whole book once. The store's own files
// (.worldline/) and any .git are not the manuscript and are not reported.
import * as vscode from 'vscode';
import { reportablePaths, type ChangeSink } from '../project/manuscriptChanges';

export class ManuscriptWatch implements vscode.Disposable {
  private root: vscode.Uri | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly sink: ChangeSink) {
    const one = (uri: vscode.Uri) => this.report([uri]);
    this.disposables.push(
      vscode.workspace.onDidSaveTextDocument((doc) => one(doc.uri)),
      vscode.workspace.onDidCreateFiles((e) => this.report(e.files)),
      vscode.workspace.onDidDeleteFiles((e) => this.report(e.files)),
      vscode.workspace.onDidRenameFiles((e) => this.report(e.files.flatMap((f) => [f.oldUri, f.newUri]))),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.sink.everything()),
    );
  }

  /** Watches the book folder at `root` (a new folder: anything may differ, so 'all'). */
  follow(root: vscode.Uri | undefined): void {
    if (root?.toString() === this.root?.toString()) return;
    this.watcher?.dispose();
    this.watcher = undefined;
    this.root = root;
    if (!root) return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, '**/*'));
    const one = (uri: vscode.Uri) => this.report([uri]);
    watcher.onDidCreate(one);
    watcher.onDidChange(one);
    watcher.onDidDelete(one);
    this.watcher = watcher;
    this.sink.everything();
  }

  /** The book-relative POSIX paths of `uris` that may be manuscript (files or folders). */
  private report(uris: readonly vscode.Uri[]): void {
    const root = this.root;
    if (!root) return;
    this.sink.changed(reportablePaths(root.fsPath, uris.filter((u) => u.scheme === 'file').map((u) => u.fsPath)));
  }

  dispose(): void {
    this.watcher?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
