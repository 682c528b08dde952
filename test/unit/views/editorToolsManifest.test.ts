// The writing tools in the manifest: the editor's context menu has a Worldline submenu with every
// tool, the version actions show in the editor title only while a review is open, each tool has a
// key that works only in a manuscript editor, and the versions setting is a count from 1.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface MenuItem { command?: string; submenu?: string; when?: string; group?: string }
interface Manifest {
  contributes: {
    commands: { command: string; icon?: string; enablement?: string }[];
    submenus: { id: string; label: string }[];
    menus: Record<string, MenuItem[]>;
    keybindings: { command: string; key: string; mac?: string; when?: string }[];
    configuration: { properties: Record<string, { type: string; default: unknown; minimum?: number; maximum?: number }> };
  };
}
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as Manifest;
const { contributes } = manifest;

const TOOLS = ['worldline.rewrite', 'worldline.expand', 'worldline.shrink', 'worldline.describe', 'worldline.continueFromCursor', 'worldline.sendSelectionToChat'];
const VERSIONS = ['worldline.versions.previous', 'worldline.versions.next', 'worldline.versions.accept', 'worldline.versions.discard'];

describe('writing tools in the manifest', () => {
  it('the editor context menu has a Worldline submenu with every tool and the version actions', () => {
    const entry = contributes.menus['editor/context']?.find((m) => m.submenu === 'worldline.editorTools');
    assert.ok(entry, 'the submenu is in the editor context menu');
    assert.match(entry.when ?? '', /worldline\.isNovel/);
    assert.ok(contributes.submenus.some((s) => s.id === 'worldline.editorTools'));
    const items = (contributes.menus['worldline.editorTools'] ?? []).map((m) => m.command);
    for (const id of [...TOOLS, ...VERSIONS]) assert.ok(items.includes(id), id);
  });

  it('Accept, Previous / Next and Discard are editor title actions, with icons, only while a review is open', () => {
    const title = contributes.menus['editor/title'] ?? [];
    for (const id of VERSIONS) {
      const item = title.find((m) => m.command === id);
      assert.ok(item, id);
      assert.match(item.when ?? '', /worldline\.reviewingVersions/);
      assert.match(item.group ?? '', /^navigation/);
      assert.ok(contributes.commands.find((c) => c.command === id)?.icon, `${id} has an icon`);
    }
  });

  it('every tool has a key of the Worldline chord, only in a manuscript editor; the version keys only while reviewing', () => {
    for (const id of TOOLS) {
      const b = contributes.keybindings.find((k) => k.command === id);
      assert.ok(b, id);
      assert.match(b.key, /^ctrl\+alt\+j \S+$/);
      assert.match(b.mac ?? '', /^ctrl\+cmd\+j \S+$/);
      assert.match(b.when ?? '', /editorTextFocus/);
      assert.match(b.when ?? '', /worldline\.isNovel/);
    }
    for (const id of VERSIONS) assert.match(contributes.keybindings.find((k) => k.command === id)?.when ?? '', /worldline\.reviewingVersions/);
  });

  it('worldline.rewrite.versions is a count from 1, default 1', () => {
    const setting = contributes.configuration.properties['worldline.rewrite.versions'];
    assert.deepEqual(setting && [setting.type, setting.default, setting.minimum], ['integer', 1, 1]);
  });
});
