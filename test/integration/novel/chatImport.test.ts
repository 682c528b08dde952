// Import SillyTavern Chat in a real VS Code with the sample novel: a chat with swipes (the path
// given, so no dialog opens) becomes the current session with the chosen swipe on the branch, the
// Chat's ◀ ▶ (the page's `variant` message) moves the branch to the other swipes, and Export
// Session as SillyTavern Chat writes a file that reads back as the same branch. The chat has no
// author's note: the sample novel's codex is left as it is for the suites after this one.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatImportOutcome } from '../../../src/import/chat/importFlow';
import { readChatFile } from '../../../src/import/chat/read';
import { api } from './helpers';

const CHAT = [
  { user_name: 'Mara', character_name: 'Aster', create_date: '2024-7-12@01h31m37s', chat_metadata: { variables: { lantern: 'lit' } } },
  { name: 'Mara', is_user: true, is_system: false, send_date: 'July 12, 2024 1:31am', mes: 'The rain will not stop.' },
  { name: 'Aster', is_user: false, is_system: false, send_date: 'July 12, 2024 1:32am', mes: 'Second swipe.', swipe_id: 1, swipes: ['First swipe.', 'Second swipe.', 'Third swipe.'] },
  { name: 'Mara', is_user: true, is_system: false, send_date: 'July 12, 2024 1:33am', mes: 'Then we wait.' },
  { name: 'Aster', is_user: false, is_system: false, send_date: 'July 12, 2024 1:34am', mes: 'We wait.', swipe_id: 0, swipes: ['We wait.'] },
].map((o) => JSON.stringify(o)).join('\n');

async function waitFor<T>(probe: () => T | undefined | false, what: string, ms = 10000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('SillyTavern chat import in a real VS Code', function () {
  this.timeout(60000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-st-integration-'));
  });

  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports a chat with swipes as the current session, and ◀ ▶ moves between its swipes', async () => {
    const worldline = await api();
    await vscode.workspace.getConfiguration('worldline').update('proseFollowsBranch', 'never', vscode.ConfigurationTarget.Workspace);
    const file = path.join(dir, 'Aster - 2024-7-12@01h31m37s.jsonl');
    fs.writeFileSync(file, CHAT);
    const outcome = await vscode.commands.executeCommand<ChatImportOutcome | undefined>('worldline.importSillyTavernChat', file);
    assert.equal(outcome?.kind, 'imported');
    assert.equal(fs.readFileSync(file, 'utf8'), CHAT, 'the source is never modified');
    assert.equal(worldline.novel()?.session?.header.id, outcome.sessionId, 'the imported session is current');
    assert.equal(worldline.novel()?.session?.title, 'Aster (SillyTavern)');

    const texts = () => worldline.chat().transcript().map((m) => m.text);
    const all = ['The rain will not stop.', 'Second swipe.', 'Then we wait.', 'We wait.'];
    await waitFor(() => JSON.stringify(texts()) === JSON.stringify(all), `the Chat to show the imported branch, got ${JSON.stringify(texts())}`);
    const swiped = worldline.chat().transcript()[1]!;
    assert.equal(swiped.speaker, 'Aster');
    assert.deepEqual(swiped.variant, { index: 1, count: 3 });
    assert.equal(worldline.chat().transcript()[0]!.speaker, 'Mara');

    // ▶ as the Chat's button sends it: the branch moves to the third swipe (nothing after it).
    await worldline.chat().onMessage({ type: 'variant', id: swiped.id, delta: 1 });
    await waitFor(() => texts()[1] === 'Third swipe.', 'the third swipe on the branch');
    assert.deepEqual(texts(), ['The rain will not stop.', 'Third swipe.']);
    assert.deepEqual(worldline.chat().transcript()[1]!.variant, { index: 2, count: 3 });

    // ◀ twice: back past the chosen swipe to the first one.
    await worldline.chat().onMessage({ type: 'variant', id: worldline.chat().transcript()[1]!.id, delta: -1 });
    await waitFor(() => texts()[1] === 'Second swipe.', 'the second swipe again');
    assert.deepEqual(texts(), all, 'the chosen swipe brings its continuation back');
    await worldline.chat().onMessage({ type: 'variant', id: worldline.chat().transcript()[1]!.id, delta: -1 });
    await waitFor(() => texts()[1] === 'First swipe.', 'the first swipe');
    await worldline.chat().onMessage({ type: 'variant', id: worldline.chat().transcript()[1]!.id, delta: 1 });
    await waitFor(() => JSON.stringify(texts()) === JSON.stringify(all), 'back on the imported branch');
  });

  it('the same chat again is noticed: "Open the Imported Session" makes no new session', async () => {
    const worldline = await api();
    const before = (await worldline.novel()!.library.list()).length;
    const outcome = await vscode.commands.executeCommand<ChatImportOutcome | undefined>('worldline.importSillyTavernChat', path.join(dir, 'Aster - 2024-7-12@01h31m37s.jsonl'), 'open');
    assert.equal(outcome?.kind, 'opened');
    assert.equal((await worldline.novel()!.library.list()).length, before);
  });

  it('Export Session as SillyTavern Chat writes the branch, its variants as swipes, and it imports back to the same branch', async () => {
    const worldline = await api();
    const target = path.join(dir, 'exported.jsonl');
    const written = await vscode.commands.executeCommand<string | undefined>('worldline.exportSillyTavernChat', target);
    assert.equal(written, target);
    const back = readChatFile({ name: 'exported', text: fs.readFileSync(target, 'utf8') });
    assert.deepEqual(back.skipped, []);
    assert.deepEqual(back.messages.map((m) => m.swipes[m.chosen]!.text), ['The rain will not stop.', 'Second swipe.', 'Then we wait.', 'We wait.']);
    assert.deepEqual(back.messages[1]!.swipes.map((s) => s.text), ['First swipe.', 'Second swipe.', 'Third swipe.']);
    assert.equal(back.metadata.variables && (back.metadata.variables as Record<string, unknown>).lantern, 'lit', 'the variables went back');

    const again = await vscode.commands.executeCommand<ChatImportOutcome | undefined>('worldline.importSillyTavernChat', target, 'copy');
    assert.equal(again?.kind, 'imported');
    const texts = () => worldline.chat().transcript().map((m) => m.text);
    await waitFor(() => worldline.novel()?.session?.header.id === again.sessionId && texts().length === 4, 'the round-tripped session in the Chat');
    assert.deepEqual(texts(), ['The rain will not stop.', 'Second swipe.', 'Then we wait.', 'We wait.']);
    assert.deepEqual(worldline.chat().transcript()[1]!.variant, { index: 1, count: 3 });
  });
});
