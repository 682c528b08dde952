// Proves the harness works: we are inside a real VS Code with the test workspace open.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';

describe('smoke', () => {
  it('runs inside VS Code', () => {
    assert.strictEqual(typeof vscode.version, 'string');
    assert.match(vscode.version, /^\d+\.\d+\.\d+/);
  });

  it('has the test workspace folder open', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.ok(folders.length > 0, 'no workspace folder is open');
    // run-integration.mjs passes the folder it opened; this also proves env reaches the ext host.
    const expected = process.env.WORLDLINE_TEST_WORKSPACE;
    if (expected) assert.strictEqual(path.resolve(folders[0].uri.fsPath), path.resolve(expected));
  });
});
