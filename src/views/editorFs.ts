// The agent's file tools in VS Code: reads see what the novelist sees (an open editor's buffer,
// unsaved edits included), writes go through a WorkspaceEdit so an open editor updates in place
// and Ctrl+Z undoes the agent's change; the document is then saved so checkpoints see it on disk.
// A new file is created through a WorkspaceEdit as well (undoable; Node's fs only as a fallback).
import * as vscode from 'vscode';
import { NodeManuscriptFs, type ManuscriptFs, type EntryKind } from '../agent/fsNode';
import { waitForDocumentsToMatchDisk } from './docSync';

export class EditorManuscriptFs implements ManuscriptFs {
  private readonly disk: NodeManuscriptFs;

  constructor(private readonly root: vscode.Uri) {
    this.disk = new NodeManuscriptFs(root.fsPath);
  }

  private uri(rel: string): vscode.Uri {
    return vscode.Uri.joinPath(this.root, ...rel.split('/'));
  }

  private openDocument(rel: string): vscode.TextDocument | undefined {
    const target = this.uri(rel).toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === target);
  }

  async readText(rel: string): Promise<string | undefined> {
    const doc = this.openDocument(rel);
    if (doc && !doc.isClosed) return doc.getText();
    return this.disk.readText(rel);
  }

  async writeText(rel: string, text: string): Promise<void> {
    const uri = this.uri(rel);
    const exists = (await this.disk.lstat(rel)) !== undefined;
    if (!exists) {
      // A new chapter goes through a WorkspaceEdit too, so Undo can take it back like any edit.
      const edit = new vscode.WorkspaceEdit();
      edit.createFile(uri, { contents: new TextEncoder().encode(text) });
      if (!(await vscode.workspace.applyEdit(edit))) await this.disk.writeText(rel, text);
      return;
    }
    // A restore may have just rewritten the file: the edit must apply to what is on disk.
    await waitForDocumentsToMatchDisk([uri]);
    const doc = this.openDocument(rel) ?? (await vscode.workspace.openTextDocument(uri));
    const edit = new vscode.WorkspaceEdit();
    const whole = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
    edit.replace(uri, whole, text);
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new Error(`VS Code refused the edit to ${rel}; is the file read-only?`);
    }
    if (!(await doc.save())) {
      throw new Error(`Could not save ${rel} after the agent's edit.`);
    }
  }

  list(): Promise<string[]> {
    return this.disk.list();
  }

  realpath(rel: string): Promise<string | undefined> {
    return this.disk.realpath(rel);
  }

  lstat(rel: string): Promise<EntryKind | undefined> {
    return this.disk.lstat(rel);
  }
}
