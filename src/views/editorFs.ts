// The agent's file tools in VS Code: reads see what the novelist sees (an open editor's buffer,
// unsaved edits included), writes go through a WorkspaceEdit so an open editor updates in place
// and Ctrl+Z undoes the agent's change; the document is then saved so checkpoints see it on disk.
// A new file is created through a WorkspaceEdit as well (undoable; Node's fs only as a fallback).
// VS Code's own writes resolve the path and follow links, so the confined checks of
// `confinedFile.ts` (by handle: no link on the way, a regular file with one hard link, inside the
// real novel folder) run before the buffer is read or edited, again just before the save and
// after it. Missing folders are created by the confined walk, never by VS Code.
import * as vscode from 'vscode';
import { ConfinementError } from '../agent/confinedFile';
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
    // A hard link or link out must not be read through an open editor's buffer either.
    await this.disk.inspect(rel);
    const doc = this.openDocument(rel);
    if (doc && !doc.isClosed) return doc.getText();
    return this.disk.readText(rel);
  }

  async writeText(rel: string, text: string): Promise<void> {
    const uri = this.uri(rel);
    if (!(await this.disk.inspect(rel, true)).exists) {
      // A new chapter goes through a WorkspaceEdit too, so Undo can take it back like any edit.
      // `overwrite: false`: VS Code never replaces what appeared at the name meanwhile; the
      // confined write below does, by handle.
      const edit = new vscode.WorkspaceEdit();
      edit.createFile(uri, { contents: new TextEncoder().encode(text), overwrite: false, ignoreIfExists: false });
      if (!(await vscode.workspace.applyEdit(edit))) {
        await this.disk.writeText(rel, text);
        return;
      }
      await this.disk.inspect(rel);
      return;
    }
    // A restore may have just rewritten the file: the edit must apply to what is on disk.
    await waitForDocumentsToMatchDisk([uri]);
    const found = await this.disk.inspect(rel);
    if (!found.exists) throw new ConfinementError('WL_MOVED', rel, rel);
    const doc = this.openDocument(rel) ?? (await vscode.workspace.openTextDocument(uri));
    const edit = new vscode.WorkspaceEdit();
    const old = doc.getText();
    edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(old.length)), text);
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new Error(`VS Code refused the edit to ${rel}; is the file read-only?`);
    }
    // The edit changed only the buffer; the save writes. The file must still be the one checked,
    // else the buffer is put back and nothing is saved.
    const now = await this.disk.inspect(rel).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    if (now instanceof Error || !now.exists || now.dev !== found.dev || now.ino !== found.ino) {
      const back = new vscode.WorkspaceEdit();
      back.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), old);
      await vscode.workspace.applyEdit(back);
      throw now instanceof Error ? now : new ConfinementError('WL_MOVED', rel, rel);
    }
    if (!(await doc.save())) {
      throw new Error(`Could not save ${rel} after the agent's edit.`);
    }
    // VS Code's save resolves the path itself; a swap in the last instant is at least reported.
    await this.disk.inspect(rel);
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
