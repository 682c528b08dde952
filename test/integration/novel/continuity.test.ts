// The continuity checker in a real VS Code, with the sample novel open and the test model server as
// the endpoint: a turn whose prose has a departed character speak shows a Worldline problem on
// exactly that substring of the chapter, it stays on it after an edit above it, its quick fix
// Ask the Agent to Fix starts a turn whose instruction names the finding, and Mark as Intended
// takes it away.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { ModelServer, RecordedRequest } from '../../fixtures/modelServer';
import { api, isScribe, isSummariser, proseTurn, startNovelSession } from './helpers';

const SEEDED = '\n雨还在下。青梧说：“你怎么又回来了？”\n';
const QUOTE_PART = '青梧说';

/** The side model's continuity calls: not the agent (no tools), not the scribe or the summariser. */
const isJudge = (r: RecordedRequest): boolean => !r.tools?.length && !isScribe(r) && !isSummariser(r);

function chapterUri(): vscode.Uri {
  return vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'chapters', '01.md');
}

function problems(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Worldline');
}

async function until(check: () => boolean, what: string, ms = 10000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('Continuity problems in a real VS Code', function () {
  this.timeout(60000);
  let server: ModelServer;

  before(async () => {
    ({ server } = await startNovelSession('continuity test'));
    // The judge confirms what the prompt shows (its prompt is real, this answer a fixture).
    server.route(isJudge, (req) => ({ text: judgeAnswer(req) }), 'judge');
  });

  after(async () => {
    await server.close();
  });

  it('a departed character who speaks shows as a problem on the exact substring; Ask the Agent to Fix starts a turn', async () => {
    const worldline = await api();
    // 青梧 left the scene (the novelist's edit of the scene state: still in the roster).
    const edited = await worldline.sceneState().edit({ characters: { 青梧: null } });
    assert.ok(edited.ok, edited.error);
    await proseTurn(server, '写沈砚回到客栈。', SEEDED);
    await worldline.agent().scribeIdle(); // the continuity check runs after the scribe
    await worldline.continuity().whenUpdated();

    const uri = chapterUri();
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await until(() => problems(uri).length > 0, 'a Worldline problem in the chapter');
    const [problem] = problems(uri);
    assert.ok(problem);
    const flagged = doc.getText(problem.range);
    assert.ok(flagged.includes(QUOTE_PART), `the range covers the error: "${flagged}"`);
    assert.ok(SEEDED.includes(flagged), `the range is a substring of the turn's prose: "${flagged}"`);
    assert.equal(problem.code, 'departed-acts');
    assert.ok(problem.message.length > 0);

    // An edit above it: the problem moves with its quote.
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), '（作者补的一行）\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await until(() => problems(uri)[0]?.range.start.line === problem.range.start.line + 1, 'the problem to move down a line');
    const moved = problems(uri)[0] as vscode.Diagnostic;
    assert.equal(doc.getText(moved.range), flagged, 'still exactly its substring after the edit');

    // The quick fixes on it.
    const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, moved.range)) ?? [];
    const titles = actions.map((a) => a.title);
    for (const t of ['Ask the Agent to Fix', 'Mark as Intended', 'Update Scene State']) assert.ok(titles.includes(t), `${t} in ${titles.join(', ')}`);
    const fix = actions.find((a) => a.title === 'Ask the Agent to Fix');
    assert.ok(fix?.command);
    await doc.save();

    const asked = server.chatRequests().filter((r) => r.tools?.length).length;
    server.enqueue({ text: '改好了。' });
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    const agent = server.chatRequests().filter((r) => r.tools?.length);
    assert.equal(agent.length, asked + 1, 'one new turn went to the agent');
    const sent = (agent.at(-1)?.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    assert.ok(sent.includes(flagged), 'the instruction quotes the finding');
    assert.ok(sent.includes('chapters/01.md'), 'and names the chapter');
    assert.ok(sent.includes(problem.message), 'and gives the reason');
    await worldline.agent().scribeIdle();

    // The reply changed nothing: the problem is still there; Mark as Intended takes it away on this branch.
    await worldline.continuity().whenUpdated();
    const still = problems(uri)[0];
    assert.ok(still, 'still shown after a turn that did not fix it');
    const again = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, still.range)) ?? [];
    const mark = again.find((a) => a.title === 'Mark as Intended');
    assert.ok(mark?.command);
    await vscode.commands.executeCommand(mark.command.command, ...(mark.command.arguments ?? []));
    await worldline.continuity().whenUpdated();
    await until(() => problems(uri).length === 0, 'the problem to go once marked as intended');
  });
});

/**
 * The judge's answer: every candidate the prompt lists confirmed with its own quote. Built from
 * the prompt the real judge sends (src/continuity/judge.ts).
 */
function judgeAnswer(req: RecordedRequest): string {
  const user = String(req.messages?.find((m) => m.role === 'user')?.content ?? '');
  const numbers = [...user.matchAll(/^(\d+)\. \[/gm)].map((m) => Number(m[1]));
  return JSON.stringify({ verdicts: numbers.map((candidate) => ({ candidate, error: true, quote: '', reason: '' })) });
}
