// Initialize Novel as the novelist meets it, in a real temp folder with a scripted Prompter: the
// template written in the editor's language, the config read again, the first chapter opened and
// the next step said; a folder that already is a novel is left as it is and its worldline.yaml opened.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initializeNovel, type InitializeHost } from '../../../src/project/initializeFlow';
import { ScriptedPrompter } from '../fixtures/scriptedPrompter';

describe('Initialize Novel (flow)', () => {
  const made: string[] = [];
  afterEach(() => { for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

  function rig(displayLanguage: string) {
    const prompter = new ScriptedPrompter();
    const opened: string[] = [];
    let reloads = 0;
    const host: InitializeHost = {
      prompter, displayLanguage,
      openFile: (file) => Promise.resolve(void opened.push(file)),
      reloadConfig: () => Promise.resolve(void reloads++),
    };
    return { host, prompter, opened, reloads: () => reloads };
  }

  it('writes the template in the editor\'s language (the folder names the book), reloads, opens the first chapter, says what next', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-init-flow-'));
    made.push(root);
    const zh = rig('zh-CN');
    assert.equal(await initializeNovel(zh.host, root), true);
    const config = fs.readFileSync(path.join(root, 'worldline.yaml'), 'utf8');
    assert.match(config, /^language: zh$/m);
    assert.match(config, new RegExp(`^title: "${path.basename(root)}"$`, 'm'));
    assert.ok(fs.existsSync(path.join(root, 'chapters', '01.md')));
    assert.equal(zh.reloads(), 1);
    assert.deepEqual(zh.opened, [path.join(root, 'chapters', '01.md')]);
    assert.deepEqual(zh.prompter.texts(), ['Novel initialized: worldline.yaml and chapters/01.md are ready. Open the Worldline view to start writing.']);

    // Again: nothing changed, worldline.yaml opened instead, no reload.
    const again = rig('en');
    assert.equal(await initializeNovel(again.host, root, 'Another'), false);
    assert.equal(fs.readFileSync(path.join(root, 'worldline.yaml'), 'utf8'), config);
    assert.deepEqual(again.opened, [path.join(root, 'worldline.yaml')]);
    assert.equal(again.reloads(), 0);
    assert.deepEqual(again.prompter.texts(), ['This folder already has worldline.yaml; nothing was changed.']);
  });

  it('an English editor gets the English template under the title given', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-init-flow-'));
    made.push(root);
    const en = rig('en-US');
    assert.equal(await initializeNovel(en.host, root, 'Rain at the Inn'), true);
    const config = fs.readFileSync(path.join(root, 'worldline.yaml'), 'utf8');
    assert.match(config, /^language: en$/m);
    assert.match(config, /^title: "Rain at the Inn"$/m);
  });
});
