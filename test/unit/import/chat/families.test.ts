// A character's chat folder grouped into families by `main_chat` links.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { chatFamilies, chatName, parentChatName } from '../../../../src/import/chat/families';
import { runs } from '../../long-mode';

const f = (name: string, mainChat?: string) => ({ name, ...(mainChat !== undefined ? { mainChat } : {}) });
const names = (fam: { files: readonly { name: string }[] }) => fam.files.map((x) => x.name);

describe('chat import: families', () => {
  it('puts a chat, its branches and a branch of a branch in one family, root first, each after its parent', () => {
    const files = [f('B2', 'B1'), f('unrelated'), f('B1', 'main'), f('main'), f('CP', 'main')];
    const families = chatFamilies(files);
    assert.equal(families.length, 2);
    const main = families.find((x) => x.root.name === 'main')!;
    assert.deepEqual(names(main), ['main', 'B1', 'CP', 'B2']);
    assert.deepEqual(main.depths, [0, 1, 1, 2]);
    const other = families.find((x) => x.root.name === 'unrelated')!;
    assert.deepEqual(names(other), ['unrelated']);
    assert.deepEqual(other.depths, [0]);
  });

  it('keeps unrelated chats apart, in the folder order of their roots', () => {
    const families = chatFamilies([f('a'), f('b'), f('c')]);
    assert.deepEqual(families.map((x) => x.root.name), ['a', 'b', 'c']);
  });

  it('makes a branch whose parent is missing (renamed, deleted) the root of its own family', () => {
    const families = chatFamilies([f('main'), f('orphan', 'gone'), f('child', 'orphan')]);
    assert.deepEqual(families.map(names), [['main'], ['orphan', 'child']]);
  });

  it('ends at a loop: one family rooted at its first file, every file once', () => {
    const families = chatFamilies([f('x', 'z'), f('y', 'x'), f('z', 'y'), f('tail', 'y')]);
    assert.equal(families.length, 1);
    assert.equal(families[0]!.root.name, 'x');
    assert.deepEqual([...names(families[0]!)].sort(), ['tail', 'x', 'y', 'z']);
    assert.deepEqual(chatFamilies([f('self', 'self')]).map(names), [['self']]);
  });

  it("follows SillyTavern's old checkpoints without main_chat by the name before the last \"Checkpoint #\" (solo chats only)", () => {
    const families = chatFamilies([f('Seraphina - 2023-5-12'), f('Seraphina - 2023-5-12 Checkpoint #1'), f('Checkpoint #2 - 2023-5-13')]);
    assert.deepEqual(families.map(names), [['Seraphina - 2023-5-12', 'Seraphina - 2023-5-12 Checkpoint #1'], ['Checkpoint #2 - 2023-5-13']]);
    assert.equal(parentChatName(f('a Checkpoint #1 Checkpoint #2')), 'a Checkpoint #1');
    assert.equal(parentChatName({ name: 'a Checkpoint #1', isGroup: true }), undefined);
    assert.equal(parentChatName(f('a Checkpoint #1', 'b')), 'b', 'main_chat wins');
  });

  it('matches names with or without .jsonl', () => {
    assert.equal(chatName('a.jsonl'), 'a');
    const families = chatFamilies([f('main.jsonl'), f('b.jsonl', 'main')]);
    assert.deepEqual(families.map(names), [['main.jsonl', 'b.jsonl']]);
  });

  it('property: every file lands in exactly one family, after its parent when the parent is in it', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(12), { nil: undefined }), { maxLength: 12 }), (links) => {
        const files = links.map((p, i) => f(`c${i}`, p === undefined ? undefined : `c${p}`));
        const families = chatFamilies(files);
        const all = families.flatMap((x) => x.files);
        assert.equal(all.length, files.length);
        assert.equal(new Set(all).size, files.length);
        for (const fam of families) {
          assert.equal(fam.files[0], fam.root);
          fam.files.forEach((file, k) => {
            if (k === 0) return;
            const parent = fam.files.findIndex((x) => x.name === file.mainChat);
            assert.ok(parent >= 0 && parent < k, `${file.name} after ${String(file.mainChat)}`);
            assert.equal(fam.depths[k], fam.depths[parent]! + 1);
          });
        }
      }),
      { numRuns: runs(300, 5000) },
    );
  });
});
