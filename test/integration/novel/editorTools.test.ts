// The writing tools in a real VS Code, with the sample novel open and the test model server as the
// endpoint: select a passage, Rewrite ×2 (the setting), step Previous / Next in the review, Accept.
// The file on disk holds the accepted version and the Chat shows the turn with ◀ 1/2 ▶.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ModelServer, ScriptedReply } from '../../fixtures/modelServer';
import type { VersionReview } from '../../../src/story/versionReview';
import type { VersionRun } from '../../../src/story/versionRun';
import { api, isScribe, startNovelSession } from './helpers';

function chapterUri(): vscode.Uri {
  return vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'chapters', '01.md');
}

/** The agent's turn for one version: edit_file on exactly the passage. */
function version(path: string, oldText: string, newText: string, reply: string): ScriptedReply[] {
  return [{ toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path, old_text: oldText, new_text: newText }) }] }, { text: reply }];
}

const reviewDiffs = (file: vscode.Uri): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
  .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === 'worldline-checkpoint' && t.input.modified.fsPath === file.fsPath);

describe('Writing tools in the editor, in a real VS Code', function () {
  this.timeout(60000);
  let server: ModelServer;
  const config = () => vscode.workspace.getConfiguration('worldline');

  before(async () => {
    ({ server } = await startNovelSession('writing tools'));
    // Side calls without tools (a continuity judge) never take the agent's scripted replies.
    server.route((r) => !r.tools?.length && !isScribe(r), { text: '{"verdicts":[]}' }, 'side');
    await config().update('rewrite.versions', 2, vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    await config().update('rewrite.versions', undefined, vscode.ConfigurationTarget.Workspace);
    await server.close();
  });

  it('select a passage, Rewrite ×2, Previous / Next, Accept: the accepted version on disk, ◀ 1/2 ▶ in the Chat', async () => {
    const worldline = await api();
    const uri = chapterUri();
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    // The first paragraph of prose (other suites append to the chapter, never above it).
    let lineNo = 0;
    while (lineNo < doc.lineCount && (doc.lineAt(lineNo).isEmptyOrWhitespace || doc.lineAt(lineNo).text.startsWith('#'))) lineNo++;
    const line = doc.lineAt(lineNo);
    const picked = line.text;
    editor.selection = new vscode.Selection(line.range.start, line.range.end);
    const original = fs.readFileSync(uri.fsPath, 'utf8');
    const disk = () => fs.readFileSync(uri.fsPath, 'utf8');
    const withText = (text: string) => original.replace(picked, text);
    /** What went on, for a failure message: the Chat's notice, the branch, the model's requests. */
    const diagnosis = (): string => {
      const model = worldline.chat().model();
      const path = worldline.novel()?.session?.path().map((e) => (e.type === 'assistant' ? `assistant(${e.finish}${e.toolCalls?.length ? `,${e.toolCalls.length} call` : ''})` : e.type === 'tool' ? `tool(${e.isError ? 'error' : 'ok'})` : e.type));
      const requests = server.requests.map((r) => `${r.path}:${r.route ?? '-'}${r.tools?.length ? '+tools' : ''}`);
      return `notice: ${JSON.stringify(model.notice)}; path: ${path?.join(' ')}; requests: ${requests.join(' ')}; picked: ${JSON.stringify(picked)}`;
    };

    const asked = server.chatRequests().filter((r) => r.tools?.length).length;
    server.enqueue(...version('chapters/01.md', picked, '【版本甲】', '改好了。'), ...version('chapters/01.md', picked, '【版本乙】', '又写了一版。'));
    const run = await vscode.commands.executeCommand<VersionRun>('worldline.rewrite', '');
    assert.equal(run?.kind, 'review', `the run: ${JSON.stringify(run)}; ${diagnosis()}`);
    assert.equal(run.kind === 'review' && run.made, 2, `two versions were written; ${diagnosis()}`);
    await worldline.agent().scribeIdle();

    // Two turns went to the agent, the instruction naming the place and quoting the passage.
    const agent = server.chatRequests().filter((r) => r.tools?.length).slice(asked);
    assert.equal(agent.length, 4, `two versions, each a tool step and a reply; ${diagnosis()}`);
    const sent = String(agent[0]?.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
    assert.ok(sent.includes(`chapters/01.md 第 ${lineNo + 1} 行`), 'the instruction names the file and the line');
    assert.ok(sent.includes(picked) && sent.includes('edit_file'), 'and quotes the passage, asking for edit_file');
    assert.equal(disk(), withText('【版本乙】'), `the review opens on the newest version; ${diagnosis()}`);
    assert.ok(reviewDiffs(uri).length > 0, 'the diff against the original is open');

    const at = (r: VersionReview | undefined) => r && `${r.index + 1}/${r.replies.length}`;
    assert.equal(at(await vscode.commands.executeCommand<VersionReview>('worldline.versions.previous')), '1/2');
    assert.equal(disk(), withText('【版本甲】'));
    assert.equal(at(await vscode.commands.executeCommand<VersionReview>('worldline.versions.next')), '2/2');
    assert.equal(disk(), withText('【版本乙】'));
    assert.equal(at(await vscode.commands.executeCommand<VersionReview>('worldline.versions.previous')), '1/2');
    assert.equal(disk(), withText('【版本甲】'));

    const accepted = await vscode.commands.executeCommand<VersionReview>('worldline.versions.accept');
    assert.equal(at(accepted), '1/2');
    await worldline.agent().scribeIdle();
    assert.equal(disk(), withText('【版本甲】'), 'the accepted version is on disk');
    assert.equal(reviewDiffs(uri).length, 0, 'the review\'s diff is closed');
    assert.equal(worldline.editorTools().review(), undefined, 'no review is open');

    const reply = worldline.chat().model().messages.filter((m) => m.role === 'assistant').at(-1);
    assert.deepEqual(reply?.variant, { index: 0, count: 2 }, 'the Chat shows the turn with ◀ 1/2 ▶');
  });
});
