// Restores write manuscript files on disk. VS Code reloads an open, unmodified document from
// disk on its own, but a little later: an edit or a save in between would meet "the file has
// changed in the meantime". These helpers wait until open documents show what is on disk.
import * as vscode from 'vscode';

/** Waits (up to `timeoutMs`) until each open, unmodified document among `uris` matches its file. */
export async function waitForDocumentsToMatchDisk(uris: readonly vscode.Uri[], timeoutMs = 3000): Promise<void> {
  const wanted = new Set(uris.map((u) => u.toString()));
  const docs = vscode.workspace.textDocuments.filter((d) => wanted.has(d.uri.toString()) && !d.isDirty && !d.isClosed);
  const deadline = Date.now() + timeoutMs;
  for (const doc of docs) {
    let disk: string | undefined;
    try {
      disk = new TextDecoder().decode(await vscode.workspace.fs.readFile(doc.uri));
    } catch {
      continue; // deleted by the restore: the editor keeps its tab, VS Code marks it deleted
    }
    while (doc.getText() !== disk && !doc.isDirty && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 40));
    }
  }
}
