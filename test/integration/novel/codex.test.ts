// The Codex view in a real VS Code with the sample novel: an entry file is listed under its kind,
// a roster name without an entry is offered, Create Entry drafts it through the test model server
// and writes it only on Write (Discard writes nothing), and a turn that names it carries its lore
// to the model and marks it "injected last turn" (an entry named nowhere stays unmarked).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ModelServer, RecordedRequest } from '../../fixtures/modelServer';
import type { CodexNode } from '../../../src/codex/tree';
import { answerQuestions, api, isScribe, SHOW, startNovelSession } from './helpers';

const isDraft = (r: RecordedRequest): boolean => (r.system ?? '').startsWith('你是小说设定集的编辑') || (r.system ?? '').startsWith("You edit a novel's codex");

function root(): string {
  return vscode.workspace.workspaceFolders![0]!.uri.fsPath;
}

async function nodes(): Promise<{ top: CodexNode[]; children: (n: CodexNode) => CodexNode[] }> {
  const tree = (await api()).codex();
  await tree.reload();
  return { top: tree.getChildren(), children: (n) => tree.getChildren(n) };
}

async function entryNames(kind: string): Promise<string[]> {
  const { top, children } = await nodes();
  const group = top.find((n) => n.kind === 'group' && n.group === kind);
  return group ? children(group).map((n) => (n.kind === 'entry' ? n.entry.name : '')) : [];
}

async function missingNode(name: string): Promise<CodexNode | undefined> {
  const { top, children } = await nodes();
  const group = top.find((n) => n.kind === 'missingGroup');
  return group && children(group).find((n) => n.kind === 'missing' && n.missing.name === name);
}

/** Answers the Write/Discard question with `button`, recording the question. */
function answerDraft(button: string, asked: string[]): vscode.Disposable {
  return answerQuestions((message, buttons) => {
    if (!buttons.includes(button)) return SHOW;
    asked.push(message);
    return button;
  });
}

describe('Codex view in a real VS Code', function () {
  let server: ModelServer;

  before(async () => {
    ({ server } = await startNovelSession('codex test'));
    const file = path.join(root(), 'codex', 'characters', '青梧.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '---\nname: 青梧\nkind: character\nkeys: [青梧, 阿梧]\n---\n\n听雨轩的老板娘，煮得一手好茶。\n');
    // Named nowhere in the story: never injected.
    fs.mkdirSync(path.join(root(), 'codex', 'items'), { recursive: true });
    fs.writeFileSync(path.join(root(), 'codex', 'items', '铜铃.md'), '---\nname: 铜铃\nkind: item\n---\n\n檐下的旧铜铃。\n');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  it('lists the entry under Characters, and the roster names without one', async () => {
    assert.deepEqual(await entryNames('character'), ['青梧']);
    assert.deepEqual(await entryNames('item'), ['铜铃']);
    assert.ok(await missingNode('沈砚'), 'a roster character without an entry is offered');
    assert.ok(await missingNode('听雨轩'), 'the opening place is offered');
    assert.equal(await missingNode('青梧'), undefined, 'a name with an entry is not');
  });

  it('Create Entry: Discard writes nothing; Write writes the draft as the editor holds it', async () => {
    const draft = server.route(isDraft, { text: '```json\n{"keys":["沈公子"],"body":"外乡来的书生，雨夜投宿听雨轩。"}\n```' }, 'draft');
    const target = path.join(root(), 'codex', 'characters', '沈砚.md');
    try {
      const asked: string[] = [];
      let answer = answerDraft('Discard', asked);
      try {
        const discarded = await vscode.commands.executeCommand('worldline.codex.createEntry', await missingNode('沈砚'));
        assert.deepEqual(discarded, { discarded: true });
      } finally {
        answer.dispose();
      }
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /codex\/characters\/沈砚\.md/);
      assert.ok(!fs.existsSync(target), 'nothing is written on Discard');

      answer = answerDraft('Write', asked);
      try {
        const result = await vscode.commands.executeCommand('worldline.codex.createEntry', await missingNode('沈砚'));
        assert.deepEqual(result, { written: 'codex/characters/沈砚.md' });
      } finally {
        answer.dispose();
      }
      const request = server.chatRequests().filter(isDraft).at(-1)!;
      assert.match(String(request.messages?.at(-1)?.content), /【名字】沈砚/);
      const text = fs.readFileSync(target, 'utf8');
      assert.match(text, /^---\nname: 沈砚\nkind: character\nkeys: \[沈砚, ?沈公子\]\n---\n/);
      assert.match(text, /外乡来的书生/);
      assert.deepEqual(await entryNames('character'), ['沈砚', '青梧'].sort((a, b) => a.localeCompare(b)));
      assert.equal(await missingNode('沈砚'), undefined);
    } finally {
      draft.remove();
    }
  });

  it('a turn naming the entry carries its lore, and the view marks it injected', async () => {
    const worldline = await api();
    server.enqueue({ text: '好。' });
    const result = await worldline.agent().send('沈公子推门进来。');
    assert.equal(result?.status, 'done', result?.error);
    await result?.scribeDone;
    const last = server.chatRequests().filter((r) => !isScribe(r) && !isDraft(r)).at(-1)!;
    const sent = (last.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    assert.ok(sent.includes('外乡来的书生'), 'the entry named by its key is in the request');
    const { top, children } = await nodes();
    const rows = children(top.find((n) => n.kind === 'group' && n.group === 'character')!);
    const shen = rows.find((n) => n.kind === 'entry' && n.entry.name === '沈砚');
    assert.ok(shen && shen.kind === 'entry' && shen.injected, 'the badge is on the injected entry');
    const qing = rows.find((n) => n.kind === 'entry' && n.entry.name === '青梧');
    assert.ok(qing && qing.kind === 'entry' && qing.injected, 'present in the scene state, so injected too');
    const bell = children(top.find((n) => n.kind === 'group' && n.group === 'item')!)[0];
    assert.ok(bell && bell.kind === 'entry' && bell.entry.name === '铜铃' && !bell.injected, 'an entry named nowhere is not');
  });
});
