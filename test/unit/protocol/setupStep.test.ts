// The Chat's empty state: the next first-run step that is missing, in order (a folder,
// worldline.yaml, a model, the key), each with buttons that run real palette commands; words in
// the window's language; no step once everything is there, and none without the shell's inputs
// (the existing chat model stays as it was). The page may post the new commands, and only those.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHAT_COMMANDS, decodeFromChatPage } from '../../../src/protocol/chat';
import { chatModel, pageCommandId, setupStep, type SetupInputs } from '../../../src/protocol/chatModel';
import { bundle, en, zh } from '../fixtures/translation';

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };

const ready: SetupInputs = { folder: true, project: true, keyMissing: false, host: 'api.deepseek.com' };

describe('chat model: the first-run step', () => {
  it('shows what is missing first: folder, then worldline.yaml, then a model, then the key', () => {
    const order = [
      [{ ...ready, folder: false, project: false, keyMissing: true }, '', 'folder', ['openFolder']],
      [{ ...ready, project: false, keyMissing: true }, '', 'project', ['initializeNovel']],
      [{ ...ready, keyMissing: true }, '', 'model', ['chooseProvider', 'selectModel']],
      [{ ...ready, keyMissing: true }, 'deepseek-chat', 'key', ['setKey', 'chooseProvider']],
    ] as const;
    for (const [inputs, model, missing, commands] of order) {
      const step = setupStep(inputs, model, en);
      assert.equal(step?.missing, missing);
      assert.deepEqual(step?.actions.map((a) => a.command), commands);
    }
    assert.equal(setupStep(ready, 'deepseek-chat', en), undefined, 'nothing missing: the usual empty state');
    assert.match(setupStep({ ...ready, keyMissing: true }, 'm', en)!.text, /api\.deepseek\.com/);
  });

  it('speaks the window language, buttons included', () => {
    const step = setupStep({ ...ready, keyMissing: true }, 'm', zh)!;
    assert.match(step.text, /api\.deepseek\.com/);
    assert.deepEqual(step.actions.map((a) => a.label), [bundle['Set API Key'], bundle['Choose Provider…']]);
    for (const inputs of [{ ...ready, folder: false }, { ...ready, project: false }]) assert.ok(setupStep(inputs, '', zh));
  });

  it('rides on the chat model only when the shell gave the inputs', () => {
    const base = { story: undefined, session: undefined, novelTitle: '雨夜', model: '' };
    assert.equal('setup' in chatModel(base, en), false);
    assert.equal(chatModel({ ...base, setup: { ...ready, project: false } }, en).setup?.missing, 'project');
    assert.equal('setup' in chatModel({ ...base, model: 'x', setup: ready }, en), false);
  });

  it('every button runs a command the extension contributes (or VS Code\'s folder dialog)', () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const c of CHAT_COMMANDS) {
      const id = pageCommandId(c);
      assert.ok(contributed.has(id) || id === 'vscode.openFolder', `${c} → ${id}`);
    }
  });

  it('the page may post each of those commands, and nothing else', () => {
    for (const command of CHAT_COMMANDS) assert.deepEqual(decodeFromChatPage({ type: 'command', command }), { ok: true, message: { type: 'command', command } });
    assert.equal(decodeFromChatPage({ type: 'command', command: 'workbench.action.terminal.new' }).ok, false);
    assert.equal(decodeFromChatPage({ type: 'command', command: 'deleteFile' }).ok, false);
  });
});
